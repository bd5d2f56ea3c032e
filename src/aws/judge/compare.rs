//! The statistical judge of a promotion step: the canary's and the baseline's per-period series
//! over the bake window (ModelLatency p99 and p50, 5XX and 4XX rates), compared metric by metric
//! with a two-sided Mann-Whitney U test and a Hodges-Lehmann shift (see `stats.rs`).
//!
//! Each metric says:
//! - **inconclusive** when either side has fewer than `min_points` periods with data (a thin
//!   canary never passes);
//! - **fail** when the difference is significant (p < `alpha`) and the canary is worse by more
//!   than the tolerance (latency: the shift above `latency_tolerance` × the baseline's median;
//!   rates: the shift above `rate_tolerance`, an absolute fraction);
//! - **pass** otherwise (no significant difference, or the canary is better, or worse within the
//!   tolerance).
//!
//! The step's judgement is fail when any metric fails, inconclusive when any is, else pass.

use serde::{Deserialize, Serialize};

use crate::aws::judge::stats::{Method, hodges_lehmann, mann_whitney_u, median_sorted};
use crate::aws::observe::metrics::{Metric, Series, VariantMetrics};

/// The judge's thresholds (the `promote --judge*` flags; saved with the plan).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct JudgeConfig {
    /// Significance level (default 0.05).
    pub alpha: f64,
    /// Periods with data each side needs before any verdict (default 5).
    pub min_points: usize,
    /// Latency shift tolerated, as a fraction of the baseline's median (default 0.10).
    pub latency_tolerance: f64,
    /// Error-rate shift tolerated, as an absolute fraction (default 0.005 = 0.5 points).
    pub rate_tolerance: f64,
    /// Seconds per point of the series (default 60: SageMaker publishes per minute; 10, 20 or
    /// 30 for high-resolution data such as the sandbox's).
    #[serde(default = "default_period")]
    pub period: i32,
}

fn default_period() -> i32 {
    60
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig {
            alpha: 0.05,
            min_points: 5,
            latency_tolerance: 0.10,
            rate_tolerance: 0.005,
            period: 60,
        }
    }
}

/// A metric's (or the step's) outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// No significant regression beyond the tolerance, with enough data.
    Pass,
    /// A significant regression beyond the tolerance.
    Fail,
    /// Too little data to tell.
    Inconclusive,
}

impl Outcome {
    /// `pass`, `fail`, `inconclusive`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Inconclusive => "inconclusive",
        }
    }
}

/// How a metric's tolerance is expressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tolerance {
    /// A fraction of the baseline's median (latencies).
    Relative,
    /// An absolute amount (rates).
    Absolute,
}

/// One metric's verdict, with the data it saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricVerdict {
    /// `model_latency_p99`, `model_latency_p50`, `5xx_rate`, `4xx_rate`, or a client figure.
    pub metric: String,
    /// The outcome.
    pub outcome: Outcome,
    /// Two-sided Mann-Whitney p-value (None: not tested).
    pub p_value: Option<f64>,
    /// How p was computed.
    pub method: Option<Method>,
    /// Hodges-Lehmann shift, canary − baseline (ms for latencies, a fraction for rates).
    pub effect: Option<f64>,
    /// The shift the tolerance allows.
    pub allowed: Option<f64>,
    /// The canary's per-period values.
    pub canary: Vec<f64>,
    /// The baseline's per-period values.
    pub baseline: Vec<f64>,
}

impl MetricVerdict {
    /// One line: `model_latency_p99 fail: p=0.0012 (exact), shift +45.2 (allowed 11.5), canary
    /// 12 points median 160.1, baseline 12 points median 115`.
    pub fn summary(&self) -> String {
        let med = |v: &[f64]| {
            let mut s = v.to_vec();
            s.sort_by(f64::total_cmp);
            median_sorted(&s).map_or("-".to_string(), |m| format!("{m:.4}"))
        };
        let p = match (self.p_value, self.method) {
            (Some(p), Some(m)) => format!("p={p:.4} ({})", if m == Method::Exact { "exact" } else { "normal" }),
            _ => "not tested".to_string(),
        };
        let shift = match (self.effect, self.allowed) {
            (Some(e), Some(a)) => format!(", shift {e:+.4} (allowed {a:.4})"),
            _ => String::new(),
        };
        format!(
            "{} {}: {p}{shift}, canary {} points median {}, baseline {} points median {}",
            self.metric,
            self.outcome.as_str(),
            self.canary.len(),
            med(&self.canary),
            self.baseline.len(),
            med(&self.baseline),
        )
    }
}

