//! PutMetricAlarm's `Metrics` member on the wire: MetricDataQuery items decoded into
//! [`MetricQuery`] values (checked further by the store, see `alarms/math/`).

use serde::Deserialize;

use super::params::whole;
use crate::sandbox::cloudwatch::alarms::math::{MetricQuery, MetricStatQuery, QuerySource};
use crate::sandbox::cloudwatch::params::{Dimension, dimension_pairs, invalid_combination, missing};
use crate::sandbox::http::wire::ApiError;

/// One MetricDataQuery as sent.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct QueryInput {
    id: Option<String>,
    metric_stat: Option<MetricStatInput>,
    expression: Option<String>,
    label: Option<String>,
    return_data: Option<bool>,
    period: Option<f64>,
    account_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct MetricStatInput {
    metric: Option<MetricInput>,
    period: Option<f64>,
    stat: Option<String>,
    unit: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct MetricInput {
    namespace: Option<String>,
    metric_name: Option<String>,
    #[serde(default)]
    dimensions: Vec<Dimension>,
}

/// The queries, each with its Id and exactly one of MetricStat and Expression.
pub(super) fn queries(input: Vec<QueryInput>) -> Result<Vec<MetricQuery>, ApiError> {
    input
        .into_iter()
        .enumerate()
        .map(|(i, q)| query(q, &format!("Metrics.member.{}", i + 1)))
        .collect()
}

fn query(q: QueryInput, path: &str) -> Result<MetricQuery, ApiError> {
    let id = q.id.ok_or_else(|| missing(&format!("{path}.Id")))?;
    let source = match (q.metric_stat, q.expression) {
        (Some(stat), None) => QuerySource::Stat(metric_stat(stat, path)?),
        (None, Some(expression)) => QuerySource::Expression(expression),
        _ => {
            return Err(invalid_combination(format!(
                "Exactly one of {path}.MetricStat and {path}.Expression must be specified."
            )));
        }
    };
    Ok(MetricQuery {
        id,
        source,
        label: q.label,
        return_data: q.return_data,
        period: whole(q.period, &format!("{path}.Period"))?,
        account_id: q.account_id,
    })
}

fn metric_stat(stat: MetricStatInput, path: &str) -> Result<MetricStatQuery, ApiError> {
    let path = format!("{path}.MetricStat");
    let metric = stat.metric.ok_or_else(|| missing(&format!("{path}.Metric")))?;
    let dimensions = dimension_pairs(&metric.dimensions, &format!("{path}.Metric"))?;
    Ok(MetricStatQuery {
        namespace: metric
            .namespace
            .ok_or_else(|| missing(&format!("{path}.Metric.Namespace")))?,
        metric_name: metric
            .metric_name
            .ok_or_else(|| missing(&format!("{path}.Metric.MetricName")))?,
        dimensions,
        period: whole(stat.period, &format!("{path}.Period"))?.ok_or_else(|| missing(&format!("{path}.Period")))?,
        stat: stat.stat.ok_or_else(|| missing(&format!("{path}.Stat")))?,
        unit: stat.unit,
    })
}
