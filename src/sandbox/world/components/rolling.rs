//! A rolling update of a component's specification (UpdateInferenceComponent with a
//! `DeploymentConfig.RollingUpdatePolicy`): batches of copies on the new specification are
//! started beside the old ones (the extra copies are placed like any other), the same number of
//! old copies stopped, then a bake of `WaitIntervalInSeconds`; an alarm of
//! `AutoRollbackConfiguration` firing, or the execution timeout passing, rolls the new copies back
//! in batches of `RollbackMaximumBatchSize` and leaves the old specification with a FailureReason.

use crate::sandbox::world::components::Components;
use crate::sandbox::world::components::records::{ComponentStatus, Phase, Rollout};

/// Copies per batch of a `MaximumBatchSize` (`COPY_COUNT` or `CAPACITY_PERCENT` of the copies),
/// at least one.
pub fn batch_copies(kind: &str, value: i64, copies: i32) -> i32 {
    let n = if kind == "CAPACITY_PERCENT" {
        ((copies as f64) * value as f64 / 100.0).floor() as i64
    } else {
        value
    };
    n.clamp(1, copies.max(1) as i64) as i32
}

impl Components {
    /// Rolls every rolling update whose phase has ended on to its next phase.
    pub(super) fn advance_rollouts(&mut self, now: f64) {
        for ic in self.items.values_mut() {
            let Some(r) = ic.rollout.as_mut() else {
                continue;
            };
            if !matches!(r.phase, Phase::RollingBack(_)) && now >= r.timeout_at {
                let reason = "The rolling update exceeded its MaximumExecutionTimeoutInSeconds and was rolled back.";
                start_rollback(r, reason.to_string(), ic.copy_seconds, now);
            }
            if r.phase_until > now {
                continue;
            }
            match r.phase.clone() {
                Phase::Provisioning => {
                    r.new_copies += r.in_flight;
                    r.in_flight = 0;
                    r.phase = Phase::Baking;
                    r.phase_until = now + r.wait;
                }
                Phase::Baking if r.new_copies >= ic.desired_copies => {
                    let done = ic.rollout.take().expect("a rollout in progress");
                    ic.spec = done.new_spec;
                    ic.sim = done.new_sim;
                    ic.failure_reason = None;
                    if done.config.is_some() {
                        ic.last_deployment_config = done.config;
                    }
                    ic.status = ComponentStatus::InService;
                    ic.last_modified = now;
                }
                Phase::Baking => {
                    r.in_flight = r.batch.min(ic.desired_copies - r.new_copies);
                    r.phase = Phase::Provisioning;
                    r.phase_until = now + ic.copy_seconds;
                }
                Phase::RollingBack(reason) => {
                    let done = ic.rollout.take().expect("a rollout in progress");
                    ic.failure_reason = Some(reason);
                    if done.config.is_some() {
                        ic.last_deployment_config = done.config;
                    }
                    ic.status = ComponentStatus::InService;
                    ic.last_modified = now;
                }
            }
        }
    }

    /// Rolls back every rolling update one of whose alarms `firing` says is in ALARM.
    pub fn trip_rollouts(&mut self, firing: impl Fn(&str) -> bool, now: f64) {
        for ic in self.items.values_mut() {
            let copy_seconds = ic.copy_seconds;
            let Some(r) = ic.rollout.as_mut() else {
                continue;
            };
            if matches!(r.phase, Phase::RollingBack(_)) {
                continue;
            }
            if let Some(alarm) = r.alarms.iter().find(|a| firing(a)).cloned() {
                let reason = format!("The rolling update was rolled back because alarm {alarm} went into ALARM state.");
                start_rollback(r, reason, copy_seconds, now);
            }
        }
    }
}

/// Replaces the new copies by old ones, `rollback_batch` at a time, each batch a copy time.
fn start_rollback(r: &mut Rollout, reason: String, copy_seconds: f64, now: f64) {
    let moved = r.new_copies + r.in_flight;
    let batches = (moved as f64 / r.rollback_batch.max(1) as f64).ceil().max(1.0);
    r.in_flight = 0;
    r.phase = Phase::RollingBack(reason);
    r.phase_until = now + batches * copy_seconds;
}

#[cfg(test)]
mod tests {
    use super::batch_copies;

    #[test]
    fn batch_sizes_by_copies_or_percent() {
        assert_eq!(batch_copies("COPY_COUNT", 2, 6), 2);
        assert_eq!(batch_copies("CAPACITY_PERCENT", 50, 6), 3);
        assert_eq!(batch_copies("CAPACITY_PERCENT", 10, 4), 1);
        assert_eq!(batch_copies("COPY_COUNT", 9, 4), 4);
    }
}
