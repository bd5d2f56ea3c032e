//! PutScalingPolicy, DescribeScalingPolicies, DeleteScalingPolicy.

use serde_json::{Value, json};

use super::metric_spec::{self, validate_customized};
use super::request::{TargetInput, aas_error, no_target, paged};
use super::store::{AutoScaling, Policy, ScalableTarget, SeedTracking, TargetKey, VARIANT_DIMENSION};
use super::tt_alarms;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

pub(super) fn put_policy(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let key = input.key();
    let name = input
        .policy_name
        .clone()
        .ok_or_else(|| aas_error("ValidationException", "PolicyName is required."))?;
    let policy_type = input.policy_type.clone().unwrap_or_else(|| "StepScaling".into());
    let config = match policy_type.as_str() {
        "TargetTrackingScaling" => {
            let c = input
                .target_tracking_scaling_policy_configuration
                .clone()
                .ok_or_else(|| {
                    aas_error(
                        "ValidationException",
                        "TargetTrackingScalingPolicyConfiguration is required for policy type TargetTrackingScaling.",
                    )
                })?;
            if !c
                .get("TargetValue")
                .and_then(Value::as_f64)
                .is_some_and(|v| v.is_finite() && v > 0.0)
            {
                return Err(aas_error(
                    "ValidationException",
                    "TargetValue must be a positive number.",
                ));
            }
            let predefined = c.get("PredefinedMetricSpecification").is_some();
            let customized = c.get("CustomizedMetricSpecification");
            if predefined == customized.is_some() {
                return Err(aas_error(
                    "ValidationException",
                    "Exactly one of PredefinedMetricSpecification and CustomizedMetricSpecification must be given.",
                ));
            }
            if let Some(custom) = customized {
                validate_customized(custom)?;
            }
            c
        }
        "StepScaling" => input
            .step_scaling_policy_configuration
            .clone()
            .unwrap_or_else(|| json!({})),
        other => {
            return Err(aas_error(
                "ValidationException",
                format!("Unsupported policy type {other}."),
            ));
        }
    };
    let mut aas = sb.autoscaling.lock();
    if !aas.targets.contains_key(&key) {
        return Err(no_target(&key));
    }
    let (arn, alarms) = aas.insert_policy(sb, &name, key, policy_type, config, now_epoch());
    Ok(json!({ "PolicyARN": arn, "Alarms": alarm_list(sb, &alarms) }))
}

/// `Alarms` as the API lists them: name and ARN.
fn alarm_list(sb: &Sandbox, names: &[String]) -> Value {
    names
        .iter()
        .map(|n| json!({"AlarmName": n, "AlarmARN": sb.alarms.arn(n)}))
        .collect()
}

pub(super) fn describe_policies(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let aas = sb.autoscaling.lock();
    let items: Vec<Value> = aas
        .policies
        .iter()
        .filter(|p| p.target.0 == input.service_namespace)
        .filter(|p| input.resource_id.is_empty() || p.target.1 == input.resource_id)
        .filter(|p| input.scalable_dimension.is_empty() || p.target.2 == input.scalable_dimension)
        .filter(|p| input.policy_names.as_ref().is_none_or(|n| n.contains(&p.name)))
        .map(|p| {
            let member = if p.policy_type == "TargetTrackingScaling" {
                "TargetTrackingScalingPolicyConfiguration"
            } else {
                "StepScalingPolicyConfiguration"
            };
            json!({
                "PolicyARN": p.arn, "PolicyName": p.name, "ServiceNamespace": p.target.0,
                "ResourceId": p.target.1, "ScalableDimension": p.target.2, "PolicyType": p.policy_type,
                member: p.config, "Alarms": alarm_list(sb, &p.alarms), "CreationTime": p.creation_time,
            })
        })
        .collect();
    paged(
        items,
        "ScalingPolicies",
        input.max_results,
        input.next_token.as_deref(),
        50,
    )
}

pub(super) fn delete_policy(sb: &Sandbox, input: TargetInput) -> Result<Value, ApiError> {
    let key = input.key();
    let name = input.policy_name.clone().unwrap_or_default();
    let mut aas = sb.autoscaling.lock();
    let Some(i) = aas.policies.iter().position(|p| p.target == key && p.name == name) else {
        return Err(aas_error(
            "ObjectNotFoundException",
            format!(
                "No scaling policy found for service namespace: {}, resource ID: {}, scalable dimension: {}, policy name: {name}",
                key.0, key.1, key.2
            ),
        ));
    };
    let removed = aas.policies.remove(i);
    tt_alarms::delete(sb, &removed.alarms, now_epoch());
    Ok(json!({}))
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
