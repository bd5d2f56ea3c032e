//! CloudWatch's alarm operations on the wire: PutMetricAlarm, PutCompositeAlarm, DescribeAlarms,
//! DeleteAlarms, SetAlarmState and DescribeAlarmHistory. Each parses the decoded request (CBOR or
//! JSON, see `cloudwatch.rs`), calls the [`AlarmStore`](super::AlarmStore) and answers an
//! [`Out`] tree that `cloudwatch.rs` encodes in the request's protocol.
//!
//! Pagination tokens are opaque: DescribeAlarms' carries the last alarm name returned,
//! DescribeAlarmHistory's the offset into the filtered, ordered history.

use axum::http::StatusCode;
use base64::Engine;
use serde::Deserialize;

use super::output::{alarm_out, history_out};
use super::{AlarmError, AlarmKind, Comparison, CompositeAlarmSpec, MetricAlarmSpec, StateValue, TreatMissing};
use crate::sandbox::cloudwatch::{
    Dimension, NAMESPACE, de_time, dimension_pairs, invalid_combination, invalid_next_token, invalid_value, missing,
    parse, validation_error,
};
use crate::sandbox::wire::{ApiError, Out};
use crate::sandbox::{Sandbox, now_epoch};

const ALARM_TYPES: [&str; 3] = ["CompositeAlarm", "MetricAlarm", "LogAlarm"];
const STATES: &str = "[OK, ALARM, INSUFFICIENT_DATA]";

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

fn enum_error(value: &str, member: &str, allowed: &str) -> ApiError {
    validation_error(format!(
        "1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: Member must satisfy enum value set: {allowed}"
    ))
}

/// A non-negative integral number member.
fn whole(value: Option<f64>, member: &str) -> Result<Option<u32>, ApiError> {
    match value {
        None => Ok(None),
        Some(v) if v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v) => Ok(Some(v as u32)),
        Some(v) => Err(invalid_value(format!(
            "The value {v} for parameter {member} must be a whole number >= 0."
        ))),
    }
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
    metrics: Option<serde_json::Value>,
    threshold_metric_id: Option<String>,
}

/// PutMetricAlarm: creates or updates a metric alarm.
pub fn put_metric_alarm(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: PutMetricAlarmInput = parse(doc)?;
    let name = input.alarm_name.ok_or_else(|| missing("AlarmName"))?;
    if input.metrics.is_some() || input.threshold_metric_id.is_some() {
        return Err(invalid_combination(
            "The sandbox does not emulate metric math or anomaly detection alarms (Metrics, ThresholdMetricId): give MetricName, Namespace, Statistic or ExtendedStatistic, Period and Threshold."
                .into(),
        ));
    }
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
        namespace: input.namespace.ok_or_else(|| missing("Namespace"))?,
        metric_name: input.metric_name.ok_or_else(|| missing("MetricName"))?,
        dimensions,
        statistic: input.statistic,
        extended_statistic: input.extended_statistic,
        period: whole(input.period, "Period")?.ok_or_else(|| missing("Period"))?,
        unit: input.unit,
        evaluation_periods: whole(input.evaluation_periods, "EvaluationPeriods")?
            .ok_or_else(|| missing("EvaluationPeriods"))?,
        datapoints_to_alarm: whole(input.datapoints_to_alarm, "DatapointsToAlarm")?,
        threshold: input.threshold.ok_or_else(|| missing("Threshold"))?,
        comparison,
        treat_missing,
        evaluate_low_sample_count_percentile: input.evaluate_low_sample_count_percentile,
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

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DescribeAlarmsInput {
    alarm_names: Option<Vec<String>>,
    alarm_name_prefix: Option<String>,
    alarm_types: Option<Vec<String>>,
    children_of_alarm_name: Option<String>,
    parents_of_alarm_name: Option<String>,
    state_value: Option<String>,
    action_prefix: Option<String>,
    max_records: Option<f64>,
    next_token: Option<String>,
}

fn max_records(value: Option<f64>, default: u32) -> Result<usize, ApiError> {
    match whole(value, "MaxRecords")? {
        None => Ok(default as usize),
        Some(n) if (1..=100).contains(&n) => Ok(n as usize),
        Some(n) => Err(validation_error(format!(
            "1 validation error detected: Value '{n}' at 'maxRecords' failed to satisfy constraint: Member must have value between 1 and 100"
        ))),
    }
}

fn alarm_types(types: Option<Vec<String>>) -> Result<Vec<String>, ApiError> {
    let types = types.unwrap_or_else(|| vec!["MetricAlarm".to_string()]);
    for t in &types {
        if !ALARM_TYPES.contains(&t.as_str()) {
            return Err(enum_error(t, "alarmTypes", "[CompositeAlarm, MetricAlarm, LogAlarm]"));
        }
    }
    Ok(types)
}

fn token(prefix: &str, value: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{prefix}{value}"))
}

fn untoken(prefix: &str, token: &str) -> Result<String, ApiError> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .ok()
        .and_then(|raw| String::from_utf8(raw).ok())
        .and_then(|s| s.strip_prefix(prefix).map(str::to_string))
        .ok_or_else(|| invalid_next_token(format!("The NextToken {token:?} is invalid.")))
}

