//! The local admin route: `GET/POST/DELETE /_sandbox/faults[/ID]`, `GET /_sandbox/health`.

use axum::http::{Method, StatusCode};
use axum::response::Response;

use crate::sandbox::faults::FaultSpec;
use crate::sandbox::http::wire::{ApiError, Protocol, bytes_response};
use crate::sandbox::world::sandbox::Sandbox;

/// The local admin route: `GET/POST/DELETE /_sandbox/faults[/ID]`, `GET /_sandbox/health`.
pub fn handle(sb: &Sandbox, method: &Method, path: &str, _query: Option<&str>, body: &[u8]) -> Response {
    let json = |status: StatusCode, v: serde_json::Value| {
        bytes_response(status, "application/json", serde_json::to_vec(&v).unwrap_or_default())
    };
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "NotFound",
            format!("No admin route {method} /_sandbox/{path}"),
        )
        .into_response(Protocol::RestJson1)
    };
    match (method.as_str(), path.trim_end_matches('/')) {
        ("GET", "health") => {
            let endpoints = sb.world.read().endpoints.len();
            json(
                StatusCode::OK,
                serde_json::json!({"status": "ok", "endpoints": endpoints}),
            )
        }
        ("GET", "faults") => json(StatusCode::OK, sb.faults.list_json()),
        ("POST", "faults") => match serde_json::from_slice::<FaultSpec>(body) {
            Ok(spec) => json(StatusCode::CREATED, serde_json::json!({"id": sb.faults.add(spec)})),
            Err(e) => ApiError::new(
                StatusCode::BAD_REQUEST,
                "ValidationError",
                format!("bad fault spec: {e}"),
            )
            .into_response(Protocol::RestJson1),
        },
        ("DELETE", "faults") => {
            sb.faults.clear();
            json(StatusCode::OK, serde_json::json!({"cleared": true}))
        }
        ("DELETE", p) if p.starts_with("faults/") => match p["faults/".len()..].parse::<u64>() {
            Ok(id) if sb.faults.remove(id) => json(StatusCode::OK, serde_json::json!({"removed": id})),
            _ => not_found(),
        },
        _ => not_found(),
    }
}
