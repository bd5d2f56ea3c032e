//! The metrics a refresh asks CloudWatch for: which metrics and statistics, per variant, as one
//! [`MetricsPlan`] of GetMetricData queries.

use std::time::Duration;

use serde::Serialize;

use crate::aws::endpoints::inventory::EndpointInfo;

/// Namespace of the invocation and MME cache metrics.
pub const NS_SAGEMAKER: &str = "AWS/SageMaker";
/// Namespace of the instance metrics (LoadedModelCount, utilisation).
pub const NS_ENDPOINTS: &str = "/aws/sagemaker/Endpoints";
/// Namespace of the inference components' utilization metrics (of their reservation).
pub const NS_INFERENCE_COMPONENTS: &str = "/aws/sagemaker/InferenceComponents";
/// CloudWatch's limit of queries per GetMetricData call.
pub const MAX_QUERIES_PER_CALL: usize = 500;
/// GetMetricData calls of one refresh in flight at once.
pub(super) const CALL_CONCURRENCY: usize = 4;
/// Pages one call may follow before the answer is taken as looping.
pub(super) const MAX_PAGES: usize = 1000;

/// A metric the plan queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Time the container took (µs on the wire).
    ModelLatency,
    /// SageMaker's own overhead (µs on the wire).
    OverheadLatency,
    /// Requests.
    Invocations,
    /// Requests answered 4xx.
    Invocation4xxErrors,
    /// Requests answered 5xx.
    Invocation5xxErrors,
    /// MME: 1 when the model was in memory, 0 when it had to be loaded (Average = hit ratio).
    ModelCacheHit,
    /// MME: time a request waited for its model (µs on the wire).
    ModelLoadingWaitTime,
    /// MME: time downloading a model from S3 (µs on the wire).
    ModelDownloadingTime,
    /// MME: time loading a model into the container (µs on the wire).
    ModelLoadingTime,
    /// MME: models loaded, per instance.
    LoadedModelCount,
    /// Inference component: invocations per copy.
    InvocationsPerCopy,
    /// Inference component: calls refused because it had no copy.
    NoCapacityInvocationFailures,
    /// Inference component: CPU used, in % of its reservation.
    CpuUtilizationNormalized,
    /// Inference component: accelerators used, in % of its reservation.
    GpuUtilizationNormalized,
    /// Inference component: memory used, in % of its reservation.
    MemoryUtilizationNormalized,
    /// Serverless: a cold start's container setup (µs on the wire).
    ModelSetupTime,
    /// Serverless: executions running over MaxConcurrency (0..1).
    ServerlessConcurrentExecutionsUtilization,
    /// Serverless: calls beyond the provisioned concurrency (served cold).
    ServerlessProvisionedConcurrencySpilloverInvocations,
    /// Serverless: provisioned executions in use (0..1).
    ServerlessProvisionedConcurrencyUtilization,
    /// Async (EndpointName only): requests waiting in the queue.
    ApproximateBacklogSize,
    /// Async (EndpointName only): the backlog per instance.
    ApproximateBacklogSizePerInstance,
    /// Async (EndpointName only): age of the oldest waiting request, seconds.
    ApproximateAgeOfOldestRequest,
    /// Async (EndpointName only): 1 when requests wait and no instance runs.
    HasBacklogWithoutCapacity,
    /// Async: time a request waited in the queue (µs on the wire).
    TimeInBacklog,
    /// Async: time from queue to output (µs on the wire).
    TotalProcessingTime,
    /// Async: requests that failed.
    InvocationFailures,
    /// Async: requests that expired in the queue (RequestTTLSeconds).
    ExpiredRequests,
}

