//! CloudWatch alarms as the fleet layer reads them: the states of named alarms (metric and
//! composite), the alarms that watch an endpoint (metric alarms with its `EndpointName`
//! dimension — a metric-math alarm's in its queries' metrics —, and composite alarms whose rule
//! names one of them), and whether an alarm entered
//! ALARM since a time (its current state or a StateUpdate in its history).

use aws_sdk_cloudwatch::types::{AlarmType, Dimension, HistoryItemType, MetricAlarm, MetricDataQuery, StateValue};
use aws_smithy_types::DateTime;
use serde::Serialize;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// One alarm and its state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlarmStatus {
    /// Alarm name.
    pub name: String,
    /// `metric` or `composite`.
    pub kind: &'static str,
    /// `OK`, `ALARM` or `INSUFFICIENT_DATA`.
    pub state: String,
    /// Why it is in that state.
    pub reason: String,
    /// When the state was last updated (epoch seconds).
    pub updated: Option<f64>,
    /// What it watches: `Namespace/MetricName stat (dims) op threshold`, or the composite rule.
    pub watches: String,
}

impl AlarmStatus {
    /// Whether it is in ALARM.
    pub fn firing(&self) -> bool {
        self.state == "ALARM"
    }
}

/// `Name=value,...` of `dims`.
fn dims_text(dims: &[Dimension]) -> String {
    let each = dims
        .iter()
        .map(|d| format!("{}={}", d.name().unwrap_or(""), d.value().unwrap_or("")));
    each.collect::<Vec<_>>().join(",")
}

/// The status of a metric alarm and the endpoints it watches (its `EndpointName` dimension; for
/// a metric-math alarm, those of its queries' metrics). A math alarm's `watches` is its returned
/// expression, then each metric query: `e1 = 100*m1/m2 (m1 = AWS/SageMaker/Invocation5XXErrors
/// Sum (EndpointName=ep,VariantName=v), m2 = …) > 1`.
fn metric_status(a: &MetricAlarm) -> (AlarmStatus, Vec<String>) {
    let name = a.alarm_name().unwrap_or_default().to_string();
    let stat_dims = a
        .metrics()
        .iter()
        .filter_map(|q| q.metric_stat()?.metric())
        .flat_map(|m| m.dimensions());
    let mut endpoints: Vec<String> = a
        .dimensions()
        .iter()
        .chain(stat_dims)
        .filter(|d| d.name() == Some("EndpointName"))
        .filter_map(|d| d.value().map(str::to_string))
        .collect();
    endpoints.sort_unstable();
    endpoints.dedup();
    let op = a.comparison_operator().map(|c| c.as_str()).unwrap_or("");
    let threshold = a.threshold().unwrap_or_default();
    let watches = if a.metrics().is_empty() {
        let stat = a
            .statistic()
            .map(|s| s.as_str().to_string())
            .or_else(|| a.extended_statistic().map(str::to_string))
            .unwrap_or_default();
        format!(
            "{}/{} {stat} ({}) {op} {threshold}",
            a.namespace().unwrap_or(""),
            a.metric_name().unwrap_or(""),
            dims_text(a.dimensions()),
        )
    } else {
        format!("{} {op} {threshold}", math_text(a.metrics()))
    };
    let status = AlarmStatus {
        name,
        kind: "metric",
        state: a.state_value().map(|s| s.as_str().to_string()).unwrap_or_default(),
        reason: a.state_reason().unwrap_or_default().to_string(),
        updated: secs(a.state_updated_timestamp()),
        watches,
    };
    (status, endpoints)
}

/// A metric-math alarm's queries in a line: the returned expression, then each metric query.
fn math_text(queries: &[MetricDataQuery]) -> String {
    let returned = queries
        .iter()
        .find(|q| q.return_data().unwrap_or(true) && q.expression().is_some())
        .map(|q| format!("{} = {}", q.id().unwrap_or(""), q.expression().unwrap_or("")))
        .unwrap_or_default();
    let stats: Vec<String> = queries
        .iter()
        .filter_map(|q| {
            let s = q.metric_stat()?;
            let m = s.metric()?;
            Some(format!(
                "{} = {}/{} {} ({})",
                q.id().unwrap_or(""),
                m.namespace().unwrap_or(""),
                m.metric_name().unwrap_or(""),
                s.stat().unwrap_or(""),
                dims_text(m.dimensions())
            ))
        })
        .collect();
    format!("{returned} ({})", stats.join(", ")).trim_start().to_string()
}

fn secs(t: Option<&DateTime>) -> Option<f64> {
    t.map(|t| t.as_secs_f64())
}

impl Fleet {
    /// Every alarm (metric and composite) matching `names` (all when empty), every page.
    pub async fn describe_alarm_statuses(
        &self,
        names: &[String],
    ) -> Result<(Vec<AlarmStatus>, Vec<(String, String)>), AwsError> {
        let mut out = Vec::new();
        let mut endpoint_dims = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let out_page = self
                .cloudwatch
                .describe_alarms()
                .set_alarm_names((!names.is_empty()).then(|| names.to_vec()))
                .alarm_types(AlarmType::MetricAlarm)
                .alarm_types(AlarmType::CompositeAlarm)
                .set_next_token(token.clone())
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            for a in out_page.metric_alarms() {
                let (status, endpoints) = metric_status(a);
                endpoint_dims.extend(endpoints.into_iter().map(|e| (status.name.clone(), e)));
                out.push(status);
            }
            for a in out_page.composite_alarms() {
                out.push(AlarmStatus {
                    name: a.alarm_name().unwrap_or_default().to_string(),
                    kind: "composite",
                    state: a.state_value().map(|s| s.as_str().to_string()).unwrap_or_default(),
                    reason: a.state_reason().unwrap_or_default().to_string(),
                    updated: secs(a.state_updated_timestamp()),
                    watches: a.alarm_rule().unwrap_or_default().to_string(),
                });
            }
            token = out_page.next_token().map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        Ok((out, endpoint_dims))
    }

