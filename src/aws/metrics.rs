//! Endpoint metrics from CloudWatch: one GetMetricData plan per refresh covering every variant
//! (latency percentiles, invocations, errors; for multi-model endpoints the cache and loading
//! metrics and LoadedModelCount), split into calls of at most 500 queries, each following its
//! NextToken. Query ids are `q<N>`, the index into the plan: they satisfy CloudWatch's
//! `^[a-z][a-zA-Z0-9_]*$`, are unique, and carry no endpoint or variant names (which may hold
//! characters ids cannot). Latencies are converted from microseconds to milliseconds.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use aws_sdk_cloudwatch::types::{Dimension, Metric as CwMetric, MetricDataQuery, MetricStat, ScanBy, StatusCode};
use aws_smithy_types::DateTime;
use futures_util::StreamExt;
use serde::Serialize;

use super::config::Fleet;
use super::error::AwsError;
use super::inventory::EndpointInfo;

/// Namespace of the invocation and MME cache metrics.
pub const NS_SAGEMAKER: &str = "AWS/SageMaker";
/// Namespace of the instance metrics (LoadedModelCount, utilisation).
pub const NS_ENDPOINTS: &str = "/aws/sagemaker/Endpoints";
/// CloudWatch's limit of queries per GetMetricData call.
pub const MAX_QUERIES_PER_CALL: usize = 500;
/// GetMetricData calls of one refresh in flight at once.
const CALL_CONCURRENCY: usize = 4;
/// Pages one call may follow before the answer is taken as looping.
const MAX_PAGES: usize = 1000;

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
        }
    }

    /// Its namespace.
    pub fn namespace(self) -> &'static str {
        match self {
            Metric::LoadedModelCount => NS_ENDPOINTS,
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
    /// Variant.
    pub variant: String,
    /// Metric.
    pub metric: Metric,
    /// Statistic (`p99`, `Sum`, `Average`).
    pub stat: &'static str,
}

/// Every query of one refresh.
#[derive(Debug, Clone, Serialize)]
pub struct MetricsPlan {
    /// Queries, ids `q0`, `q1`, ... in order.
    pub queries: Vec<PlannedQuery>,
    /// Variants covered: (endpoint, variant, multi-model), in plan order.
    pub variants: Vec<(String, String, bool)>,
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
            for v in &ep.variants {
                variants.push((ep.name.clone(), v.name.clone(), v.multi_model));
                let extra: &[(Metric, &str)] = if v.multi_model { &MME_QUERIES } else { &[] };
                for (metric, stat) in VARIANT_QUERIES.iter().chain(extra) {
                    queries.push(PlannedQuery {
                        id: format!("q{}", queries.len()),
                        endpoint: ep.name.clone(),
                        variant: v.name.clone(),
                        metric: *metric,
                        stat,
                    });
                }
            }
        }
        MetricsPlan {
            queries,
            variants,
            window,
            period,
            max_datapoints: None,
        }
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

    fn index_of(&self, id: &str) -> Option<usize> {
        let i: usize = id.strip_prefix('q')?.parse().ok()?;
        self.queries.get(i).filter(|q| q.id == id).map(|_| i)
    }
}

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

    /// The sum of every value.
    pub fn sum(&self) -> f64 {
        self.values.iter().sum()
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
}

fn to_sdk(q: &PlannedQuery, period: i32) -> MetricDataQuery {
    let dim = |n: &str, v: &str| Dimension::builder().name(n).value(v).build();
    let metric = CwMetric::builder()
        .namespace(q.metric.namespace())
        .metric_name(q.metric.cloudwatch_name())
        .dimensions(dim("EndpointName", &q.endpoint))
        .dimensions(dim("VariantName", &q.variant))
        .build();
    MetricDataQuery::builder()
        .id(&q.id)
        .metric_stat(MetricStat::builder().metric(metric).period(period).stat(q.stat).build())
        .return_data(true)
        .build()
}

/// The datapoints of one batch, by plan index, the calls it took and its warnings.
type BatchOut = (Vec<(usize, Vec<(f64, f64)>)>, usize, Vec<String>);

