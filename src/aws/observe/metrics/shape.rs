//! The figures of an endpoint's shape, from a variant's series: a serverless variant's cold
//! starts (ModelSetupTime), OverheadLatency p99, ServerlessConcurrentExecutionsUtilization and
//! spillover; an asynchronous endpoint's queue (ApproximateBacklogSize, per instance,
//! ApproximateAgeOfOldestRequest, HasBacklogWithoutCapacity — read beside its first variant, as
//! they carry the EndpointName only), TimeInBacklog, TotalProcessingTime, failures and expired
//! requests. Gauges are the newest period's (the backlog as it stands now, even in a period still
//! filling); OverheadLatency p99 is the last complete period's, as every percentile; counts are
//! summed over the window.

use serde::Serialize;

use super::plan::Metric;
use super::summary::{Series, VariantMetrics};

/// A serverless variant's figures.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ServerlessFigures {
    /// Cold starts in the window (ModelSetupTime's sample count).
    pub cold_starts: Option<f64>,
    /// ModelSetupTime, average of the newest period (ms).
    pub model_setup_ms: Option<f64>,
    /// OverheadLatency p99 of the last complete period (ms).
    pub overhead_p99_ms: Option<f64>,
    /// ServerlessConcurrentExecutionsUtilization, the newest period's maximum (0..1).
    pub concurrency_utilization: Option<f64>,
    /// ServerlessProvisionedConcurrencyUtilization, the newest period's average (0..1).
    pub provisioned_utilization: Option<f64>,
    /// Calls beyond the provisioned concurrency in the window.
    pub spillover_invocations: Option<f64>,
}

/// An asynchronous endpoint's figures (the queue's on its first variant only).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct AsyncFigures {
    /// ApproximateBacklogSize.
    pub backlog: Option<f64>,
    /// ApproximateBacklogSizePerInstance.
    pub backlog_per_instance: Option<f64>,
    /// ApproximateAgeOfOldestRequest (s).
    pub oldest_request_s: Option<f64>,
    /// HasBacklogWithoutCapacity: requests wait and no instance serves.
    pub backlog_without_capacity: Option<bool>,
    /// TimeInBacklog, average (ms).
    pub time_in_backlog_ms: Option<f64>,
    /// TotalProcessingTime, average (ms).
    pub total_processing_ms: Option<f64>,
    /// InvocationFailures in the window.
    pub failures: Option<f64>,
    /// ExpiredRequests in the window.
    pub expired: Option<f64>,
}

/// Reads of one variant's series at `end` in `period`-second periods.
struct Reader<'a> {
    vm: &'a VariantMetrics,
    end: f64,
    period: f64,
}

impl Reader<'_> {
    fn latest(&self, metric: Metric, stat: &str) -> Option<f64> {
        self.vm.series(metric, stat)?.latest()
    }

    fn latest_complete(&self, metric: Metric, stat: &str) -> Option<f64> {
        let s = self.vm.series(metric, stat)?;
        s.latest_complete(self.end, self.period).map(|(_, v)| v)
    }

    fn total(&self, metric: Metric, stat: &str) -> Option<f64> {
        self.vm.series(metric, stat).map(Series::sum)
    }
}

/// A serverless variant's figures from `vm` (queried with the serverless plan) at `end`.
pub fn serverless_figures(vm: &VariantMetrics, end: f64, period: f64) -> ServerlessFigures {
    let r = Reader { vm, end, period };
    ServerlessFigures {
        cold_starts: r.total(Metric::ModelSetupTime, "SampleCount"),
        model_setup_ms: r.latest(Metric::ModelSetupTime, "Average"),
        overhead_p99_ms: r.latest_complete(Metric::OverheadLatency, "p99"),
        concurrency_utilization: r.latest(Metric::ServerlessConcurrentExecutionsUtilization, "Maximum"),
        provisioned_utilization: r.latest(Metric::ServerlessProvisionedConcurrencyUtilization, "Average"),
        spillover_invocations: r.total(Metric::ServerlessProvisionedConcurrencySpilloverInvocations, "Sum"),
    }
}

/// An asynchronous endpoint's figures from its variant `vm` at `end`; `queue` for the first
/// variant, whose series carry the endpoint's queue.
pub fn async_figures(vm: &VariantMetrics, end: f64, period: f64, queue: bool) -> AsyncFigures {
    let r = Reader { vm, end, period };
    let q = |metric, stat| if queue { r.latest(metric, stat) } else { None };
    AsyncFigures {
        backlog: q(Metric::ApproximateBacklogSize, "Average"),
        backlog_per_instance: q(Metric::ApproximateBacklogSizePerInstance, "Average"),
        oldest_request_s: q(Metric::ApproximateAgeOfOldestRequest, "Maximum"),
        backlog_without_capacity: q(Metric::HasBacklogWithoutCapacity, "Maximum").map(|x| x >= 1.0),
        time_in_backlog_ms: r.latest(Metric::TimeInBacklog, "Average"),
        total_processing_ms: r.latest(Metric::TotalProcessingTime, "Average"),
        failures: r.total(Metric::InvocationFailures, "Sum"),
        expired: r.total(Metric::ExpiredRequests, "Sum"),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::aws::observe::metrics::plan::series_name;

    fn vm(series: &[(Metric, &str, &[f64])]) -> VariantMetrics {
        let series: BTreeMap<String, Series> = series
            .iter()
            .map(|(m, stat, values)| {
                let timestamps = (0..values.len()).map(|i| 60.0 * i as f64).collect();
                let s = Series {
                    timestamps,
                    values: values.to_vec(),
                };
                (series_name(*m, stat), s)
            })
            .collect();
        VariantMetrics {
            endpoint: "e".into(),
            variant: "v".into(),
            multi_model: false,
            summary: Default::default(),
            series,
        }
    }

    #[test]
    fn gauges_are_the_newest_period_percentiles_the_last_complete_and_counts_the_window() {
        let m = vm(&[
            (Metric::ModelSetupTime, "SampleCount", &[2.0, 1.0, 4.0]),
            (Metric::ModelSetupTime, "Average", &[900.0, 1100.0, 5000.0]),
            (Metric::OverheadLatency, "p99", &[20.0, 30.0, 90.0]),
            (
                Metric::ServerlessConcurrentExecutionsUtilization,
                "Maximum",
                &[0.5, 1.0, 0.1],
            ),
        ]);
        // At 150 s, the period starting at 120 s is still filling.
        let f = serverless_figures(&m, 150.0, 60.0);
        assert_eq!(f.cold_starts, Some(7.0));
        assert_eq!(f.model_setup_ms, Some(5000.0));
        assert_eq!(
            f.overhead_p99_ms,
            Some(30.0),
            "a percentile of a filling period is not judged"
        );
        assert_eq!(f.concurrency_utilization, Some(0.1));
        assert_eq!(f.spillover_invocations, None, "no series: no figure");
    }

    #[test]
    fn the_queue_is_read_on_the_first_variant_only() {
        let m = vm(&[
            (Metric::ApproximateBacklogSize, "Average", &[3.0, 5.0]),
            (Metric::HasBacklogWithoutCapacity, "Maximum", &[0.0, 1.0]),
            (Metric::ExpiredRequests, "Sum", &[1.0, 2.0]),
        ]);
        let first = async_figures(&m, 200.0, 60.0, true);
        assert_eq!((first.backlog, first.backlog_without_capacity), (Some(5.0), Some(true)));
        assert_eq!(first.expired, Some(3.0));
        let other = async_figures(&m, 200.0, 60.0, false);
        assert_eq!((other.backlog, other.backlog_without_capacity), (None, None));
    }
}
