//! Changes to the autoscaling of one variant: bounds (RegisterScalableTarget), target-tracking
//! policies on invocations per instance or on ModelLatency p99 done right (metric math,
//! `AWS/SageMaker`, milliseconds converted to microseconds), cooldowns, removing a policy, and the
//! desired instance count now. Each is planned against what was read, compare-and-swapped against
//! the variant's autoscaling right before sending (refused with every difference, nothing sent),
//! and audited (intent before, result after).

use aws_sdk_applicationautoscaling::types::ServiceNamespace;
use serde::Serialize;
use serde_json::{Value, json};

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::{Audited, Difference, GuardError};
use crate::aws::config::Fleet;
use crate::aws::error::AwsError;
use crate::aws::scaling::check::EndpointScaling;
use crate::aws::scaling::scope::{NO_CAPACITY_METRIC, PROVISIONED_DIMENSION, PROVISIONED_UTILIZATION, ScalingScope};
use crate::aws::scaling::send::request_id;
use crate::aws::scaling::spec::{
    CustomizedMetric, Dimension, INVOCATIONS_PER_INSTANCE, MetricQuery, MetricRef, MetricStat, PolicySpec,
    PredefinedMetric, TargetTracking, VARIANT_DIMENSION, variant_resource_id,
};
use crate::aws::scaling::zero::read::{ComponentScaling, InstanceScaling, WakeAlarm};

/// One change to a variant's autoscaling.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum ScalingChange {
    /// Register or update the scalable target.
    Bounds {
        /// MinCapacity.
        min: i32,
        /// MaxCapacity.
        max: i32,
    },
    /// Write (create or replace) a policy.
    Policy {
        /// The PutScalingPolicy request.
        spec: Box<PolicySpec>,
    },
    /// Delete a policy.
    RemovePolicy {
        /// Its name.
        name: String,
    },
    /// Set the desired instance count (of a component: copy count) now.
    Instances {
        /// The count.
        count: i32,
    },
    /// Write (create or replace) the alarm that wakes a component at zero: `AWS/SageMaker`
    /// `NoCapacityInvocationFailures` with its `InferenceComponentName`, Sum over 60 s, 1 of 1,
    /// `GreaterThanOrEqualToThreshold` 1, its action the step policy `policy_name`.
    WakeAlarm {
        /// Alarm name.
        name: String,
        /// The step policy it fires (its ARN is looked up when sending).
        policy_name: String,
    },
    /// Put the hosting variant's ManagedInstanceScaling at MinInstanceCount 0 (ENABLED): a new
    /// endpoint configuration copied from `from_config` and UpdateEndpoint onto it
    /// (`zero/instances.rs`), compare-and-swapped on `from_config`.
    ZeroInstances {
        /// The variant.
        variant: String,
        /// The endpoint configuration it was read on.
        from_config: String,
        /// Its ManagedInstanceScaling as read (None: it has none).
        was: Option<InstanceScaling>,
        /// MaxInstanceCount (None: the variant's InitialInstanceCount).
        max: Option<i32>,
    },
}

/// What the operator saw of the variant's autoscaling: it must still be so when sending.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScalingSnapshot {
    /// `(min, max)` of the scalable target, if registered.
    pub bounds: Option<(i32, i32)>,
    /// The variant's policies.
    pub policies: Vec<PolicySpec>,
    /// Desired instance count (of a component: copy count).
    pub desired_instances: Option<i32>,
    /// A component's alarms on its no-capacity failures (none for a variant).
    pub alarms: Vec<WakeAlarm>,
}

impl ScalingSnapshot {
    /// The variant's autoscaling as read (of a serverless variant: its provisioned concurrency
    /// as the desired count).
    pub fn of(state: &EndpointScaling, variant: &str) -> ScalingSnapshot {
        ScalingSnapshot {
            bounds: state.target_of(variant).map(|t| (t.min, t.max)),
            policies: state.policies_of(variant).cloned().collect(),
            desired_instances: state.info.variant(variant).map(|v| match &v.serverless {
                Some(s) => s.desired_provisioned.or(s.provisioned).unwrap_or(0),
                None => v.desired_instances,
            }),
            alarms: Vec::new(),
        }
    }

    /// A component's autoscaling as read.
    pub fn of_component(state: &ComponentScaling) -> ScalingSnapshot {
        ScalingSnapshot {
            bounds: state.bounds,
            policies: state.policy_specs(),
            desired_instances: state.desired_copies,
            alarms: state.alarms.clone(),
        }
    }

