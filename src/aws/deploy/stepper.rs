//! A deployment as SageMaker reports it, for any watcher: the stepper built from
//! DescribeEndpoint's `PendingDeploymentSummary` and each `VariantStatus` (its message parsed
//! into a phase, the bake time left), the old (blue) and new (green) instance counts, the
//! rollback alarms, elapsed and expected end; and the outcome, decided from what SageMaker
//! reports, never assumed.

use aws_sdk_sagemaker::operation::describe_endpoint::DescribeEndpointOutput;
use aws_sdk_sagemaker::types::{DeploymentConfig, TrafficRoutingConfigType};
use serde::Serialize;

use crate::aws::deploy::policy::{Capacity, Policy, Shift};
use crate::aws::deploy::schedule::{LAUNCH_ESTIMATE_SECS, span};
use crate::aws::observe::alarms::AlarmStatus;

/// What a variant's status message says it is doing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// "Launching X instance(s)."
    Launching {
        /// Instances.
        instances: i32,
    },
    /// "Activating traffic on canary capacity of X instance(s)."
    Canary {
        /// Instances.
        instances: i32,
    },
    /// "Baking for X seconds (…) with traffic enabled on … capacity of Y instance(s)."
    Baking {
        /// The bake's length.
        secs: i64,
        /// The final bake (TerminationWaitInSeconds) rather than a step's.
        last: bool,
    },
    /// Any other message, as it came.
    Other {
        /// The message.
        message: String,
    },
}

/// The first number in `text`.
fn first_number(text: &str) -> Option<i64> {
    let digits: String = text
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Parses a VariantStatus message into its phase.
pub fn parse_message(message: &str) -> Phase {
    let lower = message.to_ascii_lowercase();
    let n = first_number(message);
    match n {
        Some(n) if lower.starts_with("launching") => Phase::Launching { instances: n as i32 },
        Some(n) if lower.starts_with("baking for") => Phase::Baking {
            secs: n,
            last: lower.contains("terminationwait"),
        },
        Some(n) if lower.contains("canary capacity") => Phase::Canary { instances: n as i32 },
        _ => Phase::Other {
            message: message.to_string(),
        },
    }
}

/// One VariantStatus entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusStep {
    /// Creating, Updating, Deleting, ActivatingTraffic or Baking.
    pub status: String,
    /// Its message, as it came.
    pub message: String,
    /// The message parsed.
    pub phase: Phase,
    /// When it started (epoch seconds).
    pub started: Option<f64>,
    /// Seconds of bake left, for a bake.
    pub bake_left_secs: Option<i64>,
}

/// One variant of the new fleet while it deploys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GreenVariant {
    /// Variant name.
    pub name: String,
    /// Weights, current and desired.
    pub weights: (f32, f32),
    /// Instances, current and desired.
    pub instances: (i32, i32),
    /// Its VariantStatus entries.
    pub steps: Vec<StatusStep>,
}

/// A deployment as one DescribeEndpoint shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stepper {
    /// Endpoint.
    pub endpoint: String,
    /// EndpointStatus.
    pub status: String,
    /// The configuration the endpoint serves.
    pub live_config: Option<String>,
    /// The configuration being deployed (PendingDeploymentSummary), while one is.
    pub pending_config: Option<String>,
    /// When the deployment started (epoch seconds).
    pub started: Option<f64>,
    /// When this was read (epoch seconds).
    pub now: f64,
    /// The old fleet's instances per variant.
    pub blue: Vec<(String, i32)>,
    /// The new fleet's variants.
    pub green: Vec<GreenVariant>,
    /// FailureReason.
    pub failure_reason: Option<String>,
    /// The rollback alarms (LastDeploymentConfig) with their states, when read.
    pub alarms: Vec<AlarmStatus>,
    /// The rollback alarms' names.
    pub alarm_names: Vec<String>,
    /// The policy, from LastDeploymentConfig.
    pub policy: Option<Policy>,
    /// The expected end (epoch seconds): start, launching and every wait.
    pub expected_end: Option<f64>,
}

