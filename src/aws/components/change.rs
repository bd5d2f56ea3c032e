//! Changes to an inference component, typed so that the read-only gates and the audit log see
//! them: copies now (UpdateInferenceComponentRuntimeConfig) and a rolling update of its
//! specification to another model (UpdateInferenceComponent with a DeploymentConfig). Each is
//! planned against what was read ([`ComponentSnapshot`]), compare-and-swapped right before
//! sending (the component described again: not InService, or another copy count or model than
//! was seen, refuses with every difference and sends nothing), audited (intent before, result
//! after), and checked after sending (another writer's count landing with this one is a lost
//! race).

use aws_sdk_sagemaker::operation::RequestId;
use aws_sdk_sagemaker::operation::describe_inference_component::DescribeInferenceComponentOutput;
use aws_sdk_sagemaker::types::{
    InferenceComponentRuntimeConfig, InferenceComponentSpecification, InferenceComponentSpecificationSummary,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::{Audited, Difference, GuardError};
use crate::aws::components::inventory::{Component, component_of};
use crate::aws::components::policy::RollingUpdate;
use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// One change to an inference component.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum ComponentChange {
    /// Set the desired copy count now.
    Copies {
        /// The count.
        count: i32,
    },
    /// Roll the component's specification over to another model.
    Update(Box<RollingUpdate>),
}

impl ComponentChange {
    /// The audit log's action name.
    pub fn action(&self) -> &'static str {
        match self {
            ComponentChange::Copies { .. } => "components.set-copies",
            ComponentChange::Update(_) => "components.update",
        }
    }

    /// What it asks for, as audit JSON.
    pub fn after_json(&self) -> Value {
        match self {
            ComponentChange::Copies { count } => json!({ "desired_copies": count }),
            ComponentChange::Update(u) => json!(u),
        }
    }
}

/// What the operator saw of a component: it must still be so when the change is sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentSnapshot {
    /// Component name.
    pub component: String,
    /// Desired copies seen.
    pub desired_copies: i32,
    /// Model seen.
    pub model: Option<String>,
}

impl ComponentSnapshot {
    /// The component as read.
    pub fn of(c: &Component) -> ComponentSnapshot {
        ComponentSnapshot {
            component: c.name.clone(),
            desired_copies: c.copies.desired,
            model: c.model.clone(),
        }
    }

    /// Every difference between this (what was seen) and `now`, its status included.
    pub fn differences(&self, now: &Component) -> Vec<Difference> {
        let diff = |field: &str, expected: String, actual: String| Difference {
            variant: String::new(),
            field: field.to_string(),
            expected,
            actual,
        };
        let mut out = Vec::new();
        if now.copies.desired != self.desired_copies {
            out.push(diff(
                "desired_copies",
                self.desired_copies.to_string(),
                now.copies.desired.to_string(),
            ));
        }
        if now.model != self.model {
            let text = |m: &Option<String>| m.clone().unwrap_or_else(|| "-".into());
            out.push(diff("model", text(&self.model), text(&now.model)));
        }
        out
    }
}

/// Whether `count` copies may be asked of `c`: a whole number >= 0, not on an adapter (its copies
/// are its base's), and 0 only where `zero` allows it (see [`Fleet::zero_copies_rule`]). The
/// error says what AWS requires.
pub fn check_copies(c: &Component, count: i32, zero: Result<(), String>) -> Result<(), String> {
    if let Some(base) = &c.base_component {
        return Err(format!(
            "{} is an adapter on {base}: it has no copies of its own (set {base}'s copies instead)",
            c.name
        ));
    }
    if count < 0 {
        return Err(format!("copies of {} must be 0 or more (got {count})", c.name));
    }
    if count == 0 {
        zero.map_err(|why| format!("{} cannot go to 0 copies: {why}", c.name))?;
    }
    Ok(())
}

/// Whether `c` may be rolled over to `update`'s model: not an adapter (its model is its base's),
/// not the model it already serves, and a policy within AWS's ranges.
pub fn check_update(c: &Component, update: &RollingUpdate) -> Result<(), String> {
    update.validate()?;
    if let Some(base) = &c.base_component {
        return Err(format!(
            "{} is an adapter on {base}: it serves its base's model (update {base} instead)",
            c.name
        ));
    }
    if c.model.as_deref() == Some(update.model.as_str()) {
        return Err(format!(
            "{} already serves {}: nothing to roll out",
            c.name, update.model
        ));
    }
    Ok(())
}

/// A change that was sent.
#[derive(Debug, Clone, Serialize)]
pub struct ComponentApplied {
    /// The component as described right before sending.
    pub before: Component,
    /// AWS request id of the update.
    pub request_id: Option<String>,
    /// Set when the result line could not be written (the change was sent regardless).
    pub audit_warning: Option<String>,
}

/// The specification `summary` describes, serving `model` instead (the compute reservation,
/// startup parameters and scheduling kept; the model brings its own container).
fn respecified(summary: &InferenceComponentSpecificationSummary, model: &str) -> InferenceComponentSpecification {
    InferenceComponentSpecification::builder()
        .set_instance_type(summary.instance_type().cloned())
        .model_name(model)
        .set_startup_parameters(summary.startup_parameters().cloned())
        .set_compute_resource_requirements(summary.compute_resource_requirements().cloned())
        .set_scheduling_config(summary.scheduling_config().cloned())
        .build()
}

