//! `sagedeck variants-report`: the variant log (`invoke/log.rs`) compared per endpoint ×
//! variant: count, error rate, latency percentiles (HDR histogram, successful calls), and the
//! promotion judge's verdicts (`compare.rs`: Mann-Whitney U test and Hodges-Lehmann shift) of
//! each variant against the baseline, the variant with the most calls unless one is named.
//!
//! The judge compares per-period series, as it does for CloudWatch: the log's calls are
//! grouped in periods (`JudgeConfig::period` seconds), each period with calls gives a point of
//! `latency_p50` and `latency_p99` (of its successful calls) and of `error_rate`. Fewer than
//! `min_points` periods on a side is inconclusive. A log longer than [`MAX_POINTS`] periods is
//! judged over longer periods (the report names the period it used).

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::aws::invoke::log::{InvocationRecord, LogRead, Status};
use crate::aws::judge::compare::{JudgeConfig, MetricVerdict, Outcome, Tolerance, combine, judge_metric};

/// What to compare.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// Only this endpoint.
    pub endpoint: Option<String>,
    /// Only records at or after this epoch second.
    pub since_epoch: Option<f64>,
    /// The baseline variant (default: the one with the most calls).
    pub baseline: Option<String>,
    /// The judge's thresholds and period.
    pub judge: JudgeConfig,
}

/// One variant of an endpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantRow {
    /// Variant name (`?` when the log does not say).
    pub variant: String,
    /// Whether it is the endpoint's baseline.
    pub baseline: bool,
    /// Calls.
    pub count: usize,
    /// Failed calls.
    pub errors: usize,
    /// errors / count.
    pub error_rate: f64,
    /// Median latency of successful calls, ms.
    pub p50_ms: Option<f64>,
    /// 90th percentile, ms.
    pub p90_ms: Option<f64>,
    /// 99th percentile, ms.
    pub p99_ms: Option<f64>,
    /// The judge against the baseline (None for the baseline and unnamed variants).
    pub outcome: Option<Outcome>,
    /// Its verdicts, metric by metric.
    pub verdicts: Vec<MetricVerdict>,
}

/// One endpoint's variants.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndpointReport {
    /// Endpoint name.
    pub endpoint: String,
    /// The baseline variant.
    pub baseline: Option<String>,
    /// Its variants, the baseline first, then by name.
    pub variants: Vec<VariantRow>,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantsReport {
    /// Records compared.
    pub records: usize,
    /// Lines of the file that were not records (skipped).
    pub bad_lines: usize,
    /// Records without an endpoint (a tool that did not say), skipped.
    pub without_endpoint: usize,
    /// Seconds per point of the judge's series.
    pub period_seconds: i32,
    /// Per endpoint, by name.
    pub endpoints: Vec<EndpointReport>,
}

/// The calls of one variant.
#[derive(Default)]
struct Calls<'a> {
    all: Vec<&'a InvocationRecord>,
}

/// The quantile of a histogram in ms (None when empty).
fn quantile(h: &Histogram<u64>, q: f64) -> Option<f64> {
    (!h.is_empty()).then(|| h.value_at_quantile(q) as f64 / 1000.0)
}

/// A histogram of the successful calls' latencies (µs, 1 µs to 10 min, 3 digits).
fn histogram<'a>(calls: impl Iterator<Item = &'a InvocationRecord>) -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 600_000_000, 3).unwrap_or_else(|_| Histogram::new(3).expect("hdr"));
    for r in calls.filter(|r| r.status == Status::Ok) {
        let _ = h.record(((r.latency_ms * 1000.0).round() as u64).clamp(1, 600_000_000));
    }
    h
}

impl Calls<'_> {
    /// Per-period series: (latency p50, latency p99, error rate); latency points only for
    /// periods with successful calls.
    fn series(&self, period: i32) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut by: BTreeMap<i64, Vec<&InvocationRecord>> = BTreeMap::new();
        for r in &self.all {
            by.entry((r.epoch / f64::from(period.max(1))).floor() as i64)
                .or_default()
                .push(r);
        }
        let (mut p50, mut p99, mut rate) = (Vec::new(), Vec::new(), Vec::new());
        for calls in by.values() {
            let h = histogram(calls.iter().copied());
            p50.extend(quantile(&h, 0.50));
            p99.extend(quantile(&h, 0.99));
            let errors = calls.iter().filter(|r| r.status == Status::Error).count();
            rate.push(errors as f64 / calls.len() as f64);
        }
        (p50, p99, rate)
    }

    fn row(&self, variant: &str) -> VariantRow {
        let h = histogram(self.all.iter().copied());
        let errors = self.all.iter().filter(|r| r.status == Status::Error).count();
        VariantRow {
            variant: variant.to_string(),
            baseline: false,
            count: self.all.len(),
            errors,
            error_rate: errors as f64 / self.all.len().max(1) as f64,
            p50_ms: quantile(&h, 0.50),
            p90_ms: quantile(&h, 0.90),
            p99_ms: quantile(&h, 0.99),
            outcome: None,
            verdicts: Vec::new(),
        }
    }
}

