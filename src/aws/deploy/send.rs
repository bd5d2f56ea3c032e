//! Starting a deployment: compare-and-swap on the endpoint's configuration and status, the
//! rollback alarms checked (they exist, none is in ALARM), the audit intent written first, then
//! UpdateEndpoint with the DeploymentConfig. AWS has no conditional update: the window between
//! the second look and the update is one round trip, taken under the audit log's lock.

use std::sync::atomic::AtomicUsize;

use aws_sdk_sagemaker::operation::RequestId;
use serde::Serialize;
use serde_json::json;

use crate::aws::change::audit::{AuditError, Mutation};
use crate::aws::change::guard::{Audited, weights_json};
use crate::aws::deploy::policy::DeploySpec;
use crate::aws::{AwsError, Fleet};

/// Why a deployment was not started (or not completely).
#[derive(Debug, Clone, thiserror::Error)]
pub enum DeployError {
    /// The request breaks a rule AWS would refuse it for: nothing was sent.
    #[error("refused: {}; nothing was sent", .0.join("; "))]
    Invalid(Vec<String>),
    /// The endpoint is not as it was read: nothing was sent.
    #[error(
        "refused: {endpoint} changed since it was read (config {expected} → {actual}, status {status}); nothing was sent (look again, then retry)"
    )]
    Changed {
        /// Endpoint.
        endpoint: String,
        /// The configuration it was read on.
        expected: String,
        /// The configuration it is on.
        actual: String,
        /// Its status.
        status: String,
    },
    /// The endpoint is not InService (a deployment in flight, Failed...): nothing was sent.
    #[error(
        "refused: {endpoint} is {status}; a deployment starts only from InService; nothing was sent (`sagedeck deploy {endpoint} --watch` follows one in flight)"
    )]
    NotInService {
        /// Endpoint.
        endpoint: String,
        /// Its status.
        status: String,
    },
    /// A rollback alarm is missing or already in ALARM: nothing was sent.
    #[error("refused: {0}; nothing was sent")]
    Alarm(String),
    /// The audit log could not be written: nothing was sent.
    #[error("{0}")]
    Audit(#[from] AuditError),
    /// An AWS call failed.
    #[error("{0}")]
    Aws(#[from] AwsError),
}

/// A deployment to start.
#[derive(Debug, Clone, Serialize)]
pub struct DeployRequest {
    /// Endpoint.
    pub endpoint: String,
    /// The configuration it goes onto.
    pub new_config: String,
    /// The configuration the operator saw it on (compare-and-swap).
    pub expected_config: String,
    /// Policy, timeout, alarms, retention.
    pub spec: DeploySpec,
}

/// A deployment that was started.
#[derive(Debug, Clone, Serialize)]
pub struct Started {
    /// UpdateEndpoint's request id.
    pub request_id: Option<String>,
    /// When it was sent (epoch seconds).
    pub at: f64,
    /// Set when the result line could not be logged (the update was sent regardless).
    pub audit_warning: Option<String>,
}

impl Fleet {
    /// Refuses (naming each) rollback alarms that do not exist or are in ALARM.
    pub async fn check_rollback_alarms(&self, names: &[String]) -> Result<(), DeployError> {
        if names.is_empty() {
            return Ok(());
        }
        let (found, _) = self.describe_alarm_statuses(names).await?;
        let mut problems = Vec::new();
        for n in names {
            match found.iter().find(|a| &a.name == n) {
                None => problems.push(format!("alarm-exists: no CloudWatch alarm named {n}")),
                Some(a) if a.firing() => problems.push(format!(
                    "alarm-state: {n} is in ALARM now ({}); the deployment would roll back at its first bake",
                    a.reason
                )),
                Some(_) => {}
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(DeployError::Alarm(problems.join("; ")))
        }
    }

    /// Starts `req` if the endpoint is still InService on the expected configuration (see the
    /// module docs), with an intent line before and a result line after.
    pub async fn start_deployment(
        &self,
        req: &DeployRequest,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<Started, DeployError> {
        let _lock = audited.audit.lock_exclusive().await?;
        let calls = AtomicUsize::new(0);
        let info = self.describe_endpoint_info(&req.endpoint, &calls).await?;
        let actual = info.config_name.clone().unwrap_or_default();
        let refusal = if actual != req.expected_config {
            Some(DeployError::Changed {
                endpoint: req.endpoint.clone(),
                expected: req.expected_config.clone(),
                actual,
                status: info.status.clone(),
            })
        } else if info.status != "InService" {
            Some(DeployError::NotInService {
                endpoint: req.endpoint.clone(),
                status: info.status.clone(),
            })
        } else {
            self.check_rollback_alarms(&req.spec.alarms).await.err()
        };
        if let Some(err) = refusal {
            audited.refused("deploy.start", &req.endpoint, &err.to_string(), reason);
            return Err(err);
        }
        let mut before = weights_json(&info);
        before["endpoint_config"] = json!(info.config_name);
        let pending = audited
            .intent(Mutation {
                action: "deploy.start".into(),
                target: req.endpoint.clone(),
                before,
                after: json!({ "endpoint_config": req.new_config, "deployment": req.spec }),
                reason,
            })
            .await?;
        let at = aws_smithy_types::DateTime::from(std::time::SystemTime::now()).as_secs_f64();
        let update = self
            .sagemaker
            .update_endpoint()
            .endpoint_name(&req.endpoint)
            .endpoint_config_name(&req.new_config)
            .retain_all_variant_properties(req.spec.retain_all);
        // Retained: SageMaker runs the LastDeploymentConfig again; none is sent.
        let update = if req.spec.retain_deployment {
            update.retain_deployment_config(true)
        } else {
            update.deployment_config(req.spec.wire())
        };
        let sent = update.send().await;
        match sent {
            Ok(out) => {
                let request_id = out.request_id().map(str::to_string);
                let audit_warning = audited
                    .finish(&pending, Ok(request_id.clone()))
                    .err()
                    .map(|e| e.to_string());
                Ok(Started {
                    request_id,
                    at,
                    audit_warning,
                })
            }
            Err(e) => {
                let err = AwsError::from_sdk(e);
                let _ = audited.finish(&pending, Err(err.to_string()));
                Err(err.into())
            }
        }
    }
}
