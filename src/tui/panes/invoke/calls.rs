//! The Invoke pane's calls: what was sent (for re-running), and what came back, aggregated over a
//! repeat into latency percentiles, the variant split and error classes.

use std::collections::BTreeMap;

use crate::aws::invoke::call::{InvokeFailure, InvokeResult, InvokeSpec};
use crate::aws::observe::latency::LatencyStats;
use crate::format::body_text;

/// Where a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallState {
    /// Queued, no answer yet.
    Waiting,
    /// Some answers of a repeat arrived.
    Running,
    /// Every answer arrived (or the job failed before invoking).
    Done,
    /// Cancelled with Esc.
    Cancelled,
}

/// One send (of `repeat` invocations) and its results.
#[derive(Debug, Clone)]
pub struct Call {
    /// Number in this session (1-based).
    pub number: usize,
    /// Job id, once submitted.
    pub id: Option<u64>,
    /// What was sent.
    pub spec: InvokeSpec,
    /// The body as typed (`hex:`, `@path` or the text), to load back into the form.
    pub body_text: String,
    /// Invocations asked for.
    pub repeat: u32,
    /// Where it is.
    pub state: CallState,
    /// Answers received (success or failure).
    pub received: u32,
    /// Successful invocations.
    pub ok: u32,
    /// Failed invocations.
    pub failed: u32,
    /// Attempts over every invocation (retries included).
    pub attempts: u32,
    /// Invocations that needed a retry.
    pub retried: u32,
    /// Client-side latency of the successes.
    pub stats: LatencyStats,
    /// Successes per invoked variant.
    pub variants: BTreeMap<String, u32>,
    /// Failures per error class.
    pub errors: BTreeMap<String, u32>,
    /// The latest success.
    pub last_ok: Option<InvokeResult>,
    /// Its body as shown (pretty JSON when it parses), made once when it arrives.
    pub last_ok_text: String,
    /// The latest failure.
    pub last_err: Option<InvokeFailure>,
    /// When it arrived (epoch seconds).
    pub failed_at: Option<f64>,
    /// Whether the latest answer was a failure.
    pub last_failed: bool,
}

impl Call {
    /// A call about to be submitted.
    pub fn new(number: usize, spec: InvokeSpec, body_text: String, repeat: u32) -> Call {
        Call {
            number,
            id: None,
            spec,
            body_text,
            repeat: repeat.max(1),
            state: CallState::Waiting,
            received: 0,
            ok: 0,
            failed: 0,
            attempts: 0,
            retried: 0,
            stats: LatencyStats::new(),
            variants: BTreeMap::new(),
            errors: BTreeMap::new(),
            last_ok: None,
            last_ok_text: String::new(),
            last_err: None,
            failed_at: None,
            last_failed: false,
        }
    }

    /// Records one answer; true when the call is now complete.
    pub fn record(&mut self, result: Result<InvokeResult, InvokeFailure>) -> bool {
        if matches!(self.state, CallState::Done | CallState::Cancelled) {
            return false;
        }
        self.received += 1;
        match result {
            Ok(r) => {
                self.ok += 1;
                self.attempts += r.attempts;
                if r.attempts > 1 {
                    self.retried += 1;
                }
                self.stats.record(r.latency);
                *self
                    .variants
                    .entry(r.invoked_variant.clone().unwrap_or_else(|| "?".into()))
                    .or_default() += 1;
                self.last_ok_text = body_text(r.content_type.as_deref(), &r.body);
                self.last_ok = Some(r);
                self.last_failed = false;
            }
            Err(f) => {
                self.failed += 1;
                self.attempts += f.attempts;
                if f.attempts > 1 {
                    self.retried += 1;
                }
                *self.errors.entry(f.error.class().to_string()).or_default() += 1;
                // Zero attempts: the worker could not even connect, and sends no more answers.
                let fatal = f.attempts == 0;
                self.last_err = Some(f);
                self.failed_at = Some(crate::format::now_epoch());
                self.last_failed = true;
                if fatal {
                    self.state = CallState::Done;
                    return true;
                }
            }
        }
        if self.received >= self.repeat {
            self.state = CallState::Done;
            true
        } else {
            self.state = CallState::Running;
            false
        }
    }

    /// Whether answers may still come.
    pub fn in_flight(&self) -> bool {
        matches!(self.state, CallState::Waiting | CallState::Running)
    }

    /// A one-line summary for the history list and toasts.
    pub fn summary(&self) -> String {
        let state = match self.state {
            CallState::Waiting => "waiting".to_string(),
            CallState::Running => format!("{}/{}", self.received, self.repeat),
            CallState::Cancelled => format!("cancelled {}/{}", self.received, self.repeat),
            CallState::Done if self.repeat == 1 && self.failed == 0 => "ok".to_string(),
            CallState::Done if self.repeat == 1 => {
                self.errors.keys().next().cloned().unwrap_or_else(|| "failed".into())
            }
            CallState::Done => format!("{}/{} ok", self.ok, self.repeat),
        };
        match (self.stats.percentiles(), &self.last_ok) {
            (Some(p), _) if self.repeat > 1 => format!("{state} · p50 {:.1} ms", p.p50_ms),
            (_, Some(r)) if self.repeat == 1 => format!("{state} · {:.1} ms", r.latency.as_secs_f64() * 1000.0),
            _ => state,
        }
    }
}
