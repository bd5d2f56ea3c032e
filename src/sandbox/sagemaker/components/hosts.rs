//! The variants of an IC endpoint (a configuration whose variants carry no model): the hosts
//! components are placed on, registered when the endpoint is created and registered again when
//! an UpdateEndpoint onto another configuration completes (the components stay: they belong to
//! the endpoint and variant, not to the configuration), and what DescribeEndpoint shows of them
//! (instance counts following the copies, ManagedInstanceScaling).
//!
//! Refusal the reference marks UNVERIFIED, the sandbox's choice: an UpdateEndpoint whose
//! configuration drops a variant that hosts components, or names a model on it, gets
//! `Cannot update endpoint "ARN": variant "V" hosts inference component IC. Delete its inference
//! components first.`

use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::instance_types::instance_capacity;
use crate::sandbox::world::components::{Components, Host};
use crate::sandbox::world::resources::{ConfigVariant, EndpointConfig};

/// Whether a configuration's variants host inference components (they name no model).
pub fn hosts_components(config: &EndpointConfig) -> bool {
    config.variants.iter().any(|v| v.model_name.is_empty())
}

/// The ManagedInstanceScaling of a variant as `(enabled, min, max)`.
fn managed_scaling(v: &ConfigVariant) -> (bool, i32, i32) {
    let m = v.extra.get("ManagedInstanceScaling");
    let int = |k: &str, d: i32| m.and_then(|m| m.get(k)).and_then(Value::as_i64).map_or(d, |n| n as i32);
    let enabled = m
        .and_then(|m| m.get("Status"))
        .and_then(Value::as_str)
        .is_some_and(|s| s == "ENABLED");
    let initial = v.initial_instance_count;
    (
        enabled,
        int("MinInstanceCount", initial),
        int("MaxInstanceCount", initial),
    )
}

/// Checks an IC variant of CreateEndpointConfig: an instance type, no serverless, a
/// ManagedInstanceScaling whose MinInstanceCount is at most its MaxInstanceCount.
pub fn check_variant(v: &ConfigVariant) -> Result<(), ApiError> {
    if v.instance_type.is_none() || v.serverless.is_some() {
        return Err(ApiError::validation(format!(
            "Variant \"{}\" hosts inference components: it needs an InstanceType (serverless variants cannot host them).",
            v.name
        )));
    }
    let (_, min, max) = managed_scaling(v);
    if min > max {
        return Err(ApiError::validation(format!(
            "MinInstanceCount ({min}) of variant \"{}\" must be less than or equal to its MaxInstanceCount ({max}).",
            v.name
        )));
    }
    Ok(())
}

/// Registers the hosts of a new IC endpoint: its instances come up after `instance_seconds`.
pub fn register(components: &mut Components, endpoint: &str, config: &EndpointConfig, instance_seconds: f64, now: f64) {
    for v in &config.variants {
        let Some(itype) = v.instance_type.clone() else {
            continue;
        };
        let (managed, min, max) = managed_scaling(v);
        components.hosts.insert(
            (endpoint.to_string(), v.name.clone()),
            Host {
                capacity: instance_capacity(&itype).unwrap_or_default(),
                instance_type: itype,
                current_instances: 0,
                desired_instances: v.initial_instance_count,
                instances_ready_at: Some(now + instance_seconds),
                managed,
                min_instances: min,
                max_instances: max,
                instance_seconds,
            },
        );
    }
}

/// Refuses an UpdateEndpoint of `endpoint` onto `config` that would leave a component without
/// its hosting variant (the variant dropped, or given a model).
pub fn check_update(
    components: &Components,
    (endpoint, arn): (&str, &str),
    config: &EndpointConfig,
) -> Result<(), ApiError> {
    let hosted_on = |variant: &str| {
        config
            .variants
            .iter()
            .any(|v| v.name == variant && v.model_name.is_empty() && v.instance_type.is_some())
    };
    match components.on_endpoint(endpoint).find(|ic| !hosted_on(&ic.variant)) {
        Some(ic) => Err(ApiError::validation(format!(
            "Cannot update endpoint \"{arn}\": variant \"{}\" hosts inference component {}. Delete its inference components first.",
            ic.variant, ic.name
        ))),
        None => Ok(()),
    }
}

/// Registers an endpoint's hosts again from the configuration an UpdateEndpoint put it on:
/// each variant's instance type, capacity and ManagedInstanceScaling from `config`, its instance
/// count from the deployed variant (`desired`, by name: the configuration's or the one retained),
/// already running (the new fleet launched during the deployment). Hosts of variants the
/// configuration no longer has go; the components stay where they are and are placed again on
/// the next tick. A new host's instances take `instance_seconds` to come up when it grows.
pub fn reconfigure(
    components: &mut Components,
    (endpoint, config): (&str, &EndpointConfig),
    desired: &dyn Fn(&str) -> Option<i32>,
    instance_seconds: f64,
) {
    let kept: Vec<&ConfigVariant> = config
        .variants
        .iter()
        .filter(|v| hosts_components(config) && v.instance_type.is_some())
        .collect();
    components
        .hosts
        .retain(|(e, v), _| e != endpoint || kept.iter().any(|cv| &cv.name == v));
    for v in kept {
        let Some(itype) = v.instance_type.clone() else {
            continue;
        };
        let (managed, min, max) = managed_scaling(v);
        let count = desired(&v.name).unwrap_or(v.initial_instance_count).max(0);
        let key = (endpoint.to_string(), v.name.clone());
        let kept_seconds = components.hosts.get(&key).map(|h| h.instance_seconds);
        components.hosts.insert(
            key,
            Host {
                capacity: instance_capacity(&itype).unwrap_or_default(),
                instance_type: itype,
                current_instances: count,
                desired_instances: count,
                instances_ready_at: None,
                managed,
                min_instances: min,
                max_instances: max,
                instance_seconds: kept_seconds.unwrap_or(instance_seconds),
            },
        );
    }
}

/// What DescribeEndpoint shows of an IC variant, over its ProductionVariantSummary: the instance
/// counts of its host, its ManagedInstanceScaling and RoutingConfig, no DeployedImages.
pub fn overlay_variant(summary: &mut Value, host: &Host, config_variant: Option<&ConfigVariant>) {
    if let Some(obj) = summary.as_object_mut() {
        obj.remove("DeployedImages");
    }
    summary["CurrentInstanceCount"] = host.current_instances.into();
    summary["DesiredInstanceCount"] = host.desired_instances.into();
    if let Some(cv) = config_variant {
        for key in ["ManagedInstanceScaling", "RoutingConfig"] {
            if let Some(v) = cv.extra.get(key) {
                summary[key] = v.clone();
            }
        }
    }
    if host.current_instances != host.desired_instances && summary.get("VariantStatus").is_none() {
        let status = if host.desired_instances > host.current_instances {
            "Creating"
        } else {
            "Deleting"
        };
        summary["VariantStatus"] = json!([{
            "Status": status,
            "StatusMessage": format!("{status} instances ({} → {})", host.current_instances, host.desired_instances),
            "StartTime": host.instances_ready_at.map(|t| t - host.instance_seconds),
        }]);
    }
}
