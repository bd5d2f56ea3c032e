//! The local admin routes: `GET/POST/DELETE /_sandbox/faults[/ID]`, `GET /_sandbox/health`,
//! `GET/DELETE /_sandbox/calls` (the calls served, by region, service and operation; DELETE
//! answers them and starts counting again) and `GET/POST/DELETE /_sandbox/throttle` (the
//! SageMaker control plane's throttle, per region).
//!
//! Faults are the request's region's (its SigV4 scope; unsigned: the primary); calls and the
//! throttle answer for every region at once, whichever region the request names.

use axum::http::{Method, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use crate::sandbox::calls::throttle::ThrottleSpec;
use crate::sandbox::faults::FaultSpec;
use crate::sandbox::http::wire::{ApiError, Protocol, bytes_response};
use crate::sandbox::world::sandbox::Sandbox;

/// A JSON answer.
fn json_response(status: StatusCode, v: Value) -> Response {
    bytes_response(status, "application/json", serde_json::to_vec(&v).unwrap_or_default())
}

/// A 400 `ValidationError` on an admin route.
fn bad_request(message: String) -> Response {
    ApiError::new(StatusCode::BAD_REQUEST, "ValidationError", message).into_response(Protocol::RestJson1)
}

/// Serves one admin request: `primary` holds every region, `sb` is the request's region.
pub fn handle(
    (primary, sb): (&Sandbox, &Sandbox),
    method: &Method,
    path: &str,
    _query: Option<&str>,
    body: &[u8],
) -> Response {
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
            json_response(StatusCode::OK, json!({"status": "ok", "endpoints": endpoints}))
        }
        ("GET", "calls") => json_response(StatusCode::OK, calls_json(primary)),
        ("DELETE", "calls") => {
            let counted = calls_json(primary);
            primary.all_states().iter().for_each(|s| s.calls.reset());
            json_response(StatusCode::OK, counted)
        }
        ("GET", "throttle") => json_response(StatusCode::OK, throttle_json(primary)),
        ("POST", "throttle") => set_throttle(primary, body),
        ("DELETE", "throttle") => {
            primary.all_states().iter().for_each(|s| s.throttle.set(None));
            json_response(StatusCode::OK, throttle_json(primary))
        }
        ("GET", "faults") => json_response(StatusCode::OK, sb.faults.list_json()),
        ("POST", "faults") => match serde_json::from_slice::<FaultSpec>(body) {
            Ok(spec) => json_response(StatusCode::CREATED, json!({"id": sb.faults.add(spec)})),
            Err(e) => bad_request(format!("bad fault spec: {e}")),
        },
        ("DELETE", "faults") => {
            sb.faults.clear();
            json_response(StatusCode::OK, json!({"cleared": true}))
        }
        ("DELETE", p) if p.starts_with("faults/") => match p["faults/".len()..].parse::<u64>() {
            Ok(id) if sb.faults.remove(id) => json_response(StatusCode::OK, json!({"removed": id})),
            _ => not_found(),
        },
        _ => not_found(),
    }
}

/// `{"since", "total", "throttled", "calls": [{"region", "service", "operation", "calls",
/// "throttled"}]}` over every region, sorted by region, service and operation.
pub fn calls_json(primary: &Sandbox) -> Value {
    let mut rows = Vec::new();
    let (mut total, mut throttled) = (0u64, 0u64);
    for (region, counts) in primary.all_call_counts() {
        for c in counts {
            total += c.calls;
            throttled += c.throttled;
            rows.push(json!({
                "region": region, "service": c.service, "operation": c.operation,
                "calls": c.calls, "throttled": c.throttled,
            }));
        }
    }
    json!({
        "since": primary.calls.since(),
        "total": total,
        "throttled": throttled,
        "calls": rows,
    })
}

/// `{"REGION": {"rate", "burst"} | null, ...}`.
fn throttle_json(primary: &Sandbox) -> Value {
    let map: serde_json::Map<String, Value> = primary
        .all_states()
        .into_iter()
        .map(|s| (s.config.region.clone(), json!(s.throttle.spec())))
        .collect();
    Value::Object(map)
}

/// The body of `POST /_sandbox/throttle`: a [`ThrottleSpec`] and, optionally, the one region
/// it is for (else every region).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ThrottleRequest {
    rate: f64,
    #[serde(default)]
    burst: Option<u64>,
    #[serde(default)]
    region: Option<String>,
}

/// Sets the throttle of one region or of all.
fn set_throttle(primary: &Sandbox, body: &[u8]) -> Response {
    let req = match serde_json::from_slice::<ThrottleRequest>(body) {
        Ok(r) => r,
        Err(e) => {
            return bad_request(format!(
                "bad throttle (want {{\"rate\": N, \"burst\": N, \"region\": R}}): {e}"
            ));
        }
    };
    let spec = ThrottleSpec {
        rate: req.rate,
        burst: req.burst,
    };
    if let Err(e) = spec.check() {
        return bad_request(e);
    }
    let states: Vec<&Sandbox> = primary
        .all_states()
        .into_iter()
        .filter(|s| req.region.as_ref().is_none_or(|r| *r == s.config.region))
        .collect();
    if states.is_empty() {
        return bad_request(format!("no region {} in this sandbox", req.region.unwrap_or_default()));
    }
    states.iter().for_each(|s| s.throttle.set(Some(spec)));
    json_response(StatusCode::OK, throttle_json(primary))
}
