//! SageMaker's OpenAI-compatible API on the runtime port: `POST
//! /endpoints/EP/openai/v1/chat/completions` and
//! `/endpoints/EP/inference-components/IC/openai/v1/chat/completions`, authenticated by a
//! bearer token ([`token`]), answered by the same containers as `/invocations` through the same
//! invocation core (so its metrics and logs count these calls like any invocation). The
//! tool-calling LLM answers Chat Completions as it does on `/invocations` (messages, `tools` →
//! `tool_calls`, `stream: true` → server-sent events ending `data: [DONE]`, usage); a container
//! that does not serve Chat Completions (the XGBoost, text- and image-classifier ones) answers
//! 404, which SageMaker reports as a ModelError (424) quoting it. Only `chat/completions` is
//! routed, as on AWS; the inference component goes in the path, never in the header. The
//! session and prefix-aware headers of InvokeEndpoint are read here too (whether AWS honours
//! them on these paths is not documented; the sandbox does).

pub mod reply;
pub mod token;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;

use crate::sandbox::faults::FaultKind;
use crate::sandbox::http::wire::{ApiError, bytes_response};
use crate::sandbox::runtime::errors::{model_error, validation_error};
use crate::sandbox::runtime::invoke::invoke;
use crate::sandbox::runtime::request::{InvokeRequest, Outcome};
use crate::sandbox::runtime::stream::dropped_response;
use crate::sandbox::runtime::{instance, sessions};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::containers::ContainerKind;
use crate::sandbox::world::sandbox::Sandbox;

/// The one operation SageMaker routes on the OpenAI-compatible paths.
pub const CHAT_COMPLETIONS: &str = "chat/completions";

/// An OpenAI-compatible call: the endpoint, the inference component named in the path, and
/// what follows `openai/v1/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target<'a> {
    /// Endpoint name.
    pub endpoint: &'a str,
    /// Inference component, when the path names one.
    pub component: Option<&'a str>,
    /// The OpenAI operation path (`chat/completions`).
    pub operation: &'a str,
}

/// The OpenAI-compatible call a runtime path (what follows `/endpoints/`) is, if it is one.
pub fn target(rest: &str) -> Option<Target<'_>> {
    let (endpoint, after) = rest.split_once('/')?;
    let (component, after) = match after.strip_prefix("inference-components/") {
        Some(r) => {
            let (ic, a) = r.split_once('/')?;
            (Some(ic), a)
        }
        None => (None, after),
    };
    let operation = after.strip_prefix("openai/v1/")?;
    Some(Target {
        endpoint,
        component,
        operation,
    })
}

/// Serves one OpenAI-compatible call.
pub async fn handle(
    sb: Arc<Sandbox>,
    method: &Method,
    target: Target<'_>,
    headers: &HeaderMap,
    body: Bytes,
) -> Response {
    let now = now_epoch();
    if let Some(refused) = refusal(&sb, method, &target, headers, now) {
        return reply::error(refused);
    }
    let stream = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("stream")?.as_bool())
        .unwrap_or(false);
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let session_id = header("x-amzn-sagemaker-session-id");
    let session = match sessions::pinned(&sb, (target.endpoint, target.component), session_id, false, now) {
        Ok(session) => session,
        Err(e) => return reply::error(e),
    };
    let req = InvokeRequest {
        endpoint: target.endpoint,
        content_type: "application/json",
        body: &body,
        target_variant: session.as_ref().map(|s| s.variant.as_str()),
        inference_component: target.component,
        session_id,
        instance: session.as_ref().map(|s| s.instance),
        prefix_aware_id: header("x-amzn-sagemaker-prefix-aware-id"),
        openai: true,
        ..Default::default()
    };
    let mut outcome = invoke(&sb, &req, now);
    if let Some(kind) = outcome.sim.as_ref().map(|s| s.kind)
        && kind != ContainerKind::Generator
    {
        outcome.result = Err(not_served(&sb, target.endpoint, kind));
    }
    let mut extra = sessions::answer_headers(&sb, &req, &outcome, now);
    extra.extend(instance::header(target.endpoint, &outcome));
    let mut resp = answer(&sb, outcome, stream).await;
    for (name, value) in extra {
        if let Ok(v) = HeaderValue::from_str(&value) {
            resp.headers_mut().insert(name, v);
        }
    }
    resp
}