/// The policy a DeploymentConfig carries.
pub fn policy_of(d: &DeploymentConfig) -> Option<Policy> {
    let size = |c: Option<&aws_sdk_sagemaker::types::CapacitySize>| {
        let c = c?;
        let v = c.value()?;
        Some(match c.r#type()?.as_str() {
            "INSTANCE_COUNT" => Capacity::Instances(v),
            _ => Capacity::Percent(v),
        })
    };
    if let Some(bg) = d.blue_green_update_policy() {
        let t = bg.traffic_routing_configuration()?;
        let shift = match t.r#type()? {
            TrafficRoutingConfigType::Canary => Shift::Canary(size(t.canary_size())?),
            TrafficRoutingConfigType::Linear => match size(t.linear_step_size())? {
                Capacity::Percent(p) | Capacity::Instances(p) => Shift::Linear(p),
            },
            _ => Shift::AllAtOnce,
        };
        return Some(Policy::BlueGreen {
            shift,
            bake_secs: t.wait_interval_in_seconds().unwrap_or(0),
            final_bake_secs: bg.termination_wait_in_seconds().unwrap_or(0),
        });
    }
    let r = d.rolling_update_policy()?;
    let pct = |c: Option<&aws_sdk_sagemaker::types::CapacitySize>| match size(c) {
        Some(Capacity::Percent(p) | Capacity::Instances(p)) => Some(p),
        None => None,
    };
    Some(Policy::Rolling {
        batch_percent: pct(r.maximum_batch_size())?,
        bake_secs: r.wait_interval_in_seconds().unwrap_or(0),
        rollback_percent: pct(r.rollback_maximum_batch_size()),
    })
}

