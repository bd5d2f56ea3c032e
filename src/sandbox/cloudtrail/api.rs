//! CloudTrail on its real wire protocol (awsJson1_1, `x-amz-target:
//! com.amazonaws.cloudtrail.v20131101.CloudTrail_20131101.<Op>` as botocore sends it,
//! `CloudTrail_20131101.<Op>` as the Rust SDK does): LookupEvents over the region's
//! history ([`crate::sandbox::cloudtrail::store::TrailStore`]), admitted at the configured rate
//! (AWS: 2 calls per second per account and region) and faultable (`operation=LookupEvents`).

use axum::http::StatusCode;
use axum::response::Response;

use crate::sandbox::cloudtrail::lookup::{LookupInput, lookup};
use crate::sandbox::faults::errors::fault_error;
use crate::sandbox::http::wire::{ApiError, Protocol, decode_json, json_ok, parse_input};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// The `x-amz-target` prefix of CloudTrail's operations (botocore's).
pub const TARGET_PREFIX: &str = "com.amazonaws.cloudtrail.v20131101.CloudTrail_20131101";
/// The short prefix the Rust SDK sends.
pub const TARGET_PREFIX_SHORT: &str = "CloudTrail_20131101";

/// The answer to a call above the rate: ThrottlingException, which the SDKs retry.
fn throttled() -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "ThrottlingException", "Rate exceeded")
}

/// Serves one CloudTrail operation.
pub fn handle(sb: &Sandbox, op: &str, body: &[u8]) -> Response {
    let result = decode_json(body).and_then(|doc| match op {
        "LookupEvents" => {
            if let Some(kind) = sb.faults.take(op, None, None)
                && let Some(e) = fault_error(&kind, sb, "")
            {
                return Err(e);
            }
            let now = now_epoch();
            if !sb.trail.admit_lookup(now) {
                return Err(throttled());
            }
            let input: LookupInput = parse_input(doc)?;
            lookup(&sb.trail, &input, now)
        }
        other => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "UnknownOperationException",
            format!("The sandbox does not implement CloudTrail operation {other}."),
        )),
    });
    match result {
        Ok(v) => json_ok(Protocol::AwsJson11, &v),
        Err(e) => e.into_response(Protocol::AwsJson11),
    }
}