impl Metric {
    /// The CloudWatch metric name.
    pub fn cloudwatch_name(self) -> &'static str {
        match self {
            Metric::ModelLatency => "ModelLatency",
            Metric::OverheadLatency => "OverheadLatency",
            Metric::Invocations => "Invocations",
            Metric::Invocation4xxErrors => "Invocation4XXErrors",
            Metric::Invocation5xxErrors => "Invocation5XXErrors",
            Metric::ModelCacheHit => "ModelCacheHit",
            Metric::ModelLoadingWaitTime => "ModelLoadingWaitTime",
            Metric::ModelDownloadingTime => "ModelDownloadingTime",
            Metric::ModelLoadingTime => "ModelLoadingTime",
            Metric::LoadedModelCount => "LoadedModelCount",
            Metric::InvocationsPerCopy => "InvocationsPerCopy",
            Metric::NoCapacityInvocationFailures => "NoCapacityInvocationFailures",
            Metric::CpuUtilizationNormalized => "CPUUtilizationNormalized",
            Metric::GpuUtilizationNormalized => "GPUUtilizationNormalized",
            Metric::MemoryUtilizationNormalized => "MemoryUtilizationNormalized",
            Metric::ModelSetupTime => "ModelSetupTime",
            Metric::ServerlessConcurrentExecutionsUtilization => "ServerlessConcurrentExecutionsUtilization",
            Metric::ServerlessProvisionedConcurrencySpilloverInvocations => {
                "ServerlessProvisionedConcurrencySpilloverInvocations"
            }
            Metric::ServerlessProvisionedConcurrencyUtilization => "ServerlessProvisionedConcurrencyUtilization",
            Metric::ApproximateBacklogSize => "ApproximateBacklogSize",
            Metric::ApproximateBacklogSizePerInstance => "ApproximateBacklogSizePerInstance",
            Metric::ApproximateAgeOfOldestRequest => "ApproximateAgeOfOldestRequest",
            Metric::HasBacklogWithoutCapacity => "HasBacklogWithoutCapacity",
            Metric::TimeInBacklog => "TimeInBacklog",
            Metric::TotalProcessingTime => "TotalProcessingTime",
            Metric::InvocationFailures => "InvocationFailures",
            Metric::ExpiredRequests => "ExpiredRequests",
        }
    }

    /// Its namespace.
    pub fn namespace(self) -> &'static str {
        match self {
            Metric::LoadedModelCount => NS_ENDPOINTS,
            Metric::CpuUtilizationNormalized
            | Metric::GpuUtilizationNormalized
            | Metric::MemoryUtilizationNormalized => NS_INFERENCE_COMPONENTS,
            _ => NS_SAGEMAKER,
        }
    }

    /// Whether CloudWatch reports it in microseconds (converted to milliseconds here).
    pub fn is_latency(self) -> bool {
        matches!(
            self,
            Metric::ModelLatency
                | Metric::OverheadLatency
                | Metric::ModelLoadingWaitTime
                | Metric::ModelDownloadingTime
                | Metric::ModelLoadingTime
                | Metric::ModelSetupTime
                | Metric::TimeInBacklog
                | Metric::TotalProcessingTime
        )
    }

    /// Snake-case key (`model_latency`), as in series names.
    pub fn key(self) -> &'static str {
        match self {
            Metric::ModelLatency => "model_latency",
            Metric::OverheadLatency => "overhead_latency",
            Metric::Invocations => "invocations",
            Metric::Invocation4xxErrors => "invocation_4xx_errors",
            Metric::Invocation5xxErrors => "invocation_5xx_errors",
            Metric::ModelCacheHit => "model_cache_hit",
            Metric::ModelLoadingWaitTime => "model_loading_wait_time",
            Metric::ModelDownloadingTime => "model_downloading_time",
            Metric::ModelLoadingTime => "model_loading_time",
            Metric::LoadedModelCount => "loaded_model_count",
            Metric::InvocationsPerCopy => "invocations_per_copy",
            Metric::NoCapacityInvocationFailures => "no_capacity_invocation_failures",
            Metric::CpuUtilizationNormalized => "cpu_utilization_normalized",
            Metric::GpuUtilizationNormalized => "gpu_utilization_normalized",
            Metric::MemoryUtilizationNormalized => "memory_utilization_normalized",
            Metric::ModelSetupTime => "model_setup_time",
            Metric::ServerlessConcurrentExecutionsUtilization => "serverless_concurrent_executions_utilization",
            Metric::ServerlessProvisionedConcurrencySpilloverInvocations => "serverless_spillover_invocations",
            Metric::ServerlessProvisionedConcurrencyUtilization => "serverless_provisioned_utilization",
            Metric::ApproximateBacklogSize => "approximate_backlog_size",
            Metric::ApproximateBacklogSizePerInstance => "approximate_backlog_size_per_instance",
            Metric::ApproximateAgeOfOldestRequest => "approximate_age_of_oldest_request",
            Metric::HasBacklogWithoutCapacity => "has_backlog_without_capacity",
            Metric::TimeInBacklog => "time_in_backlog",
            Metric::TotalProcessingTime => "total_processing_time",
            Metric::InvocationFailures => "invocation_failures",
            Metric::ExpiredRequests => "expired_requests",
        }
    }
}

