//! Gate alarms (`--gate-alarms`): CloudWatch alarms that encode sagedeck's gates for AWS's
//! auto-rollback, per variant, over both fleets (dimensions EndpointName and VariantName, as
//! AWS's guardrails documentation's first example): p99 ModelLatency above a ceiling taken from
//! the old fleet's last 24 hours, and the 5XX and 4XX rates by metric math over Invocations.
//! Named `sagedeck-ENDPOINT-VARIANT-…`, created and deleted with an audit line each. Each one's
//! AlarmDescription ends with a mark saying whose gate it is and whether it is kept after the
//! deployment (`--keep-alarms`), so that any later watcher, on any machine, deletes the ones a
//! stopped `deploy` left once their deployment has ended, and leaves the kept ones.

use aws_sdk_cloudwatch::operation::RequestId;
use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, Metric, MetricDataQuery, MetricStat};
use serde::Serialize;
use serde_json::json;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::Audited;
use crate::aws::deploy::send::DeployError;
use crate::aws::{AwsError, Fleet};

/// The namespace of the invocation metrics.
const NAMESPACE: &str = "AWS/SageMaker";
/// The latency ceiling over the old fleet's worst hourly p99 of the last 24 h.
pub const LATENCY_HEADROOM: f64 = 1.25;
/// The 5XX rate (percent of invocations) that rolls back.
pub const MAX_5XX_PERCENT: f64 = 1.0;
/// The 4XX rate (percent of invocations) that rolls back.
pub const MAX_4XX_PERCENT: f64 = 5.0;

/// The mark at the end of a gate alarm's AlarmDescription: its endpoint, and whether it is kept
/// after the deployment.
pub fn after_mark(endpoint: &str, keep: bool) -> String {
    let after = if keep { "keep" } else { "delete" };
    format!("[sagedeck gate of {endpoint}; after the deployment: {after}]")
}

/// What a gate alarm watches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum GateKind {
    /// p99 ModelLatency above the ceiling (microseconds).
    P99Latency,
    /// Invocation5XXErrors / Invocations × 100.
    Rate5xx,
    /// Invocation4XXErrors / Invocations × 100.
    Rate4xx,
}

/// One gate alarm to create.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateAlarm {
    /// Alarm name.
    pub name: String,
    /// Endpoint.
    pub endpoint: String,
    /// Variant.
    pub variant: String,
    /// What it watches.
    pub kind: GateKind,
    /// Threshold (microseconds for latency, percent for rates).
    pub threshold: f64,
}

impl GateAlarm {
    /// `sagedeck-ep-AllTraffic-5xx-rate: 5XX rate > 1 %`.
    pub fn text(&self) -> String {
        match self.kind {
            GateKind::P99Latency => format!("{}: p99 ModelLatency > {:.0} ms", self.name, self.threshold / 1000.0),
            GateKind::Rate5xx => format!("{}: 5XX rate > {} %", self.name, self.threshold),
            GateKind::Rate4xx => format!("{}: 4XX rate > {} %", self.name, self.threshold),
        }
    }

    fn dimensions(&self) -> Vec<Dimension> {
        vec![
            Dimension::builder().name("EndpointName").value(&self.endpoint).build(),
            Dimension::builder().name("VariantName").value(&self.variant).build(),
        ]
    }

    fn sum_query(&self, id: &str, metric: &str) -> MetricDataQuery {
        let metric = Metric::builder()
            .namespace(NAMESPACE)
            .metric_name(metric)
            .set_dimensions(Some(self.dimensions()))
            .build();
        let stat = MetricStat::builder().metric(metric).period(60).stat("Sum").build();
        MetricDataQuery::builder()
            .id(id)
            .metric_stat(stat)
            .return_data(false)
            .build()
    }
}

/// The gate alarms of `endpoint`'s `variants`; `ceilings` the latency ceiling of each (None: no
/// latency in the last 24 h, so no latency alarm).
pub fn gate_alarms(endpoint: &str, ceilings: &[(String, Option<f64>)]) -> Vec<GateAlarm> {
    let mut out = Vec::new();
    for (variant, ceiling) in ceilings {
        let alarm = |suffix: &str, kind: GateKind, threshold: f64| GateAlarm {
            name: format!("sagedeck-{endpoint}-{variant}-{suffix}"),
            endpoint: endpoint.to_string(),
            variant: variant.clone(),
            kind,
            threshold,
        };
        if let Some(c) = ceiling {
            out.push(alarm(
                "p99-latency",
                GateKind::P99Latency,
                (c * LATENCY_HEADROOM).round(),
            ));
        }
        out.push(alarm("5xx-rate", GateKind::Rate5xx, MAX_5XX_PERCENT));
        out.push(alarm("4xx-rate", GateKind::Rate4xx, MAX_4XX_PERCENT));
    }
    out
}