/// The judge's verdicts of `canary` against `baseline`.
fn judge(canary: &Calls<'_>, baseline: &Calls<'_>, cfg: &JudgeConfig) -> Vec<MetricVerdict> {
    let (c50, c99, c_rate) = canary.series(cfg.period);
    let (b50, b99, b_rate) = baseline.series(cfg.period);
    vec![
        judge_metric("latency_p50", c50, b50, Tolerance::Relative, cfg),
        judge_metric("latency_p99", c99, b99, Tolerance::Relative, cfg),
        judge_metric("error_rate", c_rate, b_rate, Tolerance::Absolute, cfg),
    ]
}

/// One endpoint's report from its calls by variant.
fn endpoint_report(endpoint: String, variants: BTreeMap<String, Calls<'_>>, opts: &ReportOptions) -> EndpointReport {
    let named = |v: &&String| v.as_str() != "?";
    let baseline = match &opts.baseline {
        Some(b) if variants.contains_key(b) => Some(b.clone()),
        Some(_) => None,
        None => variants
            .iter()
            .filter(|(v, _)| named(v))
            .max_by_key(|(v, c)| (c.all.len(), std::cmp::Reverse((*v).clone())))
            .map(|(v, _)| v.clone()),
    };
    let mut rows = Vec::new();
    for (name, calls) in &variants {
        let mut row = calls.row(name);
        row.baseline = baseline.as_deref() == Some(name.as_str());
        if let Some(b) = baseline.as_ref().filter(|b| *b != name && named(&name))
            && let Some(base) = variants.get(b)
        {
            row.verdicts = judge(calls, base, &opts.judge);
            row.outcome = Some(combine(&row.verdicts));
        }
        rows.push(row);
    }
    rows.sort_by_key(|r| !r.baseline);
    EndpointReport {
        endpoint,
        baseline,
        variants: rows,
    }
}

/// Compares the variants of every endpoint in `log` (see the module docs).
pub fn report(log: &LogRead, opts: &ReportOptions) -> VariantsReport {
    let mut by: BTreeMap<String, BTreeMap<String, Calls<'_>>> = BTreeMap::new();
    let (mut records, mut without_endpoint) = (0, 0);
    for r in &log.records {
        if opts.since_epoch.is_some_and(|s| r.epoch < s) {
            continue;
        }
        let Some(e) = &r.endpoint else {
            without_endpoint += 1;
            continue;
        };
        if opts.endpoint.as_ref().is_some_and(|want| want != e) {
            continue;
        }
        records += 1;
        let variant = r.variant.clone().unwrap_or_else(|| "?".into());
        by.entry(e.clone()).or_default().entry(variant).or_default().all.push(r);
    }
    // The Hodges-Lehmann shift takes every pair of points: a long log is judged over longer
    // periods, at most MAX_POINTS a side.
    let (lo, hi) = by
        .values()
        .flat_map(|v| v.values())
        .flat_map(|c| c.all.iter().map(|r| r.epoch))
        .fold((f64::MAX, f64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let mut opts = opts.clone();
    if hi > lo {
        let needed = ((hi - lo) / MAX_POINTS as f64).ceil() as i32;
        opts.judge.period = opts.judge.period.max(needed);
    }
    VariantsReport {
        records,
        bad_lines: log.bad_lines,
        without_endpoint,
        period_seconds: opts.judge.period,
        endpoints: by
            .into_iter()
            .map(|(e, variants)| endpoint_report(e, variants, &opts))
            .collect(),
    }
}

/// The most points a side the judge compares (a million pairs for the shift).
pub const MAX_POINTS: usize = 1000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_log_is_judged_over_longer_periods() {
        let records = (0..2000)
            .map(|i| {
                let mut r = InvocationRecord::new("test", b"");
                r.epoch = f64::from(i) * 600.0;
                r.endpoint = Some("e".into());
                r.variant = Some(if i % 3 == 0 { "C" } else { "B" }.into());
                r.latency_ms = 10.0;
                r
            })
            .collect();
        let log = LogRead {
            records,
            ..LogRead::default()
        };
        let r = report(&log, &ReportOptions::default());
        assert!(r.period_seconds >= 1199, "{}", r.period_seconds);
        let rows = &r.endpoints[0].variants;
        assert_eq!((rows[0].variant.as_str(), rows[0].baseline), ("B", true));
        assert!(rows[1].verdicts.iter().all(|v| v.canary.len() <= MAX_POINTS));
        assert_eq!(rows[1].outcome, Some(Outcome::Pass));
    }
}
