//! What a refresh returns: series, the per-variant summary numbers computed from them, and the
//! snapshot of every variant.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use super::plan::{Metric, series_name};

/// One series: timestamps (epoch seconds, ascending) and their values (milliseconds for latencies).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Series {
    /// Period starts.
    pub timestamps: Vec<f64>,
    /// Values.
    pub values: Vec<f64>,
}

impl Series {
    /// The most recent value (its period may still be filling: see [`Series::latest_complete`]).
    pub fn latest(&self) -> Option<f64> {
        self.values.last().copied()
    }

    /// The start and value of the last period complete by `end` (epoch seconds): its start plus
    /// `period` seconds is not after `end`, so no more samples can arrive in it.
    pub fn latest_complete(&self, end: f64, period: f64) -> Option<(f64, f64)> {
        self.timestamps
            .iter()
            .zip(&self.values)
            .rev()
            .find(|(t, _)| **t + period <= end)
            .map(|(t, v)| (*t, *v))
    }

    /// The value of the period starting at `start`.
    pub fn at(&self, start: f64) -> Option<f64> {
        let i = self.timestamps.iter().position(|t| *t == start)?;
        self.values.get(i).copied()
    }

    /// The sum of every value (0 with none: a sum over nothing is -0.0 in Rust, shown as `-0`).
    pub fn sum(&self) -> f64 {
        self.values.iter().sum::<f64>() + 0.0
    }

    /// The largest value.
    pub fn max(&self) -> Option<f64> {
        self.values.iter().copied().reduce(f64::max)
    }
}

/// The numbers the console and `sagedeck metrics` show for a variant. "Latest" figures come from
/// the last complete period (the one still filling is left out), named by `latest_period_start`
/// with its sample count in `latest_samples`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct VariantSummary {
    /// Start (epoch seconds) of the last complete period, which the latest figures describe.
    pub latest_period_start: Option<f64>,
    /// Invocations in that period: the sample count of its latency figures.
    pub latest_samples: Option<f64>,
    /// Latest ModelLatency p50.
    pub model_latency_p50_ms: Option<f64>,
    /// Latest ModelLatency p90.
    pub model_latency_p90_ms: Option<f64>,
    /// Latest ModelLatency p99.
    pub model_latency_p99_ms: Option<f64>,
    /// Worst per-period ModelLatency p99 in the window.
    pub model_latency_p99_max_ms: Option<f64>,
    /// Latest OverheadLatency p99.
    pub overhead_latency_p99_ms: Option<f64>,
    /// Invocations in the window.
    pub invocations: f64,
    /// Invocations per minute over the window.
    pub invocations_per_min: f64,
    /// 4xx answers in the window.
    pub errors_4xx: f64,
    /// 5xx answers in the window.
    pub errors_5xx: f64,
    /// 4xx / invocations (None without invocations).
    pub error_rate_4xx: Option<f64>,
    /// 5xx / invocations (None without invocations).
    pub error_rate_5xx: Option<f64>,
    /// MME: cache hit ratio over the window (per-period averages weighted by invocations).
    pub cache_hit_ratio: Option<f64>,
    /// MME: latest models loaded per instance (average over instances).
    pub loaded_models_per_instance: Option<f64>,
    /// MME: latest ModelLoadingWaitTime p99.
    pub model_loading_wait_p99_ms: Option<f64>,
}

/// The metrics of one variant.
#[derive(Debug, Clone, Serialize)]
pub struct VariantMetrics {
    /// Endpoint.
    pub endpoint: String,
    /// Variant.
    pub variant: String,
    /// Whether it serves many models.
    pub multi_model: bool,
    /// Summary numbers.
    pub summary: VariantSummary,
    /// Series by name ([`series_name`]).
    pub series: BTreeMap<String, Series>,
}

impl VariantMetrics {
    /// The series of a metric and statistic.
    pub fn series(&self, metric: Metric, stat: &str) -> Option<&Series> {
        self.series.get(&series_name(metric, stat))
    }
}

/// What one refresh returned.
#[derive(Debug, Clone, Serialize)]
pub struct MetricsSnapshot {
    /// Window start (epoch seconds).
    pub start: f64,
    /// Window end (epoch seconds).
    pub end: f64,
    /// Period in seconds.
    pub period: i32,
    /// Per variant, in plan order.
    pub variants: Vec<VariantMetrics>,
    /// Per inference component, in plan order (none unless the plan asked for them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<ComponentMetrics>,
    /// Queries sent.
    pub queries: usize,
    /// GetMetricData calls made (pages included).
    pub calls: usize,
    /// Queries or calls that failed while the rest succeeded.
    pub warnings: Vec<String>,
}

impl MetricsSnapshot {
    /// The metrics of one variant.
    pub fn variant(&self, endpoint: &str, variant: &str) -> Option<&VariantMetrics> {
        self.variants
            .iter()
            .find(|v| v.endpoint == endpoint && v.variant == variant)
    }

