//! The HTTP front end of SageMaker Runtime: the invocation paths, the request's headers, the
//! injected transport faults, and the buffered or event-stream answer.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;

use super::errors::validation_error;
use super::invoke::invoke;
use super::request::{InvokeRequest, Outcome};
use super::sessions;
use super::stream::dropped_response;
use crate::sandbox::faults::FaultKind;
use crate::sandbox::http::wire::{ApiError, Protocol, bytes_response};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// A header's value, when it is text.
fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Serves `POST /endpoints/{name}/invocations[-response-stream]` and `/async-invocations`, and
/// hands the OpenAI-compatible paths to [`super::openai`].
pub async fn handle(sb: Arc<Sandbox>, method: &Method, rest: &str, headers: &HeaderMap, body: Bytes) -> Response {
    if let Some(target) = super::openai::target(rest) {
        return super::openai::handle(sb, method, target, headers, body).await;
    }
    let (name, action) = rest.split_once('/').unwrap_or((rest, ""));
    let stream = match streaming_action(method, rest, name, action) {
        Ok(stream) => stream,
        Err(refused) => return *refused,
    };
    let now = now_epoch();
    let component = header_str(headers, "x-amzn-sagemaker-inference-component");
    let session_id = header_str(headers, "x-amzn-sagemaker-session-id");
    let session = match sessions::pinned(&sb, (name, component), session_id, stream, now) {
        Ok(session) => session,
        Err(e) => return e.into_response(Protocol::RestJson1),
    };
    let req = InvokeRequest {
        endpoint: name,
        content_type: header_str(headers, "content-type").unwrap_or("application/octet-stream"),
        accept: header_str(headers, "accept").or_else(|| header_str(headers, "x-amzn-sagemaker-accept")),
        body: &body,
        target_variant: session
            .as_ref()
            .map(|s| s.variant.as_str())
            .or_else(|| header_str(headers, "x-amzn-sagemaker-target-variant")),
        target_model: header_str(headers, "x-amzn-sagemaker-target-model"),
        inference_component: component,
        custom_attributes: header_str(headers, "x-amzn-sagemaker-custom-attributes"),
        stream,
        session_id,
        instance: session.as_ref().map(|s| s.instance),
        prefix_aware_id: header_str(headers, "x-amzn-sagemaker-prefix-aware-id"),
        openai: false,
    };
    let outcome = invoke(&sb, &req, now);
    let mut answer_headers = sessions::answer_headers(&sb, &req, &outcome, now);
    answer_headers.extend(super::instance::header(req.endpoint, &outcome));
    let sleep_model = sb.config.timing.sleep_model_latency;
    let wait = outcome.forced_wait + if sleep_model { outcome.model_wait } else { 0.0 };
    match outcome.transport_fault {
        Some(FaultKind::Hang) => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Some(FaultKind::Drop) => return dropped_response(),
        _ => {}
    }
    let mut resp = if stream && outcome.result.is_ok() {
        streamed_answer(&outcome, &req, sleep_model).await
    } else {
        if wait > 0.0 {
            tokio::time::sleep(Duration::from_secs_f64(wait)).await;
        }
        match outcome.result {
            Ok(reply) => bytes_response(StatusCode::OK, &reply.content_type, reply.body),
            Err(e) => e.into_response(Protocol::RestJson1),
        }
    };
    let h = resp.headers_mut();
    if let Some(v) = outcome.variant.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
        h.insert("x-amzn-invoked-production-variant", v);
    }
    if let Some(v) = req.custom_attributes.and_then(|v| HeaderValue::from_str(v).ok()) {
        h.insert("x-amzn-sagemaker-custom-attributes", v);
    }
    for (name, value) in answer_headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(name, v);
        }
    }
    resp
}

/// Whether the runtime request at `/endpoints/{rest}` (endpoint `name`, then `action`) asks for
/// a response stream; the refusal of anything but a POST to one of the two invocation paths.
fn streaming_action(method: &Method, rest: &str, name: &str, action: &str) -> Result<bool, Box<Response>> {
    if method != Method::POST {
        return Err(Box::new(
            validation_error(format!("{method} is not supported on /endpoints/{rest}; use POST"))
                .into_response(Protocol::RestJson1),
        ));
    }
    match action {
        "invocations" => Ok(false),
        "invocations-response-stream" => Ok(true),
        "async-invocations" => Err(Box::new(
            validation_error(format!(
                "Endpoint {name} is a real-time endpoint: the sandbox does not emulate asynchronous inference (InvokeEndpointAsync). Use InvokeEndpoint."
            ))
            .into_response(Protocol::RestJson1),
        )),
        other => Err(Box::new(
            ApiError::new(
                StatusCode::NOT_FOUND,
                "UnknownOperationException",
                format!("No runtime operation at /endpoints/{name}/{other}"),
            )
            .into_response(Protocol::RestJson1),
        )),
    }
}

/// The event-stream answer of a successful streaming invocation: the variant's parts, after
/// the forced wait, each part after its share of the model latency when that is slept.
async fn streamed_answer(outcome: &Outcome, req: &InvokeRequest<'_>, sleep_model: bool) -> Response {
    let parts = outcome
        .sim
        .as_ref()
        .map(|s| {
            s.kind
                .invoke_stream(req.content_type, req.accept, req.body, outcome.llm_fault)
        })
        .unwrap_or_else(|| Ok(Vec::new()));
    if outcome.forced_wait > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(outcome.forced_wait)).await;
    }
    let per_part = if sleep_model { outcome.model_wait } else { 0.0 };
    let content_type = outcome
        .result
        .as_ref()
        .map(|r| r.content_type.clone())
        .unwrap_or_default();
    crate::sandbox::runtime::stream::stream_response(parts.unwrap_or_default(), per_part, &content_type)
}
