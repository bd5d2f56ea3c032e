//! The figures of inference components: their queries come in the same plan (and the same
//! GetMetricData calls) as the variants', with `InferenceComponentName` as their only dimension;
//! here they are summed up per component.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use super::plan::{Metric, series_name};
use super::summary::{Series, VariantMetrics, summarize_until};

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

/// Summary numbers of a component's series over `window` ending at `end` in `period`-second
/// periods; the latest figures are those of the last complete period.
pub fn summarize_component(cm: &ComponentMetrics, window: Duration, end: f64, period: f64) -> ComponentSummary {
    // The invocation figures are a variant's: summed the same way.
    let as_variant = VariantMetrics {
        endpoint: cm.endpoint.clone(),
        variant: cm.component.clone(),
        multi_model: false,
        summary: Default::default(),
        series: cm.series.clone(),
    };
    let v = summarize_until(&as_variant, window, end, period);
    let latest = |m: Metric, stat: &str| cm.series(m, stat)?.latest_complete(end, period).map(|(_, x)| x);
    ComponentSummary {
        model_latency_p50_ms: v.model_latency_p50_ms,
        model_latency_p99_ms: v.model_latency_p99_ms,
        latest_samples: v.latest_samples,
        invocations: v.invocations,
        invocations_per_min: v.invocations_per_min,
        errors_4xx: v.errors_4xx,
        errors_5xx: v.errors_5xx,
        invocations_per_copy: latest(Metric::InvocationsPerCopy, "Sum"),
        no_capacity_failures: cm
            .series(Metric::NoCapacityInvocationFailures, "Sum")
            .map(Series::sum)
            .unwrap_or(0.0),
        cpu_utilization: latest(Metric::CpuUtilizationNormalized, "Average"),
        gpu_utilization: latest(Metric::GpuUtilizationNormalized, "Average"),
        memory_utilization: latest(Metric::MemoryUtilizationNormalized, "Average"),
    }
}
