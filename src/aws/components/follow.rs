//! Following a component after a change: a rolling update to its end, with its outcome told from
//! what the component says once it leaves Updating (InService on the new model: done; InService
//! on the old model with a FailureReason: rolled back, for that reason; Failed), and copies until
//! the desired count is placed. Each state is reported when it changes; both give up at a
//! deadline.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::aws::components::inventory::Component;
use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// How a rolling update ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RolloutOutcome {
    /// InService on the new specification.
    Succeeded,
    /// Back on the old specification (an alarm fired, or the execution timeout passed).
    RolledBack {
        /// AWS's FailureReason.
        reason: Option<String>,
    },
    /// The component failed.
    Failed {
        /// AWS's FailureReason.
        reason: Option<String>,
    },
}

/// A rolling update followed to its end.
#[derive(Debug, Clone, Serialize)]
pub struct RolloutReport {
    /// How it ended.
    #[serde(flatten)]
    pub outcome: RolloutOutcome,
    /// The model it rolled from.
    pub from_model: Option<String>,
    /// The model it rolled to.
    pub to_model: String,
    /// Seconds from the first look to the end.
    pub elapsed_secs: f64,
    /// The component at the end.
    pub last: Component,
}

/// The outcome `c` shows, once the update has been seen under way (`started`): None while it
/// runs. A component already on the new model has succeeded, started or not.
pub fn rollout_outcome(c: &Component, to_model: &str, started: bool) -> Option<RolloutOutcome> {
    match c.status.as_str() {
        "Failed" => Some(RolloutOutcome::Failed {
            reason: c.failure_reason.clone(),
        }),
        "InService" if c.model.as_deref() == Some(to_model) => Some(RolloutOutcome::Succeeded),
        "InService" if started => Some(RolloutOutcome::RolledBack {
            reason: c.failure_reason.clone(),
        }),
        _ => None,
    }
}

impl Fleet {
    /// Follows `component` until its rolling update to `to_model` ends, calling `on_state` with
    /// each new state; polls every `every`, gives up after `deadline` (a Timeout error). The
    /// update counts as under way once the component is seen Updating or modified after
    /// `sent_after` (its LastModifiedTime before the update was sent, epoch seconds).
    pub async fn follow_rollout(
        &self,
        component: &str,
        to_model: &str,
        sent_after: f64,
        deadline: Duration,
        every: Duration,
        on_state: impl FnMut(&Component),
    ) -> Result<RolloutReport, AwsError> {
        let start = Instant::now();
        let mut from_model = None;
        let mut started = false;
        let end = |c: &Component| {
            if from_model.is_none() && c.model.as_deref() != Some(to_model) {
                from_model = c.model.clone();
            }
            started |= c.status == "Updating" || c.modified > sent_after;
            let outcome = rollout_outcome(c, to_model, started)?;
            Some(Ok(RolloutReport {
                outcome,
                from_model: from_model.clone(),
                to_model: to_model.to_string(),
                elapsed_secs: start.elapsed().as_secs_f64(),
                last: c.clone(),
            }))
        };
        let late = || {
            format!(
                "{component} was still rolling out to {to_model} after {}s",
                deadline.as_secs()
            )
        };
        self.follow_until(component, (deadline, every), on_state, end, late)
            .await
    }

    /// Follows `component` until it is InService with `copies` desired and placed, calling
    /// `on_state` with each new state; a Failed component ends it with a Validation error.
    pub async fn wait_copies(
        &self,
        component: &str,
        copies: i32,
        deadline: Duration,
        every: Duration,
        on_state: impl FnMut(&Component),
    ) -> Result<Component, AwsError> {
        let end = |c: &Component| {
            if c.status == "Failed" {
                let why = c.failure_reason.clone().unwrap_or_else(|| "no reason given".into());
                return Some(Err(AwsError::Validation(format!("{component} failed: {why}"))));
            }
            let placed = c.status == "InService" && c.copies.desired == copies && c.copies.current == copies;
            placed.then(|| Ok(c.clone()))
        };
        let late = || {
            format!(
                "{component} did not reach {copies} copies within {}s",
                deadline.as_secs()
            )
        };
        self.follow_until(component, (deadline, every), on_state, end, late)
            .await
    }

    /// Describes `component` every `every` until `end` answers, calling `on_state` with each
    /// new state; once `deadline` has passed, a Timeout error saying `late`.
    async fn follow_until<T>(
        &self,
        component: &str,
        (deadline, every): (Duration, Duration),
        mut on_state: impl FnMut(&Component),
        mut end: impl FnMut(&Component) -> Option<Result<T, AwsError>>,
        late: impl FnOnce() -> String,
    ) -> Result<T, AwsError> {
        let start = Instant::now();
        let mut last_seen: Option<Component> = None;
        loop {
            let c = self.describe_component(component).await?;
            if last_seen.as_ref() != Some(&c) {
                on_state(&c);
            }
            if let Some(r) = end(&c) {
                return r;
            }
            last_seen = Some(c);
            if start.elapsed() >= deadline {
                return Err(AwsError::Timeout(late()));
            }
            tokio::time::sleep(every).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_told_from_status_and_model() {
        let c = |status: &str, model: &str, reason: Option<&str>| Component {
            status: status.into(),
            model: Some(model.into()),
            failure_reason: reason.map(str::to_string),
            ..Default::default()
        };
        assert_eq!(rollout_outcome(&c("Updating", "old", None), "new", true), None);
        assert_eq!(rollout_outcome(&c("InService", "old", None), "new", false), None);
        assert_eq!(
            rollout_outcome(&c("InService", "new", None), "new", false),
            Some(RolloutOutcome::Succeeded)
        );
        assert_eq!(
            rollout_outcome(&c("InService", "old", Some("alarm A")), "new", true),
            Some(RolloutOutcome::RolledBack {
                reason: Some("alarm A".into())
            })
        );
        assert!(matches!(
            rollout_outcome(&c("Failed", "old", Some("x")), "new", true),
            Some(RolloutOutcome::Failed { .. })
        ));
    }
}
