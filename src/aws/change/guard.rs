//! Compare-and-swap weight changes. A change carries what the operator saw ([`Expectation`]):
//! right before sending, the endpoint is described again; when it is not InService, or a variant's
//! current or desired weight or instance count differs from what was seen, the change is refused
//! with every difference and nothing is sent. Otherwise the intent is written to the audit log
//! (nothing is sent when that fails), UpdateEndpointWeightsAndCapacities is sent and its result
//! and request id are logged. AWS has no conditional update: the window left between the second
//! look and the update is one round trip.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use aws_sdk_sagemaker::operation::RequestId;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::aws::change::audit::{Audit, AuditContext, AuditError, Mutation};
use crate::aws::change::weights::{WeightPlan, weight_text, wire_weight};
use crate::aws::config::Fleet;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::error::AwsError;

/// What the operator saw of one variant; `None` fields are not checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VariantExpectation {
    /// Variant name.
    pub variant: String,
    /// Current weight seen.
    pub current_weight: Option<f64>,
    /// Desired weight seen.
    pub desired_weight: Option<f64>,
    /// Current instance count seen.
    pub current_instances: Option<i32>,
    /// Desired instance count seen.
    pub desired_instances: Option<i32>,
}

/// What the operator saw of an endpoint: it must still be so when the change is sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expectation {
    /// Endpoint name.
    pub endpoint: String,
    /// Variants to check (others are not checked).
    pub variants: Vec<VariantExpectation>,
}

/// One difference between what was seen and what is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// Variant (empty for the endpoint's status).
    pub variant: String,
    /// `status`, `current_weight`, `desired_weight`, `current_instances`, `desired_instances`,
    /// `variant` (missing).
    pub field: String,
    /// What was seen.
    pub expected: String,
    /// What is.
    pub actual: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.variant.is_empty() {
            write!(f, "{} {} → {}", self.field, self.expected, self.actual)
        } else {
            write!(f, "{} {} {} → {}", self.variant, self.field, self.expected, self.actual)
        }
    }
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

impl Expectation {
    /// Everything the operator was shown: every variant's current and desired weight and
    /// instance count.
    pub fn from_info(info: &EndpointInfo) -> Expectation {
        Expectation {
            endpoint: info.name.clone(),
            variants: info
                .variants
                .iter()
                .map(|v| VariantExpectation {
                    variant: v.name.clone(),
                    current_weight: Some(v.current_weight),
                    desired_weight: Some(v.desired_weight),
                    current_instances: Some(v.current_instances),
                    desired_instances: Some(v.desired_instances),
                })
                .collect(),
        }
    }

    /// Weights only (current and desired), as `--expect Stable=9,Canary=1` gives them.
    pub fn from_weights(endpoint: &str, weights: &[(String, f64)]) -> Expectation {
        Expectation {
            endpoint: endpoint.to_string(),
            variants: weights
                .iter()
                .map(|(v, w)| VariantExpectation {
                    variant: v.clone(),
                    current_weight: Some(*w),
                    desired_weight: Some(*w),
                    ..Default::default()
                })
                .collect(),
        }
    }

    /// Parses `--expect` values: `VARIANT=WEIGHT`, comma-separated and/or repeated.
    pub fn parse(endpoint: &str, args: &[String]) -> Result<Expectation, String> {
        let mut weights = Vec::new();
        for part in args.iter().flat_map(|a| a.split(',')).filter(|p| !p.trim().is_empty()) {
            let (v, w) = part
                .split_once('=')
                .ok_or_else(|| format!("--expect `{part}` is not VARIANT=WEIGHT"))?;
            let w: f64 = w
                .trim()
                .parse()
                .map_err(|_| format!("--expect weight `{w}` of variant {v} is not a number"))?;
            wire_weight(w).map_err(|why| format!("--expect weight of {v} {why}"))?;
            weights.push((v.trim().to_string(), w));
        }
        if weights.is_empty() {
            return Err("--expect needs VARIANT=WEIGHT[,VARIANT=WEIGHT...]".into());
        }
        Ok(Expectation::from_weights(endpoint, &weights))
    }

    /// The differences between this expectation and the endpoint as it is (the endpoint must
    /// also be InService). Empty: the change may go.
    pub fn check(&self, info: &EndpointInfo) -> Vec<Difference> {
        let mut out = Vec::new();
        let diff = |variant: &str, field: &str, expected: String, actual: String| Difference {
            variant: variant.to_string(),
            field: field.to_string(),
            expected,
            actual,
        };
        if info.status != "InService" {
            out.push(diff("", "status", "InService".into(), info.status.clone()));
        }
        for e in &self.variants {
            let Some(v) = info.variant(&e.variant) else {
                out.push(diff(&e.variant, "variant", "present".into(), "missing".into()));
                continue;
            };
            let weights = [
                ("current_weight", e.current_weight, v.current_weight),
                ("desired_weight", e.desired_weight, v.desired_weight),
            ];
            for (field, want, got) in weights {
                if let Some(w) = want
                    && !same(w, got)
                {
                    out.push(diff(&e.variant, field, weight_text(w), weight_text(got)));
                }
            }
            let counts = [
                ("current_instances", e.current_instances, v.current_instances),
                ("desired_instances", e.desired_instances, v.desired_instances),
            ];
            for (field, want, got) in counts {
                if let Some(n) = want
                    && n != got
                {
                    out.push(diff(&e.variant, field, n.to_string(), got.to_string()));
                }
            }
        }
        out
    }
}