impl Fleet {
    /// Whether `c` may go to 0 copies: AWS scales a component to zero only when its endpoint's
    /// variant has ManagedInstanceScaling enabled with MinInstanceCount 0. `Err` says what is
    /// missing.
    pub async fn zero_copies_rule(&self, c: &Component) -> Result<Result<(), String>, AwsError> {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let ep = self
            .sagemaker
            .describe_endpoint()
            .endpoint_name(&c.endpoint)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let Some(config_name) = ep.endpoint_config_name() else {
            return Ok(Err(format!("endpoint {} has no configuration to read", c.endpoint)));
        };
        let config = self.endpoint_config(config_name, &calls).await?;
        let variant = config
            .production_variants()
            .iter()
            .find(|v| v.variant_name() == Some(c.variant.as_str()));
        let scaling = variant.and_then(|v| v.managed_instance_scaling());
        let enabled = scaling
            .and_then(|m| m.status())
            .is_some_and(|s| s.as_str() == "ENABLED");
        let min = scaling.and_then(|m| m.min_instance_count());
        Ok(match (enabled, min) {
            (true, Some(0)) => Ok(()),
            _ => Err(format!(
                "AWS allows 0 copies only when the variant's ManagedInstanceScaling is ENABLED with MinInstanceCount 0, and {}/{} has {}",
                c.endpoint,
                c.variant,
                match (enabled, min) {
                    (true, Some(n)) => format!("MinInstanceCount {n}"),
                    _ => "no ManagedInstanceScaling enabled".into(),
                }
            )),
        })
    }

    /// Sends `change` to `component` only if it is still as `seen` (see the module docs), with an
    /// intent line before and a result line after in `audited`'s log.
    pub async fn apply_component_change(
        &self,
        change: &ComponentChange,
        seen: &ComponentSnapshot,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<ComponentApplied, GuardError> {
        let name = seen.component.as_str();
        let action = change.action();
        // Writers sharing this log check, send and re-read one at a time.
        let _lock = audited.audit.lock_exclusive().await?;
        let raw = self.describe_component_now(name).await?;
        let now = component_of(&raw);
        let refuse = |err: GuardError| {
            audited.refused(action, name, &err.to_string(), reason.clone());
            Err(err)
        };
        let differences = seen.differences(&now);
        if !differences.is_empty() {
            return refuse(GuardError::Changed {
                endpoint: name.to_string(),
                differences,
            });
        }
        if now.status != "InService" {
            return refuse(GuardError::NotInService {
                endpoint: name.to_string(),
                status: now.status.clone(),
            });
        }
        let pending = audited
            .intent(Mutation {
                action: action.to_string(),
                target: name.to_string(),
                before: json!({ "status": now.status, "desired_copies": now.copies.desired,
                "current_copies": now.copies.current, "model": now.model }),
                after: change.after_json(),
                reason: reason.clone(),
            })
            .await?;
        let sent = self.send_component_change(name, change, &raw).await;
        let request_id = match sent {
            Ok(id) => id,
            Err(e) => {
                let _ = audited.finish(&pending, Err(e.to_string()));
                return Err(GuardError::Aws(e));
            }
        };
        let lost = match change {
            ComponentChange::Copies { count } => self.lost_copies_race(name, *count).await,
            ComponentChange::Update(_) => None,
        };
        let outcome = match &lost {
            None => Ok(request_id.clone()),
            Some(e) => Err(format!(
                "sent (request id {}), then {e}",
                request_id.as_deref().unwrap_or("-")
            )),
        };
        let audit_warning = audited.finish(&pending, outcome).err().map(|e| e.to_string());
        if let Some(e) = lost {
            return Err(e);
        }
        Ok(ComponentApplied {
            before: now,
            request_id,
            audit_warning,
        })
    }

    /// The lost race, if the component does not now want `count` copies.
    async fn lost_copies_race(&self, name: &str, count: i32) -> Option<GuardError> {
        let now = self.describe_component(name).await.ok()?;
        (now.copies.desired != count).then(|| GuardError::LostRace {
            endpoint: name.to_string(),
            differences: vec![Difference {
                variant: String::new(),
                field: "desired_copies".into(),
                expected: count.to_string(),
                actual: now.copies.desired.to_string(),
            }],
        })
    }

    async fn send_component_change(
        &self,
        name: &str,
        change: &ComponentChange,
        raw: &DescribeInferenceComponentOutput,
    ) -> Result<Option<String>, AwsError> {
        match change {
            ComponentChange::Copies { count } => self
                .sagemaker
                .update_inference_component_runtime_config()
                .inference_component_name(name)
                .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(*count).build())
                .send()
                .await
                .map(|o| o.request_id().map(str::to_string))
                .map_err(AwsError::from_sdk),
            ComponentChange::Update(u) => {
                let mut req = self
                    .sagemaker
                    .update_inference_component()
                    .inference_component_name(name)
                    .deployment_config(u.deployment_config());
                if let Some(spec) = raw.specification() {
                    req = req.specification(respecified(spec, &u.model));
                }
                for spec in raw.specifications() {
                    req = req.specifications(respecified(spec, &u.model));
                }
                req.send()
                    .await
                    .map(|o| o.request_id().map(str::to_string))
                    .map_err(AwsError::from_sdk)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_counts_are_checked_before_anything_is_sent() {
        let c = Component {
            name: "ic".into(),
            ..Default::default()
        };
        assert!(check_copies(&c, 2, Err("no".into())).is_ok());
        assert!(check_copies(&c, -1, Ok(())).is_err());
        let zero = check_copies(&c, 0, Err("AWS allows 0 copies only when ...".into())).unwrap_err();
        assert!(zero.contains("cannot go to 0 copies: AWS allows"), "{zero}");
        assert!(check_copies(&c, 0, Ok(())).is_ok());
        let adapter = Component {
            base_component: Some("base".into()),
            ..c
        };
        assert!(
            check_copies(&adapter, 1, Ok(()))
                .unwrap_err()
                .contains("adapter on base")
        );
    }
}
