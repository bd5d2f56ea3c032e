//! Application Auto Scaling (awsJson1_1, `x-amz-target: AnyScaleFrontendService.<Op>`) for
//! SageMaker variants, with target-tracking policies that act: when the tracked metric stays past
//! its target for the cooldown, the variant's instance count changes through Updating and an
//! activity is recorded.
//!
//! Sandbox choices (documented): a resource id that names no existing endpoint variant is refused
//! with `ValidationException` `The target resource endpoint/X/variant/Y does not exist.`; scale-in
//! happens when the metric stays below 90% of the target.

mod activities;
mod evaluate;
pub mod metric_spec;
mod policies;
mod step;
mod targets;
pub mod tt_alarms;

use std::collections::BTreeMap;

use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::http::wire::{ApiError, Protocol, decode_json, json_ok, parse_input};
use crate::sandbox::world::sandbox::Sandbox;

pub use evaluate::evaluate;

/// The only scalable dimension of a SageMaker variant.
pub const VARIANT_DIMENSION: &str = "sagemaker:variant:DesiredInstanceCount";

type TargetKey = (String, String, String);

/// A registered scalable target.
#[derive(Debug, Clone)]
pub struct ScalableTarget {
    /// Min capacity.
    pub min: i64,
    /// Max capacity.
    pub max: i64,
    /// Role.
    pub role_arn: String,
    /// Registration time.
    pub creation_time: f64,
    /// ARN.
    pub arn: String,
    /// SuspendedState as sent.
    pub suspended: Value,
}

/// A scaling policy and its evaluation state.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Name.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// Target it scales.
    pub target: TargetKey,
    /// TargetTrackingScaling | StepScaling.
    pub policy_type: String,
    /// Configuration as sent.
    pub config: Value,
    /// Creation time.
    pub creation_time: f64,
    /// Names of the CloudWatch alarms it owns (target tracking).
    pub alarms: Vec<String>,
    breach_since: Option<f64>,
    under_since: Option<f64>,
}

/// A scaling activity.
#[derive(Debug, Clone)]
pub struct Activity {
    id: String,
    target: TargetKey,
    description: String,
    cause: String,
    start: f64,
    end: f64,
    status: String,
}

/// Targets, policies, activities.
#[derive(Debug, Default)]
pub struct AutoScaling {
    targets: BTreeMap<TargetKey, ScalableTarget>,
    policies: Vec<Policy>,
    activities: Vec<Activity>,
    last_scaling: BTreeMap<TargetKey, f64>,
    last_evaluation: f64,
}

/// A target-tracking policy on invocations per instance seeded with the demo fleet.
#[derive(Debug, Clone)]
pub struct SeedTracking<'a> {
    /// `endpoint/E/variant/V`.
    pub resource_id: &'a str,
    /// Policy name.
    pub policy_name: &'a str,
    /// MinCapacity, MaxCapacity.
    pub bounds: (i64, i64),
    /// Target invocations per instance per minute.
    pub target_value: f64,
    /// ScaleInCooldown, ScaleOutCooldown (s).
    pub cooldowns: (i64, i64),
    /// Registration time.
    pub created: f64,
}

impl AutoScaling {
    /// Registers a SageMaker variant target with a target-tracking policy on
    /// InvocationsPerInstance (the demo fleet's autoscaling), bypassing the wire.
    pub fn seed_target_tracking(&mut self, sb: &Sandbox, seed: &SeedTracking<'_>) {
        let key: TargetKey = ("sagemaker".into(), seed.resource_id.into(), VARIANT_DIMENSION.into());
        self.targets.insert(
            key.clone(),
            ScalableTarget {
                min: seed.bounds.0,
                max: seed.bounds.1,
                role_arn: format!("arn:aws:iam::{}:role/SageMakerAutoScaling", sb.config.account),
                creation_time: seed.created,
                arn: format!("arn:aws:application-autoscaling:{}:{}:scalable-target/demo", sb.config.region, sb.config.account),
                suspended: json!({"DynamicScalingInSuspended": false, "DynamicScalingOutSuspended": false, "ScheduledScalingSuspended": false}),
            },
        );
        let config = json!({
            "TargetValue": seed.target_value,
            "PredefinedMetricSpecification": {"PredefinedMetricType": "SageMakerVariantInvocationsPerInstance"},
            "ScaleInCooldown": seed.cooldowns.0, "ScaleOutCooldown": seed.cooldowns.1,
        });
        self.insert_policy(
            sb,
            seed.policy_name,
            key,
            "TargetTrackingScaling".into(),
            config,
            seed.created,
        );
    }

