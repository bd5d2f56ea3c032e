//! Stateful sessions on InvokeEndpoint (`X-Amzn-SageMaker-Session-Id`): `NEW_SESSION` opens one on
//! the instance that answers and the answer carries `X-Amzn-SageMaker-New-Session-Id: ID;
//! Expires=YYYY-MM-DDTHH:MM:SSZ`; calls with the id go to that variant and instance; a call with
//! the id and the body `{"requestType": "CLOSE"}` closes it and answers
//! `X-Amzn-SageMaker-Closed-Session-Id: ID`. The sandbox plays the stateful container as LMI does:
//! `{"requestType": "NEW_SESSION"}` and `{"requestType": "CLOSE"}` are answered by the session
//! handler (`{"result": "Session ID created"}`), any other body by the model. The id is checked
//! against the API model's pattern; an id that is not open on the endpoint (never opened, closed,
//! expired, its instance gone) answers a ValidationError whose text is the sandbox's (AWS
//! documents none); InvokeEndpointWithResponseStream takes an open session but cannot create one.

use axum::http::StatusCode;
use serde_json::json;

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::runtime::errors::validation_error;
use crate::sandbox::runtime::request::{InvokeRequest, Outcome};
use crate::sandbox::world::containers::answer::Reply;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::sessions::{SESSION_TTL_SECS, Session};

/// The `SessionId` that opens a session.
pub const NEW_SESSION: &str = "NEW_SESSION";
/// The API model's pattern of `SessionId`.
const PATTERN: &str = "^(NEW_SESSION)$|^[a-zA-Z0-9](-*[a-zA-Z0-9])*$";

/// What a session-control body asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// `{"requestType": "NEW_SESSION"}`.
    Open,
    /// `{"requestType": "CLOSE"}`.
    Close,
}

/// The session-control request a body is, if any.
pub fn control_of(body: &[u8]) -> Option<Control> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    match v.get("requestType")?.as_str()? {
        "NEW_SESSION" => Some(Control::Open),
        "CLOSE" => Some(Control::Close),
        _ => None,
    }
}

fn valid_id(id: &str) -> bool {
    let Some(first) = id.chars().next() else {
        return false;
    };
    id == NEW_SESSION
        || (id.len() <= 256
            && first.is_ascii_alphanumeric()
            && !id.ends_with('-')
            && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
}

/// The open session a call names, checked (None without one, or for `NEW_SESSION`): the id's
/// pattern, that it is open on this endpoint and component, and that its instance still exists.
pub fn pinned(
    sb: &Sandbox,
    (endpoint, component): (&str, Option<&str>),
    id: Option<&str>,
    stream: bool,
    now: f64,
) -> Result<Option<Session>, ApiError> {
    let Some(id) = id else {
        return Ok(None);
    };
    if !valid_id(id) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            format!(
                "1 validation error detected: Value '{id}' at 'sessionId' failed to satisfy constraint: Member must satisfy regular expression pattern: {PATTERN}"
            ),
        ));
    }
    if id == NEW_SESSION {
        return match stream {
            true => Err(validation_error(
                "A stateful session cannot be created with InvokeEndpointWithResponseStream: create it with InvokeEndpoint and SessionId NEW_SESSION, then stream with its id.",
            )),
            false => Ok(None),
        };
    }
    let unknown = || {
        validation_error(format!(
            "Session {id} is not an open session of endpoint {endpoint}: it was never opened, was closed, or has expired."
        ))
    };
    let session = sb.sessions.get(id, now).ok_or_else(unknown)?;
    if session.endpoint != endpoint || session.component.as_deref() != component {
        return Err(unknown());
    }
    if component.is_none() && !instance_exists(sb, &session) {
        sb.sessions.close(id);
        return Err(validation_error(format!(
            "Session {id} is no longer available: the instance that served it was removed from endpoint {endpoint}."
        )));
    }
    Ok(Some(session))
}

fn instance_exists(sb: &Sandbox, session: &Session) -> bool {
    let world = sb.world.read();
    world
        .endpoints
        .get(&session.endpoint)
        .and_then(|e| e.variant(&session.variant))
        .is_some_and(|v| session.instance < v.sim.instance_count())
}

/// The session handler's answer to a session-control body sent with a `SessionId`.
pub fn control_reply(req: &InvokeRequest<'_>) -> Option<Reply> {
    req.session_id?;
    let result = match control_of(req.body)? {
        Control::Open => "Session created",
        Control::Close => "Session closed",
    };
    Some(Reply {
        body: json!({ "result": result }).to_string().into_bytes(),
        content_type: "application/json".into(),
        work: 0.05,
    })
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
fn expires_text(epoch: f64) -> String {
    aws_smithy_types::DateTime::from_secs(epoch.floor() as i64)
        .fmt(aws_smithy_types::date_time::Format::DateTime)
        .unwrap_or_default()
}

/// The session headers of an answer: after `NEW_SESSION` answered, the session opened on the
/// instance that answered; after a `CLOSE` with an open id, the id closed.
pub fn answer_headers(
    sb: &Sandbox,
    req: &InvokeRequest<'_>,
    outcome: &Outcome,
    now: f64,
) -> Vec<(&'static str, String)> {
    let (Some(id), Ok(_), Some(variant)) = (req.session_id, &outcome.result, &outcome.variant) else {
        return Vec::new();
    };
    if id == NEW_SESSION {
        let expires_at = now + SESSION_TTL_SECS;
        let new_id = sb.sessions.open(Session {
            endpoint: req.endpoint.to_string(),
            component: req.inference_component.map(str::to_string),
            variant: variant.clone(),
            instance: outcome.instance,
            expires_at,
        });
        return vec![(
            "x-amzn-sagemaker-new-session-id",
            format!("{new_id}; Expires={}", expires_text(expires_at)),
        )];
    }
    match control_of(req.body) {
        Some(Control::Close) if sb.sessions.close(id).is_some() => {
            vec![("x-amzn-sagemaker-closed-session-id", id.to_string())]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_api_model_pattern() {
        for ok in ["NEW_SESSION", "abc", "a-b--c", "0f3c2a1e-1d2b-4c3d-8e4f-5a6b7c8d9e0f"] {
            assert!(valid_id(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "new_session", "a b", &"a".repeat(257)] {
            assert!(!valid_id(bad), "{bad}");
        }
        assert_eq!(control_of(br#"{"requestType": "CLOSE"}"#), Some(Control::Close));
        assert_eq!(control_of(br#"{"messages": []}"#), None);
        assert_eq!(expires_text(1_796_418_099.7), "2026-12-04T21:01:39Z");
    }
}
