//! Application Auto Scaling's store: scalable targets, policies with their evaluation state, and
//! the activities every scaling records.

use std::collections::BTreeMap;

use serde_json::Value;

/// The only scalable dimension of a SageMaker variant.
pub const VARIANT_DIMENSION: &str = "sagemaker:variant:DesiredInstanceCount";
/// The scalable dimension of a serverless variant's provisioned concurrency.
pub const PROVISIONED_DIMENSION: &str = "sagemaker:variant:DesiredProvisionedConcurrency";
/// The scalable dimension of an inference component.
pub const COMPONENT_DIMENSION: &str = "sagemaker:inference-component:DesiredCopyCount";

/// (service namespace, resource id, scalable dimension).
pub type TargetKey = (String, String, String);

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
    pub(super) breach_since: Option<f64>,
    pub(super) under_since: Option<f64>,
}

/// A scaling activity.
#[derive(Debug, Clone)]
pub struct Activity {
    pub(super) id: String,
    pub(super) target: TargetKey,
    pub(super) description: String,
    pub(super) cause: String,
    pub(super) start: f64,
    pub(super) end: f64,
    pub(super) status: String,
}

/// Targets, policies, activities.
#[derive(Debug, Default)]
pub struct AutoScaling {
    pub(super) targets: BTreeMap<TargetKey, ScalableTarget>,
    pub(super) policies: Vec<Policy>,
    pub(super) activities: Vec<Activity>,
    pub(super) last_scaling: BTreeMap<TargetKey, f64>,
    /// When each target last scaled out (a scale-out is not held by a scale-in's cooldown).
    pub(super) last_scale_out: BTreeMap<TargetKey, f64>,
    pub(super) last_evaluation: f64,
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
