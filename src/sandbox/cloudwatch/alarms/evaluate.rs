//! One evaluation of an alarm: the state it should be in, with AWS-like StateReason text
//! (`Threshold Crossed: 2 out of the last 3 datapoints [...] was greater than the threshold
//! (100.0) (minimum 2 datapoints for OK -> ALARM transition).`) and StateReasonData JSON.

use std::collections::BTreeMap;

use super::alarm::Alarm;
use super::math;
use super::rule::{Rule, name_of};
use super::state_value::StateValue;
use super::types::{MetricAlarmSpec, TreatMissing};
use crate::sandbox::cloudwatch::metrics::{MetricStore, SeriesKey};
use crate::sandbox::world::clock::iso8601;

/// The state an evaluation arrived at.
pub(super) struct Verdict {
    pub(super) value: StateValue,
    pub(super) reason: String,
    pub(super) data: String,
}

/// Evaluates a metric alarm at `now`; `None` keeps the current state (`ignore` with no data, or
/// a spec whose statistic cannot be evaluated).
pub(super) fn metric_verdict(
    spec: &MetricAlarmSpec,
    current: StateValue,
    metrics: &MetricStore,
    now: f64,
) -> Option<Verdict> {
    let (periods, start) = evaluated_periods(spec, metrics, now)?;
    let tally = Tally::of(spec, &periods);
    let data = reason_data(spec, &periods, start, now);
    let value = tally.state(spec)?;
    let reason = tally.reason(spec, current, value);
    Some(Verdict { value, reason, data })
}

/// Evaluated periods: each one's start and, when the metric has one, its value.
type Periods = Vec<(f64, Option<f64>)>;

/// The periods an evaluation at `now` looks at, newest first (as AWS lists recent datapoints),
/// each with its value if the metric (or a metric-math alarm's returned query) has one, and the
/// start of the oldest; `None` when the spec's statistic cannot be evaluated.
fn evaluated_periods(spec: &MetricAlarmSpec, metrics: &MetricStore, now: f64) -> Option<(Periods, f64)> {
    let period = spec.evaluation_period();
    let seconds = f64::from(period);
    let n = spec.evaluation_periods as usize;
    let newest = (now / seconds).floor() * seconds;
    let start = newest - (n as f64 - 1.0) * seconds;
    let starts: Vec<f64> = (0..n).map(|i| newest - i as f64 * seconds).collect();
    let values = if spec.is_math() {
        math::period_values(&spec.metrics, metrics, &starts, period)
    } else {
        single_metric_values(spec, metrics, &starts, start, newest + seconds)?
    };
    Some((starts.into_iter().zip(values).collect(), start))
}

/// A single-metric alarm's statistic in the periods starting at `starts`, queried over
/// `start..end`; `None` when its statistic cannot be evaluated.
fn single_metric_values(
    spec: &MetricAlarmSpec,
    metrics: &MetricStore,
    starts: &[f64],
    start: f64,
    end: f64,
) -> Option<Vec<Option<f64>>> {
    let stat = spec.stat()?;
    let key = SeriesKey::from_owned(
        spec.namespace.clone(),
        spec.metric_name.clone(),
        spec.dimensions.clone(),
    );
    let points = metrics.query(&key, spec.unit.as_deref(), start, end, spec.period, stat);
    Some(
        starts
            .iter()
            .map(|at| points.iter().find(|p| p.timestamp == *at).map(|p| p.value))
            .collect(),
    )
}

/// The evaluated periods compared with the threshold.
struct Tally {
    /// Periods evaluated.
    n: usize,
    /// Periods with a datapoint, newest first.
    present: Vec<(f64, f64)>,
    /// Those of them that breach the threshold.
    breaching: Vec<(f64, f64)>,
    /// Periods without a datapoint.
    missing: usize,
}

impl Tally {
    /// Compares each evaluated period with the spec's threshold.
    fn of(spec: &MetricAlarmSpec, periods: &[(f64, Option<f64>)]) -> Tally {
        let present: Vec<(f64, f64)> = periods.iter().filter_map(|(t, v)| v.map(|v| (*t, v))).collect();
        let breaching = present
            .iter()
            .copied()
            .filter(|(_, v)| spec.comparison.breaches(*v, spec.threshold))
            .collect();
        Tally {
            n: periods.len(),
            missing: periods.len() - present.len(),
            present,
            breaching,
        }
    }

