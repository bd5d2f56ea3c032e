//! A deployment's policy (blue/green all at once, canary or linear, or rolling) and the checks
//! AWS would make, made before anything is sent: each refusal is one line naming its rule, and
//! the cases where AWS silently falls back to all at once without a final bake are said apart
//! (they are asked about, not refused).

use aws_sdk_sagemaker::types::{
    Alarm, AutoRollbackConfig, BlueGreenUpdatePolicy, CapacitySize, CapacitySizeType, DeploymentConfig,
    RollingUpdatePolicy, TrafficRoutingConfig, TrafficRoutingConfigType,
};
use serde::Serialize;

/// Longest wait AWS takes (WaitIntervalInSeconds, TerminationWaitInSeconds): one hour.
pub const MAX_WAIT_SECS: i32 = 3600;
/// Shortest MaximumExecutionTimeoutInSeconds AWS takes.
pub const MIN_TIMEOUT_SECS: i32 = 600;
/// Longest MaximumExecutionTimeoutInSeconds AWS takes: eight hours.
pub const MAX_TIMEOUT_SECS: i32 = 28_800;
/// Most alarms an AutoRollbackConfiguration takes.
pub const MAX_ALARMS: usize = 10;

/// A size of capacity: a number of instances or a percentage of the variant's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", content = "value")]
pub enum Capacity {
    /// INSTANCE_COUNT.
    Instances(i32),
    /// CAPACITY_PERCENT.
    Percent(i32),
}

impl Capacity {
    /// The instances this is of a variant of `total` instances (at least 1).
    pub fn instances_of(self, total: i32) -> i32 {
        match self {
            Capacity::Instances(n) => n,
            Capacity::Percent(p) => ((total * p + 99) / 100).max(1),
        }
    }

    fn wire(self) -> CapacitySize {
        let (kind, value) = match self {
            Capacity::Instances(n) => (CapacitySizeType::InstanceCount, n),
            Capacity::Percent(p) => (CapacitySizeType::CapacityPercent, p),
        };
        CapacitySize::builder().r#type(kind).value(value).build()
    }
}

/// How traffic moves to the new (green) fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Shift {
    /// Everything at once, then the final bake.
    AllAtOnce,
    /// A canary, a bake, then the rest.
    Canary(Capacity),
    /// Steps of this percentage, each followed by a bake.
    Linear(i32),
}

/// The policy of a deployment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Policy {
    /// BlueGreenUpdatePolicy.
    BlueGreen {
        /// How traffic moves.
        shift: Shift,
        /// WaitIntervalInSeconds: the bake after each shift but the last.
        bake_secs: i32,
        /// TerminationWaitInSeconds: the final bake before the old fleet is terminated.
        final_bake_secs: i32,
    },
    /// RollingUpdatePolicy.
    Rolling {
        /// MaximumBatchSize, a percentage.
        batch_percent: i32,
        /// WaitIntervalInSeconds: the bake after each batch.
        bake_secs: i32,
        /// RollbackMaximumBatchSize, a percentage (None: all at once).
        rollback_percent: Option<i32>,
    },
}

/// Everything a deployment sends besides the endpoint and the new configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeploySpec {
    /// The policy.
    pub policy: Policy,
    /// MaximumExecutionTimeoutInSeconds.
    pub max_time_secs: i32,
    /// The alarms that roll the deployment back (AutoRollbackConfiguration).
    pub alarms: Vec<String>,
    /// RetainAllVariantProperties: keep the live instance counts and weights (autoscaled counts
    /// are not reset to the new configuration's).
    pub retain_all: bool,
    /// RetainDeploymentConfig: the policy, timeout and alarms above are the endpoint's
    /// LastDeploymentConfig, and that is what is sent (no DeploymentConfig of its own).
    pub retain_deployment: bool,
}

/// One variant as the checks and the schedule need it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantFacts {
    /// Variant name.
    pub name: String,
    /// Instance type (None: serverless).
    pub instance_type: Option<String>,
    /// Instances the new fleet will have.
    pub instances: i32,
    /// Serverless (no instances).
    pub serverless: bool,
    /// The model comes from an AWS Marketplace model package.
    pub marketplace: bool,
}

/// The endpoint as it is and the configuration it is deployed onto.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeployFacts {
    /// Endpoint name.
    pub endpoint: String,
    /// The live configuration.
    pub current_config: String,
    /// The new configuration.
    pub new_config: String,
    /// The live variants (their current instance counts).
    pub current: Vec<VariantFacts>,
    /// The new configuration's variants (instance counts as they will be launched).
    pub new: Vec<VariantFacts>,
}

