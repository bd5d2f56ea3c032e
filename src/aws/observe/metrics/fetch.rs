//! Running a [`MetricsPlan`]: GetMetricData calls of at most 500 queries, four in flight, each
//! following its NextToken, and the assembly of their datapoints into per-variant series.

use std::collections::BTreeMap;
use std::time::SystemTime;

use aws_sdk_cloudwatch::types::{
    Dimension, Metric as CwMetric, MetricDataQuery, MetricDataResult, MetricStat, ScanBy, StatusCode,
};
use aws_smithy_types::DateTime;
use futures_util::StreamExt;

use super::components::summarize_component;
use super::plan::{CALL_CONCURRENCY, MAX_PAGES, MAX_QUERIES_PER_CALL, MetricsPlan, PlannedQuery, series_name};
use super::summary::{
    ComponentMetrics, ComponentSummary, MetricsSnapshot, Series, VariantMetrics, VariantSummary, summarize_until,
};
use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

fn to_sdk(q: &PlannedQuery, period: i32) -> MetricDataQuery {
    let dim = |n: &str, v: &str| Dimension::builder().name(n).value(v).build();
    let metric = CwMetric::builder()
        .namespace(q.metric.namespace())
        .metric_name(q.metric.cloudwatch_name());
    let metric = match &q.component {
        Some(component) => metric.dimensions(dim("InferenceComponentName", component)),
        None if q.endpoint_only => metric.dimensions(dim("EndpointName", &q.endpoint)),
        None => metric
            .dimensions(dim("EndpointName", &q.endpoint))
            .dimensions(dim("VariantName", &q.variant)),
    }
    .build();
    MetricDataQuery::builder()
        .id(&q.id)
        .metric_stat(MetricStat::builder().metric(metric).period(period).stat(q.stat).build())
        .return_data(true)
        .build()
}

/// The datapoints of one batch, by plan index, the calls it took and its warnings.
type BatchOut = (Vec<(usize, Vec<(f64, f64)>)>, usize, Vec<String>);

/// A batch's datapoints, or the error that stopped it with the calls it had made.
type BatchOutcome = Result<BatchOut, (AwsError, usize)>;

/// Every batch's datapoints by plan index, with the calls made and the warnings of the refresh.
struct MergedBatches {
    points: Vec<Vec<(f64, f64)>>,
    calls: usize,
    warnings: Vec<String>,
}

/// Gathers the batches' datapoints into one list per query (of `queries`); a failed batch adds a
/// warning, and when no batch succeeded the first error is returned.
fn merge_batches(outcomes: Vec<BatchOutcome>, queries: usize) -> Result<MergedBatches, AwsError> {
    let mut points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); queries];
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
    Ok(MergedBatches {
        points,
        calls,
        warnings,
    })
}

/// One [`VariantMetrics`] per variant of the plan, its series built from the datapoints of its
/// queries (`points`, by plan index); summaries are left at their default. The components'
/// queries are left to [`components_with_series`].
fn variants_with_series(plan: &MetricsPlan, points: &[Vec<(f64, f64)>]) -> Vec<VariantMetrics> {
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
    let of_variants = plan.queries.iter().zip(points).filter(|(q, _)| q.component.is_none());
    for (q, p) in of_variants {
        while slot < variants.len() && (variants[slot].endpoint != q.endpoint || variants[slot].variant != q.variant) {
            slot += 1;
        }
        let Some(vm) = variants.get_mut(slot) else { break };
        vm.series.insert(series_name(q.metric, q.stat), series_of(q, p.clone()));
    }
    variants
}

/// One [`ComponentMetrics`] per inference component of the plan, its series built from the
/// datapoints of its queries (`points`, by plan index); summaries are left at their default.
fn components_with_series(plan: &MetricsPlan, points: &[Vec<(f64, f64)>]) -> Vec<ComponentMetrics> {
    let mut components: Vec<ComponentMetrics> = plan
        .components
        .iter()
        .map(|(endpoint, component)| ComponentMetrics {
            endpoint: endpoint.clone(),
            component: component.clone(),
            summary: ComponentSummary::default(),
            series: BTreeMap::new(),
        })
        .collect();
    for (q, p) in plan.queries.iter().zip(points) {
        let Some(name) = &q.component else { continue };
        let slot = components
            .iter_mut()
            .find(|c| &c.component == name && c.endpoint == q.endpoint);
        if let Some(cm) = slot {
            cm.series.insert(series_name(q.metric, q.stat), series_of(q, p.clone()));
        }
    }
    components
}

/// The series of one query from its datapoints: ordered by time, one value per timestamp,
/// latencies converted from microseconds to milliseconds (a SampleCount is a count, kept).
fn series_of(q: &PlannedQuery, mut points: Vec<(f64, f64)>) -> Series {
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points.dedup_by(|a, b| a.0 == b.0);
    let scale = if q.metric.is_latency() && q.stat != "SampleCount" {
        1e-3
    } else {
        1.0
    };
    Series {
        timestamps: points.iter().map(|x| x.0).collect(),
        values: points.iter().map(|x| x.1 * scale).collect(),
    }
}

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
        let outcomes: Vec<BatchOutcome> = futures_util::stream::iter(batches)
            .map(|(a, b)| self.fetch_batch(plan, &plan.queries[a..b], start_dt, end_dt))
            .buffer_unordered(CALL_CONCURRENCY)
            .collect()
            .await;
        let merged = merge_batches(outcomes, n)?;
        let (end_secs, period) = (end_dt.as_secs_f64(), f64::from(plan.period));
        let mut variants = variants_with_series(plan, &merged.points);
        for vm in &mut variants {
            vm.summary = summarize_until(vm, plan.window, end_secs, period);
        }
        let mut components = components_with_series(plan, &merged.points);
        for cm in &mut components {
            cm.summary = summarize_component(cm, plan.window, end_secs, period);
        }
        Ok(MetricsSnapshot {
            start: start_dt.as_secs_f64(),
            end: end_dt.as_secs_f64(),
            period: plan.period,
            variants,
            components,
            queries: plan.queries.len(),
            calls: merged.calls,
            warnings: merged.warnings,
        })
    }

    async fn fetch_batch(
        &self,
        plan: &MetricsPlan,
        batch: &[PlannedQuery],
        start: DateTime,
        end: DateTime,
    ) -> BatchOutcome {
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
                record_result(plan, r, &mut found, &mut warnings);
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

/// Adds one answered query's datapoints to `found` under its plan index; an unknown id, or a
/// status of InternalError or Forbidden, adds a warning.
fn record_result(
    plan: &MetricsPlan,
    r: &MetricDataResult,
    found: &mut BTreeMap<usize, Vec<(f64, f64)>>,
    warnings: &mut Vec<String>,
) {
    let Some(i) = r.id().and_then(|id| plan.index_of(id)) else {
        warnings.push(format!("CloudWatch answered an unknown query id {:?}", r.id()));
        return;
    };
    if let Some(status @ (StatusCode::InternalError | StatusCode::Forbidden)) = r.status_code() {
        let q = &plan.queries[i];
        let why: Vec<&str> = r.messages().iter().filter_map(|m| m.value()).collect();
        let of = q.component.as_deref().unwrap_or(&q.variant);
        warnings.push(format!(
            "{} {} of {}/{of}: {} {}",
            q.metric.cloudwatch_name(),
            q.stat,
            q.endpoint,
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
