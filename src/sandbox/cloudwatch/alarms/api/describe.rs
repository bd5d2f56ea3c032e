//! The reads: DescribeAlarms and DescribeAlarmHistory, with their filters and opaque pagination
//! tokens.

use base64::Engine;
use serde::Deserialize;

use super::params::{STATES, enum_error, whole};
use crate::sandbox::cloudwatch::alarms::alarm::{Alarm, AlarmKind};
use crate::sandbox::cloudwatch::alarms::output::{alarm_out, history_out};
use crate::sandbox::cloudwatch::alarms::state_value::StateValue;
use crate::sandbox::cloudwatch::params::{
    de_time, invalid_combination, invalid_next_token, invalid_value, parse, validation_error,
};
use crate::sandbox::http::wire::{ApiError, Out};
use crate::sandbox::world::sandbox::Sandbox;

const ALARM_TYPES: [&str; 3] = ["CompositeAlarm", "MetricAlarm", "LogAlarm"];

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
    let query = AlarmQuery::parse(input)?;
    let all = sb.alarms.snapshot();
    let related = query.related(&all);
    let matching: Vec<&Alarm> = all.iter().filter(|a| query.matches(a, related.as_deref())).collect();
    Ok(alarms_page(&matching, limit))
}

/// What a DescribeAlarms request selects alarms by, checked.
struct AlarmQuery {
    types: Vec<String>,
    names: Vec<String>,
    prefix: Option<String>,
    children_of: Option<String>,
    parents_of: Option<String>,
    state: Option<StateValue>,
    action_prefix: Option<String>,
    /// The last alarm name of the previous page (from NextToken).
    after: Option<String>,
}

impl AlarmQuery {
    /// The request's filters, refused as CloudWatch refuses them: too many names, names with a
    /// prefix, a composite's family with any other filter, unknown types or states, a bad token.
    fn parse(input: DescribeAlarmsInput) -> Result<AlarmQuery, ApiError> {
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
                "ChildrenOfAlarmName and ParentsOfAlarmName can only be used alone (with MaxRecords and NextToken)."
                    .into(),
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
        Ok(AlarmQuery {
            types,
            names,
            prefix: input.alarm_name_prefix,
            children_of: input.children_of_alarm_name,
            parents_of: input.parents_of_alarm_name,
            state,
            action_prefix: input.action_prefix,
            after,
        })
    }

    /// The names of the alarms a composite's rule names (ChildrenOfAlarmName), or of the
    /// composites whose rule names the alarm (ParentsOfAlarmName); `None` without either.
    fn related(&self, all: &[Alarm]) -> Option<Vec<String>> {
        if let Some(parent) = &self.children_of {
            Some(match all.iter().find(|a| a.state.name == *parent).map(|a| &a.kind) {
                Some(AlarmKind::Composite(_, rule)) => rule.alarm_names(),
                _ => Vec::new(),
            })
        } else {
            self.parents_of.as_ref().map(|child| {
                all.iter()
                    .filter(|a| matches!(&a.kind, AlarmKind::Composite(_, r) if r.alarm_names().contains(child)))
                    .map(|a| a.state.name.clone())
                    .collect()
            })
        }
    }

    /// Whether an alarm passes every filter (`related` from [`AlarmQuery::related`]) and comes
    /// after the previous page.
    fn matches(&self, a: &Alarm, related: Option<&[String]>) -> bool {
        self.types.iter().any(|t| t == a.type_name())
            && (self.names.is_empty() || self.names.contains(&a.state.name))
            && self.prefix.as_ref().is_none_or(|p| a.state.name.starts_with(p))
            && related.is_none_or(|r| r.contains(&a.state.name))
            && self.state.is_none_or(|s| a.state.value == s)
            && self.action_prefix.as_ref().is_none_or(|p| has_action(a, p))
            && self.after.as_ref().is_none_or(|last| a.state.name > *last)
    }
}

/// The first `limit` matching alarms, metric and composite ones apart, and the NextToken when
/// more match.
fn alarms_page(matching: &[&Alarm], limit: usize) -> Out {
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
    Out::Map(out)
}

/// Whether one of the alarm's actions starts with `prefix`.
fn has_action(alarm: &Alarm, prefix: &str) -> bool {
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
