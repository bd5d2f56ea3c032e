//! The CloudWatch alarms target tracking creates, in the sandbox's alarm store (so DescribeAlarms
//! lists them): `TargetTracking-<ResourceId>-AlarmHigh-<uuid>` (3 of 3 one-minute periods above
//! the target) and `...-AlarmLow-<uuid>` (15 of 15 below 90% of it), with the policy's ARN as
//! their alarm action, as AWS configures them. The store evaluates them: on a metric that does
//! not exist they stay INSUFFICIENT_DATA, as in AWS.

use super::metric_spec::TrackedMetric;
use crate::sandbox::cloudwatch::alarms::{Comparison, MetricAlarmSpec, TreatMissing};
use crate::sandbox::cloudwatch::metrics::query::Stat;
use crate::sandbox::world::hash::fxhash;
use crate::sandbox::world::sandbox::Sandbox;

/// A uuid-shaped id derived from two strings (stable across runs).
pub fn uuid_of(arn: &str, role: &str) -> String {
    let a = fxhash(&format!("{arn}:{role}"));
    let b = fxhash(&format!("{role}:{arn}"));
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

/// The names of the two alarms of a target-tracking policy.
pub fn alarm_names(resource_id: &str, policy_arn: &str) -> [String; 2] {
    ["AlarmHigh", "AlarmLow"].map(|role| format!("TargetTracking-{resource_id}-{role}-{}", uuid_of(policy_arn, role)))
}

/// Creates (or replaces) the two alarms of a target-tracking policy; returns their names.
pub fn create(
    sb: &Sandbox,
    resource_id: &str,
    policy_arn: &str,
    metric: &TrackedMetric,
    target: f64,
    now: f64,
) -> Vec<String> {
    let names = alarm_names(resource_id, policy_arn);
    let percentile = matches!(Stat::parse(&metric.stat), Some(Stat::Percentile(_)));
    let mut created = Vec::new();
    for (name, periods, threshold, comparison) in [
        (&names[0], 3, target, Comparison::Greater),
        (&names[1], 15, target * 0.9, Comparison::Less),
    ] {
        let mut spec = MetricAlarmSpec::new(name, &metric.key.namespace, &metric.key.name);
        spec.description = Some(format!(
            "DO NOT EDIT OR DELETE. For TargetTrackingScaling policy {policy_arn}."
        ));
        spec.dimensions = metric.key.dimensions.clone();
        (spec.statistic, spec.extended_statistic) = if percentile {
            (None, Some(metric.stat.clone()))
        } else {
            (Some(metric.stat.clone()), None)
        };
        spec.unit = metric.unit.clone();
        spec.evaluation_periods = periods;
        spec.threshold = threshold;
        spec.comparison = comparison;
        spec.treat_missing = TreatMissing::Missing;
        spec.actions[1] = vec![policy_arn.to_string()];
        if sb.alarms.put_metric_alarm(spec, now).is_ok() {
            created.push(name.clone());
        }
    }
    created
}

/// Deletes a policy's alarms.
pub fn delete(sb: &Sandbox, names: &[String], now: f64) {
    if !names.is_empty() {
        sb.alarms.delete(names, now);
    }
}
