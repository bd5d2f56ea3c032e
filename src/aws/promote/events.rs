//! The vocabulary of a running promotion plan: the operator's [`Control`]s, the runner's
//! [`Question`]s and [`PromotionEvent`]s, its errors and timing options.

use std::time::Duration;

use serde::Serialize;

use crate::aws::change::guard::GuardError;
use crate::aws::error::AwsError;
use crate::aws::promote::plan::PlanState;
use crate::aws::promote::report::{GateReport, Verdict};

/// An operator's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Go on (next step; after "no verdict", bake again).
    Proceed,
    /// Stop here and persist; resume or roll back later.
    Hold,
    /// Restore the starting weights.
    Rollback,
}

/// What the runner asks in manual mode (answer with a [`Control`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Question {
    /// Apply step `step` (0-based) giving the canary `share` percent?
    NextStep {
        /// Step index.
        step: usize,
        /// Canary share in percent.
        share: f64,
    },
    /// The gate did not pass: roll back, hold, or (after "no verdict") bake again?
    AfterGate {
        /// Step index.
        step: usize,
        /// The verdict.
        verdict: Verdict,
    },
    /// Every step passed: consolidate (keep only `canary` in a new endpoint config)?
    Consolidate {
        /// The variant kept.
        canary: String,
    },
}

/// Progress of a plan.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum PromotionEvent {
    /// The state was saved after a transition (redraw from it).
    Saved {
        /// The state as saved.
        state: Box<PlanState>,
    },
    /// A step's weights were sent (or found already set).
    Applied {
        /// Step index.
        step: usize,
        /// Weights.
        weights: Vec<(String, f64)>,
        /// Request id.
        request_id: Option<String>,
    },
    /// Baking until `until` (epoch seconds).
    Baking {
        /// Step index.
        step: usize,
        /// End of the bake.
        until: f64,
    },
    /// The bake is over; its gate is being read (a control sent now is carried out once
    /// it is read).
    Judging {
        /// Step index.
        step: usize,
    },
    /// A gate was evaluated.
    Gate {
        /// Step index.
        step: usize,
        /// Figures and verdict.
        report: Box<GateReport>,
    },
    /// Waiting for a [`Control`].
    Ask {
        /// The question.
        question: Question,
    },
}

/// Why a plan could not go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PromoteError {
    /// The plan cannot start as given.
    #[error("{0}")]
    Invalid(String),
    /// A guardrail refused a change (nothing sent).
    #[error("{0}")]
    Guard(#[from] GuardError),
    /// An AWS call failed.
    #[error("{0}")]
    Aws(#[from] AwsError),
    /// The state could not be saved.
    #[error("cannot save the plan state: {0}")]
    State(String),
}

/// Timing of the runner.
#[derive(Debug, Clone)]
pub struct RunnerOptions {
    /// How often to describe the endpoint while it updates.
    pub poll_interval: Duration,
    /// Longest wait for InService after a change.
    pub update_timeout: Duration,
    /// Wait after a bake before reading its metrics (CloudWatch publishes SageMaker's
    /// per-minute metrics a minute or two late; the sandbox at once). Default 0.
    pub metrics_delay: Duration,
    /// The statistical judge's thresholds (None: the judge is off; saved with the plan).
    pub judge: Option<crate::aws::judge::compare::JudgeConfig>,
    /// CloudWatch alarms (metric or composite) gating every bake: one that is in ALARM at the
    /// gate, or entered ALARM during the bake, fails the step (saved with the plan).
    pub alarms: Vec<String>,
    /// Traffic pinned to canary and baseline during each bake (None: none), measured
    /// client-side and given to the judge.
    pub load: Option<crate::aws::promote::bake_load::LoadConfig>,
    /// How often a driven plan says again in the team's trail that it is still running (its
    /// heartbeat; zero never). Default a minute.
    pub heartbeat: Duration,
}

impl Default for RunnerOptions {
    fn default() -> Self {
        RunnerOptions {
            poll_interval: Duration::from_secs(2),
            update_timeout: Duration::from_secs(900),
            metrics_delay: Duration::ZERO,
            judge: None,
            alarms: Vec::new(),
            load: None,
            heartbeat: Duration::from_secs(60),
        }
    }
}

/// What a plan adds to its gates beside the thresholds of its [`crate::aws::promote::plan::PromotionSpec`]:
/// the statistical judge, gate alarms and load during bake (the console's plan editor fields;
/// the CLI's `--judge…`, `--alarm`, `--load`). Empty: none of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanExtras {
    /// The judge's thresholds (None: the judge is off).
    pub judge: Option<crate::aws::judge::compare::JudgeConfig>,
    /// Gate alarms (metric or composite).
    pub alarms: Vec<String>,
    /// Invocations per second sent during each bake (None: none).
    pub load_rps: Option<f64>,
}

impl PlanExtras {
    /// `opts` with these extras (the ones given replace the options').
    pub fn apply(&self, mut opts: RunnerOptions) -> RunnerOptions {
        if self.judge.is_some() {
            opts.judge = self.judge;
        }
        if !self.alarms.is_empty() {
            opts.alarms = self.alarms.clone();
        }
        if let Some(rps) = self.load_rps {
            opts.load = Some(crate::aws::promote::bake_load::LoadConfig {
                rps,
                body: br#"{"inputs": "sagedeck bake load"}"#.to_vec(),
                content_type: "application/json".into(),
            });
        }
        opts
    }
}
