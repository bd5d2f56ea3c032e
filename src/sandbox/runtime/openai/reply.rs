//! How the OpenAI-compatible paths answer: the container's JSON as it is, its server-sent
//! events delivered one by one as they are produced, and every refusal in OpenAI's error
//! envelope (`{"error": {"message", "type", "param", "code"}}`, which SageMaker's front door
//! answers on these paths for its own refusals too), with the AWS error type in
//! `x-amzn-errortype` as on the other runtime paths.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::json;

use crate::sandbox::http::wire::{ApiError, bytes_response};

/// OpenAI's error type for a status.
fn error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        429 => "rate_limit_error",
        400..=499 => "invalid_request_error",
        _ => "server_error",
    }
}

/// A refusal in OpenAI's error envelope.
pub fn error(e: ApiError) -> Response {
    let body = json!({"error": {
        "message": e.message,
        "type": error_type(e.status),
        "param": null,
        "code": e.code,
    }});
    let mut resp = bytes_response(e.status, "application/json", body.to_string().into_bytes());
    let kind = format!("{}:http://internal.amazon.com/coral/{}/", e.code, e.namespace);
    if let Ok(v) = HeaderValue::from_str(&kind) {
        resp.headers_mut().insert("x-amzn-errortype", v);
    }
    resp
}

/// Splits a body of server-sent events into its events (each with its blank line).
pub fn events(body: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut start = 0;
    while let Some(at) = body[start..].windows(2).position(|w| w == b"\n\n") {
        let end = start + at + 2;
        out.push(body[start..end].to_vec());
        start = end;
    }
    if start < body.len() {
        out.push(body[start..].to_vec());
    }
    out
}

/// The streamed answer: the events `text/event-stream`, spaced `total_wait / events` seconds.
pub fn event_stream(body: &[u8], total_wait: f64) -> Response {
    let parts = events(body);
    let gap = if parts.is_empty() {
        0.0
    } else {
        total_wait / parts.len() as f64
    };
    let stream = futures_util::stream::unfold(parts.into_iter(), move |mut it| async move {
        let part = it.next()?;
        if gap > 0.0 {
            tokio::time::sleep(Duration::from_secs_f64(gap)).await;
        }
        Some((Ok::<Bytes, std::convert::Infallible>(Bytes::from(part)), it))
    });
    let mut resp = Response::new(Body::from_stream(stream));
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&crate::sandbox::http::wire::next_request_id()) {
        h.insert("x-amzn-requestid", v);
    }
    resp
}

#[cfg(test)]
mod tests {
    #[test]
    fn events_split_at_blank_lines_and_add_up() {
        let body = b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n";
        let parts = super::events(body);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.concat(), body.to_vec());
        assert_eq!(parts[2], b"data: [DONE]\n\n".to_vec());
    }
}
