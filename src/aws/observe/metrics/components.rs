//! The figures of inference components: their queries come in the same plan (and the same
//! GetMetricData calls) as the variants', with `InferenceComponentName` as their only dimension;
//! here they are summed up per component (the types are `summary.rs`'s, beside the variants').

use std::time::Duration;

use super::plan::Metric;
use super::summary::{ComponentMetrics, ComponentSummary, Series, VariantMetrics, summarize_until};

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