impl Policy {
    /// The waits the deployment makes in total for a variant of `instances` instances.
    pub fn total_wait_secs(&self, instances: i32) -> i64 {
        match *self {
            Policy::BlueGreen {
                shift,
                bake_secs,
                final_bake_secs,
            } => {
                let bakes = match shift {
                    Shift::AllAtOnce => 0,
                    Shift::Canary(_) => 1,
                    Shift::Linear(p) => i64::from((100 + p - 1) / p.max(1)) - 1,
                };
                bakes * i64::from(bake_secs) + i64::from(final_bake_secs)
            }
            Policy::Rolling {
                batch_percent,
                bake_secs,
                ..
            } => {
                let batch = Capacity::Percent(batch_percent).instances_of(instances);
                i64::from((instances + batch - 1) / batch.max(1)) * i64::from(bake_secs)
            }
        }
    }
}

/// The lines of refusal of `spec` on `facts`, each `RULE: why`; empty when it may be sent.
pub fn refusals(spec: &DeploySpec, facts: &DeployFacts) -> Vec<String> {
    let mut out = Vec::new();
    let mut names: Vec<&str> = facts.current.iter().map(|v| v.name.as_str()).collect();
    let mut new_names: Vec<&str> = facts.new.iter().map(|v| v.name.as_str()).collect();
    names.sort_unstable();
    new_names.sort_unstable();
    if names != new_names {
        out.push(format!(
            "same-variant-names: {} has variants [{}], {} has [{}]; a deployment keeps the variant names",
            facts.current_config,
            names.join(", "),
            facts.new_config,
            new_names.join(", ")
        ));
    }
    out.extend(size_refusals(spec, facts));
    out.extend(time_refusals(spec, facts));
    if spec.alarms.len() > MAX_ALARMS {
        out.push(format!(
            "alarm-count: {} rollback alarms given; AWS takes 1 to {MAX_ALARMS}",
            spec.alarms.len()
        ));
    }
    out
}

/// The size rules: canary, linear step, rolling batch, and where rolling is offered.
fn size_refusals(spec: &DeploySpec, facts: &DeployFacts) -> Vec<String> {
    let mut out = Vec::new();
    match spec.policy {
        Policy::BlueGreen {
            shift: Shift::Canary(size),
            ..
        } => {
            for v in facts.new.iter().filter(|v| !v.serverless) {
                let canary = size.instances_of(v.instances);
                let too_big = match size {
                    Capacity::Percent(p) => !(1..=50).contains(&p),
                    Capacity::Instances(n) => n < 1 || 2 * n > v.instances,
                };
                if too_big {
                    out.push(format!(
                        "canary-size: a canary of {} is more than half of {}'s {} instance(s) (at most {})",
                        capacity_text(size, canary),
                        v.name,
                        v.instances,
                        v.instances / 2
                    ));
                }
            }
        }
        Policy::BlueGreen {
            shift: Shift::Linear(p),
            ..
        } if !(10..=50).contains(&p) => {
            out.push(format!("linear-step: linear steps of {p} %; AWS takes 10 to 50 %"));
        }
        Policy::Rolling {
            batch_percent,
            rollback_percent,
            ..
        } => {
            if !(5..=50).contains(&batch_percent) {
                out.push(format!(
                    "rolling-batch: rolling batches of {batch_percent} %; AWS takes 5 to 50 %"
                ));
            }
            if let Some(r) = rollback_percent
                && !(1..=100).contains(&r)
            {
                out.push(format!("rollback-batch: rollback batches of {r} %; give 1 to 100 %"));
            }
            if facts.current.len() > 1 || facts.new.len() > 1 {
                out.push(format!(
                    "rolling-multi-variant: {} has {} variants; rolling updates are offered for single-variant endpoints only (use --canary, --linear or --all-at-once)",
                    facts.endpoint,
                    facts.current.len().max(facts.new.len())
                ));
            }
            if let Some(v) = facts.current.iter().chain(&facts.new).find(|v| v.serverless) {
                out.push(format!(
                    "rolling-serverless: {} is serverless; rolling updates are not offered for serverless variants",
                    v.name
                ));
            }
        }
        _ => {}
    }
    out
}

/// The time rules: each wait 0–3600 s, the timeout 600–28800 s and longer than the waits.
fn time_refusals(spec: &DeploySpec, facts: &DeployFacts) -> Vec<String> {
    let mut out = Vec::new();
    let waits = match spec.policy {
        Policy::BlueGreen {
            bake_secs,
            final_bake_secs,
            ..
        } => vec![("bake", bake_secs), ("termination-wait", final_bake_secs)],
        Policy::Rolling { bake_secs, .. } => vec![("bake", bake_secs)],
    };
    for (name, secs) in waits {
        if !(0..=MAX_WAIT_SECS).contains(&secs) {
            out.push(format!(
                "wait-range: --{name} of {secs}s; AWS takes 0 to {MAX_WAIT_SECS}s (1h)"
            ));
        }
    }
    if !(MIN_TIMEOUT_SECS..=MAX_TIMEOUT_SECS).contains(&spec.max_time_secs) {
        out.push(format!(
            "timeout-range: --max-time of {}s; AWS takes {MIN_TIMEOUT_SECS} to {MAX_TIMEOUT_SECS}s (10m to 8h)",
            spec.max_time_secs
        ));
    }
    let most = facts.new.iter().map(|v| v.instances).max().unwrap_or(1);
    let waits = spec.policy.total_wait_secs(most);
    if i64::from(spec.max_time_secs) <= waits {
        out.push(format!(
            "timeout-exceeds-waits: --max-time {}s is not longer than the {waits}s of waits it schedules",
            spec.max_time_secs
        ));
    }
    out
}

