//! The wire operations' dispatch (awsJson1_1, `x-amz-target: AnyScaleFrontendService.<Op>`);
//! every call of a known operation is recorded in CloudTrail with its caller.

use axum::response::Response;
use serde_json::Value;

use super::request::aas_error;
use super::{activities, policies, targets};
use crate::sandbox::cloudtrail::event::Source;
use crate::sandbox::cloudtrail::identity::Caller;
use crate::sandbox::http::wire::{ApiError, Protocol, decode_json, json_ok, parse_input};
use crate::sandbox::world::sandbox::Sandbox;

/// The operations served, in the order of the API reference.
const OPERATIONS: [&str; 7] = [
    "RegisterScalableTarget",
    "DeregisterScalableTarget",
    "DescribeScalableTargets",
    "PutScalingPolicy",
    "DescribeScalingPolicies",
    "DeleteScalingPolicy",
    "DescribeScalingActivities",
];

/// Serves one Application Auto Scaling operation for `caller`.
pub fn handle(sb: &Sandbox, op: &str, body: &[u8], caller: &Caller) -> Response {
    let result = decode_json(body).and_then(|doc| {
        let request = doc.clone();
        let answer = dispatch(sb, op, doc);
        if OPERATIONS.contains(&op) {
            crate::sandbox::cloudtrail::record_answer(sb, (Source::AutoScaling, op), caller, &request, &answer);
        }
        answer
    });
    match result {
        Ok(v) => json_ok(Protocol::AwsJson11, &v),
        Err(e) => e.into_response(Protocol::AwsJson11),
    }
}

fn dispatch(sb: &Sandbox, op: &str, doc: Value) -> Result<Value, ApiError> {
    match op {
        "RegisterScalableTarget" => targets::register(sb, parse_input(doc)?),
        "DeregisterScalableTarget" => targets::deregister(sb, parse_input(doc)?),
        "DescribeScalableTargets" => targets::describe_targets(sb, parse_input(doc)?),
        "PutScalingPolicy" => policies::put_policy(sb, parse_input(doc)?),
        "DescribeScalingPolicies" => policies::describe_policies(sb, parse_input(doc)?),
        "DeleteScalingPolicy" => policies::delete_policy(sb, parse_input(doc)?),
        "DescribeScalingActivities" => activities::describe_activities(sb, parse_input(doc)?),
        other => Err(aas_error(
            "UnknownOperationException",
            format!("The sandbox does not implement Application Auto Scaling operation {other}."),
        )),
    }
}
