//! PutMetricData: validated as CloudWatch validates it, recorded into the metric store.

use serde::Deserialize;

use crate::sandbox::cloudwatch::metrics::SeriesKey;
use crate::sandbox::cloudwatch::params::{
    Dimension, de_time, dimension_pairs, invalid_combination, invalid_value, missing, parse, validation_error,
};
use crate::sandbox::http::wire::{ApiError, Out};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

/// Units CloudWatch accepts, space-separated.
const UNITS: &str = "Seconds Microseconds Milliseconds Bytes Kilobytes Megabytes Gigabytes Terabytes Bits Kilobits \
    Megabits Gigabits Terabits Percent Count Bytes/Second Kilobytes/Second Megabytes/Second Gigabytes/Second \
    Terabytes/Second Bits/Second Kilobits/Second Megabits/Second Gigabits/Second Terabits/Second Count/Second None";

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PutMetricDataInput {
    namespace: Option<String>,
    #[serde(default)]
    metric_data: Vec<MetricDatum>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct MetricDatum {
    metric_name: Option<String>,
    #[serde(default)]
    dimensions: Vec<Dimension>,
    #[serde(default, deserialize_with = "de_time")]
    timestamp: Option<f64>,
    value: Option<f64>,
    statistic_values: Option<StatisticSet>,
    values: Option<Vec<f64>>,
    counts: Option<Vec<f64>>,
    unit: Option<String>,
    storage_resolution: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct StatisticSet {
    sample_count: Option<f64>,
    sum: Option<f64>,
    minimum: Option<f64>,
    maximum: Option<f64>,
}

/// What one validated datum records.
enum Sample {
    Value(f64),
    Values(Vec<f64>, Vec<f64>),
    Stats { count: f64, sum: f64, min: f64, max: f64 },
}

pub(super) fn put_metric_data(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: PutMetricDataInput = parse(doc)?;
    let namespace = input.namespace.ok_or_else(|| missing("Namespace"))?;
    if namespace.is_empty() || namespace.chars().count() > 255 || namespace.starts_with("AWS/") || namespace == "AWS" {
        return Err(invalid_value(format!(
            "The value {namespace} for parameter Namespace is invalid."
        )));
    }
    if input.metric_data.is_empty() {
        return Err(missing("MetricData"));
    }
    if input.metric_data.len() > 1000 {
        return Err(invalid_value(
            "The collection MetricData must not have a size greater than 1000.".into(),
        ));
    }
    let now = now_epoch();
    let mut accepted = Vec::with_capacity(input.metric_data.len());
    for (i, datum) in input.metric_data.into_iter().enumerate() {
        let path = format!("MetricData.member.{}", i + 1);
        accepted.push(validate_datum(datum, &path, now)?);
    }
    for (name, dims, unit, ts, sample) in accepted {
        let key = SeriesKey::from_owned(namespace.clone(), name, dims);
        let handle = sb.metrics.series(&key, &unit);
        let mut series = handle.lock();
        match sample {
            Sample::Value(v) => series.record(ts, v),
            Sample::Values(values, counts) => series.record_values(ts, &values, &counts),
            Sample::Stats { count, sum, min, max } => series.record_stats(ts, count, sum, min, max),
        }
    }
    Ok(Out::Map(vec![]))
}

type Accepted = (String, Vec<(String, String)>, String, f64, Sample);

fn validate_datum(d: MetricDatum, path: &str, now: f64) -> Result<Accepted, ApiError> {
    let name = d.metric_name.ok_or_else(|| missing(&format!("{path}.MetricName")))?;
    if name.is_empty() || name.chars().count() > 255 {
        return Err(validation_error(format!(
            "The value for parameter {path}.MetricName must have a length between 1 and 255."
        )));
    }
    let dims = dimension_pairs(&d.dimensions, path)?;
    let unit = d.unit.unwrap_or_else(|| "None".to_string());
    if !UNITS.split_whitespace().any(|u| u == unit) {
        return Err(validation_error(format!(
            "The value {unit} for parameter {path}.Unit is not a valid unit (expected one of {}).",
            UNITS.split_whitespace().collect::<Vec<_>>().join(", ")
        )));
    }
    if let Some(r) = d.storage_resolution
        && r != 1.0
        && r != 60.0
    {
        return Err(invalid_value(format!(
            "The value {r} for parameter {path}.StorageResolution must be 1 or 60."
        )));
    }
    let ts = d.timestamp.unwrap_or(now);
    if ts > now + 2.0 * 3600.0 {
        return Err(invalid_value(format!(
            "The parameter {path}.Timestamp must specify a time no more than two hours in the future."
        )));
    }
    if ts < now - 14.0 * 86400.0 {
        return Err(invalid_value(format!(
            "The parameter {path}.Timestamp must specify a time within the past two weeks."
        )));
    }
    let given = [d.value.is_some(), d.statistic_values.is_some(), d.values.is_some()];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(invalid_combination(format!(
            "The parameters {path}.Value, {path}.StatisticValues and {path}.Values are mutually exclusive and you have specified more than one."
        )));
    }
    let sample = if let Some(v) = d.value {
        Sample::Value(v)
    } else if let Some(s) = d.statistic_values {
        let count = s
            .sample_count
            .ok_or_else(|| missing(&format!("{path}.StatisticValues.SampleCount")))?;
        let sum = s.sum.ok_or_else(|| missing(&format!("{path}.StatisticValues.Sum")))?;
        let min = s
            .minimum
            .ok_or_else(|| missing(&format!("{path}.StatisticValues.Minimum")))?;
        let max = s
            .maximum
            .ok_or_else(|| missing(&format!("{path}.StatisticValues.Maximum")))?;
        if count <= 0.0 || min > max {
            return Err(invalid_value(format!(
                "The parameter {path}.StatisticValues must have a positive SampleCount and Minimum <= Maximum."
            )));
        }
        Sample::Stats { count, sum, min, max }
    } else if let Some(values) = d.values {
        let counts = d.counts.unwrap_or_default();
        if !counts.is_empty() && counts.len() != values.len() {
            return Err(invalid_value(format!(
                "The parameters {path}.Values and {path}.Counts must be arrays of the same size."
            )));
        }
        if values.len() > 150 {
            return Err(invalid_value(format!(
                "The collection {path}.Values must not have a size greater than 150."
            )));
        }
        Sample::Values(values, counts)
    } else {
        return Err(missing(&format!("{path}.Value")));
    };
    Ok((name, dims, unit, ts, sample))
}
