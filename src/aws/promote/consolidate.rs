//! Consolidation after a promotion: a new endpoint configuration holding only the winning variant
//! (its ProductionVariant copied whole from the current configuration — model, instance type,
//! every other setting — with the live instance count and weight 1), UpdateEndpoint onto it, and
//! Updating → InService followed to the end. The previous configuration is kept: rolling back is
//! UpdateEndpoint back to it ([`Fleet::unconsolidate`]).
//!
//! Safety: compare-and-swap (the endpoint must still be InService on the configuration the plan
//! was made from, with all the traffic on the winner), an audit intent fsync'd before the change
//! and its result after, and a state file written before UpdateEndpoint is sent, so that a
//! process killed mid-deployment can resume: [`Fleet::finish_consolidation`] follows the endpoint
//! to the end and reads the outcome. A failed deployment (SageMaker rolls it back: the endpoint
//! is InService on the OLD configuration with a FailureReason) is an error, never a success.

use std::path::Path;
use std::time::{Duration, Instant};

use aws_sdk_sagemaker::types::ProductionVariant;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::{Audited, GuardError};
use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// What consolidation will do.
#[derive(Debug, Clone)]
pub struct ConsolidationPlan {
    /// Endpoint.
    pub endpoint: String,
    /// Its configuration now (kept for rollback).
    pub from_config: String,
    /// The configuration to create.
    pub to_config: String,
    /// The winning variant.
    pub winner: String,
    /// The winner's settings as they will be created.
    pub variant: ProductionVariant,
    /// Variants now, as `(name, model, current weight)`.
    pub before: Vec<(String, String, f64)>,
}

impl ConsolidationPlan {
    /// Before → after, for previews and the audit log.
    pub fn preview(&self) -> serde_json::Value {
        json!({
            "endpoint": self.endpoint,
            "before": {"config": self.from_config, "variants": self.before.iter().map(|(n, m, w)| json!({"variant": n, "model": m, "weight": w})).collect::<Vec<_>>()},
            "after": {"config": self.to_config, "variants": [{
                "variant": self.winner,
                "model": self.variant.model_name(),
                "instance_type": self.variant.instance_type().map(|t| t.as_str().to_string()),
                "instance_count": self.variant.initial_instance_count(),
            }]},
        })
    }
}

/// The persisted progress of a consolidation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsolidationState {
    /// Endpoint.
    pub endpoint: String,
    /// The configuration before (rollback target).
    pub from_config: String,
    /// The consolidated configuration.
    pub to_config: String,
    /// The winning variant.
    pub winner: String,
    /// `updating`, `done`, `failed`, `rolled_back`.
    pub phase: String,
    /// Why it failed, when it did.
    pub failure: Option<String>,
}