    /// ALARM when enough periods breach (missing ones counting when treated as breaching), else
    /// what TreatMissingData says when no period has data, else OK; `None` for `ignore`.
    fn state(&self, spec: &MetricAlarmSpec) -> Option<StateValue> {
        let counted_breaching = self.breaching.len()
            + match spec.treat_missing {
                TreatMissing::Breaching => self.missing,
                _ => 0,
            };
        let value = if counted_breaching >= spec.datapoints() as usize {
            StateValue::Alarm
        } else if self.present.is_empty() {
            match spec.treat_missing {
                TreatMissing::Missing => StateValue::InsufficientData,
                TreatMissing::Ignore => return None,
                TreatMissing::Breaching => StateValue::Alarm,
                TreatMissing::NotBreaching => StateValue::Ok,
            }
        } else {
            StateValue::Ok
        };
        Some(value)
    }

    /// The StateReason of arriving at `value` from `current`.
    fn reason(&self, spec: &MetricAlarmSpec, current: StateValue, value: StateValue) -> String {
        let n = self.n;
        match value {
            StateValue::InsufficientData => format!(
                "Insufficient Data: {n} datapoint{} {} unknown.",
                plural(n),
                if n == 1 { "was" } else { "were" }
            ),
            StateValue::Alarm if self.present.is_empty() || self.breaching.is_empty() => self.all_missing("Breaching"),
            StateValue::Alarm => crossed(spec, current, &self.breaching, n, "", "ALARM"),
            StateValue::Ok if self.present.is_empty() => self.all_missing("NonBreaching"),
            StateValue::Ok => self.ok_reason(spec, current),
        }
    }

    /// The reason when missing datapoints decided the state, treated as `treated`.
    fn all_missing(&self, treated: &str) -> String {
        let missing = self.missing;
        format!(
            "Threshold Crossed: no datapoints were received for {missing} period{} and {missing} missing datapoint{} {} treated as [{treated}].",
            plural(missing),
            plural(missing),
            if missing == 1 { "was" } else { "were" }
        )
    }

    /// The reason of an OK state with datapoints: those within the threshold, or when every one
    /// breaches, that too few of them do.
    fn ok_reason(&self, spec: &MetricAlarmSpec, current: StateValue) -> String {
        let (n, m) = (self.n, spec.datapoints() as usize);
        let within: Vec<(f64, f64)> = self
            .present
            .iter()
            .copied()
            .filter(|(_, v)| !spec.comparison.breaches(*v, spec.threshold))
            .collect();
        if within.is_empty() {
            format!(
                "Threshold Crossed: {} out of the last {n} datapoint{} [{}] was {} the threshold ({}), fewer than the minimum {m} datapoint{} for {} -> ALARM transition.",
                self.breaching.len(),
                plural(n),
                listed(&self.breaching),
                spec.comparison.phrase(),
                number(spec.threshold),
                plural(m),
                current.as_str(),
            )
        } else {
            crossed(spec, current, &within, n, "not ", "OK")
        }
    }
}

/// The reason of a threshold crossing: `shown` datapoints out of the last `n` were (`not`)
/// beyond the threshold, for the transition from `current` to `to`.
fn crossed(spec: &MetricAlarmSpec, current: StateValue, shown: &[(f64, f64)], n: usize, not: &str, to: &str) -> String {
    let m = spec.datapoints() as usize;
    format!(
        "Threshold Crossed: {} out of the last {n} datapoint{} [{}] was {not}{} the threshold ({}) (minimum {m} datapoint{} for {} -> {to} transition).",
        shown.len(),
        plural(n),
        listed(shown),
        spec.comparison.phrase(),
        number(spec.threshold),
        plural(m),
        current.as_str(),
    )
}

/// `250.0 (04/12/26 04:40:00), 300.0 (04/12/26 04:39:00)`.
fn listed(points: &[(f64, f64)]) -> String {
    let list: Vec<String> = points
        .iter()
        .map(|(t, v)| format!("{} ({})", number(*v), short_date(*t)))
        .collect();
    list.join(", ")
}

