//! CreateEndpointConfig, DescribeEndpointConfig, ListEndpointConfigs and DeleteEndpointConfig.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::components::hosts;
use crate::sandbox::sagemaker::params::{ListParams, check_name, page, passes};
use crate::sandbox::sagemaker::routing;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::resources::{ConfigVariant, EndpointConfig};
use crate::sandbox::world::sandbox::Sandbox;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct VariantInput {
    variant_name: String,
    /// None on a variant that hosts inference components.
    model_name: Option<String>,
    instance_type: Option<String>,
    initial_instance_count: Option<i32>,
    initial_variant_weight: Option<f64>,
    serverless_config: Option<Value>,
    /// Every other member (VolumeSizeInGB, RoutingConfig, ...), kept and echoed.
    #[serde(flatten)]
    extra: serde_json::Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreateEndpointConfigInput {
    endpoint_config_name: String,
    production_variants: Vec<VariantInput>,
    /// Every other member (DataCaptureConfig, KmsKeyId, ...), kept and echoed (Tags excepted).
    #[serde(flatten)]
    extra: serde_json::Map<String, Value>,
}

pub(super) fn create_endpoint_config(sb: &Sandbox, input: CreateEndpointConfigInput) -> Result<Value, ApiError> {
    check_name("EndpointConfigName", &input.endpoint_config_name)?;
    let n = input.production_variants.len();
    if !(1..=10).contains(&n) {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '[...]' at 'productionVariants' failed to satisfy constraint: Member must have length between 1 and 10 (got {n})"
        )));
    }
    let arn = sb.arn("endpoint-config", &input.endpoint_config_name);
    let mut world = sb.world.write();
    if world.configs.contains_key(&input.endpoint_config_name) {
        return Err(ApiError::validation(format!(
            "Cannot create already existing endpoint configuration \"{arn}\"."
        )));
    }
    let mut extra = input.extra;
    extra.remove("Tags");
    check_component_hosting(&input.production_variants, extra.contains_key("ExecutionRoleArn"))?;
    let mut variants = Vec::new();
    for v in input.production_variants {
        check_name("VariantName", &v.variant_name)?;
        if variants.iter().any(|x: &ConfigVariant| x.name == v.variant_name) {
            return Err(ApiError::validation(format!(
                "Variant name \"{}\" is used more than once in ProductionVariants; variant names must be unique.",
                v.variant_name
            )));
        }
        if let Some(model) = &v.model_name
            && !world.models.contains_key(model)
        {
            return Err(ApiError::validation(format!(
                "Could not find model \"{}\".",
                sb.arn("model", model)
            )));
        }
        let weight = v.initial_variant_weight.unwrap_or(1.0);
        if !weight.is_finite() || weight < 0.0 {
            return Err(ApiError::validation(format!(
                "InitialVariantWeight of variant \"{}\" must be a number >= 0 (got {weight}).",
                v.variant_name
            )));
        }
        if v.serverless_config.is_none() && (v.instance_type.is_none() || v.initial_instance_count.unwrap_or(0) < 1) {
            return Err(ApiError::validation(format!(
                "Variant \"{}\" needs InstanceType and InitialInstanceCount >= 1, or a ServerlessConfig.",
                v.variant_name
            )));
        }
        routing::check(&v.variant_name, &v.extra)?;
        let hosts_components = v.model_name.is_none();
        let variant = ConfigVariant {
            name: v.variant_name,
            model_name: v.model_name.unwrap_or_default(),
            instance_type: v.instance_type,
            initial_instance_count: v.initial_instance_count.unwrap_or(1),
            initial_weight: weight,
            serverless: v.serverless_config,
            extra: v.extra,
        };
        if hosts_components {
            hosts::check_variant(&variant)?;
        }
        variants.push(variant);
    }
    world.configs.insert(
        input.endpoint_config_name.clone(),
        EndpointConfig {
            name: input.endpoint_config_name,
            arn: arn.clone(),
            creation_time: now_epoch(),
            variants,
            extra,
        },
    );
    Ok(json!({ "EndpointConfigArn": arn }))
}

/// A configuration for inference components: every variant without a ModelName, and an
/// ExecutionRoleArn (AWS's rule: a variant without a model is only valid on a configuration with
/// an execution role). Texts UNVERIFIED against AWS.
fn check_component_hosting(variants: &[VariantInput], has_role: bool) -> Result<(), ApiError> {
    let without: Vec<&str> = variants
        .iter()
        .filter(|v| v.model_name.is_none())
        .map(|v| v.variant_name.as_str())
        .collect();
    if without.is_empty() {
        return Ok(());
    }
    if !has_role {
        return Err(ApiError::validation(format!(
            "ModelName is required for variant \"{}\": a variant without a model hosts inference components, which needs an ExecutionRoleArn on the endpoint configuration.",
            without[0]
        )));
    }
    if without.len() != variants.len() {
        return Err(ApiError::validation(
            "Either every production variant names a model, or none does (an endpoint for inference components).",
        ));
    }
    Ok(())
}

pub(super) fn describe_endpoint_config(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let world = sb.world.read();
    let c = world.configs.get(name).ok_or_else(|| {
        ApiError::validation(format!(
            "Could not find endpoint configuration \"{}\".",
            sb.arn("endpoint-config", name)
        ))
    })?;
    let variants: Vec<Value> = c
        .variants
        .iter()
        .map(|v| {
            let mut j = Value::Object(v.extra.clone());
            j["VariantName"] = v.name.clone().into();
            if !v.model_name.is_empty() {
                j["ModelName"] = v.model_name.clone().into();
            }
            j["InitialVariantWeight"] = v.initial_weight.into();
            if let Some(t) = &v.instance_type {
                j["InstanceType"] = t.clone().into();
                j["InitialInstanceCount"] = v.initial_instance_count.into();
            }
            if let Some(s) = &v.serverless {
                j["ServerlessConfig"] = s.clone();
            }
            j
        })
        .collect();
    let mut out = Value::Object(c.extra.clone());
    out["EndpointConfigName"] = c.name.clone().into();
    out["EndpointConfigArn"] = c.arn.clone().into();
    out["ProductionVariants"] = Value::Array(variants);
    out["CreationTime"] = c.creation_time.into();
    Ok(out)
}

pub(super) fn list_endpoint_configs(sb: &Sandbox, params: ListParams) -> Result<Value, ApiError> {
    let world = sb.world.read();
    let items: Vec<&EndpointConfig> = world
        .configs
        .values()
        .filter(|c| passes(&params, &c.name, c.creation_time, c.creation_time))
        .collect();
    page(
        &params,
        items,
        "EndpointConfigs",
        |c, _| (c.name.clone(), c.creation_time),
        |c| json!({"EndpointConfigName": c.name, "EndpointConfigArn": c.arn, "CreationTime": c.creation_time}),
    )
}

pub(super) fn delete_endpoint_config(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let arn = sb.arn("endpoint-config", name);
    match sb.world.write().configs.remove(name) {
        Some(_) => Ok(json!({})),
        None => Err(ApiError::validation(format!(
            "Could not find endpoint configuration \"{arn}\"."
        ))),
    }
}