/// Why a guarded change was not (or not completely) made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GuardError {
    /// The endpoint is not as the operator saw it: nothing was sent.
    #[error("refused: {endpoint} changed since it was read ({}); nothing was sent (look again, then retry)", .differences.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("; "))]
    Changed {
        /// Endpoint.
        endpoint: String,
        /// What differs.
        differences: Vec<Difference>,
    },
    /// The endpoint is not InService (Creating, Updating, Failed...): nothing was sent.
    #[error("refused: {endpoint} is {status}; it changes only when InService; nothing was sent (wait, then retry)")]
    NotInService {
        /// Endpoint.
        endpoint: String,
        /// Its status.
        status: String,
    },
    /// The change was sent, but another writer's change landed with it: the endpoint does not
    /// hold what this change asked for.
    #[error("lost race: another change to {endpoint} landed with this one ({}); the endpoint keeps the other's values (look again, then retry)", .differences.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("; "))]
    LostRace {
        /// Endpoint.
        endpoint: String,
        /// Where the endpoint differs from what was asked (expected: asked, actual: what is).
        differences: Vec<Difference>,
    },
    /// The audit log could not be written: nothing was sent.
    #[error("{0}")]
    Audit(#[from] AuditError),
    /// An AWS call failed (the describe, or the update itself).
    #[error("{0}")]
    Aws(#[from] AwsError),
}

/// An audit log and who writes to it: what every guarded mutation needs.
#[derive(Debug, Clone)]
pub struct Audited {
    /// The log.
    pub audit: Arc<Audit>,
    /// Principal, profile, region, endpoint URL.
    pub ctx: AuditContext,
}

impl Audited {
    /// Opens the log at `path` and names the principal of `fleet` (STS GetCallerIdentity).
    pub async fn open(path: impl AsRef<std::path::Path>, fleet: &Fleet) -> Result<Audited, AuditError> {
        let audit = Audit::open(path)?;
        Ok(Audited {
            audit: Arc::new(audit),
            ctx: AuditContext::from_fleet(fleet).await,
        })
    }

    /// Writes an intent line (and puts it in the team's trail when one is attached); send only
    /// when this is Ok.
    pub async fn intent(&self, m: Mutation) -> Result<crate::aws::change::audit::Pending, AuditError> {
        self.audit.intent(&self.ctx, m).await
    }

    /// [`Audited::intent`] for code that cannot wait: the file holds it before this returns,
    /// the team's trail gets it in the background.
    pub fn intent_now(&self, m: Mutation) -> Result<crate::aws::change::audit::Pending, AuditError> {
        self.audit.intent_now(&self.ctx, m)
    }

    /// Writes the result line of an intent: `Ok(request id)` or the error text.
    pub fn finish(
        &self,
        pending: &crate::aws::change::audit::Pending,
        outcome: Result<Option<String>, String>,
    ) -> Result<(), AuditError> {
        self.audit.finish(pending, outcome)
    }

    /// [`Audited::finish`] with figures merged into the result line's `after`.
    pub fn finish_with(
        &self,
        pending: &crate::aws::change::audit::Pending,
        outcome: Result<Option<String>, String>,
        figures: Value,
    ) -> Result<(), AuditError> {
        self.audit.finish_with(pending, outcome, figures)
    }

    /// Writes a single line for a refused mutation (nothing was sent). Best effort.
    pub fn refused(&self, action: &str, target: &str, why: &str, reason: Option<String>) {
        let m = Mutation {
            action: action.to_string(),
            target: target.to_string(),
            before: Value::Null,
            after: Value::Null,
            reason,
        };
        let _ = self.audit.refused(&self.ctx, m, why);
    }
}

/// A change that was sent.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// The endpoint as described right before sending.
    pub before: EndpointInfo,
    /// AWS request id of UpdateEndpointWeightsAndCapacities.
    pub request_id: Option<String>,
    /// Set when the result line could not be written (the change was sent regardless).
    pub audit_warning: Option<String>,
}

