//! "What changed" for one endpoint: one list merged by time from DescribeEndpoint (creation,
//! the last change with its status, a failed deployment's FailureReason and the configuration
//! it stayed on), the audit log (weight changes, promotion steps and prewarms by anyone who
//! wrote to it, with their principal) and Application Auto Scaling's activities. CloudWatch
//! alarm history is not read (alarms are not part of the fleet layer yet).

use serde::Serialize;

use super::audit::{AuditPhase, AuditRecord};
use super::{AwsError, Fleet};

/// One thing that happened to the endpoint.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TimelineEvent {
    /// When (epoch seconds).
    pub epoch: f64,
    /// `endpoint`, `deployment`, `audit`, `scaling`.
    pub kind: String,
    /// What happened, in one line.
    pub summary: String,
    /// Who, when known (audit principal, or `autoscaling`).
    pub principal: Option<String>,
    /// Whether it went wrong (failed deployment, failed scaling, an audited error).
    pub failed: bool,
}

fn event(epoch: f64, kind: &str, summary: String, principal: Option<String>, failed: bool) -> TimelineEvent {
    TimelineEvent {
        epoch,
        kind: kind.into(),
        summary,
        principal,
        failed,
    }
}

/// The audit log's results for `endpoint`, as events.
pub fn audit_events(endpoint: &str, records: &[AuditRecord]) -> Vec<TimelineEvent> {
    records
        .iter()
        .filter(|r| r.target == endpoint && r.phase == AuditPhase::Result)
        .map(|r| {
            let result = r.result.clone().unwrap_or_default();
            let mut summary = format!("{}: {} → {} ({result})", r.action, r.before, r.after);
            if let Some(why) = &r.reason {
                summary.push_str(&format!(" — {why}"));
            }
            let who = r.principal.clone().or_else(|| Some(format!("profile {}", r.profile)));
            event(r.epoch, "audit", summary, who, result.starts_with("error"))
        })
        .collect()
}

impl Fleet {
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
        events.retain(|e| e.epoch >= since);
        events.sort_by(|a, b| a.epoch.total_cmp(&b.epoch));
        Ok(events)
    }
}
