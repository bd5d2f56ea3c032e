//! CloudWatch's alarm operations on the wire: PutMetricAlarm, PutCompositeAlarm, DescribeAlarms,
//! DeleteAlarms, SetAlarmState and DescribeAlarmHistory. Each parses the decoded request (CBOR or
//! JSON, see `cloudwatch/api.rs`), calls the [`AlarmStore`](super::AlarmStore) and answers an
//! [`Out`] tree that `cloudwatch/api.rs` encodes in the request's protocol.
//!
//! Pagination tokens are opaque: DescribeAlarms' carries the last alarm name returned,
//! DescribeAlarmHistory's the offset into the filtered, ordered history.

mod describe;
mod metrics;
mod params;

use axum::http::StatusCode;
use serde::Deserialize;

use super::{AlarmError, Comparison, CompositeAlarmSpec, MetricAlarmSpec, StateValue, TreatMissing};
use crate::sandbox::cloudwatch::params::{
    Dimension, NAMESPACE, dimension_pairs, invalid_combination, invalid_value, missing, parse, validation_error,
};
use crate::sandbox::http::wire::{ApiError, Out};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::sandbox::Sandbox;

pub use describe::{describe_alarm_history, describe_alarms};
use params::{STATES, enum_error, whole};

/// An [`AlarmError`] as CloudWatch answers it (ResourceNotFound is 404, the rest 400).
fn api_error(e: AlarmError) -> ApiError {
    let status = if e.code == "ResourceNotFound" {
        StatusCode::NOT_FOUND
    } else {
        StatusCode::BAD_REQUEST
    };
    ApiError::new(status, e.code, e.message)
        .in_namespace(NAMESPACE)
        .lowercase_message()
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Actions {
    #[serde(rename = "OKActions", default)]
    ok_actions: Vec<String>,
    #[serde(default)]
    alarm_actions: Vec<String>,
    #[serde(default)]
    insufficient_data_actions: Vec<String>,
}

impl Actions {
    /// OK, ALARM and INSUFFICIENT_DATA actions, in that order.
    fn into_lists(self) -> [Vec<String>; 3] {
        [self.ok_actions, self.alarm_actions, self.insufficient_data_actions]
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PutMetricAlarmInput {
    alarm_name: Option<String>,
    alarm_description: Option<String>,
    actions_enabled: Option<bool>,
    #[serde(flatten)]
    actions: Actions,
    metric_name: Option<String>,
    namespace: Option<String>,
    statistic: Option<String>,
    extended_statistic: Option<String>,
    #[serde(default)]
    dimensions: Vec<Dimension>,
    period: Option<f64>,
    unit: Option<String>,
    evaluation_periods: Option<f64>,
    datapoints_to_alarm: Option<f64>,
    threshold: Option<f64>,
    comparison_operator: Option<String>,
    treat_missing_data: Option<String>,
    evaluate_low_sample_count_percentile: Option<String>,
    metrics: Option<Vec<metrics::QueryInput>>,
    threshold_metric_id: Option<String>,
}

/// PutMetricAlarm: creates or updates a metric alarm.
pub fn put_metric_alarm(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: PutMetricAlarmInput = parse(doc)?;
    let name = input.alarm_name.ok_or_else(|| missing("AlarmName"))?;
    if input.threshold_metric_id.is_some() {
        return Err(invalid_combination(
            "The sandbox does not emulate anomaly detection alarms (ThresholdMetricId): give a Threshold.".into(),
        ));
    }
    let metrics = metrics::queries(input.metrics.unwrap_or_default())?;
    // A metric-math alarm has none of the single metric's members (the store refuses them).
    let required = |value: Option<String>, member: &str| match value {
        None if metrics.is_empty() => Err(missing(member)),
        value => Ok(value.unwrap_or_default()),
    };
    let comparison = input.comparison_operator.ok_or_else(|| missing("ComparisonOperator"))?;
    let comparison = Comparison::parse(&comparison).ok_or_else(|| {
        enum_error(
            &comparison,
            "comparisonOperator",
            "[GreaterThanOrEqualToThreshold, GreaterThanThreshold, LessThanThreshold, LessThanOrEqualToThreshold]",
        )
    })?;
    let treat_missing = match input.treat_missing_data.as_deref() {
        None => TreatMissing::Missing,
        Some(t) => TreatMissing::parse(t).ok_or_else(|| {
            invalid_value(format!(
                "The value {t} for parameter TreatMissingData is not valid (breaching, notBreaching, ignore or missing)."
            ))
        })?,
    };
    let dimensions = dimension_pairs(&input.dimensions, "").map_err(|mut e| {
        e.message = e.message.replace(" .Dimensions", " Dimensions");
        e
    })?;
    let spec = MetricAlarmSpec {
        name,
        description: input.alarm_description,
        actions_enabled: input.actions_enabled.unwrap_or(true),
        actions: input.actions.into_lists(),
        namespace: required(input.namespace, "Namespace")?,
        metric_name: required(input.metric_name, "MetricName")?,
        dimensions,
        statistic: input.statistic,
        extended_statistic: input.extended_statistic,
        period: match whole(input.period, "Period")? {
            None if metrics.is_empty() => return Err(missing("Period")),
            period => period.unwrap_or(0),
        },
        unit: input.unit,
        evaluation_periods: whole(input.evaluation_periods, "EvaluationPeriods")?
            .ok_or_else(|| missing("EvaluationPeriods"))?,
        datapoints_to_alarm: whole(input.datapoints_to_alarm, "DatapointsToAlarm")?,
        threshold: input.threshold.ok_or_else(|| missing("Threshold"))?,
        comparison,
        treat_missing,
        evaluate_low_sample_count_percentile: input.evaluate_low_sample_count_percentile,
        metrics,
    };
    sb.alarms.put_metric_alarm(spec, now_epoch()).map_err(api_error)?;
    Ok(Out::Map(vec![]))
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PutCompositeAlarmInput {
    alarm_name: Option<String>,
    alarm_description: Option<String>,
    alarm_rule: Option<String>,
    actions_enabled: Option<bool>,
    #[serde(flatten)]
    actions: Actions,
}

/// PutCompositeAlarm: creates or updates a composite alarm.
pub fn put_composite_alarm(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: PutCompositeAlarmInput = parse(doc)?;
    let spec = CompositeAlarmSpec {
        name: input.alarm_name.ok_or_else(|| missing("AlarmName"))?,
        description: input.alarm_description,
        actions_enabled: input.actions_enabled.unwrap_or(true),
        actions: input.actions.into_lists(),
        rule: input.alarm_rule.ok_or_else(|| missing("AlarmRule"))?,
    };
    sb.alarms.put_composite_alarm(spec, now_epoch()).map_err(api_error)?;
    Ok(Out::Map(vec![]))
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DeleteAlarmsInput {
    alarm_names: Option<Vec<String>>,
}

/// DeleteAlarms: deletes up to 100 alarms; unknown names are skipped.
pub fn delete_alarms(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: DeleteAlarmsInput = parse(doc)?;
    let names = input.alarm_names.ok_or_else(|| missing("AlarmNames"))?;
    if names.len() > 100 {
        return Err(invalid_value(
            "The collection AlarmNames must not have a size greater than 100.".into(),
        ));
    }
    sb.alarms.delete(&names, now_epoch());
    Ok(Out::Map(vec![]))
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct SetAlarmStateInput {
    alarm_name: Option<String>,
    state_value: Option<String>,
    state_reason: Option<String>,
    state_reason_data: Option<String>,
}

/// SetAlarmState: sets an alarm's state by hand (StateReasonData must be JSON).
pub fn set_alarm_state(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: SetAlarmStateInput = parse(doc)?;
    let name = input.alarm_name.ok_or_else(|| missing("AlarmName"))?;
    let value = input.state_value.ok_or_else(|| missing("StateValue"))?;
    let value = StateValue::parse(&value).ok_or_else(|| enum_error(&value, "stateValue", STATES))?;
    let reason = input.state_reason.ok_or_else(|| missing("StateReason"))?;
    if reason.chars().count() > 1023 {
        return Err(validation_error(
            "The value for parameter StateReason must have a length of at most 1023.".into(),
        ));
    }
    if let Some(data) = &input.state_reason_data
        && serde_json::from_str::<serde_json::Value>(data).is_err()
    {
        return Err(api_error(AlarmError {
            code: "InvalidFormat",
            message: "The StateReasonData is not valid JSON.".into(),
        }));
    }
    sb.alarms
        .set_state(&name, value, &reason, input.state_reason_data, now_epoch())
        .map_err(api_error)?;
    Ok(Out::Map(vec![]))
}
