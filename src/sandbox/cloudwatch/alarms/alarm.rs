//! One alarm as the store keeps it (its configuration, parsed rule and state), and the items of
//! the alarm history.

use super::rule::Rule;
use super::types::{AlarmState, CompositeAlarmSpec, MetricAlarmSpec};

/// What an alarm watches.
#[derive(Debug, Clone)]
pub(crate) enum AlarmKind {
    /// A metric alarm.
    Metric(MetricAlarmSpec),
    /// A composite alarm with its parsed rule.
    Composite(CompositeAlarmSpec, Rule),
}

/// One alarm: its configuration and its state.
#[derive(Debug, Clone)]
pub(crate) struct Alarm {
    pub(crate) arn: String,
    pub(crate) kind: AlarmKind,
    pub(crate) state: AlarmState,
    pub(crate) config_updated: f64,
    pub(crate) transitioned: f64,
    /// When it last entered ALARM (0 if never), so that an ALARM shorter than one autoscaling
    /// pass still triggers the policies it names.
    pub(crate) last_alarm: f64,
    /// Evaluation is paused until then (after SetAlarmState).
    pub(crate) hold_until: f64,
}

impl Alarm {
    /// `MetricAlarm` or `CompositeAlarm`.
    pub(crate) fn type_name(&self) -> &'static str {
        match self.kind {
            AlarmKind::Metric(_) => "MetricAlarm",
            AlarmKind::Composite(..) => "CompositeAlarm",
        }
    }
}

/// One alarm history item.
#[derive(Debug, Clone)]
pub struct HistoryItem {
    /// The alarm's name.
    pub alarm_name: String,
    /// `MetricAlarm` or `CompositeAlarm`.
    pub alarm_type: &'static str,
    /// When it happened (epoch seconds).
    pub timestamp: f64,
    /// `StateUpdate` or `ConfigurationUpdate`.
    pub item_type: &'static str,
    /// One-line summary (`Alarm updated from OK to ALARM`).
    pub summary: String,
    /// JSON details.
    pub data: String,
}
