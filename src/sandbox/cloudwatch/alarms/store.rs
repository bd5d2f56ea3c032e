//! The alarm store: put, delete, set state, evaluate on the background tick, and a bounded
//! history.

use std::collections::{BTreeMap, VecDeque};

use parking_lot::Mutex;

use super::alarm::{Alarm, AlarmKind, HistoryItem};
use super::evaluate;
use super::rule::Rule;
use super::state_value::StateValue;
use super::types::{AlarmError, AlarmState, CompositeAlarmSpec, MetricAlarmSpec};
use crate::sandbox::cloudwatch::metrics::MetricStore;

/// How long a state set by SetAlarmState holds before the alarm is evaluated again.
pub const SET_STATE_HOLD_SECONDS: f64 = 60.0;
/// History items kept (oldest dropped first).
const HISTORY_LIMIT: usize = 10_000;
/// Reason of a freshly created alarm.
const INITIAL_REASON: &str = "Unchecked: Initial alarm creation";

#[derive(Default)]
struct Inner {
    alarms: BTreeMap<String, Alarm>,
    history: VecDeque<HistoryItem>,
}

/// The sandbox's alarms (thread-safe).
pub struct AlarmStore {
    arn_prefix: String,
    inner: Mutex<Inner>,
}

impl AlarmStore {
    /// An empty store whose ARNs are `arn:aws:cloudwatch:REGION:ACCOUNT:alarm:NAME`.
    pub fn new(region: &str, account: &str) -> Self {
        AlarmStore {
            arn_prefix: format!("arn:aws:cloudwatch:{region}:{account}:alarm:"),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The ARN of an alarm name.
    pub fn arn(&self, name: &str) -> String {
        format!("{}{name}", self.arn_prefix)
    }

    /// Creates or updates a metric alarm (validated as PutMetricAlarm validates). A new alarm
    /// starts INSUFFICIENT_DATA; an update keeps the state. A composite of that name is a conflict.
    pub fn put_metric_alarm(&self, spec: MetricAlarmSpec, now: f64) -> Result<(), AlarmError> {
        spec.validate()?;
        let name = spec.name.clone();
        self.put(name, AlarmKind::Metric(spec), now)
    }

    /// Creates or updates a composite alarm. Every alarm its rule names must exist, and the rule
    /// must not refer back to the alarm itself (directly or through other composites).
    pub fn put_composite_alarm(&self, spec: CompositeAlarmSpec, now: f64) -> Result<(), AlarmError> {
        let rule = spec.validate()?;
        let name = spec.name.clone();
        {
            let inner = self.inner.lock();
            let missing: Vec<String> = rule
                .alarm_names()
                .into_iter()
                .filter(|n| !inner.alarms.contains_key(n))
                .collect();
            if !missing.is_empty() {
                return Err(AlarmError::invalid(format!(
                    "Could not save the composite alarm as alarms [{}] in the alarm rule do not exist",
                    missing.join(", ")
                )));
            }
            if reaches(&inner.alarms, &rule, &name) {
                return Err(AlarmError::invalid(format!(
                    "The alarm rule of {name} refers back to {name}: composite alarms cannot form a cycle"
                )));
            }
        }
        self.put(name, AlarmKind::Composite(spec, rule), now)
    }

    fn put(&self, name: String, kind: AlarmKind, now: f64) -> Result<(), AlarmError> {
        let mut inner = self.inner.lock();
        let (summary, alarm_type) = match inner.alarms.get_mut(&name) {
            Some(existing) => {
                if std::mem::discriminant(&existing.kind) != std::mem::discriminant(&kind) {
                    return Err(AlarmError::invalid(format!(
                        "An alarm named {name} of another type ({}) already exists",
                        existing.type_name()
                    )));
                }
                existing.kind = kind;
                existing.config_updated = now;
                (format!("Alarm \"{name}\" updated"), existing.type_name())
            }
            None => {
                let alarm = Alarm {
                    arn: self.arn(&name),
                    kind,
                    state: AlarmState {
                        name: name.clone(),
                        value: StateValue::InsufficientData,
                        reason: INITIAL_REASON.to_string(),
                        reason_data: None,
                        updated: now,
                    },
                    config_updated: now,
                    transitioned: now,
                    last_alarm: 0.0,
                    hold_until: 0.0,
                };
                let alarm_type = alarm.type_name();
                inner.alarms.insert(name.clone(), alarm);
                (format!("Alarm \"{name}\" created"), alarm_type)
            }
        };
        let kind = if summary.ends_with("created") {
            "Create"
        } else {
            "Update"
        };
        push_history(
            &mut inner,
            HistoryItem {
                alarm_name: name,
                alarm_type,
                timestamp: now,
                item_type: "ConfigurationUpdate",
                summary,
                data: serde_json::json!({"version": "1.0", "type": kind}).to_string(),
            },
        );
        Ok(())
    }

    /// Sets an alarm's state by hand (SetAlarmState); it holds for [`SET_STATE_HOLD_SECONDS`].
    pub fn set_state(
        &self,
        name: &str,
        value: StateValue,
        reason: &str,
        reason_data: Option<String>,
        now: f64,
    ) -> Result<(), AlarmError> {
        let mut inner = self.inner.lock();
        let Some(alarm) = inner.alarms.get_mut(name) else {
            return Err(AlarmError::not_found(format!("Alarm {name} not found")));
        };
        alarm.hold_until = now + SET_STATE_HOLD_SECONDS;
        transition(&mut inner, name, value, reason.to_string(), reason_data, now);
        Ok(())
    }

    /// Deletes alarms by name; unknown names are skipped. Returns the names deleted.
    pub fn delete(&self, names: &[String], now: f64) -> Vec<String> {
        let mut inner = self.inner.lock();
        let mut deleted = Vec::new();
        for name in names {
            if let Some(alarm) = inner.alarms.remove(name) {
                let item = HistoryItem {
                    alarm_name: name.clone(),
                    alarm_type: alarm.type_name(),
                    timestamp: now,
                    item_type: "ConfigurationUpdate",
                    summary: format!("Alarm \"{name}\" deleted"),
                    data: serde_json::json!({"version": "1.0", "type": "Delete"}).to_string(),
                };
                push_history(&mut inner, item);
                deleted.push(name.clone());
            }
        }
        deleted
    }

    /// The current state of one alarm.
    pub fn state(&self, name: &str) -> Option<AlarmState> {
        self.inner.lock().alarms.get(name).map(|a| a.state.clone())
    }

    /// The current states of every alarm, by name.
    pub fn states(&self) -> Vec<AlarmState> {
        self.inner.lock().alarms.values().map(|a| a.state.clone()).collect()
    }

    /// The alarms in ALARM now or that entered ALARM at or after `since`: the alarms whose
    /// actions an action runner that last looked at `since` has to take.
    pub fn firing_since(&self, since: f64) -> Vec<String> {
        let inner = self.inner.lock();
        inner
            .alarms
            .values()
            .filter(|a| a.state.value == StateValue::Alarm || (a.last_alarm > 0.0 && a.last_alarm >= since))
            .map(|a| a.state.name.clone())
            .collect()
    }

    /// The configuration of a metric alarm.
    pub fn metric_alarm(&self, name: &str) -> Option<MetricAlarmSpec> {
        match &self.inner.lock().alarms.get(name)?.kind {
            AlarmKind::Metric(spec) => Some(spec.clone()),
            AlarmKind::Composite(..) => None,
        }
    }

    /// History items, oldest first.
    pub fn history(&self) -> Vec<HistoryItem> {
        self.inner.lock().history.iter().cloned().collect()
    }

    pub(crate) fn snapshot(&self) -> Vec<Alarm> {
        self.inner.lock().alarms.values().cloned().collect()
    }

    /// Evaluates every metric alarm over `metrics` at time `now`, then every composite alarm,
    /// recording state changes (with reasons) in the history.
    pub fn evaluate(&self, metrics: &MetricStore, now: f64) {
        let specs: Vec<MetricAlarmSpec> = {
            let inner = self.inner.lock();
            inner
                .alarms
                .values()
                .filter(|a| a.hold_until <= now)
                .filter_map(|a| match &a.kind {
                    AlarmKind::Metric(spec) => Some(spec.clone()),
                    AlarmKind::Composite(..) => None,
                })
                .collect()
        };
        let verdicts: Vec<(String, evaluate::Verdict)> = specs
            .iter()
            .filter_map(|spec| {
                let current = self.state(&spec.name)?.value;
                Some((
                    spec.name.clone(),
                    evaluate::metric_verdict(spec, current, metrics, now)?,
                ))
            })
            .collect();
        let mut inner = self.inner.lock();
        for (name, v) in verdicts {
            let changed = inner.alarms.get(&name).is_some_and(|a| a.state.value != v.value);
            if changed {
                transition(&mut inner, &name, v.value, v.reason, Some(v.data), now);
            }
        }
        self.evaluate_composites(&mut inner, now);
    }

    fn evaluate_composites(&self, inner: &mut Inner, now: f64) {
        // Composites may depend on composites: settle in a few passes (cycles are refused).
        for _ in 0..8 {
            let mut changes = Vec::new();
            for alarm in inner.alarms.values() {
                let AlarmKind::Composite(_, rule) = &alarm.kind else {
                    continue;
                };
                if alarm.hold_until > now {
                    continue;
                }
                let verdict = evaluate::composite_verdict(rule, &inner.alarms, &self.arn_prefix);
                if verdict.value != alarm.state.value {
                    changes.push((alarm.state.name.clone(), verdict));
                }
            }
            if changes.is_empty() {
                return;
            }
            for (name, v) in changes {
                transition(inner, &name, v.value, v.reason, Some(v.data), now);
            }
        }
    }
}

/// Whether `rule` refers (directly or through composites) to alarm `target`.
fn reaches(alarms: &BTreeMap<String, Alarm>, rule: &Rule, target: &str) -> bool {
    let mut stack = rule.alarm_names();
    let mut seen = Vec::new();
    while let Some(name) = stack.pop() {
        if name == target {
            return true;
        }
        if seen.contains(&name) {
            continue;
        }
        if let Some(Alarm {
            kind: AlarmKind::Composite(_, r),
            ..
        }) = alarms.get(&name)
        {
            stack.extend(r.alarm_names());
        }
        seen.push(name);
    }
    false
}

/// Moves an alarm to a state, with a StateUpdate history item.
fn transition(inner: &mut Inner, name: &str, value: StateValue, reason: String, data: Option<String>, now: f64) {
    let Some(alarm) = inner.alarms.get_mut(name) else {
        return;
    };
    let old = alarm.state.clone();
    if old.value != value {
        alarm.transitioned = now;
        if value == StateValue::Alarm {
            alarm.last_alarm = now;
        }
    }
    alarm.state = AlarmState {
        name: name.to_string(),
        value,
        reason: reason.clone(),
        reason_data: data.clone(),
        updated: now,
    };
    let mut new_state = serde_json::json!({"stateValue": value.as_str(), "stateReason": reason});
    if let Some(d) = data
        .as_deref()
        .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
    {
        new_state["stateReasonData"] = d;
    }
    let item = HistoryItem {
        alarm_name: name.to_string(),
        alarm_type: alarm.type_name(),
        timestamp: now,
        item_type: "StateUpdate",
        summary: format!("Alarm updated from {} to {}", old.value.as_str(), value.as_str()),
        data: serde_json::json!({
            "version": "1.0",
            "oldState": {"stateValue": old.value.as_str(), "stateReason": old.reason},
            "newState": new_state,
        })
        .to_string(),
    };
    push_history(inner, item);
}

fn push_history(inner: &mut Inner, item: HistoryItem) {
    if inner.history.len() == HISTORY_LIMIT {
        inner.history.pop_front();
    }
    inner.history.push_back(item);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::cloudwatch::alarms::types::{Comparison, TreatMissing};

    fn knock_alarm() -> MetricAlarmSpec {
        MetricAlarmSpec {
            name: "knock".into(),
            description: None,
            actions_enabled: true,
            actions: [vec![], vec!["arn:policy".into()], vec![]],
            namespace: "MCP/Test".into(),
            metric_name: "Knock".into(),
            dimensions: vec![],
            statistic: Some("Sum".into()),
            extended_statistic: None,
            period: 60,
            unit: None,
            evaluation_periods: 1,
            datapoints_to_alarm: None,
            threshold: 1.0,
            comparison: Comparison::GreaterOrEqual,
            treat_missing: TreatMissing::Missing,
            evaluate_low_sample_count_percentile: None,
            metrics: vec![],
        }
    }

    #[test]
    fn an_alarm_that_left_alarm_since_the_last_pass_still_fires() {
        let store = AlarmStore::new("us-east-1", "123456789012");
        store.put_metric_alarm(knock_alarm(), 100.0).unwrap();
        assert!(store.firing_since(0.0).is_empty(), "never in ALARM");
        store
            .set_state("knock", StateValue::Alarm, "knocked", None, 159.5)
            .unwrap();
        store
            .set_state("knock", StateValue::InsufficientData, "new period", None, 160.0)
            .unwrap();
        assert_eq!(
            store.firing_since(159.2),
            vec!["knock".to_string()],
            "entered ALARM after the pass"
        );
        assert!(
            store.firing_since(159.8).is_empty(),
            "entered ALARM before the pass and left it"
        );
    }
}