/// DescribeAlarms: alarms by names, prefix, type, state, action prefix, or the children/parents of
/// a composite; pages of MaxRecords (default 50) in name order.
pub fn describe_alarms(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: DescribeAlarmsInput = parse(doc)?;
    let limit = max_records(input.max_records, 50)?;
    let names = input.alarm_names.unwrap_or_default();
    if names.len() > 100 {
        return Err(invalid_value(
            "The collection AlarmNames must not have a size greater than 100.".into(),
        ));
    }
    if !names.is_empty() && input.alarm_name_prefix.is_some() {
        return Err(invalid_combination(
            "AlarmNames and AlarmNamePrefix cannot be specified together.".into(),
        ));
    }
    let family = input.children_of_alarm_name.is_some() || input.parents_of_alarm_name.is_some();
    let others = !names.is_empty()
        || input.alarm_name_prefix.is_some()
        || input.alarm_types.is_some()
        || input.state_value.is_some()
        || input.action_prefix.is_some();
    if family && (others || (input.children_of_alarm_name.is_some() && input.parents_of_alarm_name.is_some())) {
        return Err(invalid_combination(
            "ChildrenOfAlarmName and ParentsOfAlarmName can only be used alone (with MaxRecords and NextToken).".into(),
        ));
    }
    let types = if family {
        vec!["MetricAlarm".to_string(), "CompositeAlarm".to_string()]
    } else {
        alarm_types(input.alarm_types)?
    };
    let state = match input.state_value.as_deref() {
        None => None,
        Some(s) => Some(StateValue::parse(s).ok_or_else(|| enum_error(s, "stateValue", STATES))?),
    };
    let after = match input.next_token.as_deref() {
        None | Some("") => None,
        Some(t) => Some(untoken("da1:", t)?),
    };
    let all = sb.alarms.snapshot();
    let related: Option<Vec<String>> = if let Some(parent) = &input.children_of_alarm_name {
        Some(match all.iter().find(|a| a.state.name == *parent).map(|a| &a.kind) {
            Some(AlarmKind::Composite(_, rule)) => rule.alarm_names(),
            _ => Vec::new(),
        })
    } else {
        input.parents_of_alarm_name.as_ref().map(|child| {
            all.iter()
                .filter(|a| matches!(&a.kind, AlarmKind::Composite(_, r) if r.alarm_names().contains(child)))
                .map(|a| a.state.name.clone())
                .collect()
        })
    };
    let matching: Vec<_> = all
        .iter()
        .filter(|a| types.iter().any(|t| t == a.type_name()))
        .filter(|a| names.is_empty() || names.contains(&a.state.name))
        .filter(|a| {
            input
                .alarm_name_prefix
                .as_ref()
                .is_none_or(|p| a.state.name.starts_with(p))
        })
        .filter(|a| related.as_ref().is_none_or(|r| r.contains(&a.state.name)))
        .filter(|a| state.is_none_or(|s| a.state.value == s))
        .filter(|a| input.action_prefix.as_ref().is_none_or(|p| has_action(a, p)))
        .filter(|a| after.as_ref().is_none_or(|last| a.state.name > *last))
        .collect();
    let page = &matching[..matching.len().min(limit)];
    let (mut metric, mut composite) = (Vec::new(), Vec::new());
    for a in page {
        match a.kind {
            AlarmKind::Metric(_) => metric.push(alarm_out(a)),
            AlarmKind::Composite(..) => composite.push(alarm_out(a)),
        }
    }
    let mut out = vec![
        (Out::str("MetricAlarms"), Out::List(metric)),
        (Out::str("CompositeAlarms"), Out::List(composite)),
    ];
    if matching.len() > limit
        && let Some(last) = page.last()
    {
        out.push((Out::str("NextToken"), Out::Str(token("da1:", &last.state.name))));
    }
    Ok(Out::Map(out))
}