impl Fleet {
    /// Runs `plan` over `[end - window, end)`: ceil(Q/500) GetMetricData calls (4 at a time), each
    /// following NextToken. A failed call costs its queries a warning; when every call fails the
    /// first error is returned.
    pub async fn fetch_metrics(&self, plan: &MetricsPlan, end: SystemTime) -> Result<MetricsSnapshot, AwsError> {
        let end_dt = DateTime::from(end);
        let start_dt = DateTime::from(end.checked_sub(plan.window).unwrap_or(SystemTime::UNIX_EPOCH));
        // Owned index ranges rather than slices: the futures stay `Send` for any caller that spawns.
        let n = plan.queries.len();
        let batches: Vec<(usize, usize)> = (0..n)
            .step_by(MAX_QUERIES_PER_CALL)
            .map(|a| (a, (a + MAX_QUERIES_PER_CALL).min(n)))
            .collect();
        let outcomes: Vec<Result<BatchOut, (AwsError, usize)>> = futures_util::stream::iter(batches)
            .map(|(a, b)| self.fetch_batch(plan, &plan.queries[a..b], start_dt, end_dt))
            .buffer_unordered(CALL_CONCURRENCY)
            .collect()
            .await;
        let mut points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); plan.queries.len()];
        let (mut calls, mut warnings, mut first_error, mut ok_batches) = (0, Vec::new(), None, 0);
        for outcome in outcomes {
            match outcome {
                Ok((found, c, w)) => {
                    ok_batches += 1;
                    calls += c;
                    warnings.extend(w);
                    for (i, p) in found {
                        points[i].extend(p);
                    }
                }
                Err((e, c)) => {
                    calls += c;
                    warnings.push(format!("a GetMetricData call failed: {e}"));
                    first_error.get_or_insert(e);
                }
            }
        }
        if let Some(e) = first_error
            && ok_batches == 0
        {
            return Err(e);
        }
        let mut variants: Vec<VariantMetrics> = plan
            .variants
            .iter()
            .map(|(endpoint, variant, multi_model)| VariantMetrics {
                endpoint: endpoint.clone(),
                variant: variant.clone(),
                multi_model: *multi_model,
                summary: VariantSummary::default(),
                series: BTreeMap::new(),
            })
            .collect();
        let mut slot = 0;
        for (q, mut p) in plan.queries.iter().zip(points) {
            while slot < variants.len()
                && (variants[slot].endpoint != q.endpoint || variants[slot].variant != q.variant)
            {
                slot += 1;
            }
            let Some(vm) = variants.get_mut(slot) else { break };
            p.sort_by(|a, b| a.0.total_cmp(&b.0));
            p.dedup_by(|a, b| a.0 == b.0);
            let scale = if q.metric.is_latency() { 1e-3 } else { 1.0 };
            let series = Series {
                timestamps: p.iter().map(|x| x.0).collect(),
                values: p.iter().map(|x| x.1 * scale).collect(),
            };
            vm.series.insert(series_name(q.metric, q.stat), series);
        }
        for vm in &mut variants {
            vm.summary = summarize_until(vm, plan.window, end_dt.as_secs_f64(), f64::from(plan.period));
        }
        Ok(MetricsSnapshot {
            start: start_dt.as_secs_f64(),
            end: end_dt.as_secs_f64(),
            period: plan.period,
            variants,
            queries: plan.queries.len(),
            calls,
            warnings,
        })
    }

    async fn fetch_batch(
        &self,
        plan: &MetricsPlan,
        batch: &[PlannedQuery],
        start: DateTime,
        end: DateTime,
    ) -> Result<BatchOut, (AwsError, usize)> {
        let queries: Vec<MetricDataQuery> = batch.iter().map(|q| to_sdk(q, plan.period)).collect();
        let mut found: BTreeMap<usize, Vec<(f64, f64)>> = BTreeMap::new();
        let mut warnings = Vec::new();
        let mut token: Option<String> = None;
        let mut calls = 0;
        loop {
            calls += 1;
            let out = self
                .cloudwatch
                .get_metric_data()
                .set_metric_data_queries(Some(queries.clone()))
                .start_time(start)
                .end_time(end)
                .scan_by(ScanBy::TimestampAscending)
                .set_max_datapoints(plan.max_datapoints)
                .set_next_token(token.clone())
                .send()
                .await
                .map_err(|e| (AwsError::from_sdk(e), calls))?;
            for r in out.metric_data_results() {
                let Some(i) = r.id().and_then(|id| plan.index_of(id)) else {
                    warnings.push(format!("CloudWatch answered an unknown query id {:?}", r.id()));
                    continue;
                };
                if let Some(status @ (StatusCode::InternalError | StatusCode::Forbidden)) = r.status_code() {
                    let q = &plan.queries[i];
                    let why: Vec<&str> = r.messages().iter().filter_map(|m| m.value()).collect();
                    warnings.push(format!(
                        "{} {} of {}/{}: {} {}",
                        q.metric.cloudwatch_name(),
                        q.stat,
                        q.endpoint,
                        q.variant,
                        status.as_str(),
                        why.join("; ")
                    ));
                }
                let entry = found.entry(i).or_default();
                entry.extend(
                    r.timestamps()
                        .iter()
                        .zip(r.values())
                        .map(|(t, v)| (t.as_secs_f64(), *v)),
                );
            }
            let next = out.next_token().filter(|t| !t.is_empty()).map(str::to_string);
            if next.is_none() {
                break;
            }
            if next == token || calls >= MAX_PAGES {
                warnings.push("GetMetricData kept answering NextToken; the series may be incomplete".into());
                break;
            }
            token = next;
        }
        Ok((found.into_iter().collect(), calls, warnings))
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