    /// Every difference between this (what was seen) and `now`.
    pub fn differences(&self, variant: &str, now: &ScalingSnapshot) -> Vec<Difference> {
        let diff = |field: String, expected: String, actual: String| Difference {
            variant: variant.to_string(),
            field,
            expected,
            actual,
        };
        let bounds = |b: Option<(i32, i32)>| b.map(|(a, b)| format!("{a}-{b}")).unwrap_or_else(|| "none".into());
        let mut out = Vec::new();
        if self.bounds != now.bounds {
            out.push(diff("min-max".into(), bounds(self.bounds), bounds(now.bounds)));
        }
        if self.desired_instances != now.desired_instances {
            let n = |c: Option<i32>| c.map(|c| c.to_string()).unwrap_or_else(|| "-".into());
            out.push(diff(
                "desired_instances".into(),
                n(self.desired_instances),
                n(now.desired_instances),
            ));
        }
        let mut names: Vec<&str> = self
            .policies
            .iter()
            .chain(&now.policies)
            .map(|p| p.policy_name.as_str())
            .collect();
        names.sort();
        names.dedup();
        for name in names {
            let find = |s: &ScalingSnapshot| s.policies.iter().find(|p| p.policy_name == name).map(policy_text);
            let (seen, is) = (find(self), find(now));
            if seen != is {
                let text = |t: Option<String>| t.unwrap_or_else(|| "absent".into());
                out.push(diff(format!("policy {name}"), text(seen), text(is)));
            }
        }
        for a in self.alarms.iter().chain(&now.alarms) {
            let find = |s: &ScalingSnapshot| s.alarms.iter().find(|x| x.name == a.name).map(alarm_text);
            let (seen, is) = (find(self), find(now));
            if seen != is && !out.iter().any(|d| d.field == format!("alarm {}", a.name)) {
                let text = |t: Option<String>| t.unwrap_or_else(|| "absent".into());
                out.push(diff(format!("alarm {}", a.name), text(seen), text(is)));
            }
        }
        out
    }
}

/// A policy in one line: what it tracks, its target and cooldowns.
pub fn policy_text(p: &PolicySpec) -> String {
    let Some(tt) = &p.target_tracking_scaling_policy_configuration else {
        let Some(step) = &p.step_scaling_policy_configuration else {
            return p.policy_type.clone().unwrap_or_else(|| "StepScaling".into());
        };
        let steps: Vec<String> = step
            .step_adjustments
            .iter()
            .map(|a| format!("{:+}", a.scaling_adjustment))
            .collect();
        return format!(
            "StepScaling {} {} (cooldown {})",
            step.adjustment_type.as_deref().unwrap_or("ChangeInCapacity"),
            steps.join("/"),
            step.cooldown
                .map(|c| format!("{c}s"))
                .unwrap_or_else(|| "default".into())
        );
    };
    let metric = match (&tt.predefined_metric_specification, &tt.customized_metric_specification) {
        (Some(pre), _) => pre.predefined_metric_type.clone(),
        (_, Some(c)) => match c.metrics.iter().find_map(|q| q.metric_stat.as_ref()) {
            Some(s) => format!("{} {} ({})", s.metric.metric_name, s.stat, s.metric.namespace),
            None => format!(
                "{} {} ({})",
                c.metric_name.as_deref().unwrap_or("-"),
                c.statistic.as_deref().unwrap_or("-"),
                c.namespace.as_deref().unwrap_or("-")
            ),
        },
        _ => "-".into(),
    };
    let cd = |c: Option<i32>| c.map(|c| format!("{c}s")).unwrap_or_else(|| "default".into());
    format!(
        "{metric} target {} (cooldowns in {} / out {})",
        tt.target_value,
        cd(tt.scale_in_cooldown),
        cd(tt.scale_out_cooldown)
    )
}

fn tracking_policy(endpoint: &str, variant: &str, name: &str, tt: TargetTracking) -> PolicySpec {
    PolicySpec {
        policy_name: name.to_string(),
        service_namespace: "sagemaker".into(),
        resource_id: variant_resource_id(endpoint, variant),
        scalable_dimension: VARIANT_DIMENSION.into(),
        policy_type: Some("TargetTrackingScaling".into()),
        target_tracking_scaling_policy_configuration: Some(tt),
        step_scaling_policy_configuration: None,
    }
}

/// Target tracking on SageMakerVariantInvocationsPerInstance.
pub fn invocations_policy(
    endpoint: &str,
    variant: &str,
    name: &str,
    target: f64,
    cooldowns: (Option<i32>, Option<i32>),
) -> PolicySpec {
    let tt = TargetTracking {
        target_value: target,
        predefined_metric_specification: Some(PredefinedMetric {
            predefined_metric_type: INVOCATIONS_PER_INSTANCE.into(),
            resource_label: None,
        }),
        scale_in_cooldown: cooldowns.0,
        scale_out_cooldown: cooldowns.1,
        ..Default::default()
    };
    tracking_policy(endpoint, variant, name, tt)
}

