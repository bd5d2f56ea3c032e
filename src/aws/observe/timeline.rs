//! "What changed" for one endpoint: one list merged by time from DescribeEndpoint (creation,
//! the last change with its status, a failed deployment's FailureReason and the configuration
//! it stayed on), the audit log (weight changes, promotion steps and prewarms by anyone who
//! wrote to it, with their principal), Application Auto Scaling's activities, and the state
//! changes of the CloudWatch alarms that watch the endpoint (DescribeAlarmHistory), and
//! CloudTrail's record of everyone's calls ([`merge_trail`]: a call the audit log holds is
//! shown once, as the audit log's line with the operator's reason). [`latest`] names the
//! newest change, for the console's header.

use serde::Serialize;
use serde_json::Value;

use crate::aws::change::audit::{AuditPhase, AuditRecord};
use crate::aws::trail::TrailEvent;
use crate::aws::{AwsError, Fleet};

/// One thing that happened to the endpoint.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TimelineEvent {
    /// When (epoch seconds).
    pub epoch: f64,
    /// `endpoint`, `deployment`, `audit`, `scaling`, `alarm`, `cloudtrail` (and `invoke` for
    /// the console's own invocation errors).
    pub kind: String,
    /// What happened, in one line.
    pub summary: String,
    /// Who, when known (audit principal, or `autoscaling`).
    pub principal: Option<String>,
    /// Whether it went wrong (failed deployment, failed scaling, an audited error, a call AWS
    /// refused).
    pub failed: bool,
    /// From where and through what, when CloudTrail says (`from 203.0.113.7 in us-east-1 via
    /// console`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

fn event(epoch: f64, kind: &str, summary: String, principal: Option<String>, failed: bool) -> TimelineEvent {
    TimelineEvent {
        epoch,
        kind: kind.into(),
        summary,
        principal,
        failed,
        origin: None,
    }
}

/// The CloudTrail operations an audit action sends (for matching a call to its audit line when
/// CloudTrail recorded no request id).
fn operations_of(action: &str) -> &'static [&'static str] {
    match action.split('.').next().unwrap_or(action) {
        "weights" | "promote" | "serverless" => &["UpdateEndpointWeightsAndCapacities", "UpdateEndpoint"],
        "deploy" | "shadow" => &["UpdateEndpoint", "CreateEndpointConfig"],
        "components" | "component" => &["UpdateInferenceComponentRuntimeConfig", "UpdateInferenceComponent"],
        "autoscaling" => &[
            "RegisterScalableTarget",
            "PutScalingPolicy",
            "DeleteScalingPolicy",
            "UpdateEndpoint",
            "CreateEndpointConfig",
        ],
        _ => &[],
    }
}

/// Whether the audit line `r` records the call `t`: the same request id, or the same operation
/// by the same principal within a minute (CloudTrail's requestID is not always the one the
/// caller was answered with).
fn same_call(r: &AuditRecord, t: &TrailEvent) -> bool {
    if let (Some(a), Some(b)) = (&r.request_id, &t.request_id)
        && a == b
    {
        return true;
    }
    r.principal.as_deref() == Some(t.principal.as_str())
        && operations_of(&r.action).contains(&t.name.as_str())
        && (r.epoch - t.epoch).abs() <= 60.0
}

/// Adds CloudTrail's calls to `events` (kind `cloudtrail`, the caller shortened, AWS's refusals
/// marked failed). A call the audit log already records is not added again: its audit line
/// stays, with the operator's reason, and gains where the call came from.
pub fn merge_trail(events: &mut Vec<TimelineEvent>, trail: &[TrailEvent], audit: &[AuditRecord]) {
    let results: Vec<&AuditRecord> = audit.iter().filter(|r| r.phase == AuditPhase::Result).collect();
    for t in trail {
        if let Some(r) = results.iter().find(|r| same_call(r, t)) {
            if let Some(e) = events
                .iter_mut()
                .find(|e| e.kind == "audit" && e.epoch == r.epoch && e.origin.is_none())
            {
                e.origin = Some(t.origin());
            }
            continue;
        }
        let mut e = event(
            t.epoch,
            "cloudtrail",
            t.summary(),
            Some(t.who.clone()),
            t.error.is_some(),
        );
        e.origin = Some(t.origin());
        events.push(e);
    }
    events.sort_by(|a, b| a.epoch.total_cmp(&b.epoch));
}

/// The audit log's results for `endpoint`, as events.
pub fn audit_events(endpoint: &str, records: &[AuditRecord]) -> Vec<TimelineEvent> {
    records
        .iter()
        .filter(|r| r.target == endpoint && r.phase == AuditPhase::Result)
        .map(|r| {
            let result = r.result.clone().unwrap_or_default();
            let mut summary = format!(
                "{}: {} → {} ({result})",
                r.action,
                compact(&r.before),
                compact(&r.after)
            );
            if let Some(why) = &r.reason {
                summary.push_str(&format!(" — {why}"));
            }
            let who = r.principal.clone().or_else(|| Some(format!("profile {}", r.profile)));
            event(r.epoch, "audit", summary, who, result.starts_with("error"))
        })
        .collect()
}