/// Queries of every variant.
const VARIANT_QUERIES: [(Metric, &str); 9] = [
    (Metric::ModelLatency, "p50"),
    (Metric::ModelLatency, "p90"),
    (Metric::ModelLatency, "p99"),
    (Metric::OverheadLatency, "p50"),
    (Metric::OverheadLatency, "p90"),
    (Metric::OverheadLatency, "p99"),
    (Metric::Invocations, "Sum"),
    (Metric::Invocation4xxErrors, "Sum"),
    (Metric::Invocation5xxErrors, "Sum"),
];

/// Extra queries of a multi-model variant.
const MME_QUERIES: [(Metric, &str); 6] = [
    (Metric::ModelCacheHit, "Average"),
    (Metric::ModelLoadingWaitTime, "p50"),
    (Metric::ModelLoadingWaitTime, "p99"),
    (Metric::ModelDownloadingTime, "Average"),
    (Metric::ModelLoadingTime, "Average"),
    (Metric::LoadedModelCount, "Average"),
];

/// Extra queries of a serverless variant (its OverheadLatency p99 is among every variant's).
const SERVERLESS_QUERIES: [(Metric, &str); 5] = [
    (Metric::ModelSetupTime, "Average"),
    (Metric::ModelSetupTime, "SampleCount"),
    (Metric::ServerlessConcurrentExecutionsUtilization, "Maximum"),
    (Metric::ServerlessProvisionedConcurrencySpilloverInvocations, "Sum"),
    (Metric::ServerlessProvisionedConcurrencyUtilization, "Average"),
];

/// Extra queries of an asynchronous endpoint's variant.
const ASYNC_QUERIES: [(Metric, &str); 4] = [
    (Metric::TimeInBacklog, "Average"),
    (Metric::TotalProcessingTime, "Average"),
    (Metric::InvocationFailures, "Sum"),
    (Metric::ExpiredRequests, "Sum"),
];

/// An asynchronous endpoint's queue: published with the EndpointName dimension only (planned
/// after its first variant's queries, whose series they join).
const QUEUE_QUERIES: [(Metric, &str); 4] = [
    (Metric::ApproximateBacklogSize, "Average"),
    (Metric::ApproximateBacklogSizePerInstance, "Average"),
    (Metric::ApproximateAgeOfOldestRequest, "Maximum"),
    (Metric::HasBacklogWithoutCapacity, "Maximum"),
];

/// Queries of every inference component (dimension `InferenceComponentName` only).
const COMPONENT_QUERIES: [(Metric, &str); 10] = [
    (Metric::ModelLatency, "p50"),
    (Metric::ModelLatency, "p99"),
    (Metric::Invocations, "Sum"),
    (Metric::Invocation4xxErrors, "Sum"),
    (Metric::Invocation5xxErrors, "Sum"),
    (Metric::InvocationsPerCopy, "Sum"),
    (Metric::NoCapacityInvocationFailures, "Sum"),
    (Metric::CpuUtilizationNormalized, "Average"),
    (Metric::GpuUtilizationNormalized, "Average"),
    (Metric::MemoryUtilizationNormalized, "Average"),
];

/// The name of a series: `model_latency_p99`, `invocations_sum`.
pub fn series_name(metric: Metric, stat: &str) -> String {
    format!("{}_{}", metric.key(), stat.to_ascii_lowercase())
}

/// One query of a plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedQuery {
    /// Query id (`q<index>`).
    pub id: String,
    /// Endpoint.
    pub endpoint: String,
    /// Variant (empty for an inference component's query).
    pub variant: String,
    /// The inference component, for its queries: their only dimension is
    /// `InferenceComponentName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// Metric.
    pub metric: Metric,
    /// Statistic (`p99`, `Sum`, `Average`).
    pub stat: &'static str,
    /// Whether the metric carries the EndpointName dimension only (an async endpoint's queue).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub endpoint_only: bool,
}