impl Fleet {
    /// The worst hourly p99 ModelLatency (microseconds) of `variant` over the last 24 h.
    pub async fn p99_ceiling(&self, endpoint: &str, variant: &str) -> Result<Option<f64>, AwsError> {
        let now = std::time::SystemTime::now();
        let start = now - std::time::Duration::from_secs(86_400);
        let metric = Metric::builder()
            .namespace(NAMESPACE)
            .metric_name("ModelLatency")
            .dimensions(Dimension::builder().name("EndpointName").value(endpoint).build())
            .dimensions(Dimension::builder().name("VariantName").value(variant).build())
            .build();
        let stat = MetricStat::builder().metric(metric).period(3600).stat("p99").build();
        let query = MetricDataQuery::builder()
            .id("p99")
            .metric_stat(stat)
            .return_data(true)
            .build();
        let out = self
            .cloudwatch
            .get_metric_data()
            .metric_data_queries(query)
            .start_time(start.into())
            .end_time(now.into())
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        Ok(out
            .metric_data_results()
            .iter()
            .flat_map(|r| r.values().iter().copied())
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v)))))
    }

    /// Creates `alarms` (audited, each), marked kept after the deployment when `keep`; on a
    /// failure, the ones already created are deleted.
    pub async fn create_gate_alarms(
        &self,
        alarms: &[GateAlarm],
        keep: bool,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<(), DeployError> {
        for (i, a) in alarms.iter().enumerate() {
            let pending = audited
                .intent(Mutation {
                    action: "deploy.alarm.create".into(),
                    target: a.name.clone(),
                    before: serde_json::Value::Null,
                    after: json!(a),
                    reason: reason.clone(),
                })
                .await?;
            match self.put_gate_alarm(a, keep).await {
                Ok(rid) => {
                    let _ = audited.finish(&pending, Ok(rid));
                }
                Err(e) => {
                    let _ = audited.finish(&pending, Err(e.to_string()));
                    let made: Vec<String> = alarms[..i].iter().map(|a| a.name.clone()).collect();
                    let _ = self.delete_gate_alarms(&made, audited, reason).await;
                    return Err(e.into());
                }
            }
        }
        Ok(())
    }

    async fn put_gate_alarm(&self, a: &GateAlarm, keep: bool) -> Result<Option<String>, AwsError> {
        let description = format!("sagedeck deploy gate: {} {}", a.text(), after_mark(&a.endpoint, keep));
        let mut put = self
            .cloudwatch
            .put_metric_alarm()
            .alarm_name(&a.name)
            .alarm_description(description)
            .evaluation_periods(3)
            .datapoints_to_alarm(2)
            .threshold(a.threshold)
            .comparison_operator(ComparisonOperator::GreaterThanThreshold)
            .treat_missing_data("notBreaching");
        put = match a.kind {
            GateKind::P99Latency => put
                .namespace(NAMESPACE)
                .metric_name("ModelLatency")
                .set_dimensions(Some(a.dimensions()))
                .extended_statistic("p99")
                .period(60),
            GateKind::Rate5xx | GateKind::Rate4xx => {
                let errors = if a.kind == GateKind::Rate5xx {
                    "Invocation5XXErrors"
                } else {
                    "Invocation4XXErrors"
                };
                let rate = MetricDataQuery::builder()
                    .id("rate")
                    .expression("IF(invocations > 0, 100 * errors / invocations, 0)")
                    .label(format!("{errors} per 100 Invocations"))
                    .return_data(true)
                    .build();
                put.metrics(a.sum_query("errors", errors))
                    .metrics(a.sum_query("invocations", "Invocations"))
                    .metrics(rate)
            }
        };
        let out = put.send().await.map_err(AwsError::from_sdk)?;
        Ok(out.request_id().map(str::to_string))
    }

    /// The gate alarms of `endpoint` marked to be deleted after their deployment (those a
    /// stopped `deploy` left; the kept ones and any other alarm are not named).
    pub async fn leftover_gate_alarms(&self, endpoint: &str) -> Result<Vec<String>, AwsError> {
        let mark = after_mark(endpoint, false);
        let mut names = Vec::new();
        let mut token = None;
        loop {
            let out = self
                .cloudwatch
                .describe_alarms()
                .alarm_name_prefix(format!("sagedeck-{endpoint}-"))
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            let marked = out
                .metric_alarms()
                .iter()
                .filter(|a| a.alarm_description().is_some_and(|d| d.ends_with(&mark)));
            names.extend(marked.filter_map(|a| a.alarm_name()).map(str::to_string));
            token = out.next_token().map(str::to_string);
            if token.is_none() {
                return Ok(names);
            }
        }
    }

    /// Deletes (audited) the gate alarms a deployment of `endpoint` that has ended left behind
    /// (see [`Fleet::leftover_gate_alarms`]), unless a deployment is in flight again: they may
    /// be its own. Returns the names deleted.
    pub async fn delete_leftover_gate_alarms(
        &self,
        endpoint: &str,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<Vec<String>, DeployError> {
        let names = self.leftover_gate_alarms(endpoint).await?;
        if names.is_empty() || self.read_deployment(endpoint).await?.in_flight() {
            return Ok(Vec::new());
        }
        self.delete_gate_alarms(&names, audited, reason).await?;
        Ok(names)
    }

    /// Deletes the gate alarms `names` (audited; unknown names are skipped by CloudWatch).
    pub async fn delete_gate_alarms(
        &self,
        names: &[String],
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<(), DeployError> {
        if names.is_empty() {
            return Ok(());
        }
        let pending = audited
            .intent(Mutation {
                action: "deploy.alarm.delete".into(),
                target: names.join(","),
                before: json!({ "alarms": names }),
                after: serde_json::Value::Null,
                reason,
            })
            .await?;
        let sent = self
            .cloudwatch
            .delete_alarms()
            .set_alarm_names(Some(names.to_vec()))
            .send()
            .await;
        match sent {
            Ok(out) => {
                let _ = audited.finish(&pending, Ok(out.request_id().map(str::to_string)));
                Ok(())
            }
            Err(e) => {
                let err = AwsError::from_sdk(e);
                let _ = audited.finish(&pending, Err(err.to_string()));
                Err(err.into())
            }
        }
    }
}