/// The refusal, if any, before the container: the method, the operation, the token, the
/// component header.
fn refusal(sb: &Sandbox, method: &Method, target: &Target<'_>, headers: &HeaderMap, now: f64) -> Option<ApiError> {
    if method != Method::POST {
        return Some(ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            format!("{method} is not supported on /openai/v1/{}; use POST", target.operation),
        ));
    }
    if target.operation != CHAT_COMPLETIONS {
        return Some(ApiError::new(
            StatusCode::NOT_FOUND,
            "UnknownOperationException",
            format!(
                "The OpenAI-compatible API of SageMaker serves only /openai/v1/{CHAT_COMPLETIONS}, not /openai/v1/{}",
                target.operation
            ),
        ));
    }
    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok());
    if let Err(e) = token::check(authorization, &sb.config.region, now) {
        return Some(e);
    }
    headers.contains_key("x-amzn-sagemaker-inference-component").then(|| {
        validation_error(format!(
            "The X-Amzn-SageMaker-Inference-Component header is not supported on the OpenAI-compatible API: name the inference component in the path, /endpoints/{}/inference-components/IC/openai/v1/{CHAT_COMPLETIONS}.",
            target.endpoint
        ))
    })
}

/// What a container that does not serve Chat Completions answers (its own 404, as SageMaker
/// reports it).
fn not_served(sb: &Sandbox, endpoint: &str, kind: ContainerKind) -> ApiError {
    let original = match kind {
        ContainerKind::CsvScorer => "404 Not Found: The requested URL was not found on the server.",
        _ => {
            r#"{"code": 404, "type": "ResourceNotFoundException", "message": "Requested resource is not found, please refer to API document."}"#
        }
    };
    model_error(sb, endpoint, 404, original)
}

/// The answer: after the injected transport fault and the waits, the JSON, the event stream or
/// the refusal, with the variant that served it.
async fn answer(sb: &Sandbox, outcome: Outcome, stream: bool) -> Response {
    let sleep_model = sb.config.timing.sleep_model_latency;
    match outcome.transport_fault {
        Some(FaultKind::Hang) => tokio::time::sleep(Duration::from_secs(3600)).await,
        Some(FaultKind::Drop) => return dropped_response(),
        _ => {}
    }
    if outcome.forced_wait > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(outcome.forced_wait)).await;
    }
    let model_wait = if sleep_model { outcome.model_wait } else { 0.0 };
    let mut resp = match outcome.result {
        Ok(reply) if stream => reply::event_stream(&reply.body, model_wait),
        Ok(reply) => {
            if model_wait > 0.0 {
                tokio::time::sleep(Duration::from_secs_f64(model_wait)).await;
            }
            bytes_response(StatusCode::OK, "application/json", reply.body)
        }
        Err(e) => reply::error(e),
    };
    if let Some(v) = outcome.variant.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
        resp.headers_mut().insert("x-amzn-invoked-production-variant", v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_paths_are_read() {
        let t = target("llm/openai/v1/chat/completions").unwrap();
        assert_eq!(
            (t.endpoint, t.component, t.operation),
            ("llm", None, "chat/completions")
        );
        let t = target("ep/inference-components/ic-1/openai/v1/chat/completions").unwrap();
        assert_eq!(
            (t.endpoint, t.component, t.operation),
            ("ep", Some("ic-1"), "chat/completions")
        );
        assert_eq!(target("ep/invocations"), None);
        assert_eq!(target("ep/openai/v2/chat/completions"), None);
    }
}
