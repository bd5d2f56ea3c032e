//! Serverless variants in the control plane: the ServerlessConfig beyond its members' ranges
//! (ProvisionedConcurrency at most MaxConcurrency), the summary DescribeEndpoint shows
//! (CurrentServerlessConfig / DesiredServerlessConfig, no instance counts), and
//! UpdateEndpointWeightsAndCapacities' `ServerlessUpdateConfig`, changed in place (Updating, then
//! InService with the new settings in force, as the world's update completes).
//!
//! The texts of the refusals below are the sandbox's (UNVERIFIED against AWS).

use serde_json::Value;

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::serverless::ServerlessSettings;
use crate::sandbox::world::state::Variant;

/// A variant's ServerlessConfig at CreateEndpointConfig: its members are in range (checked
/// against the API model before), and ProvisionedConcurrency is at most MaxConcurrency.
pub fn check_config(variant: &str, config: &Value) -> Result<(), ApiError> {
    let Some(s) = ServerlessSettings::from_json(config) else {
        return Err(ApiError::validation(format!(
            "ServerlessConfig of variant \"{variant}\" needs MemorySizeInMB and MaxConcurrency."
        )));
    };
    check_provisioned(variant, s)
}

fn check_provisioned(variant: &str, s: ServerlessSettings) -> Result<(), ApiError> {
    match s.provisioned {
        Some(p) if p > s.max_concurrency => Err(ApiError::validation(format!(
            "ProvisionedConcurrency ({p}) of variant \"{variant}\" must be less than or equal to MaxConcurrency ({}).",
            s.max_concurrency
        ))),
        _ => Ok(()),
    }
}

/// Puts a serverless variant's settings in its ProductionVariantSummary: the current and desired
/// configurations instead of instance counts.
pub fn overlay_summary(j: &mut Value, v: &Variant) {
    let Some(s) = v.sim.serverless.get() else {
        return;
    };
    if let Some(obj) = j.as_object_mut() {
        obj.remove("CurrentInstanceCount");
        obj.remove("DesiredInstanceCount");
    }
    j["CurrentServerlessConfig"] = s.current().to_json();
    j["DesiredServerlessConfig"] = s.desired().to_json();
}

/// The settings a `ServerlessUpdateConfig` asks of variant `v` (members not given keep the
/// desired ones), checked: a serverless variant only, no instance count beside it, provisioned
/// concurrency at most the max concurrency.
pub fn desired_update(
    v: &Variant,
    update: &Value,
    instance_count: Option<i64>,
) -> Result<ServerlessSettings, ApiError> {
    let Some(s) = v.sim.serverless.get() else {
        return Err(ApiError::validation(format!(
            "Variant \"{}\" is not a serverless variant: ServerlessUpdateConfig applies to serverless variants only.",
            v.name
        )));
    };
    if instance_count.is_some() {
        return Err(ApiError::validation(format!(
            "Variant \"{}\" is serverless: give ServerlessUpdateConfig, not DesiredInstanceCount.",
            v.name
        )));
    }
    let int = |k: &str| update.get(k).and_then(Value::as_i64).map(|n| n as i32);
    let mut wanted = s.desired();
    if let Some(max) = int("MaxConcurrency") {
        wanted.max_concurrency = max;
    }
    if let Some(p) = int("ProvisionedConcurrency") {
        wanted.provisioned = Some(p);
    }
    check_provisioned(&v.name, wanted)?;
    Ok(wanted)
}

/// A serverless variant given a DesiredInstanceCount without a ServerlessUpdateConfig.
pub fn refuse_instance_count(v: &Variant, instance_count: Option<i64>) -> Result<(), ApiError> {
    match (v.sim.serverless.get(), instance_count) {
        (Some(_), Some(_)) => Err(ApiError::validation(format!(
            "Variant \"{}\" is serverless: it has no instance count to change (use ServerlessUpdateConfig).",
            v.name
        ))),
        _ => Ok(()),
    }
}
