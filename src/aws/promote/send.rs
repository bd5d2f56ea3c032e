//! Sending a plan's weights (compare-and-swap against the weights it last set, audited) and its
//! rollback to the starting weights (after going back to the config a consolidation kept).

use std::sync::atomic::AtomicUsize;

use crate::aws::change::guard::Expectation;
use crate::aws::change::weights::{WeightChange, plan_weights};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::error::AwsError;
use crate::aws::promote::events::PromoteError;
use crate::aws::promote::plan::Phase;
use crate::aws::promote::run::{PromotionRunner, at_weights};

impl PromotionRunner {
    /// Sets `target` weights (compare-and-swap against the weights the plan last set, audited
    /// under `action`); nothing is sent when the endpoint already has them. The request id.
    pub(super) async fn send(
        &self,
        target: &[(String, f64)],
        action: &str,
        why: String,
    ) -> Result<Option<String>, PromoteError> {
        self.send_expecting(target, action, why, &self.state.expected_weights())
            .await
    }

    /// [`Self::send`] against the weights `expected` (compare-and-swap).
    async fn send_expecting(
        &self,
        target: &[(String, f64)],
        action: &str,
        why: String,
        expected: &[(String, f64)],
    ) -> Result<Option<String>, PromoteError> {
        let info = self
            .fleet
            .describe_endpoint_info(&self.state.spec.endpoint, &AtomicUsize::new(0))
            .await?;
        if at_weights(&info, target) {
            return Ok(None);
        }
        let changes: Vec<WeightChange> = target
            .iter()
            .map(|(v, w)| WeightChange {
                variant: v.clone(),
                weight: Some(*w),
                instances: None,
            })
            .collect();
        let plan = plan_weights(&info, &changes).map_err(PromoteError::Invalid)?;
        let expect = Expectation::from_weights(&self.state.spec.endpoint, expected);
        let applied = self
            .fleet
            .apply_weights_guarded(&plan, &expect, &self.audited, action, Some(why))
            .await?;
        Ok(applied.request_id)
    }

    /// Waits for InService without listening to controls (a rollback is not interrupted).
    pub(super) async fn settle(&self) -> Result<EndpointInfo, AwsError> {
        let (ep, timeout, every) = (
            &self.state.spec.endpoint,
            self.opts.update_timeout,
            self.opts.poll_interval,
        );
        self.fleet.wait_in_service(ep, timeout, every, |_| {}).await
    }

    pub(super) async fn do_rollback(&mut self) -> Result<(), PromoteError> {
        // After a consolidation, first back to the config it kept (its weights are then
        // whatever that config sets: the compare-and-swap expects them).
        let expected = match self.undo_consolidation().await? {
            Some(back) => back,
            None => self.state.expected_weights(),
        };
        self.settle().await?;
        let start = self.state.start_weights.clone();
        let why = format!(
            "plan {} rollback: {}",
            self.state.id,
            self.state.message.as_deref().unwrap_or("asked")
        );
        let request_id = self.send_expecting(&start, "promote.rollback", why, &expected).await?;
        self.settle().await?;
        let msg = format!(
            "rolled back to the starting weights{}{}",
            request_id.map(|r| format!(" (request id {r})")).unwrap_or_default(),
            self.state
                .message
                .as_deref()
                .map(|m| format!("; {m}"))
                .unwrap_or_default()
        );
        self.state.message = None;
        self.transition(Phase::RolledBack, Some(msg))
    }
}
