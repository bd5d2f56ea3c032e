//! UpdateEndpoint's DeploymentConfig read into a policy, after the API model's ranges
//! (`constraints.rs`), with the rules AWS applies beyond the model: one policy at most, the size
//! a routing type needs, the canary at most half of each variant's instances, linear steps
//! 10–50 %, rolling batches 5–50 %, the timeout longer than the waits, the same variant names,
//! no rolling update of serverless or multi-variant endpoints; and the silent fallback of
//! endpoints with Inf1 instances or Marketplace containers to all at once without a final bake.
//!
//! The refusals' texts are the sandbox's (AWS's are not published); each names its member and
//! its rule.

use serde::Deserialize;
use serde_json::Value;

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::deployment::{Capacity, Routing, linear_steps};
use crate::sandbox::world::resources::EndpointConfig;
use crate::sandbox::world::state::{Endpoint, Variant, World};

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "PascalCase")]
struct CapacitySize {
    r#type: CapacityType,
    value: i64,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum CapacityType {
    InstanceCount,
    CapacityPercent,
}

impl CapacitySize {
    fn capacity(self) -> Capacity {
        match self.r#type {
            CapacityType::InstanceCount => Capacity::Instances(self.value.clamp(0, i32::MAX as i64) as i32),
            CapacityType::CapacityPercent => Capacity::Percent(self.value as f64),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TrafficRouting {
    r#type: String,
    wait_interval_in_seconds: u32,
    canary_size: Option<CapacitySize>,
    linear_step_size: Option<CapacitySize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct BlueGreen {
    traffic_routing_configuration: TrafficRouting,
    #[serde(default)]
    termination_wait_in_seconds: u32,
    maximum_execution_timeout_in_seconds: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RollingUpdate {
    maximum_batch_size: CapacitySize,
    wait_interval_in_seconds: u32,
    maximum_execution_timeout_in_seconds: Option<u32>,
    rollback_maximum_batch_size: Option<CapacitySize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct AlarmRef {
    alarm_name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase")]
struct AutoRollback {
    #[serde(default)]
    alarms: Vec<AlarmRef>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DeploymentConfig {
    blue_green_update_policy: Option<BlueGreen>,
    rolling_update_policy: Option<RollingUpdate>,
    auto_rollback_configuration: Option<AutoRollback>,
}

/// How the new fleet replaces the old one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A green fleet beside the blue one, traffic shifted by the routing.
    BlueGreen(Routing),
    /// The fleet replaced in batches of this size.
    Rolling(Capacity),
}

/// A deployment's policy, as it will run.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Blue/green or rolling.
    pub kind: Kind,
    /// WaitIntervalInSeconds.
    pub wait: u32,
    /// TerminationWaitInSeconds (blue/green).
    pub termination_wait: u32,
    /// MaximumExecutionTimeoutInSeconds.
    pub timeout: Option<u32>,
    /// The AutoRollbackConfiguration alarms.
    pub alarms: Vec<String>,
    /// RollbackMaximumBatchSize (rolling; absent = all at once).
    pub rollback_batch: Option<Capacity>,
}

impl Policy {
    /// UpdateEndpoint without a DeploymentConfig: blue/green, all at once, no bake.
    pub fn plain() -> Policy {
        Policy {
            kind: Kind::BlueGreen(Routing::AllAtOnce),
            wait: 0,
            termination_wait: 0,
            timeout: None,
            alarms: Vec::new(),
            rollback_batch: None,
        }
    }
}

fn refuse(message: impl Into<String>) -> ApiError {
    ApiError::validation(message)
}

/// The policy a DeploymentConfig asks for on this endpoint and new configuration, refused as
/// AWS refuses it, or fallen back to all at once without a final bake where AWS does so.
/// The instance counts checked are the new fleet's (`green`: the new configuration's, or the live
/// ones RetainAllVariantProperties kept).
pub fn read(
    doc: Option<&Value>,
    ep: &Endpoint,
    (config, green): (&EndpointConfig, &[Variant]),
    world: &World,
) -> Result<Policy, ApiError> {
    let Some(doc) = doc else {
        return Ok(Policy::plain());
    };
    let dc: DeploymentConfig =
        serde_json::from_value(doc.clone()).map_err(|e| refuse(format!("Invalid DeploymentConfig: {e}")))?;
    let alarms: Vec<String> = dc
        .auto_rollback_configuration
        .unwrap_or_default()
        .alarms
        .into_iter()
        .filter_map(|a| a.alarm_name)
        .collect();
    same_variant_names(ep, config)?;
    let mut policy = match (dc.blue_green_update_policy, dc.rolling_update_policy) {
        (Some(_), Some(_)) => {
            return Err(refuse(
                "DeploymentConfig can contain only one of BlueGreenUpdatePolicy and RollingUpdatePolicy.",
            ));
        }
        (Some(bg), None) => blue_green(bg, green)?,
        (None, Some(r)) => rolling(r, ep, (config, green))?,
        (None, None) => Policy::plain(),
    };
    policy.alarms = alarms;
    if falls_back(ep, config, world) {
        return Ok(Policy {
            kind: Kind::BlueGreen(Routing::AllAtOnce),
            termination_wait: 0,
            rollback_batch: None,
            ..policy
        });
    }
    Ok(policy)
}

/// A deployment keeps the variants: the new configuration names the same ones.
fn same_variant_names(ep: &Endpoint, config: &EndpointConfig) -> Result<(), ApiError> {
    let mut old: Vec<&str> = ep.variants.iter().map(|v| v.name.as_str()).collect();
    let mut new: Vec<&str> = config.variants.iter().map(|v| v.name.as_str()).collect();
    old.sort_unstable();
    new.sort_unstable();
    if old == new {
        return Ok(());
    }
    Err(refuse(format!(
        "A DeploymentConfig needs the new endpoint configuration \"{}\" to have the same production variant names as the current one ({}); it has ({}).",
        config.name,
        old.join(", "),
        new.join(", ")
    )))
}

/// The instance counts of the new fleet's instance-based variants, by name.
fn instance_variants(green: &[Variant]) -> impl Iterator<Item = (&str, i32)> {
    green
        .iter()
        .filter(|v| v.instance_type.is_some())
        .map(|v| (v.name.as_str(), v.desired_instances))
}

fn blue_green(bg: BlueGreen, green: &[Variant]) -> Result<Policy, ApiError> {
    let t = &bg.traffic_routing_configuration;
    let routing = match (t.r#type.as_str(), t.canary_size, t.linear_step_size) {
        (_, Some(_), Some(_)) => {
            return Err(refuse(
                "TrafficRoutingConfiguration can contain only one of CanarySize and LinearStepSize.",
            ));
        }
        ("CANARY", Some(size), None) => Routing::Canary(size.capacity()),
        ("CANARY", None, _) => {
            return Err(refuse(
                "CanarySize is required when the traffic routing Type is CANARY.",
            ));
        }
        ("LINEAR", None, Some(size)) => Routing::Linear(size.capacity()),
        ("LINEAR", _, None) => {
            return Err(refuse(
                "LinearStepSize is required when the traffic routing Type is LINEAR.",
            ));
        }
        (kind, Some(_), None) => {
            return Err(refuse(format!(
                "CanarySize is only valid when the traffic routing Type is CANARY, not {kind}."
            )));
        }
        (kind, None, Some(_)) => {
            return Err(refuse(format!(
                "LinearStepSize is only valid when the traffic routing Type is LINEAR, not {kind}."
            )));
        }
        _ => Routing::AllAtOnce,
    };
    let largest = instance_variants(green).map(|(_, n)| n).max().unwrap_or(1);
    for (name, total) in instance_variants(green) {
        check_step_size(routing, name, total)?;
    }
    let bakes = match routing {
        Routing::AllAtOnce => 0,
        Routing::Canary(_) => 1,
        Routing::Linear(size) => linear_steps(size, largest) - 1,
    };
    let waits = t.wait_interval_in_seconds as u64 * bakes as u64 + bg.termination_wait_in_seconds as u64;
    check_timeout(bg.maximum_execution_timeout_in_seconds, waits)?;
    Ok(Policy {
        kind: Kind::BlueGreen(routing),
        wait: t.wait_interval_in_seconds,
        termination_wait: bg.termination_wait_in_seconds,
        timeout: bg.maximum_execution_timeout_in_seconds,
        alarms: Vec::new(),
        rollback_batch: None,
    })
}

/// A canary is at most half of a variant's instances; a linear step 10–50 % of them.
fn check_step_size(routing: Routing, variant: &str, total: i32) -> Result<(), ApiError> {
    let (what, size, min_pct) = match routing {
        Routing::AllAtOnce => return Ok(()),
        Routing::Canary(size) => ("CanarySize", size, 0.0),
        Routing::Linear(size) => ("LinearStepSize", size, 10.0),
    };
    check_share(what, size, (min_pct, 50.0), variant, total)
}

/// A size is within `min_pct`–`max_pct` % of a variant's `total` instances (a percentage itself
/// and the instances it comes to).
fn check_share(
    what: &str,
    size: Capacity,
    (min_pct, max_pct): (f64, f64),
    variant: &str,
    total: i32,
) -> Result<(), ApiError> {
    let instances = size.of(total);
    let pct_ok = match size {
        Capacity::Percent(p) => (min_pct..=max_pct).contains(&p),
        Capacity::Instances(n) => n <= total,
    };
    let share = if total > 0 {
        instances as f64 * 100.0 / total as f64
    } else {
        100.0
    };
    if pct_ok && share >= min_pct - 1e-9 && share <= max_pct + 1e-9 && instances >= 1 {
        return Ok(());
    }
    let asked = match size {
        Capacity::Percent(p) => format!("{p}%"),
        Capacity::Instances(n) => format!("{n} instance(s)"),
    };
    let range = if min_pct > 0.0 {
        format!("between {min_pct}% and {max_pct}%")
    } else {
        format!("at most {max_pct}%")
    };
    Err(refuse(format!(
        "{what} of {asked} comes to {instances} of the {total} instance(s) of production variant \"{variant}\"; it must be {range} of the variant's instance count."
    )))
}

/// MaximumExecutionTimeoutInSeconds, when given, exceeds the sum of the deployment's waits.
fn check_timeout(timeout: Option<u32>, waits: u64) -> Result<(), ApiError> {
    match timeout {
        Some(t) if t as u64 <= waits => Err(refuse(format!(
            "MaximumExecutionTimeoutInSeconds ({t}) must be greater than the sum of the deployment's waits, WaitIntervalInSeconds and TerminationWaitInSeconds ({waits})."
        ))),
        _ => Ok(()),
    }
}

fn rolling(
    r: RollingUpdate,
    ep: &Endpoint,
    (config, green): (&EndpointConfig, &[Variant]),
) -> Result<Policy, ApiError> {
    if config.variants.len() > 1 || ep.variants.len() > 1 {
        return Err(refuse(
            "RollingUpdatePolicy is not supported for endpoints with more than one production variant.",
        ));
    }
    if config.variants.iter().any(|v| v.serverless.is_some()) || ep.variants.iter().any(|v| v.instance_type.is_none()) {
        return Err(refuse("RollingUpdatePolicy is not supported for serverless endpoints."));
    }
    let batch = r.maximum_batch_size.capacity();
    let mut batches = 1;
    for (name, total) in instance_variants(green) {
        check_share("MaximumBatchSize", batch, (5.0, 50.0), name, total)?;
        let b = batch.of(total).max(1);
        batches = (total + b - 1) / b;
    }
    check_timeout(
        r.maximum_execution_timeout_in_seconds,
        r.wait_interval_in_seconds as u64 * batches as u64,
    )?;
    Ok(Policy {
        kind: Kind::Rolling(batch),
        wait: r.wait_interval_in_seconds,
        termination_wait: 0,
        timeout: r.maximum_execution_timeout_in_seconds,
        alarms: Vec::new(),
        rollback_batch: r.rollback_maximum_batch_size.map(CapacitySize::capacity),
    })
}

/// Endpoints AWS's guardrails exclude (Inf1 instances, Marketplace containers, before or after):
/// they deploy all at once without a final bake, whatever the DeploymentConfig says.
fn falls_back(ep: &Endpoint, config: &EndpointConfig, world: &World) -> bool {
    let inf1 = |t: Option<&String>| t.is_some_and(|t| t.starts_with("ml.inf1."));
    let marketplace = |model: &str| {
        world
            .models
            .get(model)
            .is_some_and(|m| m.container.image.contains("marketplace"))
    };
    ep.variants
        .iter()
        .any(|v| inf1(v.instance_type.as_ref()) || marketplace(&v.model_name))
        || config
            .variants
            .iter()
            .any(|v| inf1(v.instance_type.as_ref()) || marketplace(&v.model_name))
}
