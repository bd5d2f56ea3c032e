//! CloudWatch GetMetricData over the metric store: validation, per-query evaluation, ordering,
//! and `MaxDatapoints` pagination with an opaque `NextToken`.
//!
//! Pagination: the datapoints of all returned queries, in query order and each in `ScanBy`
//! order, form one sequence; a page is the next `MaxDatapoints` of it. A query whose remaining
//! points do not all fit is `PartialData`; queries already fully returned on earlier pages come
//! back empty and `Complete`. The token carries the offset into that sequence plus a fingerprint
//! of the request, so a token replayed with a different request is `InvalidNextToken`.
//!
//! Not emulated: metric math and Metrics Insights (`Expression`): such a query answers
//! `StatusCode: InternalError` with a message, and the rest of the call proceeds. Unsupported
//! statistics (`TM99`, `IQM`, ...) are answered the same way.

use base64::Engine;
use serde::Deserialize;

use crate::sandbox::cloudwatch::metrics::SeriesKey;
use crate::sandbox::cloudwatch::metrics::query::{Datapoint, Stat};
use crate::sandbox::cloudwatch::params::{
    Dimension, de_time, dimension_pairs, invalid_combination, invalid_value, missing, parse, validation_error,
};
use crate::sandbox::http::wire::{ApiError, Out};
use crate::sandbox::world::sandbox::Sandbox;