/// The cases where AWS deploys all at once without a final bake whatever the policy says: each
/// a line to say before asking. Empty when the policy is honoured.
pub fn silent_fallbacks(spec: &DeploySpec, facts: &DeployFacts) -> Vec<String> {
    let all_at_once = matches!(
        spec.policy,
        Policy::BlueGreen {
            shift: Shift::AllAtOnce,
            final_bake_secs: 0,
            ..
        }
    );
    if all_at_once {
        return Vec::new();
    }
    let mut out = Vec::new();
    for v in &facts.new {
        if v.marketplace {
            out.push(format!(
                "{}'s model is an AWS Marketplace model package: AWS deploys it all at once, without the bakes or the final bake",
                v.name
            ));
        }
        if let Some(t) = v.instance_type.as_deref().filter(|t| t.starts_with("ml.inf1.")) {
            out.push(format!(
                "{} runs on {t} (Inf1): AWS deploys it all at once, without the bakes or the final bake",
                v.name
            ));
        }
    }
    out
}

/// `1 instance` or `25 % (2 instances)`.
pub fn capacity_text(size: Capacity, instances: i32) -> String {
    let plural = if instances == 1 { "" } else { "s" };
    match size {
        Capacity::Instances(_) => format!("{instances} instance{plural}"),
        Capacity::Percent(p) => format!("{p} % ({instances} instance{plural})"),
    }
}

impl DeploySpec {
    /// The DeploymentConfig sent with UpdateEndpoint.
    pub fn wire(&self) -> DeploymentConfig {
        let mut config = DeploymentConfig::builder();
        config = match self.policy {
            Policy::BlueGreen {
                shift,
                bake_secs,
                final_bake_secs,
            } => {
                let (kind, canary, linear) = match shift {
                    Shift::AllAtOnce => (TrafficRoutingConfigType::AllAtOnce, None, None),
                    Shift::Canary(c) => (TrafficRoutingConfigType::Canary, Some(c.wire()), None),
                    Shift::Linear(p) => (
                        TrafficRoutingConfigType::Linear,
                        None,
                        Some(Capacity::Percent(p).wire()),
                    ),
                };
                let traffic = TrafficRoutingConfig::builder()
                    .r#type(kind)
                    .wait_interval_in_seconds(bake_secs)
                    .set_canary_size(canary)
                    .set_linear_step_size(linear)
                    .build();
                config.blue_green_update_policy(
                    BlueGreenUpdatePolicy::builder()
                        .traffic_routing_configuration(traffic)
                        .termination_wait_in_seconds(final_bake_secs)
                        .maximum_execution_timeout_in_seconds(self.max_time_secs)
                        .build(),
                )
            }
            Policy::Rolling {
                batch_percent,
                bake_secs,
                rollback_percent,
            } => config.rolling_update_policy(
                RollingUpdatePolicy::builder()
                    .maximum_batch_size(Capacity::Percent(batch_percent).wire())
                    .wait_interval_in_seconds(bake_secs)
                    .maximum_execution_timeout_in_seconds(self.max_time_secs)
                    .set_rollback_maximum_batch_size(rollback_percent.map(|p| Capacity::Percent(p).wire()))
                    .build(),
            ),
        };
        if !self.alarms.is_empty() {
            let alarms = self.alarms.iter().map(|a| Alarm::builder().alarm_name(a).build());
            config = config
                .auto_rollback_configuration(AutoRollbackConfig::builder().set_alarms(Some(alarms.collect())).build());
        }
        config.build()
    }

    /// A timeout long enough for the waits of `facts` with room for launching and shifting
    /// (the waits and 30 minutes, within AWS's range).
    pub fn default_max_time(policy: &Policy, facts: &DeployFacts) -> i32 {
        let most = facts.new.iter().map(|v| v.instances).max().unwrap_or(1);
        let secs = policy.total_wait_secs(most) + 1800;
        secs.clamp(i64::from(MIN_TIMEOUT_SECS), i64::from(MAX_TIMEOUT_SECS)) as i32
    }
}