    /// Adds (or replaces) a policy, creating the alarms of a target-tracking one (and deleting
    /// those of the policy it replaces). Returns its ARN and alarm names.
    pub(crate) fn insert_policy(
        &mut self,
        sb: &Sandbox,
        name: &str,
        key: TargetKey,
        policy_type: String,
        config: Value,
        now: f64,
    ) -> (String, Vec<String>) {
        let arn = format!(
            "arn:aws:autoscaling:{}:{}:scalingPolicy:{}:resource/{}/{}:policyName/{name}",
            sb.config.region,
            sb.config.account,
            tt_alarms::uuid_of(&key.1, name),
            key.0,
            key.1,
        );
        let old: Vec<String> = self
            .policies
            .iter()
            .filter(|p| p.target == key && p.name == name)
            .flat_map(|p| p.alarms.clone())
            .collect();
        tt_alarms::delete(sb, &old, now);
        self.policies.retain(|p| !(p.target == key && p.name == name));
        let alarms = match (policy_type.as_str(), metric_spec::tracked_metric(&key.1, &config)) {
            ("TargetTrackingScaling", Some(metric)) => {
                let target = config.get("TargetValue").and_then(Value::as_f64).unwrap_or(0.0);
                tt_alarms::create(sb, &key.1, &arn, &metric, target, now)
            }
            _ => Vec::new(),
        };
        self.policies.push(Policy {
            name: name.to_string(),
            arn: arn.clone(),
            target: key,
            policy_type,
            config,
            creation_time: now,
            alarms: alarms.clone(),
            breach_since: None,
            under_since: None,
        });
        (arn, alarms)
    }
}

pub(crate) fn aas_error(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message).in_namespace("com.amazonaws.applicationautoscaling")
}

pub(crate) fn no_target(key: &TargetKey) -> ApiError {
    aas_error(
        "ObjectNotFoundException",
        format!(
            "No scalable target registered for service namespace: {}, resource ID: {}, scalable dimension: {}",
            key.0, key.1, key.2
        ),
    )
}

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

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct TargetInput {
    service_namespace: String,
    resource_id: String,
    scalable_dimension: String,
    min_capacity: Option<i64>,
    max_capacity: Option<i64>,
    #[serde(rename = "RoleARN")]
    role_arn: Option<String>,
    suspended_state: Option<Value>,
    resource_ids: Option<Vec<String>>,
    max_results: Option<usize>,
    next_token: Option<String>,
    policy_name: Option<String>,
    policy_names: Option<Vec<String>>,
    policy_type: Option<String>,
    target_tracking_scaling_policy_configuration: Option<Value>,
    step_scaling_policy_configuration: Option<Value>,
}

impl TargetInput {
    fn key(&self) -> TargetKey {
        (
            self.service_namespace.clone(),
            self.resource_id.clone(),
            self.scalable_dimension.clone(),
        )
    }
}

/// Splits `endpoint/NAME/variant/VARIANT`.
pub fn parse_variant_resource(resource_id: &str) -> Option<(&str, &str)> {
    let rest = resource_id.strip_prefix("endpoint/")?;
    let (endpoint, variant) = rest.split_once("/variant/")?;
    Some((endpoint, variant))
}

pub(crate) fn current_count(sb: &Sandbox, resource_id: &str) -> Option<i64> {
    let (endpoint, variant) = parse_variant_resource(resource_id)?;
    let world = sb.world.read();
    world
        .endpoints
        .get(endpoint)?
        .variant(variant)
        .map(|v| v.desired_instances as i64)
}

pub(crate) fn paged(
    items: Vec<Value>,
    member: &str,
    max: Option<usize>,
    token: Option<&str>,
    default: usize,
) -> Result<Value, ApiError> {
    let start = match token {
        Some(t) => t
            .parse::<usize>()
            .map_err(|_| aas_error("InvalidNextTokenException", "The NextToken is invalid."))?,
        None => 0,
    };
    let max = max.unwrap_or(default).clamp(1, 50.max(default));
    let end = (start + max).min(items.len());
    let mut out = json!({ member: items.get(start..end).unwrap_or(&[]) });
    if end < items.len() {
        out["NextToken"] = end.to_string().into();
    }
    Ok(out)
}