/// Target tracking on a serverless variant's SageMakerVariantProvisionedConcurrencyUtilization
/// (`sagemaker:variant:DesiredProvisionedConcurrency`), `target` from 0 to 1.
pub fn provisioned_policy(
    endpoint: &str,
    variant: &str,
    name: &str,
    target: f64,
    cooldowns: (Option<i32>, Option<i32>),
) -> PolicySpec {
    let tt = TargetTracking {
        target_value: target,
        predefined_metric_specification: Some(PredefinedMetric {
            predefined_metric_type: PROVISIONED_UTILIZATION.into(),
            resource_label: None,
        }),
        scale_in_cooldown: cooldowns.0,
        scale_out_cooldown: cooldowns.1,
        ..Default::default()
    };
    let mut spec = tracking_policy(endpoint, variant, name, tt);
    spec.scalable_dimension = PROVISIONED_DIMENSION.into();
    spec
}

/// Target tracking on the variant's ModelLatency p99: metric math (a MetricStat with Stat p99),
/// namespace `AWS/SageMaker`, the variant's dimensions, `ms` converted to microseconds.
pub fn p99_policy(
    endpoint: &str,
    variant: &str,
    name: &str,
    ms: f64,
    cooldowns: (Option<i32>, Option<i32>),
) -> PolicySpec {
    let dims = vec![
        Dimension {
            name: "EndpointName".into(),
            value: endpoint.into(),
        },
        Dimension {
            name: "VariantName".into(),
            value: variant.into(),
        },
    ];
    let query = MetricQuery {
        id: "p99".into(),
        label: Some(format!("ModelLatency p99 of {endpoint}/{variant} (microseconds)")),
        metric_stat: Some(MetricStat {
            metric: MetricRef {
                namespace: "AWS/SageMaker".into(),
                metric_name: "ModelLatency".into(),
                dimensions: dims,
            },
            stat: "p99".into(),
            unit: None,
        }),
        return_data: Some(true),
        expression: None,
    };
    let tt = TargetTracking {
        target_value: ms * 1000.0,
        customized_metric_specification: Some(CustomizedMetric {
            metrics: vec![query],
            ..Default::default()
        }),
        scale_in_cooldown: cooldowns.0,
        scale_out_cooldown: cooldowns.1,
        ..Default::default()
    };
    tracking_policy(endpoint, variant, name, tt)
}

/// An alarm in one line: what it watches and when it fires.
pub fn alarm_text(a: &WakeAlarm) -> String {
    format!(
        "{} {} {}s {} {} ({} of {}){}",
        a.metric_name,
        a.statistic.as_deref().unwrap_or("-"),
        a.period,
        a.comparison,
        a.threshold,
        a.datapoints_to_alarm.unwrap_or(a.evaluation_periods),
        a.evaluation_periods,
        if a.actions.is_empty() { ", no actions" } else { "" }
    )
}

/// A change as before → after JSON (for the audit log and `--json`).
pub fn before_after(change: &ScalingChange, seen: &ScalingSnapshot) -> (Value, Value) {
    match change {
        ScalingChange::Bounds { min, max } => (
            json!(seen.bounds.map(|(a, b)| json!({"min": a, "max": b}))),
            json!({"min": min, "max": max}),
        ),
        ScalingChange::Policy { spec } => (
            json!(seen.policies.iter().find(|p| p.policy_name == spec.policy_name)),
            json!(spec),
        ),
        ScalingChange::RemovePolicy { name } => (
            json!(seen.policies.iter().find(|p| &p.policy_name == name)),
            Value::Null,
        ),
        ScalingChange::Instances { count } => (json!(seen.desired_instances), json!(count)),
        ScalingChange::WakeAlarm { name, policy_name } => (
            json!(seen.alarms.iter().find(|a| &a.name == name)),
            json!({"alarm": name, "metric": NO_CAPACITY_METRIC, "statistic": "Sum", "period": 60,
                "evaluation_periods": 1, "comparison": "GreaterThanOrEqualToThreshold", "threshold": 1.0,
                "action": format!("policy {policy_name}")}),
        ),
        ScalingChange::ZeroInstances {
            variant,
            from_config,
            was,
            max,
        } => (
            json!({"variant": variant, "endpoint_config": from_config, "managed_instance_scaling": was}),
            json!({"variant": variant, "endpoint_config": format!("a copy of {from_config}"),
                "managed_instance_scaling": {"enabled": true, "min": 0, "max": max}}),
        ),
    }
}

/// The audit action of a change.
fn action_of(change: &ScalingChange) -> &'static str {
    match change {
        ScalingChange::Bounds { .. } => "autoscaling.bounds",
        ScalingChange::Policy { .. } => "autoscaling.policy",
        ScalingChange::RemovePolicy { .. } => "autoscaling.remove-policy",
        ScalingChange::Instances { .. } => "autoscaling.instances",
        ScalingChange::WakeAlarm { .. } => "autoscaling.wake-alarm",
        ScalingChange::ZeroInstances { .. } => "autoscaling.zero-instances",
    }
}