/// Judges one metric's series (see the module docs).
pub fn judge_metric(
    metric: &str,
    canary: Vec<f64>,
    baseline: Vec<f64>,
    tolerance: Tolerance,
    cfg: &JudgeConfig,
) -> MetricVerdict {
    let mut v = MetricVerdict {
        metric: metric.to_string(),
        outcome: Outcome::Inconclusive,
        p_value: None,
        method: None,
        effect: None,
        allowed: None,
        canary,
        baseline,
    };
    if v.canary.len() < cfg.min_points || v.baseline.len() < cfg.min_points {
        return v;
    }
    let (Some(test), Some(effect)) = (
        mann_whitney_u(&v.canary, &v.baseline),
        hodges_lehmann(&v.canary, &v.baseline),
    ) else {
        return v;
    };
    let allowed = match tolerance {
        Tolerance::Relative => {
            let mut b = v.baseline.clone();
            b.sort_by(f64::total_cmp);
            median_sorted(&b).unwrap_or(0.0).abs() * cfg.latency_tolerance
        }
        Tolerance::Absolute => cfg.rate_tolerance,
    };
    v.outcome = if test.p_value < cfg.alpha && effect > allowed {
        Outcome::Fail
    } else {
        Outcome::Pass
    };
    v.p_value = Some(test.p_value);
    v.method = Some(test.method);
    v.effect = Some(effect);
    v.allowed = Some(allowed);
    v
}

/// The step's outcome from its metrics: fail if any fails, inconclusive if any is, else pass.
pub fn combine(verdicts: &[MetricVerdict]) -> Outcome {
    if verdicts.iter().any(|v| v.outcome == Outcome::Fail) {
        Outcome::Fail
    } else if verdicts.is_empty() || verdicts.iter().any(|v| v.outcome == Outcome::Inconclusive) {
        Outcome::Inconclusive
    } else {
        Outcome::Pass
    }
}

/// Values of a series for periods where the variant had invocations.
fn values(vm: &VariantMetrics, metric: Metric, stat: &str) -> Vec<f64> {
    vm.series(metric, stat).map(|s| s.values.clone()).unwrap_or_default()
}

/// Per-period `errors / invocations` for periods with invocations.
fn rates(vm: &VariantMetrics, errors: Metric) -> Vec<f64> {
    let empty = Series::default();
    let inv = vm.series(Metric::Invocations, "Sum").unwrap_or(&empty);
    let err = vm.series(errors, "Sum").unwrap_or(&empty);
    inv.timestamps
        .iter()
        .zip(&inv.values)
        .filter(|(_, n)| **n > 0.0)
        .map(|(t, n)| {
            let e = err
                .timestamps
                .iter()
                .position(|x| x == t)
                .map_or(0.0, |i| err.values[i]);
            e / n
        })
        .collect()
}

/// Judges the canary against the baseline on the CloudWatch series of a bake window.
pub fn judge_variants(canary: &VariantMetrics, baseline: &VariantMetrics, cfg: &JudgeConfig) -> Vec<MetricVerdict> {
    let mut out = Vec::new();
    for (name, stat) in [("model_latency_p99", "p99"), ("model_latency_p50", "p50")] {
        out.push(judge_metric(
            name,
            values(canary, Metric::ModelLatency, stat),
            values(baseline, Metric::ModelLatency, stat),
            Tolerance::Relative,
            cfg,
        ));
    }
    for (name, metric) in [
        ("5xx_rate", Metric::Invocation5xxErrors),
        ("4xx_rate", Metric::Invocation4xxErrors),
    ] {
        out.push(judge_metric(
            name,
            rates(canary, metric),
            rates(baseline, metric),
            Tolerance::Absolute,
            cfg,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thin_regressed_and_equal_canaries() {
        let cfg = JudgeConfig::default();
        let thin = judge_metric("p99", vec![100.0; 3], vec![100.0; 10], Tolerance::Relative, &cfg);
        assert_eq!(thin.outcome, Outcome::Inconclusive);
        let base: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i)).collect();
        let slow: Vec<f64> = base.iter().map(|b| b * 1.5).collect();
        let fail = judge_metric("p99", slow, base.clone(), Tolerance::Relative, &cfg);
        assert_eq!(fail.outcome, Outcome::Fail);
        assert!(fail.p_value.is_some_and(|p| p < 0.001));
        let equal: Vec<f64> = base.iter().rev().copied().collect();
        let pass = judge_metric("p99", equal, base, Tolerance::Relative, &cfg);
        assert_eq!(pass.outcome, Outcome::Pass);
        assert_eq!(combine(&[pass.clone(), thin.clone()]), Outcome::Inconclusive);
        assert_eq!(combine(&[pass.clone(), fail]), Outcome::Fail);
        assert_eq!(combine(&[pass]), Outcome::Pass);
        assert!(thin.summary().contains("inconclusive: not tested"));
    }
}