/// The StateReasonData JSON: the query, the recent and evaluated datapoints and the threshold.
fn reason_data(spec: &MetricAlarmSpec, periods: &[(f64, Option<f64>)], start: f64, now: f64) -> String {
    let recent: Vec<f64> = periods.iter().filter_map(|(_, v)| *v).collect();
    let evaluated: Vec<serde_json::Value> = periods
        .iter()
        .map(|(t, v)| match v {
            Some(v) => serde_json::json!({"timestamp": iso8601(*t), "value": v}),
            None => serde_json::json!({"timestamp": iso8601(*t)}),
        })
        .collect();
    let mut doc = serde_json::json!({
        "version": "1.0",
        "queryDate": iso8601(now),
        "startDate": iso8601(start),
        "period": spec.evaluation_period(),
        "recentDatapoints": recent,
        "threshold": spec.threshold,
        "evaluatedDatapoints": evaluated,
    });
    if !spec.is_math() {
        let key = if spec.statistic.is_some() {
            "statistic"
        } else {
            "extendedStatistic"
        };
        doc[key] = spec.stat_name().into();
    }
    if let Some(unit) = &spec.unit {
        doc["unit"] = unit.clone().into();
    }
    doc.to_string()
}

/// Evaluates a composite rule over the current states: ALARM when true, else OK.
pub(super) fn composite_verdict(rule: &Rule, alarms: &BTreeMap<String, Alarm>, arn_prefix: &str) -> Verdict {
    let state = |name: &str| alarms.get(name).map(|a| a.state.value);
    let fired = rule.eval(&state);
    // The children whose state makes the rule what it is: those in the state a function asks for.
    let mut triggering = Vec::new();
    collect_matching(rule, &state, &mut triggering);
    let value = if fired { StateValue::Alarm } else { StateValue::Ok };
    let described: Vec<(String, &Alarm)> = triggering
        .iter()
        .filter_map(|n| alarms.get(n).map(|a| (format!("{arn_prefix}{n}"), a)))
        .collect();
    let reason = match described.first() {
        Some((arn, a)) if fired => format!(
            "{arn} transitioned to {} at {}",
            a.state.value.as_str(),
            long_date(a.transitioned)
        ),
        _ => format!("The alarm rule evaluated to {}", if fired { "TRUE" } else { "FALSE" }),
    };
    let data = serde_json::json!({
        "triggeringAlarms": described.iter().map(|(arn, a)| serde_json::json!({
            "arn": arn,
            "state": {"value": a.state.value.as_str(), "timestamp": iso8601(a.transitioned)},
        })).collect::<Vec<_>>(),
    });
    Verdict {
        value,
        reason,
        data: data.to_string(),
    }
}

/// Adds to `out` the alarms the rule names whose state is the one it asks for, once each.
fn collect_matching(rule: &Rule, state: &dyn Fn(&str) -> Option<StateValue>, out: &mut Vec<String>) {
    match rule {
        Rule::Const(_) => {}
        Rule::State(want, name) => {
            let name = name_of(name);
            if state(name) == Some(*want) && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
        Rule::Not(r) => collect_matching(r, state, out),
        Rule::And(rs) | Rule::Or(rs) => rs.iter().for_each(|r| collect_matching(r, state, out)),
    }
}

/// `s` unless `n` is 1.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A number as CloudWatch prints it in reasons: `90.0`, `95.06`.
fn number(v: f64) -> String {
    let rounded = (v * 1e6).round() / 1e6;
    if rounded.fract() == 0.0 && rounded.abs() < 1e15 {
        format!("{rounded:.1}")
    } else {
        format!("{rounded}")
    }
}

/// `dd/MM/yy HH:mm:ss`, as datapoints appear in AWS's state reasons.
fn short_date(epoch: f64) -> String {
    let iso = iso8601(epoch); // 2026-12-04T04:40:00.000Z
    format!("{}/{}/{} {}", &iso[8..10], &iso[5..7], &iso[2..4], &iso[11..19])
}

/// `Friday 04 December, 2026 04:40:00 UTC`, as composite reasons print times.
fn long_date(epoch: f64) -> String {
    const DAYS: [&str; 7] = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ];
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let iso = iso8601(epoch);
    let day = DAYS[(epoch / 86_400.0).floor().rem_euclid(7.0) as usize];
    let month = iso[5..7].parse::<usize>().map_or("", |m| MONTHS[(m + 11) % 12]);
    format!("{day} {} {month}, {} {} UTC", &iso[8..10], &iso[0..4], &iso[11..19])
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_and_numbers_read_like_aws() {
        // 2026-12-04T04:40:00Z is a Friday.
        assert_eq!(super::short_date(1_796_359_200.0), "04/12/26 04:40:00");
        assert_eq!(
            super::long_date(1_796_359_200.0),
            "Friday 04 December, 2026 04:40:00 UTC"
        );
        assert_eq!(super::number(90.0), "90.0");
        assert_eq!(super::number(95.06), "95.06");
    }
}