/// The weights and counts of an endpoint as audit JSON.
pub fn weights_json(info: &EndpointInfo) -> Value {
    json!({
        "status": info.status,
        "variants": info.variants.iter().map(|v| json!({
            "variant": v.name,
            "current_weight": v.current_weight,
            "desired_weight": v.desired_weight,
            "current_instances": v.current_instances,
            "desired_instances": v.desired_instances,
        })).collect::<Vec<_>>(),
    })
}

impl Fleet {
    /// Sends `plan` only if the endpoint is still as `expect` says (see the module docs), with an
    /// intent line before and a result line after in `audited`'s log under `action`.
    pub async fn apply_weights_guarded(
        &self,
        plan: &WeightPlan,
        expect: &Expectation,
        audited: &Audited,
        action: &str,
        reason: Option<String>,
    ) -> Result<Applied, GuardError> {
        // Writers sharing this log check, send and re-read one at a time.
        let _lock = audited.audit.lock_exclusive().await?;
        let calls = AtomicUsize::new(0);
        let info = self.describe_endpoint_info(&plan.endpoint, &calls).await?;
        let differences = expect.check(&info);
        if !differences.is_empty() {
            let err = GuardError::Changed {
                endpoint: plan.endpoint.clone(),
                differences,
            };
            audited.refused(action, &plan.endpoint, &err.to_string(), reason);
            return Err(err);
        }
        let pending = audited
            .intent(Mutation {
                action: action.to_string(),
                target: plan.endpoint.clone(),
                before: weights_json(&info),
                after: json!({ "variants": plan.after, "changes": plan.changes }),
                reason,
            })
            .await?;
        let sent = self.weights_request(plan).send().await;
        match sent {
            Ok(out) => {
                let request_id = out.request_id().map(str::to_string);
                // Accepted: the endpoint must now want what was asked, else another writer's
                // change landed with this one.
                let after = self.describe_endpoint_info(&plan.endpoint, &calls).await;
                let lost = match &after {
                    Ok(now) => lost_race(plan, now, false),
                    Err(_) => None,
                };
                let outcome = match &lost {
                    None => Ok(request_id.clone()),
                    Some(e) => Err(format!(
                        "sent (request id {}), then {e}",
                        request_id.as_deref().unwrap_or("-")
                    )),
                };
                let audit_warning = audited.audit.finish(&pending, outcome).err().map(|e| e.to_string());
                if let Some(e) = lost {
                    return Err(e);
                }
                Ok(Applied {
                    before: info,
                    request_id,
                    audit_warning,
                })
            }
            Err(e) => {
                let rid = e.request_id().map(str::to_string);
                let err = AwsError::from_sdk(e);
                let text = match rid {
                    Some(r) => format!("{err} (request id {r})"),
                    None => err.to_string(),
                };
                let _ = audited.audit.finish(&pending, Err(text));
                Err(GuardError::Aws(err))
            }
        }
    }
}

/// The lost race, if `info` does not hold what `plan` asked: its desired weights and instance
/// counts (and, once `settled` at InService, the current ones).
pub fn lost_race(plan: &WeightPlan, info: &EndpointInfo, settled: bool) -> Option<GuardError> {
    let mut differences = Vec::new();
    let diff = |variant: &str, field: &str, asked: String, got: String| Difference {
        variant: variant.to_string(),
        field: field.to_string(),
        expected: asked,
        actual: got,
    };
    for c in &plan.changes {
        let Some(v) = info.variant(&c.variant) else {
            differences.push(diff(&c.variant, "variant", "present".into(), "missing".into()));
            continue;
        };
        let mut weights = vec![("desired_weight", v.desired_weight)];
        let mut counts = vec![("desired_instances", v.desired_instances)];
        if settled {
            weights.push(("current_weight", v.current_weight));
            counts.push(("current_instances", v.current_instances));
        }
        if let Some(w) = c.weight {
            let asked = wire_weight(w).map_or(w, f64::from);
            for (field, got) in weights.iter().filter(|(_, got)| !same(asked, *got)) {
                differences.push(diff(&c.variant, field, weight_text(w), weight_text(*got)));
            }
        }
        if let Some(n) = c.instances {
            for (field, got) in counts.iter().filter(|(_, got)| *got != n) {
                differences.push(diff(&c.variant, field, n.to_string(), got.to_string()));
            }
        }
    }
    (!differences.is_empty()).then(|| GuardError::LostRace {
        endpoint: plan.endpoint.clone(),
        differences,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_parse_and_show_differences() {
        let e = Expectation::parse("ep", &["Stable=9,Canary=1".into()]).unwrap();
        assert_eq!(e.variants.len(), 2);
        assert!(Expectation::parse("ep", &["Stable".into()]).is_err());
        assert!(Expectation::parse("ep", &["Stable=x".into()]).is_err());
        let d = Difference {
            variant: "Canary".into(),
            field: "current_weight".into(),
            expected: "1".into(),
            actual: "3".into(),
        };
        assert_eq!(d.to_string(), "Canary current_weight 1 → 3");
    }
}