impl Stepper {
    /// The stepper of one DescribeEndpoint answer read at `now`.
    pub fn of(d: &DescribeEndpointOutput, now: f64) -> Stepper {
        let pending = d.pending_deployment_summary();
        let green: Vec<GreenVariant> = pending
            .map(|p| p.production_variants())
            .unwrap_or_default()
            .iter()
            .map(|v| GreenVariant {
                name: v.variant_name().unwrap_or_default().to_string(),
                weights: (v.current_weight().unwrap_or(0.0), v.desired_weight().unwrap_or(0.0)),
                instances: (
                    v.current_instance_count().unwrap_or(0),
                    v.desired_instance_count().unwrap_or(0),
                ),
                steps: v.variant_status().iter().map(|s| status_step(s, now)).collect(),
            })
            .collect();
        let last = d.last_deployment_config();
        let policy = last.and_then(policy_of);
        let alarm_names = last
            .and_then(|c| c.auto_rollback_configuration())
            .map(|a| {
                a.alarms()
                    .iter()
                    .filter_map(|a| a.alarm_name())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let started = pending.and_then(|p| p.start_time()).map(|t| t.as_secs_f64());
        let most = green.iter().map(|g| g.instances.1).max().unwrap_or(1);
        let expected_end = match (started, policy) {
            (Some(s), Some(p)) => Some(s + (LAUNCH_ESTIMATE_SECS + p.total_wait_secs(most)) as f64),
            _ => None,
        };
        Stepper {
            endpoint: d.endpoint_name().unwrap_or_default().to_string(),
            status: d.endpoint_status().map(|s| s.as_str().to_string()).unwrap_or_default(),
            live_config: d.endpoint_config_name().map(str::to_string),
            pending_config: pending.and_then(|p| p.endpoint_config_name()).map(str::to_string),
            started,
            now,
            blue: d
                .production_variants()
                .iter()
                .map(|v| {
                    (
                        v.variant_name().unwrap_or_default().to_string(),
                        v.current_instance_count().unwrap_or(0),
                    )
                })
                .collect(),
            green,
            failure_reason: d.failure_reason().map(str::to_string),
            alarms: Vec::new(),
            alarm_names,
            policy,
            expected_end,
        }
    }

    /// Whether a deployment is in flight.
    pub fn in_flight(&self) -> bool {
        matches!(
            self.status.as_str(),
            "Updating" | "RollingBack" | "SystemUpdating" | "Creating"
        )
    }
}

fn status_step(s: &aws_sdk_sagemaker::types::ProductionVariantStatus, now: f64) -> StatusStep {
    let message = s.status_message().unwrap_or_default().to_string();
    let phase = parse_message(&message);
    let started = s.start_time().map(|t| t.as_secs_f64());
    let bake_left_secs = match (&phase, started) {
        (Phase::Baking { secs, .. }, Some(st)) => Some((*secs - (now - st) as i64).max(0)),
        _ => None,
    };
    StatusStep {
        status: s.status().map(|s| s.as_str().to_string()).unwrap_or_default(),
        message,
        phase,
        started,
        bake_left_secs,
    }
}

/// How a deployment ended, from what SageMaker reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Still running.
    InFlight,
    /// InService on the new configuration.
    Succeeded {
        /// The configuration it serves.
        config: String,
    },
    /// InService on the old configuration: rolled back.
    RolledBack {
        /// The configuration it serves (the old one).
        config: String,
        /// The alarm that fired or the FailureReason.
        reason: String,
    },
    /// UpdateRollbackFailed: both the deployment and its rollback failed; the endpoint serves a
    /// mix of both configurations.
    RollbackFailed {
        /// FailureReason.
        reason: String,
    },
    /// Failed (only DeleteEndpoint is allowed).
    Failed {
        /// FailureReason.
        reason: String,
    },
    /// Nothing was in flight when watching began.
    Idle {
        /// The configuration it serves.
        config: String,
    },
}

/// The outcome of `s` for a deployment onto `target` (None: nothing was seen in flight).
pub fn outcome(s: &Stepper, target: Option<&str>) -> Outcome {
    let live = s.live_config.clone().unwrap_or_default();
    let reason = || {
        s.failure_reason
            .clone()
            .unwrap_or_else(|| "no FailureReason given".into())
    };
    match s.status.as_str() {
        "UpdateRollbackFailed" => Outcome::RollbackFailed { reason: reason() },
        "Failed" => Outcome::Failed { reason: reason() },
        "InService" | "OutOfService" => match target {
            Some(t) if t == live => Outcome::Succeeded { config: live },
            Some(_) => {
                let fired: Vec<String> = s
                    .alarms
                    .iter()
                    .filter(|a| a.firing())
                    .map(|a| format!("alarm {} fired ({})", a.name, a.reason))
                    .collect();
                let reason = match (&s.failure_reason, fired.is_empty()) {
                    (Some(r), true) => r.clone(),
                    (Some(r), false) => format!("{}; {r}", fired.join("; ")),
                    (None, false) => fired.join("; "),
                    (None, true) => reason(),
                };
                Outcome::RolledBack { config: live, reason }
            }
            None => Outcome::Idle { config: live },
        },
        _ => Outcome::InFlight,
    }
}

/// The elapsed and expected end of `s`, when it has started: `t+1m10s of ≈ 22m`.
pub fn times(s: &Stepper) -> Option<String> {
    let start = s.started?;
    let elapsed = span((s.now - start).max(0.0) as i64);
    Some(match s.expected_end {
        Some(end) => format!("t+{elapsed} of ≈ {}", span((end - start).max(0.0) as i64)),
        None => format!("t+{elapsed}"),
    })
}

/// A policy in a few words: `canary 1 instance, bake 10m, final bake 10m`.
pub fn policy_text(p: &Policy) -> String {
    match *p {
        Policy::BlueGreen {
            shift,
            bake_secs,
            final_bake_secs,
        } => {
            let shift = match shift {
                Shift::AllAtOnce => "all at once".to_string(),
                Shift::Canary(Capacity::Instances(n)) => format!("canary {n} instance(s)"),
                Shift::Canary(Capacity::Percent(p)) => format!("canary {p} %"),
                Shift::Linear(p) => format!("linear steps of {p} %"),
            };
            let (bake, last) = (span(i64::from(bake_secs)), span(i64::from(final_bake_secs)));
            format!("blue/green, {shift}, bake {bake}, final bake {last}")
        }
        Policy::Rolling {
            batch_percent,
            bake_secs,
            ..
        } => format!(
            "rolling batches of {batch_percent} %, bake {}",
            span(i64::from(bake_secs))
        ),
    }
}

/// What to do when the endpoint is UpdateRollbackFailed.
pub const ROLLBACK_FAILED_ADVICE: &str = "the endpoint serves a mix of the old and new configurations; there is no API to cancel or resume it: look at its variants (`sagedeck describe ENDPOINT`), then deploy a known-good configuration again with `sagedeck deploy ENDPOINT --config GOOD --all-at-once`, or contact AWS Support";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_parse_into_phases() {
        assert_eq!(
            parse_message("Launching 4 instance(s)."),
            Phase::Launching { instances: 4 }
        );
        assert_eq!(
            parse_message("Activating traffic on canary capacity of 1 instance(s)."),
            Phase::Canary { instances: 1 }
        );
        assert_eq!(
            parse_message(
                "Baking for 600 seconds (TerminationWaitInSeconds) with traffic enabled on full capacity of 4 instance(s)."
            ),
            Phase::Baking { secs: 600, last: true }
        );
        assert_eq!(
            parse_message(
                "Baking for 300 seconds (WaitIntervalInSeconds) with traffic enabled on canary capacity of 1 instance(s)."
            ),
            Phase::Baking { secs: 300, last: false }
        );
        assert!(matches!(parse_message("Something else."), Phase::Other { .. }));
    }
}