    /// The states of the named alarms; a name CloudWatch does not know is an error
    /// (`AwsError::NotFound`-like message naming it).
    pub async fn alarm_states(&self, names: &[String]) -> Result<Vec<AlarmStatus>, AwsError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let (found, _) = self.describe_alarm_statuses(names).await?;
        let missing: Vec<&String> = names.iter().filter(|n| !found.iter().any(|a| &a.name == *n)).collect();
        if !missing.is_empty() {
            return Err(AwsError::NotFound(format!(
                "no CloudWatch alarm named {}",
                missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        Ok(found)
    }

    /// The alarms that watch `endpoint`: metric alarms with dimension `EndpointName=endpoint`,
    /// then composite alarms whose rule names one of them.
    pub async fn alarms_for_endpoint(&self, endpoint: &str) -> Result<Vec<AlarmStatus>, AwsError> {
        let (all, dims) = self.describe_alarm_statuses(&[]).await?;
        let watching: Vec<&String> = dims.iter().filter(|(_, e)| e == endpoint).map(|(n, _)| n).collect();
        let mut out: Vec<AlarmStatus> = all
            .iter()
            .filter(|a| a.kind == "metric" && watching.contains(&&a.name))
            .cloned()
            .collect();
        let names: Vec<String> = out.iter().map(|a| a.name.clone()).collect();
        out.extend(
            all.into_iter()
                .filter(|a| a.kind == "composite" && names.iter().any(|n| rule_names(&a.watches, n))),
        );
        Ok(out)
    }

    /// Every alarm that watches an endpoint, by endpoint, from one DescribeAlarms sweep: metric
    /// alarms under their `EndpointName` dimension, composite alarms under the endpoints of the
    /// metric alarms their rule names (what the console's badges show).
    pub async fn alarms_by_endpoint(&self) -> Result<std::collections::HashMap<String, Vec<AlarmStatus>>, AwsError> {
        let (all, dims) = self.describe_alarm_statuses(&[]).await?;
        let mut out: std::collections::HashMap<String, Vec<AlarmStatus>> = Default::default();
        for (name, endpoint) in &dims {
            if let Some(a) = all.iter().find(|a| a.kind == "metric" && &a.name == name) {
                out.entry(endpoint.clone()).or_default().push(a.clone());
            }
        }
        for list in out.values_mut() {
            let composites: Vec<AlarmStatus> = all
                .iter()
                .filter(|c| c.kind == "composite" && list.iter().any(|m| rule_names(&c.watches, &m.name)))
                .cloned()
                .collect();
            list.extend(composites);
        }
        Ok(out)
    }

    /// A DescribeAlarmHistory request for the state changes of alarm `name` (metric or
    /// composite) since `since` (epoch seconds).
    pub(crate) fn state_history(
        &self,
        name: &str,
        since: f64,
    ) -> aws_sdk_cloudwatch::operation::describe_alarm_history::builders::DescribeAlarmHistoryFluentBuilder {
        self.cloudwatch
            .describe_alarm_history()
            .alarm_name(name)
            .alarm_types(AlarmType::MetricAlarm)
            .alarm_types(AlarmType::CompositeAlarm)
            .history_item_type(HistoryItemType::StateUpdate)
            .start_date(DateTime::from_secs_f64(since))
    }

    /// Each named alarm that is in ALARM now or entered ALARM since `since` (epoch seconds),
    /// with when and why.
    pub async fn alarms_fired_since(&self, names: &[String], since: f64) -> Result<Vec<AlarmStatus>, AwsError> {
        let mut fired = Vec::new();
        for a in self.alarm_states(names).await? {
            if a.firing() {
                fired.push(a);
                continue;
            }
            let history = self
                .state_history(&a.name, since)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            let entered = history.alarm_history_items().iter().find(|h| {
                h.history_summary()
                    .is_some_and(|s| s.ends_with(&format!("to {}", StateValue::Alarm.as_str())))
            });
            if let Some(h) = entered {
                fired.push(AlarmStatus {
                    state: "ALARM".into(),
                    reason: format!(
                        "{} (since back to {})",
                        h.history_summary().unwrap_or_default(),
                        a.state
                    ),
                    updated: secs(h.timestamp()),
                    ..a
                });
            }
        }
        Ok(fired)
    }
}

/// Whether a composite rule names alarm `name` (as `(name)`, `("name")` or `:alarm:name)`).
fn rule_names(rule: &str, name: &str) -> bool {
    [format!("({name})"), format!("(\"{name}\")"), format!(":alarm:{name})")]
        .iter()
        .any(|p| rule.replace(' ', "").contains(p.as_str()))
}
