//! Target tracking that acts: each policy's metric against its target, with cooldowns.

use serde_json::Value;

use super::activities::apply_scaling;
use super::{Policy, current_count, parse_variant_resource};
use crate::sandbox::Sandbox;
use crate::sandbox::metrics::SeriesKey;

/// The tracked metric of a target-tracking policy over the last minute.
fn tracked_value(sb: &Sandbox, p: &Policy, now: f64) -> Option<f64> {
    let (endpoint, variant) = parse_variant_resource(&p.target.1)?;
    if let Some(pre) = p.config.get("PredefinedMetricSpecification") {
        if pre.get("PredefinedMetricType").and_then(Value::as_str) != Some("SageMakerVariantInvocationsPerInstance") {
            return None;
        }
        let key = SeriesKey::new(
            "AWS/SageMaker",
            "InvocationsPerInstance",
            &[("EndpointName", endpoint), ("VariantName", variant)],
        );
        return sb.metrics.window_stat(&key, now - 60.0, now, "Sum");
    }
    let c = p.config.get("CustomizedMetricSpecification")?;
    let dims: Vec<(String, String)> = c
        .get("Dimensions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|d| {
                    Some((
                        d.get("Name")?.as_str()?.to_string(),
                        d.get("Value")?.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let key = SeriesKey::from_owned(
        c.get("Namespace")?.as_str()?.to_string(),
        c.get("MetricName")?.as_str()?.to_string(),
        dims,
    );
    let stat = c.get("Statistic").and_then(Value::as_str).unwrap_or("Average");
    sb.metrics.window_stat(&key, now - 60.0, now, stat)
}

/// Evaluates every target-tracking policy (at most once a second).
pub fn evaluate(sb: &Sandbox, now: f64) {
    let mut aas = sb.autoscaling.lock();
    if now - aas.last_evaluation < 1.0 || aas.policies.is_empty() {
        return;
    }
    aas.last_evaluation = now;
    for i in 0..aas.policies.len() {
        let p = aas.policies[i].clone();
        if p.policy_type != "TargetTrackingScaling" || p.target.0 != "sagemaker" {
            continue;
        }
        let Some(target) = aas.targets.get(&p.target).cloned() else {
            continue;
        };
        let (Some(value), Some(goal)) = (
            tracked_value(sb, &p, now),
            p.config.get("TargetValue").and_then(Value::as_f64),
        ) else {
            continue;
        };
        let cooldown = |k: &str, d: f64| p.config.get(k).and_then(Value::as_f64).unwrap_or(d);
        let (out_cd, in_cd) = (cooldown("ScaleOutCooldown", 300.0), cooldown("ScaleInCooldown", 300.0));
        let Some(count) = current_count(sb, &p.target.1) else {
            continue;
        };
        let since_last = now - aas.last_scaling.get(&p.target).copied().unwrap_or(f64::MIN);
        let pol = &mut aas.policies[i];
        if value > goal {
            pol.under_since = None;
            let since = *pol.breach_since.get_or_insert(now);
            if now - since >= out_cd && since_last >= out_cd {
                let wanted = ((count.max(1) as f64) * value / goal).ceil() as i64;
                let wanted = wanted.clamp(target.min, target.max);
                pol.breach_since = None;
                if wanted > count {
                    let cause = format!(
                        "monitor alarm TargetTracking-{}-AlarmHigh in state ALARM triggered policy {}",
                        p.target.1, p.name
                    );
                    apply_scaling(sb, &mut aas, &p.target, count, wanted, cause, now);
                }
            }
        } else if value < goal * 0.9 && !p.config.get("DisableScaleIn").and_then(Value::as_bool).unwrap_or(false) {
            pol.breach_since = None;
            let since = *pol.under_since.get_or_insert(now);
            if now - since >= in_cd && since_last >= in_cd {
                let wanted = ((count as f64) * value / goal).ceil().max(1.0) as i64;
                let wanted = wanted.clamp(target.min, target.max);
                pol.under_since = None;
                if wanted < count {
                    let cause = format!(
                        "monitor alarm TargetTracking-{}-AlarmLow in state ALARM triggered policy {}",
                        p.target.1, p.name
                    );
                    apply_scaling(sb, &mut aas, &p.target, count, wanted, cause, now);
                }
            }
        } else {
            pol.breach_since = None;
            pol.under_since = None;
        }
    }
}