/// A short text of an audit `before`/`after` value: `Stable=9 Canary=1` for weights, else JSON.
pub fn compact(v: &Value) -> String {
    if let Some(weights) = weights_text(v, trim_number) {
        return weights;
    }
    match v {
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// The variants' weights of an audit value (`Stable=9 Canary=1`, each weight written by
/// `number`), or None when it holds none.
pub fn weights_text(v: &Value, number: impl Fn(f64) -> String) -> Option<String> {
    let weights: Vec<String> = v
        .get("variants")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|x| {
            let name = x.get("variant").and_then(Value::as_str)?;
            let w = x
                .get("current_weight")
                .or_else(|| x.get("weight"))
                .and_then(Value::as_f64)?;
            Some(format!("{name}={}", number(w)))
        })
        .collect();
    (!weights.is_empty()).then(|| weights.join(" "))
}

fn trim_number(w: f64) -> String {
    if w.fract() == 0.0 {
        format!("{w:.0}")
    } else {
        format!("{w}")
    }
}

/// The newest change of a timeline (oldest first), as the header says it: `weights.set:
/// Stable=9 Canary=1 by alice`. Creation counts only when nothing else happened.
pub fn latest(events: &[TimelineEvent]) -> Option<(f64, String)> {
    // A call AWS refused changed nothing.
    let e = events
        .iter()
        .rev()
        .find(|e| e.kind != "invoke" && !(e.kind == "cloudtrail" && e.failed))?;
    let head = e.summary.split(" (").next().unwrap_or(&e.summary);
    let what = match (e.kind.as_str(), head.split_once(": ")) {
        ("cloudtrail", Some((_, change))) => change.to_string(),
        ("cloudtrail", None) => head.to_string(),
        ("audit", Some((action, change))) => {
            let after = change.rsplit(" → ").next().unwrap_or(change);
            format!("{} {after}", action.split('.').next().unwrap_or(action))
        }
        ("deployment", _) => head.to_string(),
        (kind, _) => format!("{kind} {head}"),
    };
    let who = e
        .principal
        .as_deref()
        .filter(|p| *p != "autoscaling")
        .map(|p| format!(" by {}", p.rsplit([':', '/']).next().unwrap_or(p)))
        .unwrap_or_default();
    Some((e.epoch, format!("{what}{who}")))
}

impl Fleet {
    /// State changes of the alarms that watch `endpoint` since `since` (epoch seconds). No
    /// alarms, or CloudWatch not answering, is no events.
    pub async fn alarm_events(&self, endpoint: &str, since: f64) -> Vec<TimelineEvent> {
        let Ok(alarms) = self.alarms_for_endpoint(endpoint).await else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for a in alarms {
            let mut token = None;
            for _ in 0..10 {
                let Ok(page) = self.state_history(&a.name, since).set_next_token(token).send().await else {
                    break;
                };
                for h in page.alarm_history_items() {
                    let summary = h.history_summary().unwrap_or_default();
                    let epoch = h.timestamp().map_or(0.0, |t| t.as_secs_f64());
                    let failed = summary.ends_with("to ALARM");
                    out.push(event(epoch, "alarm", format!("{}: {summary}", a.name), None, failed));
                }
                token = page.next_token().map(str::to_string);
                if token.is_none() {
                    break;
                }
            }
        }
        out
    }

    /// The endpoint's timeline since `since` (epoch seconds), oldest first.
    pub async fn timeline(
        &self,
        endpoint: &str,
        since: f64,
        audit: &[AuditRecord],
    ) -> Result<Vec<TimelineEvent>, AwsError> {
        let ep = self
            .sagemaker
            .describe_endpoint()
            .endpoint_name(endpoint)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let config = ep.endpoint_config_name().unwrap_or("-");
        let mut events = Vec::new();
        if let Some(t) = ep.creation_time() {
            events.push(event(
                t.as_secs_f64(),
                "endpoint",
                format!("created on {config}"),
                None,
                false,
            ));
        }
        if let Some(t) = ep.last_modified_time() {
            let status = ep.endpoint_status().map(|s| s.as_str().to_string()).unwrap_or_default();
            let (kind, summary, failed) = match ep.failure_reason() {
                Some(why) if status == "Failed" => ("deployment", format!("Failed: {why}"), true),
                Some(why) => (
                    "deployment",
                    format!("deployment failed, still on {config}: {why}"),
                    true,
                ),
                None => ("endpoint", format!("{status} on {config}"), false),
            };
            events.push(event(t.as_secs_f64(), kind, summary, None, failed));
        }
        let variants: Vec<String> = ep
            .production_variants()
            .iter()
            .filter_map(|v| v.variant_name().map(str::to_string))
            .collect();
        // Endpoints without autoscaling answer nothing here; a failure only loses this source.
        for a in self
            .scaling_activities(endpoint, &variants, 50)
            .await
            .unwrap_or_default()
        {
            let failed = matches!(a.status.as_str(), "Failed" | "Unfulfilled");
            let summary = format!("{} ({}) — {}", a.description, a.status, a.cause);
            events.push(event(a.start, "scaling", summary, Some("autoscaling".into()), failed));
        }
        events.extend(audit_events(endpoint, audit));
        events.extend(self.alarm_events(endpoint, since).await);
        events.retain(|e| e.epoch >= since);
        events.sort_by(|a, b| a.epoch.total_cmp(&b.epoch));
        Ok(events)
    }
}
