//! Target tracking that acts: each policy's metric against its target, with cooldowns.
//!
//! Sandbox choice: target tracking decides on a rolling 60-second window of its metric (and
//! its cooldowns) so that scaling shows within seconds; its alarms in the alarm store carry AWS's
//! configuration (one-minute periods, 3 above / 15 below) and are evaluated there. A metric that
//! does not exist, has no data or is asked in another unit leaves the policy idle.

use serde_json::Value;

use super::activities::apply_scaling;
use super::metric_spec::tracked_metric;
use super::request::current_count;
use super::step;
use super::store::{COMPONENT_DIMENSION, Policy};
use crate::sandbox::world::sandbox::Sandbox;

/// The tracked metric of a target-tracking policy over the last minute: `None` (the policy is
/// idle) when the metric does not exist, has no data, or is asked in another unit.
fn tracked_value(sb: &Sandbox, p: &Policy, now: f64) -> Option<f64> {
    let m = tracked_metric(&p.target.1, &p.config)?;
    if p.target.2 == COMPONENT_DIMENSION && p.config.get("PredefinedMetricSpecification").is_some() {
        // A component's per-copy metric with no data in the window: no calls, idle.
        return Some(sb.metrics.window_stat(&m.key, now - 60.0, now, &m.stat).unwrap_or(0.0));
    }
    let series = sb.metrics.get(&m.key)?;
    if m.unit.as_deref().is_some_and(|u| u != series.lock().unit()) {
        return None;
    }
    sb.metrics.window_stat(&m.key, now - 60.0, now, &m.stat)
}

/// The alarm of `p` with this role (`AlarmHigh`/`AlarmLow`), for activity causes.
fn alarm_named<'a>(p: &'a Policy, role: &'a str) -> &'a str {
    p.alarms
        .iter()
        .find(|a| a.contains(role))
        .map(String::as_str)
        .unwrap_or(role)
}

/// Evaluates every target-tracking policy (at most once a second).
pub fn evaluate(sb: &Sandbox, now: f64) {
    let mut aas = sb.autoscaling.lock();
    if now - aas.last_evaluation < 1.0 || aas.policies.is_empty() {
        return;
    }
    let since = aas.last_evaluation;
    aas.last_evaluation = now;
    for i in 0..aas.policies.len() {
        let p = aas.policies[i].clone();
        if p.target.0 != "sagemaker" {
            continue;
        }
        if p.policy_type == "StepScaling" {
            step::evaluate_step(sb, &mut aas, &p, since, now);
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
        let Some(count) = current_count(sb, &p.target.1, &p.target.2) else {
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
                        "monitor alarm {} in state ALARM triggered policy {}",
                        alarm_named(&p, "AlarmHigh"),
                        p.name
                    );
                    apply_scaling(sb, &mut aas, &p.target, count, wanted, cause, now);
                }
            }
        } else if value < goal * 0.9 && !p.config.get("DisableScaleIn").and_then(Value::as_bool).unwrap_or(false) {
            pol.breach_since = None;
            let since = *pol.under_since.get_or_insert(now);
            if now - since >= in_cd && since_last >= in_cd {
                // A component scales in to zero (when its MinCapacity allows); a variant keeps one.
                let floor = if p.target.2 == COMPONENT_DIMENSION { 0.0 } else { 1.0 };
                let wanted = ((count as f64) * value / goal).ceil().max(floor) as i64;
                let wanted = wanted.clamp(target.min, target.max);
                pol.under_since = None;
                if wanted < count {
                    let cause = format!(
                        "monitor alarm {} in state ALARM triggered policy {}",
                        alarm_named(&p, "AlarmLow"),
                        p.name
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