/// Writes `state` to `path` (atomically, fsync'd).
pub fn save_consolidation(path: &Path, state: &ConsolidationState) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let body = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&body)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// Reads a consolidation state (None when there is none or it is unreadable).
pub fn load_consolidation(path: &Path) -> Option<ConsolidationState> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// `<config>-c<epoch>`, within SageMaker's 63 characters.
fn consolidated_name(from: &str) -> String {
    let stamp = format!(
        "-c{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    );
    let keep = 63 - stamp.len();
    let base: String = from.chars().take(keep).collect();
    format!("{}{stamp}", base.trim_end_matches('-'))
}

impl Fleet {
    /// The plan to keep only `winner` on `endpoint`: refused unless the endpoint is InService and
    /// the winner holds all the traffic.
    pub async fn plan_consolidation(&self, endpoint: &str, winner: &str) -> Result<ConsolidationPlan, AwsError> {
        let ep = self
            .sagemaker
            .describe_endpoint()
            .endpoint_name(endpoint)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let status = ep.endpoint_status().map(|s| s.as_str()).unwrap_or("");
        if status != "InService" {
            return Err(AwsError::Validation(format!(
                "{endpoint} is {status}; consolidation starts only when it is InService"
            )));
        }
        let from = ep.endpoint_config_name().unwrap_or_default().to_string();
        let cfg = self
            .sagemaker
            .describe_endpoint_config()
            .endpoint_config_name(&from)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let live = ep.production_variants();
        let total: f32 = live.iter().filter_map(|v| v.current_weight()).sum();
        let winner_live = live
            .iter()
            .find(|v| v.variant_name() == Some(winner))
            .ok_or_else(|| AwsError::Validation(format!("{endpoint} has no variant {winner}")))?;
        if total <= 0.0 || winner_live.current_weight().unwrap_or(0.0) < total {
            return Err(AwsError::Validation(format!(
                "{winner} does not hold 100% of {endpoint}'s traffic; promote it to 100 first"
            )));
        }
        let source = cfg
            .production_variants()
            .iter()
            .find(|v| v.variant_name() == Some(winner))
            .ok_or_else(|| AwsError::Validation(format!("config {from} has no variant {winner}")))?;
        let count = winner_live.current_instance_count().or(source.initial_instance_count());
        let mut variant = source.clone();
        variant.initial_instance_count = count;
        variant.initial_variant_weight = Some(1.0);
        let models: Vec<(String, String)> = cfg
            .production_variants()
            .iter()
            .map(|v| {
                (
                    v.variant_name().unwrap_or_default().to_string(),
                    v.model_name().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let before = live
            .iter()
            .map(|v| {
                let name = v.variant_name().unwrap_or_default().to_string();
                let model = models
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, m)| m.clone())
                    .unwrap_or_default();
                (name, model, f64::from(v.current_weight().unwrap_or(0.0)))
            })
            .collect();
        Ok(ConsolidationPlan {
            endpoint: endpoint.to_string(),
            to_config: consolidated_name(&from),
            from_config: from,
            winner: winner.to_string(),
            variant,
            before,
        })
    }

    /// Creates the consolidated configuration and sends UpdateEndpoint (compare-and-swap,
    /// audited, state saved at `state_path` before sending); then follows the deployment.
    pub async fn consolidate(
        &self,
        plan: &ConsolidationPlan,
        audited: &Audited,
        reason: Option<String>,
        state_path: &Path,
        poll: Duration,
        timeout: Duration,
    ) -> Result<ConsolidationState, GuardError> {
        let now = self.plan_consolidation(&plan.endpoint, &plan.winner).await?;
        if now.from_config != plan.from_config {
            let why = format!(
                "{} is now on config {}, not {} as previewed; nothing was sent",
                plan.endpoint, now.from_config, plan.from_config
            );
            audited.refused("promote.consolidate", &plan.endpoint, &why, reason);
            return Err(GuardError::Aws(AwsError::Validation(why)));
        }
        let preview = plan.preview();
        let pending = audited
            .intent(Mutation {
                action: "promote.consolidate".into(),
                target: plan.endpoint.clone(),
                before: preview["before"].clone(),
                after: preview["after"].clone(),
                reason,
            })
            .await?;
        let mut state = ConsolidationState {
            endpoint: plan.endpoint.clone(),
            from_config: plan.from_config.clone(),
            to_config: plan.to_config.clone(),
            winner: plan.winner.clone(),
            phase: "updating".into(),
            failure: None,
        };
        let sent = self.send_consolidation(plan, state_path, &state).await;
        let outcome = match &sent {
            Ok(rid) => Ok(rid.clone()),
            Err(e) => Err(e.to_string()),
        };
        let _ = audited.finish(&pending, outcome);
        sent?;
        state = self.finish_consolidation(state, state_path, poll, timeout).await?;
        Ok(state)
    }

    async fn send_consolidation(
        &self,
        plan: &ConsolidationPlan,
        state_path: &Path,
        state: &ConsolidationState,
    ) -> Result<Option<String>, AwsError> {
        self.sagemaker
            .create_endpoint_config()
            .endpoint_config_name(&plan.to_config)
            .production_variants(plan.variant.clone())
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        self.save_then_update(state_path, state, &plan.to_config).await
    }

    /// Saves `state` (so a kill -9 from here on is resumable), then sends UpdateEndpoint onto
    /// `config`; the request id.
    pub(crate) async fn save_then_update(
        &self,
        state_path: &Path,
        state: &ConsolidationState,
        config: &str,
    ) -> Result<Option<String>, AwsError> {
        save_consolidation(state_path, state)
            .map_err(|e| AwsError::Config(format!("{}: {e}", state_path.display())))?;
        let out = self
            .sagemaker
            .update_endpoint()
            .endpoint_name(&state.endpoint)
            .endpoint_config_name(config)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        use aws_sdk_sagemaker::operation::RequestId;
        Ok(out.request_id().map(str::to_string))
    }

    /// Follows a sent consolidation (or rollback) to its end: done when the endpoint is InService
    /// on the target configuration without FailureReason; failed (with SageMaker's reason) when
    /// it is back on another configuration or Failed. Saves the outcome at `state_path`.
    pub async fn finish_consolidation(
        &self,
        mut state: ConsolidationState,
        state_path: &Path,
        poll: Duration,
        timeout: Duration,
    ) -> Result<ConsolidationState, GuardError> {
        let target = if state.phase == "rolling_back" {
            state.from_config.clone()
        } else {
            state.to_config.clone()
        };
        let started = Instant::now();
        let ep = loop {
            let ep = self
                .sagemaker
                .describe_endpoint()
                .endpoint_name(&state.endpoint)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            let status = ep.endpoint_status().map(|s| s.as_str().to_string()).unwrap_or_default();
            if matches!(status.as_str(), "InService" | "Failed" | "UpdateRollbackFailed") {
                break ep;
            }
            if started.elapsed() > timeout {
                return Err(GuardError::Aws(AwsError::Timeout(format!(
                    "{} still {status} after {timeout:?}; run the same command again to keep following it",
                    state.endpoint
                ))));
            }
            tokio::time::sleep(poll).await;
        };
        let on = ep.endpoint_config_name().unwrap_or_default();
        let ok = on == target && ep.endpoint_status().map(|s| s.as_str()) == Some("InService");
        if ok && (ep.failure_reason().is_none() || state.phase == "rolling_back") {
            state.phase = if state.phase == "rolling_back" {
                "rolled_back"
            } else {
                "done"
            }
            .into();
            state.failure = None;
        } else {
            state.phase = "failed".into();
            state.failure = Some(format!(
                "the deployment of {target} failed ({}); {} is {} on {on}",
                ep.failure_reason().unwrap_or("no reason given"),
                state.endpoint,
                ep.endpoint_status().map(|s| s.as_str()).unwrap_or("?"),
            ));
        }
        save_consolidation(state_path, &state)
            .map_err(|e| GuardError::Aws(AwsError::Config(format!("{}: {e}", state_path.display()))))?;
        Ok(state)
    }

    /// Rolls a consolidation back: UpdateEndpoint to the kept configuration (audited), followed
    /// to the end.
    pub async fn unconsolidate(
        &self,
        mut state: ConsolidationState,
        audited: &Audited,
        reason: Option<String>,
        state_path: &Path,
        poll: Duration,
        timeout: Duration,
    ) -> Result<ConsolidationState, GuardError> {
        let pending = audited
            .intent(Mutation {
                action: "promote.unconsolidate".into(),
                target: state.endpoint.clone(),
                before: json!({"config": state.to_config}),
                after: json!({"config": state.from_config}),
                reason,
            })
            .await?;
        state.phase = "rolling_back".into();
        let sent = self.save_then_update(state_path, &state, &state.from_config).await;
        let _ = audited.finish(
            &pending,
            match &sent {
                Ok(rid) => Ok(rid.clone()),
                Err(e) => Err(e.to_string()),
            },
        );
        sent?;
        self.finish_consolidation(state, state_path, poll, timeout).await
    }
}
