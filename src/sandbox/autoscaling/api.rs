//! The wire operations' dispatch (awsJson1_1, `x-amz-target: AnyScaleFrontendService.<Op>`).

use axum::response::Response;

use super::request::aas_error;
use super::{activities, policies, targets};
use crate::sandbox::http::wire::{Protocol, decode_json, json_ok, parse_input};
use crate::sandbox::world::sandbox::Sandbox;

/// Serves one Application Auto Scaling operation.
pub fn handle(sb: &Sandbox, op: &str, body: &[u8]) -> Response {
    let result = decode_json(body).and_then(|doc| match op {
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
    });
    match result {
        Ok(v) => json_ok(Protocol::AwsJson11, &v),
        Err(e) => e.into_response(Protocol::AwsJson11),
    }
}
