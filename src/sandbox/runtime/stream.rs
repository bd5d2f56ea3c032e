//! InvokeEndpointWithResponseStream's body: AWS event-stream frames (prelude and message CRC32),
//! one `PayloadPart` event per chunk, delivered as they are produced.

use std::time::Duration;

use aws_smithy_eventstream::frame::write_message_to;
use aws_smithy_types::event_stream::{Header, HeaderValue as EvHeaderValue, Message};
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

/// Encodes one event frame.
pub fn event_frame(headers: Vec<(&'static str, String)>, payload: Vec<u8>) -> Bytes {
    let headers = headers
        .into_iter()
        .map(|(name, value)| Header::new(name, EvHeaderValue::String(value.into())))
        .collect();
    let message = Message::new_from_parts(headers, payload);
    let mut buf = Vec::with_capacity(64);
    // Encoding into a Vec only fails for oversized headers, which these are not.
    let _ = write_message_to(&message, &mut buf);
    Bytes::from(buf)
}

/// A `PayloadPart` event carrying `bytes`.
pub fn payload_part(bytes: Vec<u8>) -> Bytes {
    event_frame(
        vec![
            (":message-type", "event".into()),
            (":event-type", "PayloadPart".into()),
            (":content-type", "application/octet-stream".into()),
        ],
        bytes,
    )
}

/// A modelled exception event (`ModelStreamError`, `InternalStreamFailure`) ending the stream.
pub fn exception_event(exception_type: &str, message: &str, error_code: Option<&str>) -> Bytes {
    let mut body = serde_json::json!({ "Message": message });
    if let Some(code) = error_code {
        body["ErrorCode"] = code.into();
    }
    event_frame(
        vec![
            (":message-type", "exception".into()),
            (":exception-type", exception_type.to_string()),
            (":content-type", "application/json".into()),
        ],
        serde_json::to_vec(&body).unwrap_or_default(),
    )
}

/// The streaming response: parts spaced `total_wait / parts` seconds apart.
pub fn stream_response(parts: Vec<Vec<u8>>, total_wait: f64, content_type: &str) -> Response {
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
        Some((Ok::<Bytes, std::convert::Infallible>(payload_part(part)), it))
    });
    let mut resp = Response::new(Body::from_stream(stream));
    *resp.status_mut() = StatusCode::OK;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/vnd.amazon.eventstream"),
    );
    if let Ok(v) = HeaderValue::from_str(content_type) {
        h.insert("x-amzn-sagemaker-content-type", v);
    }
    if let Ok(v) = HeaderValue::from_str(&crate::sandbox::http::wire::next_request_id()) {
        h.insert("x-amzn-requestid", v);
    }
    resp
}

/// A response whose body fails after the headers: the client sees the connection cut mid-answer.
pub fn dropped_response() -> Response {
    let stream = futures_util::stream::once(async {
        Err::<Bytes, std::io::Error>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "dropped by fault",
        ))
    });
    let mut resp = Response::new(Body::from_stream(stream));
    resp.headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from_static("1024"));
    resp
}
