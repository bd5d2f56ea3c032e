//! Step scaling driven by its alarm: a CloudWatch alarm in the sandbox's store whose AlarmActions
//! name the policy's ARN triggers it while in ALARM. The step whose bounds (relative to the alarm
//! threshold) contain how far the metric is past the threshold sets the change, by the policy's
//! AdjustmentType, within MinCapacity/MaxCapacity, at most once per Cooldown. A metric-math
//! alarm acts as a plain one: its returned query's value is the metric.

use serde_json::Value;

use super::activities::apply_scaling;
use super::request::current_count;
use super::store::{AutoScaling, Policy};
use crate::sandbox::cloudwatch::alarms::math;
use crate::sandbox::cloudwatch::alarms::types::MetricAlarmSpec;
use crate::sandbox::cloudwatch::metrics::SeriesKey;
use crate::sandbox::world::sandbox::Sandbox;

/// The capacity a step policy asks for when `delta` past the threshold on `count` instances.
pub fn step_capacity(config: &Value, count: i64, delta: f64) -> Option<i64> {
    let step = config.get("StepAdjustments")?.as_array()?.iter().find(|s| {
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        bound("MetricIntervalLowerBound").is_none_or(|lo| delta >= lo)
            && bound("MetricIntervalUpperBound").is_none_or(|hi| delta < hi)
    })?;
    let adjustment = step.get("ScalingAdjustment")?.as_i64()?;
    let magnitude = config
        .get("MinAdjustmentMagnitude")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    Some(match config.get("AdjustmentType").and_then(Value::as_str) {
        Some("ExactCapacity") => adjustment,
        Some("PercentChangeInCapacity") => {
            let change = (count as f64 * adjustment as f64 / 100.0).trunc() as i64;
            let change = if change.abs() < magnitude {
                magnitude * adjustment.signum()
            } else {
                change
            };
            count + change
        }
        _ => count + adjustment,
    })
}

/// The value the alarm `spec` watches now: its metric's statistic over the last period, or for
/// a metric-math alarm its returned query's value in the newest period that has one (the one
/// running, else the one before), as the alarm itself evaluates it.
fn alarm_value(sb: &Sandbox, spec: &MetricAlarmSpec, now: f64) -> Option<f64> {
    if spec.is_math() {
        let period = spec.evaluation_period().max(1);
        let newest = (now / f64::from(period)).floor() * f64::from(period);
        let starts = [newest, newest - f64::from(period)];
        return math::period_values(&spec.metrics, &sb.metrics, &starts, period)
            .into_iter()
            .flatten()
            .next();
    }
    let key = SeriesKey::from_owned(
        spec.namespace.clone(),
        spec.metric_name.clone(),
        spec.dimensions.clone(),
    );
    sb.metrics
        .window_stat(&key, now - spec.period as f64, now, spec.stat_name())
}

/// Runs a step policy when one of its alarms is in ALARM, or entered ALARM since the last pass
/// at `last_pass` (an ALARM shorter than a pass still acts, as AWS acts on the transition).
pub(super) fn evaluate_step(sb: &Sandbox, aas: &mut AutoScaling, p: &Policy, last_pass: f64, now: f64) {
    let Some(target) = aas.targets.get(&p.target).cloned() else {
        return;
    };
    let cooldown = p.config.get("Cooldown").and_then(Value::as_f64).unwrap_or(300.0);
    let since = |m: &std::collections::BTreeMap<_, f64>| now - m.get(&p.target).copied().unwrap_or(f64::MIN);
    let Some(count) = current_count(sb, &p.target.1, &p.target.2) else {
        return;
    };
    for name in sb.alarms.firing_since(last_pass) {
        let Some(spec) = sb.alarms.metric_alarm(&name) else {
            continue;
        };
        if !spec.actions_enabled || !spec.actions[1].contains(&p.arn) {
            continue;
        }
        let value = alarm_value(sb, &spec, now).unwrap_or(spec.threshold);
        let Some(wanted) = step_capacity(&p.config, count, value - spec.threshold) else {
            continue;
        };
        let wanted = wanted.clamp(target.min, target.max);
        // A scale-out waits out the last scale-out only; a scale-in, the last scaling of any kind.
        let last = if wanted > count {
            since(&aas.last_scale_out)
        } else {
            since(&aas.last_scaling)
        };
        if wanted != count && last >= cooldown {
            let cause = format!("monitor alarm {} in state ALARM triggered policy {}", name, p.name);
            apply_scaling(sb, aas, &p.target, count, wanted, cause, now);
        }
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_containing_the_breach_sets_the_change() {
        let c = serde_json::json!({"AdjustmentType": "ChangeInCapacity", "StepAdjustments": [
            {"MetricIntervalLowerBound": 0.0, "MetricIntervalUpperBound": 10.0, "ScalingAdjustment": 1},
            {"MetricIntervalLowerBound": 10.0, "ScalingAdjustment": 3}]});
        assert_eq!(step_capacity(&c, 2, 5.0), Some(3));
        assert_eq!(step_capacity(&c, 2, 50.0), Some(5));
        assert_eq!(step_capacity(&c, 2, -1.0), None);
        let pct = serde_json::json!({"AdjustmentType": "PercentChangeInCapacity", "StepAdjustments": [{"ScalingAdjustment": -50}]});
        assert_eq!(step_capacity(&pct, 4, 0.0), Some(2));
        let exact =
            serde_json::json!({"AdjustmentType": "ExactCapacity", "StepAdjustments": [{"ScalingAdjustment": 1}]});
        assert_eq!(step_capacity(&exact, 4, 0.0), Some(1));
    }
}
