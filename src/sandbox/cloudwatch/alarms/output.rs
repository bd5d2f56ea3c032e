//! Alarms and history items as CloudWatch answers them (`MetricAlarm`, `CompositeAlarm`,
//! `AlarmHistoryItem` shapes), in the protocol-neutral [`Out`] tree.

use super::alarm::{Alarm, AlarmKind, HistoryItem};
use super::math::{MetricQuery, QuerySource};
use super::types::MetricAlarmSpec;
use crate::sandbox::http::wire::Out;

fn strings(list: &[String]) -> Out {
    Out::List(list.iter().cloned().map(Out::Str).collect())
}

fn push(out: &mut Vec<(Out, Out)>, key: &str, value: Out) {
    out.push((Out::str(key), value));
}

/// The members both alarm types share.
fn common(alarm: &Alarm, description: Option<&String>, enabled: bool, actions: &[Vec<String>; 3]) -> Vec<(Out, Out)> {
    let s = &alarm.state;
    let mut out = Vec::new();
    push(&mut out, "AlarmName", Out::Str(s.name.clone()));
    push(&mut out, "AlarmArn", Out::Str(alarm.arn.clone()));
    if let Some(d) = description {
        push(&mut out, "AlarmDescription", Out::Str(d.clone()));
    }
    push(
        &mut out,
        "AlarmConfigurationUpdatedTimestamp",
        Out::Timestamp(alarm.config_updated),
    );
    push(&mut out, "ActionsEnabled", Out::Bool(enabled));
    push(&mut out, "OKActions", strings(&actions[0]));
    push(&mut out, "AlarmActions", strings(&actions[1]));
    push(&mut out, "InsufficientDataActions", strings(&actions[2]));
    push(&mut out, "StateValue", Out::str(s.value.as_str()));
    push(&mut out, "StateReason", Out::Str(s.reason.clone()));
    if let Some(d) = &s.reason_data {
        push(&mut out, "StateReasonData", Out::Str(d.clone()));
    }
    push(&mut out, "StateUpdatedTimestamp", Out::Timestamp(s.updated));
    push(
        &mut out,
        "StateTransitionedTimestamp",
        Out::Timestamp(alarm.transitioned),
    );
    out
}

/// A `MetricAlarm` or `CompositeAlarm` structure.
pub(super) fn alarm_out(alarm: &Alarm) -> Out {
    match &alarm.kind {
        AlarmKind::Metric(spec) => {
            let mut out = common(alarm, spec.description.as_ref(), spec.actions_enabled, &spec.actions);
            if spec.is_math() {
                push(&mut out, "Dimensions", Out::List(vec![]));
                push(
                    &mut out,
                    "Metrics",
                    Out::List(spec.metrics.iter().map(query_out).collect()),
                );
            } else {
                single_metric(&mut out, spec);
            }
            push(
                &mut out,
                "EvaluationPeriods",
                Out::Int(i64::from(spec.evaluation_periods)),
            );
            if let Some(m) = spec.datapoints_to_alarm {
                push(&mut out, "DatapointsToAlarm", Out::Int(i64::from(m)));
            }
            push(&mut out, "Threshold", Out::Float(spec.threshold));
            push(&mut out, "ComparisonOperator", Out::str(spec.comparison.as_str()));
            push(&mut out, "TreatMissingData", Out::str(spec.treat_missing.as_str()));
            if let Some(e) = &spec.evaluate_low_sample_count_percentile {
                push(&mut out, "EvaluateLowSampleCountPercentile", Out::Str(e.clone()));
            }
            Out::Map(out)
        }
        AlarmKind::Composite(spec, _) => {
            let mut out = common(alarm, spec.description.as_ref(), spec.actions_enabled, &spec.actions);
            push(&mut out, "AlarmRule", Out::Str(spec.rule.clone()));
            Out::Map(out)
        }
    }
}

/// A single-metric alarm's members: MetricName, Namespace, the statistic, Dimensions, Period, Unit.
fn single_metric(out: &mut Vec<(Out, Out)>, spec: &MetricAlarmSpec) {
    push(out, "MetricName", Out::Str(spec.metric_name.clone()));
    push(out, "Namespace", Out::Str(spec.namespace.clone()));
    if let Some(s) = &spec.statistic {
        push(out, "Statistic", Out::Str(s.clone()));
    }
    if let Some(s) = &spec.extended_statistic {
        push(out, "ExtendedStatistic", Out::Str(s.clone()));
    }
    push(out, "Dimensions", dimensions_out(&spec.dimensions));
    push(out, "Period", Out::Int(i64::from(spec.period)));
    if let Some(u) = &spec.unit {
        push(out, "Unit", Out::Str(u.clone()));
    }
}

fn dimensions_out(dimensions: &[(String, String)]) -> Out {
    Out::List(
        dimensions
            .iter()
            .map(|(n, v)| Out::map([("Name", Out::Str(n.clone())), ("Value", Out::Str(v.clone()))]))
            .collect(),
    )
}

/// A `MetricDataQuery` structure, as it was put.
fn query_out(q: &MetricQuery) -> Out {
    let mut out = Vec::new();
    push(&mut out, "Id", Out::Str(q.id.clone()));
    match &q.source {
        QuerySource::Stat(s) => {
            let mut metric = Vec::new();
            push(&mut metric, "Namespace", Out::Str(s.namespace.clone()));
            push(&mut metric, "MetricName", Out::Str(s.metric_name.clone()));
            push(&mut metric, "Dimensions", dimensions_out(&s.dimensions));
            let mut stat = Vec::new();
            push(&mut stat, "Metric", Out::Map(metric));
            push(&mut stat, "Period", Out::Int(i64::from(s.period)));
            push(&mut stat, "Stat", Out::Str(s.stat.clone()));
            if let Some(u) = &s.unit {
                push(&mut stat, "Unit", Out::Str(u.clone()));
            }
            push(&mut out, "MetricStat", Out::Map(stat));
        }
        QuerySource::Expression(e) => push(&mut out, "Expression", Out::Str(e.clone())),
    }
    if let Some(l) = &q.label {
        push(&mut out, "Label", Out::Str(l.clone()));
    }
    if let Some(r) = q.return_data {
        push(&mut out, "ReturnData", Out::Bool(r));
    }
    if let Some(p) = q.period {
        push(&mut out, "Period", Out::Int(i64::from(p)));
    }
    if let Some(a) = &q.account_id {
        push(&mut out, "AccountId", Out::Str(a.clone()));
    }
    Out::Map(out)
}

/// An `AlarmHistoryItem` structure.
pub(super) fn history_out(item: &HistoryItem) -> Out {
    Out::map([
        ("AlarmName", Out::Str(item.alarm_name.clone())),
        ("AlarmType", Out::str(item.alarm_type)),
        ("Timestamp", Out::Timestamp(item.timestamp)),
        ("HistoryItemType", Out::str(item.item_type)),
        ("HistorySummary", Out::Str(item.summary.clone())),
        ("HistoryData", Out::Str(item.data.clone())),
    ])
}