impl Fleet {
    /// Sends `changes` to `variant` of `endpoint` only if its autoscaling is still as `seen`
    /// (see the module docs), each with an intent line before and a result line after. Returns the
    /// request ids.
    pub async fn apply_scaling_guarded(
        &self,
        endpoint: &str,
        variant: &str,
        changes: &[ScalingChange],
        seen: &ScalingSnapshot,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<Vec<Option<String>>, GuardError> {
        let state = self.endpoint_scaling(endpoint).await?;
        let scope = ScalingScope::of_variant(&state.info, variant);
        let now = ScalingSnapshot::of(&state, variant);
        self.apply_scaling_against(&scope, changes, seen, &now, audited, reason)
            .await
    }

    /// What the autoscaling of `scope` is now, as a snapshot.
    async fn scaling_now(&self, scope: &ScalingScope) -> Result<ScalingSnapshot, AwsError> {
        Ok(match scope {
            ScalingScope::Variant { endpoint, variant } | ScalingScope::Provisioned { endpoint, variant } => {
                ScalingSnapshot::of(&self.endpoint_scaling(endpoint).await?, variant)
            }
            ScalingScope::Component { endpoint, component } => {
                ScalingSnapshot::of_component(&self.component_scaling(endpoint, component).await?)
            }
        })
    }

    /// Sends `changes` to the variant or component `scope` only if its autoscaling is still as
    /// `seen`, each audited (intent before, result after). Returns the request ids.
    pub async fn apply_scaling_scoped(
        &self,
        scope: &ScalingScope,
        changes: &[ScalingChange],
        seen: &ScalingSnapshot,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<Vec<Option<String>>, GuardError> {
        let now = self.scaling_now(scope).await?;
        self.apply_scaling_against(scope, changes, seen, &now, audited, reason)
            .await
    }

    /// Sends `changes` to `scope` if `now` (read right before) is still as `seen`.
    async fn apply_scaling_against(
        &self,
        scope: &ScalingScope,
        changes: &[ScalingChange],
        seen: &ScalingSnapshot,
        now: &ScalingSnapshot,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<Vec<Option<String>>, GuardError> {
        let target = scope.resource_id();
        let mut differences = seen.differences(scope.name(), now);
        differences.extend(self.config_differences(scope.endpoint(), changes).await?);
        if !differences.is_empty() {
            let err = GuardError::Changed {
                endpoint: scope.endpoint().to_string(),
                differences,
            };
            audited.refused("autoscaling", &target, &err.to_string(), reason);
            return Err(err);
        }
        let mut ids = Vec::new();
        for change in changes {
            let (before, after) = before_after(change, seen);
            let pending = audited
                .intent(Mutation {
                    action: action_of(change).into(),
                    target: target.clone(),
                    before,
                    after,
                    reason: reason.clone(),
                })
                .await?;
            let sent = self.send_scaling_change(scope, change).await;
            let outcome = match &sent {
                Ok(id) => Ok(id.clone()),
                Err(e) => Err(e.to_string()),
            };
            let _ = audited.finish(&pending, outcome);
            ids.push(sent?);
        }
        Ok(ids)
    }

    async fn send_scaling_change(
        &self,
        scope: &ScalingScope,
        change: &ScalingChange,
    ) -> Result<Option<String>, AwsError> {
        match change {
            ScalingChange::Bounds { min, max } => self
                .autoscaling
                .register_scalable_target()
                .service_namespace(ServiceNamespace::Sagemaker)
                .resource_id(scope.resource_id())
                .scalable_dimension(scope.dimension())
                .min_capacity(*min)
                .max_capacity(*max)
                .send()
                .await
                .map(|o| request_id(&o))
                .map_err(AwsError::from_sdk),
            ScalingChange::Policy { spec } => self.put_scaling_policy_of(scope, spec).await,
            ScalingChange::RemovePolicy { name } => self
                .autoscaling
                .delete_scaling_policy()
                .policy_name(name)
                .service_namespace(ServiceNamespace::Sagemaker)
                .resource_id(scope.resource_id())
                .scalable_dimension(scope.dimension())
                .send()
                .await
                .map(|o| request_id(&o))
                .map_err(AwsError::from_sdk),
            ScalingChange::Instances { count } => self.set_count(scope, *count).await,
            ScalingChange::WakeAlarm { name, policy_name } => self.put_wake_alarm(scope, name, policy_name).await,
            ScalingChange::ZeroInstances {
                variant,
                from_config,
                max,
                ..
            } => {
                self.send_zero_instances(scope.endpoint(), (variant, from_config), *max)
                    .await
            }
        }
    }
}