/// Most queries per call.
const MAX_QUERIES: usize = 500;
/// Default `MaxDatapoints`.
const DEFAULT_MAX_DATAPOINTS: f64 = 100_800.0;
const TOKEN_PREFIX: &str = "gmd1:";

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GetMetricDataInput {
    #[serde(default)]
    metric_data_queries: Vec<MetricDataQuery>,
    #[serde(default, deserialize_with = "de_time")]
    start_time: Option<f64>,
    #[serde(default, deserialize_with = "de_time")]
    end_time: Option<f64>,
    next_token: Option<String>,
    scan_by: Option<String>,
    max_datapoints: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct MetricDataQuery {
    id: Option<String>,
    metric_stat: Option<MetricStat>,
    expression: Option<String>,
    label: Option<String>,
    return_data: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct MetricStat {
    metric: Option<Metric>,
    period: Option<f64>,
    stat: Option<String>,
    unit: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Metric {
    namespace: Option<String>,
    metric_name: Option<String>,
    #[serde(default)]
    dimensions: Vec<Dimension>,
}

/// One query, validated, with what it evaluates to.
struct Answer {
    id: String,
    label: String,
    /// Points in ScanBy order, or the reason the query cannot be answered.
    points: Result<Vec<Datapoint>, String>,
}

/// Whether `id` matches `^[a-z][a-zA-Z0-9_]*$` (and is at most 255 characters).
fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    id.len() <= 255
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `period` is a valid GetMetricData period: 1, 5, 10, 20, 30, or a multiple of 60.
fn valid_period(period: f64) -> bool {
    period.fract() == 0.0
        && period <= f64::from(u32::MAX)
        && ([1.0, 5.0, 10.0, 20.0, 30.0].contains(&period) || (period >= 60.0 && period % 60.0 == 0.0))
}

/// FNV-1a of the request without its NextToken: binds a token to the request that produced it.
fn fingerprint(doc: &serde_json::Value) -> u64 {
    let mut doc = doc.clone();
    if let Some(map) = doc.as_object_mut() {
        map.remove("NextToken");
    }
    doc.to_string().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn encode_token(offset: usize, fp: u64) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{TOKEN_PREFIX}{offset}:{fp:016x}"))
}

fn decode_token(token: &str, fp: u64) -> Result<usize, ApiError> {
    let invalid = || {
        crate::sandbox::cloudwatch::params::invalid_next_token(format!(
            "The NextToken {token:?} is invalid or does not belong to this request."
        ))
    };
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .map_err(|_| invalid())?;
    let text = String::from_utf8(raw).map_err(|_| invalid())?;
    let (offset, token_fp) = text
        .strip_prefix(TOKEN_PREFIX)
        .and_then(|t| t.split_once(':'))
        .ok_or_else(invalid)?;
    let offset: usize = offset.parse().map_err(|_| invalid())?;
    if u64::from_str_radix(token_fp, 16).ok() != Some(fp) {
        return Err(invalid());
    }
    Ok(offset)
}

/// GetMetricData.
pub fn get_metric_data(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let fp = fingerprint(&doc);
    let input: GetMetricDataInput = parse(doc)?;
    let n = input.metric_data_queries.len();
    if n == 0 {
        return Err(missing("MetricDataQueries"));
    }
    if n > MAX_QUERIES {
        return Err(invalid_value(format!(
            "The collection MetricDataQueries must not have a size greater than {MAX_QUERIES}."
        )));
    }
    let start = input.start_time.ok_or_else(|| missing("StartTime"))?;
    let end = input.end_time.ok_or_else(|| missing("EndTime"))?;
    if start >= end {
        return Err(invalid_value(
            "The parameter StartTime must be less than the parameter EndTime.".into(),
        ));
    }
    let descending = scan_descending(input.scan_by.as_deref())?;
    let max_points = max_datapoints(input.max_datapoints)?;
    let offset = match input.next_token.as_deref() {
        None | Some("") => 0,
        Some(t) => decode_token(t, fp)?,
    };
    // Validate every query before evaluating any.
    validate_queries(&input.metric_data_queries)?;

    let mut answers = Vec::new();
    for (i, q) in input.metric_data_queries.iter().enumerate() {
        let path = format!("MetricDataQueries.member.{}", i + 1);
        let answer = evaluate(sb, q, &path, start, end, descending)?;
        if q.return_data.unwrap_or(true) {
            answers.push(answer);
        }
    }

    Ok(page_of(&answers, offset, max_points, fp))
}

/// ScanBy: descending (the default) or ascending.
fn scan_descending(scan_by: Option<&str>) -> Result<bool, ApiError> {
    match scan_by {
        None | Some("TimestampDescending") => Ok(true),
        Some("TimestampAscending") => Ok(false),
        Some(other) => Err(validation_error(format!(
            "1 validation error detected: Value '{other}' at 'scanBy' failed to satisfy constraint: Member must satisfy enum value set: [TimestampDescending, TimestampAscending]"
        ))),
    }
}

/// MaxDatapoints: a whole number of at least 1 (default 100,800).
fn max_datapoints(asked: Option<f64>) -> Result<usize, ApiError> {
    let max_points = asked.unwrap_or(DEFAULT_MAX_DATAPOINTS);
    if max_points.is_nan() || max_points < 1.0 || max_points.fract() != 0.0 {
        return Err(invalid_value(format!(
            "The value {max_points} for parameter MaxDatapoints is invalid."
        )));
    }
    Ok(max_points.min(usize::MAX as f64) as usize)
}

/// Each query has a valid, unique Id and exactly one of MetricStat and Expression.
fn validate_queries(queries: &[MetricDataQuery]) -> Result<(), ApiError> {
    let mut ids: Vec<&str> = Vec::with_capacity(queries.len());
    for (i, q) in queries.iter().enumerate() {
        let path = format!("MetricDataQueries.member.{}", i + 1);
        let id = q.id.as_deref().ok_or_else(|| missing(&format!("{path}.Id")))?;
        if !valid_id(id) {
            return Err(validation_error(format!(
                "The value {id} for parameter {path}.Id is not matching the expected pattern ^[a-z][a-zA-Z0-9_]*$."
            )));
        }
        if ids.contains(&id) {
            return Err(invalid_value(format!(
                "The values for parameter Id in MetricDataQueries are not unique ({id})."
            )));
        }
        ids.push(id);
        if q.metric_stat.is_some() == q.expression.is_some() {
            return Err(invalid_combination(format!(
                "Exactly one of {path}.MetricStat and {path}.Expression must be specified."
            )));
        }
    }
    Ok(())
}

/// One page of the answers: `max_points` datapoints from `offset` across all results in
/// order, each result Complete or PartialData, and a NextToken bound to the request when
/// more remain.
fn page_of(answers: &[Answer], offset: usize, max_points: usize, fp: u64) -> Out {
    let total: usize = answers.iter().map(|a| a.points.as_ref().map_or(0, Vec::len)).sum();
    let page_end = offset.saturating_add(max_points);
    let mut results = Vec::with_capacity(answers.len());
    let mut seen = 0usize;
    for a in answers {
        let mut fields = vec![
            (Out::str("Id"), Out::Str(a.id.clone())),
            (Out::str("Label"), Out::Str(a.label.clone())),
        ];
        let (timestamps, values, status, messages) = match &a.points {
            Ok(points) => {
                let (lo, hi) = (seen, seen + points.len());
                seen = hi;
                let from = offset.clamp(lo, hi) - lo;
                let to = page_end.clamp(lo, hi) - lo;
                let page = &points[from..to.max(from)];
                let status = if hi <= page_end { "Complete" } else { "PartialData" };
                (
                    page.iter().map(|d| Out::Timestamp(d.timestamp)).collect(),
                    page.iter().map(|d| Out::Float(d.value)).collect(),
                    status,
                    vec![],
                )
            }
            Err(message) => {
                let msg = Out::map([
                    ("Code", Out::str("InternalError")),
                    ("Value", Out::Str(message.clone())),
                ]);
                (vec![], vec![], "InternalError", vec![msg])
            }
        };
        fields.push((Out::str("Timestamps"), Out::List(timestamps)));
        fields.push((Out::str("Values"), Out::List(values)));
        fields.push((Out::str("StatusCode"), Out::str(status)));
        if !messages.is_empty() {
            fields.push((Out::str("Messages"), Out::List(messages)));
        }
        results.push(Out::Map(fields));
    }
    let mut out = vec![(Out::str("MetricDataResults"), Out::List(results))];
    if page_end < total {
        out.push((Out::str("NextToken"), Out::Str(encode_token(page_end, fp))));
    }
    out.push((Out::str("Messages"), Out::List(vec![])));
    Out::Map(out)
}

/// Validates a query's MetricStat (request-level errors) and evaluates it.
fn evaluate(
    sb: &Sandbox,
    q: &MetricDataQuery,
    path: &str,
    start: f64,
    end: f64,
    descending: bool,
) -> Result<Answer, ApiError> {
    let id = q.id.clone().unwrap_or_default();
    let Some(ms) = &q.metric_stat else {
        let label = q.label.clone().unwrap_or_else(|| id.clone());
        let message = format!(
            "The sandbox does not evaluate metric math or Metrics Insights expressions (query {id}: {:?}).",
            q.expression.as_deref().unwrap_or_default()
        );
        return Ok(Answer {
            id,
            label,
            points: Err(message),
        });
    };
    let metric = ms
        .metric
        .as_ref()
        .ok_or_else(|| missing(&format!("{path}.MetricStat.Metric")))?;
    let namespace = metric
        .namespace
        .as_deref()
        .ok_or_else(|| missing(&format!("{path}.MetricStat.Metric.Namespace")))?;
    let name = metric
        .metric_name
        .as_deref()
        .ok_or_else(|| missing(&format!("{path}.MetricStat.Metric.MetricName")))?;
    let dims = dimension_pairs(&metric.dimensions, &format!("{path}.MetricStat.Metric"))?;
    let period = ms.period.ok_or_else(|| missing(&format!("{path}.MetricStat.Period")))?;
    if !valid_period(period) {
        return Err(invalid_value(format!(
            "The parameter {path}.MetricStat.Period must be a multiple of 60 or one of 1, 5, 10, 20, 30 (got {period})."
        )));
    }
    let stat_name = ms
        .stat
        .as_deref()
        .ok_or_else(|| missing(&format!("{path}.MetricStat.Stat")))?;
    let label = q.label.clone().unwrap_or_else(|| name.to_string());
    let Some(stat) = Stat::parse(stat_name) else {
        let message = format!(
            "The sandbox does not support the statistic {stat_name:?} (supported: SampleCount, Sum, Average, Minimum, Maximum, pNN, pNN.NN)."
        );
        return Ok(Answer {
            id,
            label,
            points: Err(message),
        });
    };
    let key = SeriesKey::from_owned(namespace.to_string(), name.to_string(), dims);
    let mut points = sb
        .metrics
        .query(&key, ms.unit.as_deref(), start, end, period as u32, stat);
    if descending {
        points.reverse();
    }
    Ok(Answer {
        id,
        label,
        points: Ok(points),
    })
}
