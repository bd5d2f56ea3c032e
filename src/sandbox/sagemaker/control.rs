//! SageMaker control plane (awsJson1_1, `x-amz-target: SageMaker.<Op>`): Create, Describe, List
//! and Delete for models, endpoint configurations and endpoints, UpdateEndpoint and
//! UpdateEndpointWeightsAndCapacities, inference components (`components/`), tags (`tags.rs`), with AWS's validation texts where they
//! are known and the API model's constraints checked first (`constraints.rs`).

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use crate::sandbox::faults::FaultKind;
use crate::sandbox::faults::errors::fault_error;
use crate::sandbox::http::wire::{ApiError, Protocol, decode_json, json_ok, parse_input};
use crate::sandbox::sagemaker::params::name_of;
use crate::sandbox::sagemaker::{components, configs, constraints, deploy, endpoints, models, tags};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// Serves one SageMaker control-plane operation.
pub async fn handle(sb: &Sandbox, op: &str, body: &[u8]) -> Response {
    match dispatch(sb, op, body) {
        Ok(v) => json_ok(Protocol::AwsJson11, &v),
        Err(e) => e.into_response(Protocol::AwsJson11),
    }
}

fn dispatch(sb: &Sandbox, op: &str, body: &[u8]) -> Result<Value, ApiError> {
    let doc = decode_json(body)?;
    let endpoint_hint = doc.get("EndpointName").and_then(Value::as_str).map(str::to_string);
    // A deployment or rollback failure is not an error answer: the update is accepted and fails
    // later.
    let mut deployment_fault = None;
    if let Some(kind) = sb.faults.take(op, endpoint_hint.as_deref(), None) {
        if matches!(
            kind,
            FaultKind::DeploymentFailure { .. } | FaultKind::RollbackFailure { .. }
        ) {
            deployment_fault = Some(kind);
        } else if let Some(e) = fault_error(&kind, sb, endpoint_hint.as_deref().unwrap_or("")) {
            return Err(e);
        }
    }
    match components::constraints::input_of(op) {
        Some(members) => constraints::check_against(members, &doc)?,
        None => constraints::check(op, &doc)?,
    }
    let created_tags = tags::given_at_create(op, &doc)?;
    let now = now_epoch();
    if sb.world.read().needs_advance(now) {
        sb.world.write().advance(now);
    }
    deploy::progress::advance(sb, now);
    let answer = match op {
        "CreateModel" => models::create_model(sb, parse_input(doc)?),
        "DescribeModel" => models::describe_model(sb, &name_of(&doc, "ModelName")?),
        "ListModels" => models::list_models(sb, parse_input(doc)?),
        "DeleteModel" => models::delete_model(sb, &name_of(&doc, "ModelName")?),
        "CreateEndpointConfig" => configs::create_endpoint_config(sb, parse_input(doc)?),
        "DescribeEndpointConfig" => configs::describe_endpoint_config(sb, &name_of(&doc, "EndpointConfigName")?),
        "ListEndpointConfigs" => configs::list_endpoint_configs(sb, parse_input(doc)?),
        "DeleteEndpointConfig" => configs::delete_endpoint_config(sb, &name_of(&doc, "EndpointConfigName")?),
        "CreateEndpoint" => endpoints::create(sb, parse_input(doc)?),
        "DescribeEndpoint" => endpoints::describe(sb, &name_of(&doc, "EndpointName")?),
        "ListEndpoints" => endpoints::list(sb, parse_input(doc)?),
        "DeleteEndpoint" => endpoints::delete(sb, &name_of(&doc, "EndpointName")?),
        "UpdateEndpoint" => deploy::update(sb, parse_input(doc)?, deployment_fault),
        "UpdateEndpointWeightsAndCapacities" => endpoints::update_weights(sb, parse_input(doc)?),
        "CreateInferenceComponent" => components::create(sb, &doc),
        "DescribeInferenceComponent" => components::describe(sb, &name_of(&doc, "InferenceComponentName")?),
        "ListInferenceComponents" => components::list(sb, &doc),
        "DeleteInferenceComponent" => components::delete(sb, &name_of(&doc, "InferenceComponentName")?),
        "UpdateInferenceComponent" => components::update::update(sb, &doc),
        "UpdateInferenceComponentRuntimeConfig" => components::update::update_runtime_config(sb, &doc),
        "AddTags" | "ListTags" | "DeleteTags" => tags::handle(sb, op, &doc),
        "" => Err(unknown_op("(none)")),
        other => Err(unknown_op(other)),
    };
    if let (Ok(out), Some(tags)) = (&answer, created_tags) {
        tags::keep_created(sb, out, tags);
    }
    answer
}

fn unknown_op(op: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "UnknownOperationException",
        format!("The sandbox does not implement SageMaker operation {op}."),
    )
}