/// Every query of one refresh.
#[derive(Debug, Clone, Serialize)]
pub struct MetricsPlan {
    /// Queries, ids `q0`, `q1`, ... in order.
    pub queries: Vec<PlannedQuery>,
    /// Variants covered: (endpoint, variant, multi-model), in plan order.
    pub variants: Vec<(String, String, bool)>,
    /// Inference components covered: (endpoint, component), in plan order, their queries after
    /// every variant's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<(String, String)>,
    /// How far back.
    #[serde(rename = "window_secs", serialize_with = "ser_secs")]
    pub window: Duration,
    /// Period in seconds (a multiple of 60).
    pub period: i32,
    /// `MaxDatapoints` per call (`None` = CloudWatch's 100,800).
    pub max_datapoints: Option<i32>,
}

fn ser_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_secs())
}

impl MetricsPlan {
    /// The plan for every variant of `endpoints` over `window` at `period` seconds (rounded up to
    /// a multiple of 60; see [`MetricsPlan::period_for`]). Pure: no call is made.
    pub fn for_endpoints(endpoints: &[EndpointInfo], window: Duration, period: i32) -> MetricsPlan {
        let period = (period.max(60) + 59) / 60 * 60;
        let mut queries = Vec::new();
        let mut variants = Vec::new();
        for ep in endpoints {
            // Shadow variants publish under their own names: planned beside production.
            for (i, v) in ep.variants.iter().chain(&ep.shape.shadow_variants).enumerate() {
                variants.push((ep.name.clone(), v.name.clone(), v.multi_model));
                let extra: &[(Metric, &str)] = if v.multi_model { &MME_QUERIES } else { &[] };
                let serverless: &[(Metric, &str)] = if v.serverless.is_some() {
                    &SERVERLESS_QUERIES
                } else {
                    &[]
                };
                let asynchronous: &[(Metric, &str)] = if ep.kind.is_async() { &ASYNC_QUERIES } else { &[] };
                let queue: &[(Metric, &str)] = if ep.kind.is_async() && i == 0 {
                    &QUEUE_QUERIES
                } else {
                    &[]
                };
                let planned = VARIANT_QUERIES
                    .iter()
                    .chain(extra)
                    .chain(serverless)
                    .chain(asynchronous);
                for (&(metric, stat), endpoint_only) in
                    planned.map(|q| (q, false)).chain(queue.iter().map(|q| (q, true)))
                {
                    queries.push(PlannedQuery {
                        id: format!("q{}", queries.len()),
                        endpoint: ep.name.clone(),
                        variant: v.name.clone(),
                        component: None,
                        metric,
                        stat,
                        endpoint_only,
                    });
                }
            }
        }
        MetricsPlan {
            queries,
            variants,
            components: Vec::new(),
            window,
            period,
            max_datapoints: None,
        }
    }

    /// The plan with the queries of these inference components, (endpoint, component) each,
    /// added after the variants' (in the same GetMetricData calls).
    pub fn with_components(mut self, components: &[(String, String)]) -> MetricsPlan {
        for (endpoint, component) in components {
            self.components.push((endpoint.clone(), component.clone()));
            for (metric, stat) in COMPONENT_QUERIES {
                self.queries.push(PlannedQuery {
                    id: format!("q{}", self.queries.len()),
                    endpoint: endpoint.clone(),
                    variant: String::new(),
                    component: Some(component.clone()),
                    metric,
                    stat,
                    endpoint_only: false,
                });
            }
        }
        self
    }

    /// A period that keeps datapoints bounded: 60 s up to 3 h, 300 s up to 24 h, 1 h beyond
    /// (at most 336 points per query over 14 days).
    pub fn period_for(window: Duration) -> i32 {
        match window.as_secs() {
            0..=10_800 => 60,
            10_801..=86_400 => 300,
            _ => 3600,
        }
    }

    /// GetMetricData calls the plan needs without pagination: ceil(queries / 500).
    pub fn calls_needed(&self) -> usize {
        self.queries.len().div_ceil(MAX_QUERIES_PER_CALL)
    }

    /// The query with this id.
    pub fn query(&self, id: &str) -> Option<&PlannedQuery> {
        self.index_of(id).map(|i| &self.queries[i])
    }

    pub(super) fn index_of(&self, id: &str) -> Option<usize> {
        let i: usize = id.strip_prefix('q')?.parse().ok()?;
        self.queries.get(i).filter(|q| q.id == id).map(|_| i)
    }
}