fn has_action(alarm: &super::Alarm, prefix: &str) -> bool {
    let actions = match &alarm.kind {
        AlarmKind::Metric(s) => &s.actions,
        AlarmKind::Composite(s, _) => &s.actions,
    };
    actions.iter().flatten().any(|a| a.starts_with(prefix))
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DescribeAlarmHistoryInput {
    alarm_name: Option<String>,
    alarm_types: Option<Vec<String>>,
    history_item_type: Option<String>,
    #[serde(default, deserialize_with = "de_time")]
    start_date: Option<f64>,
    #[serde(default, deserialize_with = "de_time")]
    end_date: Option<f64>,
    max_records: Option<f64>,
    next_token: Option<String>,
    scan_by: Option<String>,
}

/// DescribeAlarmHistory: configuration and state updates, newest first unless
/// `ScanBy=TimestampAscending`, in pages of MaxRecords (default 100).
pub fn describe_alarm_history(sb: &Sandbox, doc: serde_json::Value) -> Result<Out, ApiError> {
    let input: DescribeAlarmHistoryInput = parse(doc)?;
    let limit = max_records(input.max_records, 100)?;
    let types = alarm_types(input.alarm_types)?;
    const ITEM_TYPES: [&str; 5] = [
        "ConfigurationUpdate",
        "StateUpdate",
        "Action",
        "AlarmContributorStateUpdate",
        "AlarmContributorAction",
    ];
    if let Some(t) = &input.history_item_type
        && !ITEM_TYPES.contains(&t.as_str())
    {
        return Err(enum_error(
            t,
            "historyItemType",
            &format!("[{}]", ITEM_TYPES.join(", ")),
        ));
    }
    let ascending = match input.scan_by.as_deref() {
        None | Some("TimestampDescending") => false,
        Some("TimestampAscending") => true,
        Some(other) => {
            return Err(enum_error(other, "scanBy", "[TimestampDescending, TimestampAscending]"));
        }
    };
    let offset: usize = match input.next_token.as_deref() {
        None | Some("") => 0,
        Some(t) => untoken("dah1:", t)?
            .parse()
            .map_err(|_| invalid_next_token(format!("The NextToken {t:?} is invalid.")))?,
    };
    let mut items: Vec<_> = sb
        .alarms
        .history()
        .into_iter()
        .filter(|i| input.alarm_name.as_ref().is_none_or(|n| *n == i.alarm_name))
        .filter(|i| types.iter().any(|t| t == i.alarm_type))
        .filter(|i| input.history_item_type.as_ref().is_none_or(|t| t == i.item_type))
        .filter(|i| input.start_date.is_none_or(|s| i.timestamp >= s))
        .filter(|i| input.end_date.is_none_or(|e| i.timestamp <= e))
        .collect();
    if !ascending {
        items.reverse();
    }
    let page: Vec<Out> = items.iter().skip(offset).take(limit).map(history_out).collect();
    let mut out = vec![(Out::str("AlarmHistoryItems"), Out::List(page))];
    if items.len() > offset + limit {
        out.push((
            Out::str("NextToken"),
            Out::Str(token("dah1:", &(offset + limit).to_string())),
        ));
    }
    Ok(Out::Map(out))
}
