//! A prewarm as the Models pane follows it: the models asked, where each stands, the counts, how
//! it ended; and what a result teaches the console about a model.

use std::collections::HashMap;

use crate::aws::AwsError;
use crate::aws::invoke::prewarm::{PrewarmResult, PrewarmStatus};
use crate::tui::data::Data;

/// Where one model of a prewarm stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RunState {
    /// Not started yet.
    Queued,
    /// First attempt in flight.
    Loading,
    /// An attempt failed and another follows.
    Retrying {
        /// The attempt that failed (1-based).
        attempt: u32,
        /// Why, in a couple of words (`not ready`, `throttling`).
        reason: String,
    },
    /// Finished: cold, warm or failed.
    Done(PrewarmStatus),
}

/// How a prewarm ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEnd {
    /// Every model has its result.
    Finished,
    /// Cancelled with Esc.
    Cancelled,
    /// The prewarm could not run at all.
    Failed(String),
}

/// A prewarm the pane follows: the models asked, where each stands, the counts so far.
#[derive(Debug, Clone, PartialEq)]
pub struct PrewarmRun {
    /// Endpoint.
    pub endpoint: String,
    /// Models asked, in order, without duplicates.
    pub models: Vec<String>,
    /// Where each model stands.
    pub states: HashMap<String, RunState>,
    /// Models that had to be loaded.
    pub cold: usize,
    /// Models already loaded.
    pub warm: usize,
    /// Models that failed.
    pub failed: usize,
    /// The latest retry, as a line of text.
    pub last_retry: Option<String>,
    /// How it ended (`None` while it runs).
    pub ended: Option<RunEnd>,
}

impl PrewarmRun {
    /// A run of these models, all queued.
    pub fn new(endpoint: &str, models: Vec<String>) -> PrewarmRun {
        let mut run = PrewarmRun {
            endpoint: endpoint.to_string(),
            models: Vec::with_capacity(models.len()),
            states: HashMap::with_capacity(models.len()),
            cold: 0,
            warm: 0,
            failed: 0,
            last_retry: None,
            ended: None,
        };
        for m in models {
            run.ensure(&m);
        }
        run
    }

    /// Models with a result.
    pub fn done(&self) -> usize {
        self.cold + self.warm + self.failed
    }

    /// Models asked.
    pub fn total(&self) -> usize {
        self.models.len()
    }

    /// Whether it is still running.
    pub fn active(&self) -> bool {
        self.ended.is_none()
    }

    pub(super) fn ensure(&mut self, model: &str) {
        if !self.states.contains_key(model) {
            self.models.push(model.to_string());
            self.states.insert(model.to_string(), RunState::Queued);
        }
    }

    pub(super) fn set(&mut self, model: &str, state: RunState) {
        self.ensure(model);
        self.states.insert(model.to_string(), state);
    }

    /// Records a model's result; false when it already had one.
    pub(super) fn finish(&mut self, r: &PrewarmResult) -> bool {
        if matches!(self.states.get(&r.model), Some(RunState::Done(_))) {
            return false;
        }
        self.set(&r.model, RunState::Done(r.status));
        match r.status {
            PrewarmStatus::Cold => self.cold += 1,
            PrewarmStatus::Warm => self.warm += 1,
            PrewarmStatus::Failed => self.failed += 1,
        }
        true
    }
}

/// A couple of words for why an attempt failed.
pub fn reason(e: &AwsError) -> String {
    match e {
        AwsError::ModelNotReady(_) => "not ready".into(),
        AwsError::Throttling(_) => "throttled".into(),
        AwsError::Timeout(_) => "timed out".into(),
        other => other.class().replace('_', " "),
    }
}

/// Updates what the console knows of a model from a prewarm result.
pub(super) fn learn(data: &mut Data, endpoint: &str, r: &PrewarmResult) {
    let k = data.models.entry((endpoint.to_string(), r.model.clone())).or_default();
    if r.loaded {
        k.prewarmed_at = Some(crate::format::now_epoch());
    }
    if let Some(l) = r.latency {
        k.last_latency_ms = Some(l.as_secs_f64() * 1000.0);
        k.cold = Some(r.status == PrewarmStatus::Cold);
    }
    k.last_error = r.error.as_ref().map(ToString::to_string);
}

/// Who prewarmed a model last, and when, by (endpoint, model): from the audit log's prewarm
/// results (every console and CLI on this machine writes there). Newest wins.
pub fn audited_prewarms(
    records: &[crate::aws::change::audit::AuditRecord],
) -> std::collections::HashMap<(String, String), (f64, String)> {
    let mut out = std::collections::HashMap::new();
    for r in records
        .iter()
        .filter(|r| r.action == "prewarm" && r.phase == crate::aws::change::audit::AuditPhase::Result)
    {
        let who = r
            .principal
            .as_deref()
            .map(|p| p.rsplit([':', '/']).next().unwrap_or(p).to_string())
            .unwrap_or_else(|| "?".into());
        let models = r.after.get("models").and_then(serde_json::Value::as_array);
        for m in models.into_iter().flatten().filter_map(serde_json::Value::as_str) {
            out.insert((r.target.clone(), m.to_string()), (r.epoch, who.clone()));
        }
    }
    out
}
