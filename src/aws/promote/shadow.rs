//! Shadow variants: the promotion judge (Mann-Whitney, inconclusive = hold) on the production
//! variant against its shadow over a window, and promoting the shadow — a new endpoint
//! configuration whose only production variant is the shadow (its settings copied whole, its
//! live instance count, weight 1, no shadow left), UpdateEndpoint onto it, followed to the end as
//! consolidation is: the old configuration kept for going back, a failed deployment (SageMaker
//! rolls back onto the old configuration with a FailureReason) an error.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::{Audited, GuardError};
use crate::aws::config::Fleet;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::error::AwsError;
use crate::aws::judge::compare::{JudgeConfig, MetricVerdict, Outcome, combine};
use crate::aws::promote::consolidate::{ConsolidationPlan, ConsolidationState};

/// The judge's report on a shadow against production.
#[derive(Debug, Clone, Serialize)]
pub struct ShadowReport {
    /// Endpoint.
    pub endpoint: String,
    /// The production variant (the baseline).
    pub production: String,
    /// The shadow variant (judged as the canary).
    pub shadow: String,
    /// The share of production requests copied to the shadow.
    pub sampled_share: f64,
    /// The window judged: [start, end) in epoch seconds.
    pub window: (f64, f64),
    /// pass (no significant regression), fail (worse beyond the tolerance) or inconclusive
    /// (too little data: hold).
    pub outcome: Outcome,
    /// Metric by metric.
    pub verdicts: Vec<MetricVerdict>,
}

/// The production variant and the shadow of an endpoint (one of each, as AWS allows), or why
/// not.
pub fn shadow_pair(info: &EndpointInfo) -> Result<(String, String), AwsError> {
    let shadow = match info.shape.shadow_variants.as_slice() {
        [one] => one.name.clone(),
        [] => return Err(AwsError::Validation(format!("{} has no shadow variant", info.name))),
        _ => {
            return Err(AwsError::Validation(format!(
                "{} has several shadow variants",
                info.name
            )));
        }
    };
    let production = info
        .variants
        .first()
        .map(|v| v.name.clone())
        .ok_or_else(|| AwsError::Validation(format!("{} has no production variant", info.name)))?;
    Ok((production, shadow))
}

fn now_epoch() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

impl Fleet {
    /// Judges the shadow of `endpoint` against its production variant over the last `window`.
    pub async fn judge_shadow(
        &self,
        endpoint: &str,
        window: Duration,
        cfg: &JudgeConfig,
    ) -> Result<ShadowReport, AwsError> {
        let info = self.endpoint(endpoint).await?;
        let (production, shadow) = shadow_pair(&info)?;
        let sampled_share = info.shape.shadow_variants[0].traffic_share;
        // The metrics plan covers the variants it is given: production and shadow side by side.
        let mut both = info.clone();
        both.variants.extend(info.shape.shadow_variants.iter().cloned());
        let end = now_epoch();
        let start = end - window.as_secs_f64();
        let verdicts = self
            .window_judgement(&both, &shadow, &production, start, end, cfg)
            .await?;
        Ok(ShadowReport {
            endpoint: info.name.clone(),
            production,
            shadow,
            sampled_share,
            window: (start, end),
            outcome: combine(&verdicts),
            verdicts,
        })
    }

    /// The plan that makes the shadow of `endpoint` its production variant: refused unless the
    /// endpoint is InService with one shadow.
    pub async fn plan_shadow_promotion(&self, endpoint: &str) -> Result<ConsolidationPlan, AwsError> {
        let info = self.endpoint(endpoint).await?;
        if info.status != "InService" {
            return Err(AwsError::Validation(format!(
                "{endpoint} is {}; a shadow is promoted only when it is InService",
                info.status
            )));
        }
        let (_, shadow) = shadow_pair(&info)?;
        let from = info.config_name.clone().unwrap_or_default();
        let cfg = self
            .sagemaker
            .describe_endpoint_config()
            .endpoint_config_name(&from)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let source = cfg
            .shadow_production_variants()
            .iter()
            .find(|v| v.variant_name() == Some(shadow.as_str()))
            .ok_or_else(|| AwsError::Validation(format!("config {from} has no shadow variant {shadow}")))?;
        let live = &info.shape.shadow_variants[0];
        let mut variant = source.clone();
        if variant.serverless_config().is_none() {
            variant.initial_instance_count = Some(live.current_instances.max(1));
        }
        variant.initial_variant_weight = Some(1.0);
        let before = info
            .variants
            .iter()
            .chain(&info.shape.shadow_variants)
            .map(|v| {
                (
                    v.name.clone(),
                    v.model_name.clone().unwrap_or_default(),
                    v.current_weight,
                )
            })
            .collect();
        Ok(ConsolidationPlan {
            endpoint: endpoint.to_string(),
            to_config: promoted_name(&from),
            from_config: from,
            winner: shadow,
            variant,
            before,
        })
    }

    /// Sends a shadow promotion: compare-and-swap (the endpoint still on the configuration the
    /// plan was made from), the intent audited first, the state saved at `state_path` before
    /// UpdateEndpoint; then followed to its end.
    pub async fn promote_shadow(
        &self,
        plan: &ConsolidationPlan,
        audited: &Audited,
        reason: Option<String>,
        state_path: &Path,
        (poll, timeout): (Duration, Duration),
    ) -> Result<ConsolidationState, GuardError> {
        let lock = audited.audit.lock_exclusive().await?;
        let now = self.plan_shadow_promotion(&plan.endpoint).await?;
        if now.from_config != plan.from_config || now.winner != plan.winner {
            let why = format!(
                "{} is now on config {} with shadow {}, not {} with {} as previewed; nothing was sent",
                plan.endpoint, now.from_config, now.winner, plan.from_config, plan.winner
            );
            audited.refused("shadow.promote", &plan.endpoint, &why, reason);
            return Err(GuardError::Aws(AwsError::Validation(why)));
        }
        let preview = plan.preview();
        let pending = audited
            .intent(Mutation {
                action: "shadow.promote".into(),
                target: plan.endpoint.clone(),
                before: preview["before"].clone(),
                after: preview["after"].clone(),
                reason,
            })
            .await?;
        let state = ConsolidationState {
            endpoint: plan.endpoint.clone(),
            from_config: plan.from_config.clone(),
            to_config: plan.to_config.clone(),
            winner: plan.winner.clone(),
            phase: "updating".into(),
            failure: None,
        };
        let created = self
            .sagemaker
            .create_endpoint_config()
            .endpoint_config_name(&plan.to_config)
            .production_variants(plan.variant.clone())
            .send()
            .await
            .map_err(AwsError::from_sdk);
        let sent = match created {
            Ok(_) => self.save_then_update(state_path, &state, &plan.to_config).await,
            Err(e) => Err(e),
        };
        let _ = audited.finish(&pending, sent.clone().map_err(|e| e.to_string()));
        sent?;
        // Sent: other writers may go on while the deployment is followed.
        drop(lock);
        self.finish_consolidation(state, state_path, poll, timeout).await
    }
}

/// `<config>-s<epoch>`, within SageMaker's 63 characters.
fn promoted_name(from: &str) -> String {
    let stamp = format!("-s{}", now_epoch() as u64);
    let base: String = from.chars().take(63 - stamp.len()).collect();
    format!("{}{stamp}", base.trim_end_matches('-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_promoted_configuration_name_fits_sagemaker() {
        let long = "c".repeat(80);
        let name = promoted_name(&long);
        assert!(name.len() <= 63 && name.contains("-s"), "{name}");
        assert!(promoted_name("cfg-").starts_with("cfg-s"));
    }
}
