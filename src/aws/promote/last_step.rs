//! A promotion plan's last step: once the canary holds 100 % and its bake passed, consolidation
//! (see [`crate::aws::promote::consolidate`]): a new endpoint config with only the canary, UpdateEndpoint,
//! followed Updating → InService, the old config kept. Its progress lives in the
//! `.consolidation` file beside the plan, written before UpdateEndpoint is sent, so a plan killed
//! mid-deployment resumes by following it to its end, or rolls back by going back to the kept
//! config first and then restoring the starting weights. A failed deployment (SageMaker leaves
//! the endpoint on its old config) holds the plan with SageMaker's FailureReason.

use crate::aws::change::guard::GuardError;
use crate::aws::error::AwsError;
use crate::aws::promote::consolidate::{ConsolidationState, load_consolidation};
use crate::aws::promote::events::{Control, PromoteError, Question};
use crate::aws::promote::plan::{Mode, Phase, consolidation_path};
use crate::aws::promote::run::{PromotionRunner, weights_of};

impl PromotionRunner {
    /// Enters the consolidation step: a progress file that is not this plan's (or a failed
    /// attempt of it) is removed first, so that the file, when present, is always this plan's.
    pub(super) fn begin_consolidation(&mut self) -> Result<(), PromoteError> {
        let file = consolidation_path(&self.path);
        let keep = self.state.consolidation_started
            && load_consolidation(&file).is_some_and(|s| matches!(s.phase.as_str(), "updating" | "done"));
        if !keep {
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(PromoteError::State(format!("{}: {e}", file.display()))),
            }
        }
        self.state.consolidation_started = true;
        let msg = format!(
            "every step passed: consolidating (a new config with only {})",
            self.state.spec.canary
        );
        self.transition(Phase::Consolidating, Some(msg))
    }

    /// Asks before consolidating in manual mode; `Some(result)` when the plan stops here.
    async fn confirm_consolidation(&mut self) -> Option<Result<(), PromoteError>> {
        let last = self.state.spec.steps.len();
        if self.state.spec.mode == Mode::Manual && self.confirmed != Some(last) {
            let q = Question::Consolidate {
                canary: self.state.spec.canary.clone(),
            };
            match self.ask(q).await {
                Some(Control::Proceed) => self.confirmed = Some(last),
                Some(Control::Rollback) => {
                    let m = Some("rollback asked before consolidation".to_string());
                    return Some(self.transition(Phase::RollingBack, m));
                }
                _ => {
                    let m = self.held_text("held before consolidation");
                    return Some(self.transition(Phase::Held, Some(m)));
                }
            }
        }
        let c = self.pending_control()?;
        Some(self.on_control(c, "the consolidation").await)
    }

    /// Runs (or, after an interruption, follows to its end) the consolidation, then completes,
    /// holds with the failure, or rolls back when the operator asked meanwhile.
    pub(super) async fn consolidate_step(&mut self) -> Result<(), PromoteError> {
        let file = consolidation_path(&self.path);
        let (poll, timeout) = (self.opts.poll_interval, self.opts.update_timeout);
        let outcome = match load_consolidation(&file) {
            Some(s) if matches!(s.phase.as_str(), "updating" | "rolling_back") => {
                self.fleet.finish_consolidation(s, &file, poll, timeout).await
            }
            Some(s) => Ok(s),
            None => {
                if let Some(stop) = self.confirm_consolidation().await {
                    return stop;
                }
                let (ep, canary) = (&self.state.spec.endpoint, &self.state.spec.canary);
                let plan = match self.fleet.plan_consolidation(ep, canary).await {
                    Ok(p) => p,
                    Err(e) => {
                        let m = self.held_text(&format!("consolidation not started: {e}"));
                        return self.transition(Phase::Held, Some(m));
                    }
                };
                let why = format!(
                    "plan {} last step: keep only {canary}{}",
                    self.state.id,
                    self.state
                        .reason
                        .as_deref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                );
                self.fleet
                    .consolidate(&plan, &self.audited, Some(why), &file, poll, timeout)
                    .await
            }
        };
        self.after_consolidation(outcome).await
    }

    async fn after_consolidation(
        &mut self,
        outcome: Result<ConsolidationState, GuardError>,
    ) -> Result<(), PromoteError> {
        let pending = self.pending_control();
        let s = match outcome {
            Ok(s) => s,
            // Still deploying: the plan stays in this step; `--resume` follows it on.
            Err(e @ GuardError::Aws(AwsError::Timeout(_))) => return Err(e.into()),
            Err(e) => {
                let m = self.held_text(&format!("the consolidation did not happen: {e}"));
                return self.transition(Phase::Held, Some(m));
            }
        };
        if pending == Some(Control::Rollback) {
            let m = format!("rollback asked during the consolidation (it ended {})", s.phase);
            return self.transition(Phase::RollingBack, Some(m));
        }
        if s.phase == "done" {
            let ep = &self.state.spec.endpoint;
            let msg = format!(
                "consolidated: {ep} serves only {} on config {}; config {} is kept (rolling back goes back to it)",
                s.winner, s.to_config, s.from_config
            );
            return self.transition(Phase::Completed, Some(msg));
        }
        let why = s
            .failure
            .clone()
            .unwrap_or_else(|| format!("the consolidation ended {}", s.phase));
        let m = self.held_text(&format!("the consolidation failed: {why}"));
        self.transition(Phase::Held, Some(m))
    }

    /// Before a rollback: when this plan consolidated (or was consolidating), follows the
    /// deployment to its end and goes back to the kept config (audited). The weights the
    /// endpoint then has (the compare-and-swap expectation of the weight rollback), or None when
    /// there was nothing to undo.
    pub(super) async fn undo_consolidation(&mut self) -> Result<Option<Vec<(String, f64)>>, PromoteError> {
        if !self.state.consolidation_started {
            return Ok(None);
        }
        let file = consolidation_path(&self.path);
        let Some(mut s) = load_consolidation(&file) else {
            return Ok(None);
        };
        let (poll, timeout) = (self.opts.poll_interval, self.opts.update_timeout);
        if matches!(s.phase.as_str(), "updating" | "rolling_back") {
            s = self.fleet.finish_consolidation(s, &file, poll, timeout).await?;
        }
        if s.phase == "done" {
            let why = format!("plan {} rollback: back to config {}", self.state.id, s.from_config);
            s = self
                .fleet
                .unconsolidate(s, &self.audited, Some(why), &file, poll, timeout)
                .await?;
            if s.phase != "rolled_back" {
                return Err(PromoteError::Aws(AwsError::Validation(format!(
                    "going back to config {} failed: {}",
                    s.from_config,
                    s.failure.as_deref().unwrap_or("no reason given")
                ))));
            }
        }
        if s.phase != "rolled_back" {
            // The deployment failed: the endpoint never left the plan's config and weights.
            return Ok(None);
        }
        let info = self.settle().await?;
        Ok(Some(weights_of(&info)))
    }
}
