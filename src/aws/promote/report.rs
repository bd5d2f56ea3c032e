//! What a promotion step's gate checks and what it found: the thresholds ([`Gates`]), each
//! variant's [`Figures`], the checks and the [`Verdict`], kept together in a [`GateReport`]. The
//! plan (`plan.rs`) stores reports and the gate (`gate.rs`) writes them; both import this file.

use serde::{Deserialize, Serialize};

use crate::aws::judge::compare::MetricVerdict;

/// Thresholds of a step's gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gates {
    /// Largest canary p99 / baseline p99 ModelLatency (default 1.2).
    pub max_p99_ratio: f64,
    /// Largest canary 5XX rate (errors / invocations; default 0.01).
    pub max_5xx_rate: f64,
    /// Largest canary 4XX rate (None: not gated).
    pub max_4xx_rate: Option<f64>,
    /// Invocations the canary (and the baseline, for the ratio) needs in the window before any
    /// verdict; fewer gives "no verdict", which is not a pass (default 100).
    pub min_invocations: u64,
}

impl Default for Gates {
    fn default() -> Self {
        Gates {
            max_p99_ratio: 1.2,
            max_5xx_rate: 0.01,
            max_4xx_rate: None,
            min_invocations: 100,
        }
    }
}

/// A verdict of one step's gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every gate held with enough invocations.
    Pass,
    /// A gate failed.
    Fail,
    /// Too few invocations to judge (not a pass).
    NoVerdict,
}

impl Verdict {
    /// `pass`, `fail`, `no verdict`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::NoVerdict => "no verdict",
        }
    }
}

/// One variant's figures over a window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Invocations.
    pub invocations: f64,
    /// ModelLatency p99 in milliseconds (worst period of the window).
    pub p99_ms: Option<f64>,
    /// 5XX answers.
    pub errors_5xx: f64,
    /// 4XX answers.
    pub errors_4xx: f64,
}

impl Figures {
    /// 5XX / invocations.
    pub fn rate_5xx(&self) -> Option<f64> {
        (self.invocations > 0.0).then(|| self.errors_5xx / self.invocations)
    }

    /// 4XX / invocations.
    pub fn rate_4xx(&self) -> Option<f64> {
        (self.invocations > 0.0).then(|| self.errors_4xx / self.invocations)
    }
}

/// One check of a gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateCheck {
    /// `invocations`, `p99_ratio`, `5xx_rate`, `4xx_rate`.
    pub name: String,
    /// Measured value (None: not measurable).
    pub value: Option<f64>,
    /// The limit (a minimum for `invocations`, a maximum otherwise).
    pub limit: f64,
    /// Whether it held (None: could not be judged).
    pub ok: Option<bool>,
}

/// A step's gate: figures, checks and verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    /// Window start (epoch seconds).
    pub start: f64,
    /// Window end (epoch seconds).
    pub end: f64,
    /// The canary's figures.
    pub canary: Figures,
    /// The baseline's figures in this window.
    pub baseline: Figures,
    /// The baseline figures compared with (this window's, or an earlier step's).
    pub reference: Option<Figures>,
    /// Where the reference comes from: `this step` or `step N`.
    pub reference_from: Option<String>,
    /// Every check.
    pub checks: Vec<GateCheck>,
    /// Pass, fail or no verdict.
    pub verdict: Verdict,
    /// Why, in words.
    pub reasons: Vec<String>,
    /// The statistical judge's verdict of each metric, with its p-value, effect and data
    /// (empty when the judge is off).
    #[serde(default)]
    pub judge: Vec<MetricVerdict>,
}
