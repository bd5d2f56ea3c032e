//! Following a deployment to its end from any process: DescribeEndpoint every interval (plus
//! DescribeAlarms for its rollback alarms), each read handed to the caller as a [`Stepper`],
//! until the outcome is known. The deployment runs on SageMaker: stopping the watch stops
//! nothing.

use std::time::Duration;

use serde::Serialize;

use crate::aws::deploy::stepper::{Outcome, Stepper, outcome};
use crate::aws::{AwsError, Fleet};

/// What a watch read, ended with.
#[derive(Debug, Clone, Serialize)]
pub struct Watched {
    /// The last read.
    pub last: Stepper,
    /// The outcome.
    pub outcome: Outcome,
    /// The configuration followed (None: nothing was in flight).
    pub target: Option<String>,
    /// DescribeEndpoint calls made.
    pub describe_calls: u64,
    /// Seconds watched.
    pub watched_secs: f64,
}

fn now_epoch() -> f64 {
    aws_smithy_types::DateTime::from(std::time::SystemTime::now()).as_secs_f64()
}

impl Fleet {
    /// One read of `endpoint`'s deployment, with the rollback alarms' states (a failed alarm
    /// read leaves them out).
    pub async fn read_deployment(&self, endpoint: &str) -> Result<Stepper, AwsError> {
        let d = self
            .sagemaker
            .describe_endpoint()
            .endpoint_name(endpoint)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let mut s = Stepper::of(&d, now_epoch());
        if !s.alarm_names.is_empty()
            && let Ok((found, _)) = self.describe_alarm_statuses(&s.alarm_names).await
        {
            s.alarms = found;
        }
        Ok(s)
    }

    /// Follows `endpoint` until the deployment onto `target` ends (None: the one in flight now;
    /// when none is, the watch ends at once with [`Outcome::Idle`]). `each` sees every read.
    pub async fn watch_deployment(
        &self,
        endpoint: &str,
        mut target: Option<String>,
        interval: Duration,
        mut each: impl FnMut(&Stepper),
    ) -> Result<Watched, AwsError> {
        let start = std::time::Instant::now();
        let mut calls = 0u64;
        loop {
            calls += 1;
            let s = self.read_deployment(endpoint).await?;
            each(&s);
            if target.is_none() {
                target = s.pending_config.clone();
            }
            let mut ended = outcome(&s, target.as_deref());
            // Seen on its new configuration but not yet InService: still in flight.
            if matches!(ended, Outcome::Idle { .. }) && s.in_flight() {
                ended = Outcome::InFlight;
            }
            if ended != Outcome::InFlight {
                return Ok(Watched {
                    last: s,
                    outcome: ended,
                    target,
                    describe_calls: calls,
                    watched_secs: start.elapsed().as_secs_f64(),
                });
            }
            tokio::time::sleep(interval).await;
        }
    }
}

/// Writes how a deployment ended to the audit log (`deploy.outcome`: before the old
/// configuration, after the target with the policy; the result `ok` on success, else the error
/// the outcome says), so the timeline records it whoever watched. Best effort: the deployment
/// ended whatever the log says; the error is returned to be shown.
pub async fn record_outcome(
    audited: &crate::aws::change::guard::Audited,
    w: &Watched,
    reason: Option<String>,
) -> Result<(), crate::aws::change::audit::AuditError> {
    use crate::aws::deploy::stepper::policy_text;
    let s = &w.last;
    let m = crate::aws::change::audit::Mutation {
        action: "deploy.outcome".into(),
        target: s.endpoint.clone(),
        before: serde_json::json!({ "endpoint_config": s.live_config }),
        after: serde_json::json!({
            "endpoint_config": w.target,
            "policy": s.policy.as_ref().map(policy_text),
        }),
        reason,
    };
    let result = match &w.outcome {
        Outcome::Succeeded { .. } => Ok(None),
        Outcome::RolledBack { config, reason } => Err(format!("rolled back to {config}: {reason}")),
        Outcome::RollbackFailed { reason } => Err(format!("UpdateRollbackFailed: {reason}")),
        Outcome::Failed { reason } => Err(format!("Failed: {reason}")),
        Outcome::Idle { .. } | Outcome::InFlight => return Ok(()),
    };
    let pending = audited.intent(m).await?;
    audited.finish(&pending, result)
}