    /// The metrics of one inference component.
    pub fn component(&self, endpoint: &str, component: &str) -> Option<&ComponentMetrics> {
        self.components
            .iter()
            .find(|c| c.endpoint == endpoint && c.component == component)
    }
}

/// Summary numbers of a variant's series over `window`, every period in them taken as complete
/// (series built by hand); figures of a query use [`summarize_until`] with its end.
pub fn summarize(vm: &VariantMetrics, window: Duration) -> VariantSummary {
    summarize_until(vm, window, f64::INFINITY, 0.0)
}

/// Summary numbers of a variant's series over `window` ending at `end` in `period`-second
/// periods; the latest figures are those of the last complete period.
pub fn summarize_until(vm: &VariantMetrics, window: Duration, end: f64, period: f64) -> VariantSummary {
    let s = |m: Metric, stat: &str| vm.series(m, stat);
    let latest = |m: Metric, stat: &str| s(m, stat)?.latest_complete(end, period).map(|(_, v)| v);
    let latest_period_start = s(Metric::ModelLatency, "p99")
        .and_then(|p99| p99.latest_complete(end, period))
        .map(|(t, _)| t);
    let latest_samples =
        latest_period_start.map(|t| s(Metric::Invocations, "Sum").and_then(|i| i.at(t)).unwrap_or(0.0));
    let sum = |m: Metric| s(m, "Sum").map(Series::sum).unwrap_or(0.0);
    let invocations = sum(Metric::Invocations);
    let (e4, e5) = (sum(Metric::Invocation4xxErrors), sum(Metric::Invocation5xxErrors));
    let rate = |e: f64| (invocations > 0.0).then(|| e / invocations);
    let minutes = (window.as_secs_f64() / 60.0).max(1.0 / 60.0);
    let cache_hit_ratio = s(Metric::ModelCacheHit, "Average").and_then(|hits| {
        let inv = s(Metric::Invocations, "Sum");
        let (mut num, mut den) = (0.0, 0.0);
        for (t, v) in hits.timestamps.iter().zip(&hits.values) {
            let w = inv
                .and_then(|inv| inv.timestamps.iter().position(|x| x == t).map(|k| inv.values[k]))
                .filter(|w| *w > 0.0)
                .unwrap_or(1.0);
            num += v * w;
            den += w;
        }
        (den > 0.0).then(|| num / den)
    });
    VariantSummary {
        latest_period_start,
        latest_samples,
        model_latency_p50_ms: latest(Metric::ModelLatency, "p50"),
        model_latency_p90_ms: latest(Metric::ModelLatency, "p90"),
        model_latency_p99_ms: latest(Metric::ModelLatency, "p99"),
        model_latency_p99_max_ms: s(Metric::ModelLatency, "p99").and_then(Series::max),
        overhead_latency_p99_ms: latest(Metric::OverheadLatency, "p99"),
        invocations,
        invocations_per_min: invocations / minutes,
        errors_4xx: e4,
        errors_5xx: e5,
        error_rate_4xx: rate(e4),
        error_rate_5xx: rate(e5),
        cache_hit_ratio,
        loaded_models_per_instance: latest(Metric::LoadedModelCount, "Average"),
        model_loading_wait_p99_ms: latest(Metric::ModelLoadingWaitTime, "p99"),
    }
}

/// The numbers the console shows for one inference component. "Latest" figures come from the
/// last complete period, as a variant's do.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ComponentSummary {
    /// Latest ModelLatency p50 (ms).
    pub model_latency_p50_ms: Option<f64>,
    /// Latest ModelLatency p99 (ms).
    pub model_latency_p99_ms: Option<f64>,
    /// Invocations in the period of the latest latencies (their sample count).
    pub latest_samples: Option<f64>,
    /// Invocations in the window.
    pub invocations: f64,
    /// Invocations per minute over the window.
    pub invocations_per_min: f64,
    /// 4xx answers in the window.
    pub errors_4xx: f64,
    /// 5xx answers in the window.
    pub errors_5xx: f64,
    /// Invocations per copy in the last complete period.
    pub invocations_per_copy: Option<f64>,
    /// Calls refused for want of a copy in the window.
    pub no_capacity_failures: f64,
    /// Latest CPU utilization, % of the reservation.
    pub cpu_utilization: Option<f64>,
    /// Latest accelerator utilization, % of the reservation.
    pub gpu_utilization: Option<f64>,
    /// Latest memory utilization, % of the reservation.
    pub memory_utilization: Option<f64>,
}

/// The metrics of one inference component.
#[derive(Debug, Clone, Serialize)]
pub struct ComponentMetrics {
    /// Endpoint it is deployed on.
    pub endpoint: String,
    /// Component name.
    pub component: String,
    /// Summary numbers.
    pub summary: ComponentSummary,
    /// Series by name ([`series_name`]).
    pub series: BTreeMap<String, Series>,
}

impl ComponentMetrics {
    /// The series of a metric and statistic.
    pub fn series(&self, metric: Metric, stat: &str) -> Option<&Series> {
        self.series.get(&series_name(metric, stat))
    }
}
