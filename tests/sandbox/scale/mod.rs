//! The sandbox at fleet scale: the calls it counts (`/_sandbox/calls`), the control plane's
//! throttle (`/_sandbox/throttle`, `--throttle-rate`) as the Rust SDK and boto3 meet it, and
//! LastModifiedTime moving on every change and on nothing else.

mod boto3;
mod calls;
mod last_modified;
mod listing;
mod throttle;

use sagedeck::sandbox::http::raw_client;
use serde_json::Value;

/// An admin request answered 200 with JSON.
pub(crate) async fn admin(url: &str, method: &str, path: &str, body: &str) -> Value {
    let headers: &[(&str, &str)] = &[("content-type", "application/json")];
    let r = raw_client::send(url, method, path, headers, body.to_string())
        .await
        .expect("admin route answers");
    assert_eq!(r.status, 200, "{method} {path}: {}", r.text());
    serde_json::from_slice(&r.body).expect("admin JSON")
}

/// The count of one region's service operation in a `/_sandbox/calls` answer: `(calls,
/// throttled)`, zeros when absent.
pub(crate) fn count_in(v: &Value, region: &str, service: &str, op: &str) -> (u64, u64) {
    v["calls"]
        .as_array()
        .expect("calls list")
        .iter()
        .find(|r| r["region"] == region && r["service"] == service && r["operation"] == op)
        .map(|r| (r["calls"].as_u64().unwrap(), r["throttled"].as_u64().unwrap()))
        .unwrap_or((0, 0))
}
