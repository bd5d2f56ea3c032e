//! Waking an inference component from zero copies: UpdateInferenceComponentRuntimeConfig with
//! one copy, guarded like every change (the copy count the operator saw is read again under the
//! audit log's lock and must still be so; the intent is written before anything is sent), then
//! followed — the component's CurrentCopyCount and its variant's instance count — until it
//! serves, each look reported as a [`WakeProgress`] to the caller's callback (the CLI prints it,
//! the console turns it into an event), bounded by a deadline.
//!
//! [`Fleet::ensure_capacity`] is what `--wait-for-capacity` runs when a call meets a component at
//! zero: wake it when allowed (not read-only), else only wait for someone else (the scale-to-zero
//! alarm and step policy) to wake it, and follow it until it serves.

use std::time::{Duration, Instant};

use aws_sdk_sagemaker::operation::RequestId;
use aws_sdk_sagemaker::types::InferenceComponentRuntimeConfig;
use serde::Serialize;
use serde_json::json;

use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::{Audited, Difference, GuardError};
use crate::aws::config::Fleet;
use crate::aws::error::AwsError;
use crate::aws::invoke::call::ser_ms;

/// The audit action of a wake.
pub const WAKE_ACTION: &str = "component.wake";

/// A component's copies as one DescribeInferenceComponent saw them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComponentCopies {
    /// Component name.
    pub component: String,
    /// The endpoint hosting it.
    pub endpoint: String,
    /// The variant hosting it.
    pub variant: String,
    /// `InService`, `Creating`, `Updating`, `Failed`, `Deleting`.
    pub status: String,
    /// Copies asked for.
    pub desired: i32,
    /// Copies serving.
    pub current: i32,
    /// Why it failed, when it did.
    pub failure_reason: Option<String>,
}

impl ComponentCopies {
    /// Whether it serves calls: InService with a copy up.
    pub fn serving(&self) -> bool {
        self.status == "InService" && self.current >= 1
    }
}

/// Where a wake stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WakePhase {
    /// At zero, nobody asked for a copy yet (read-only waits for the scaling alarm).
    AtZero,
    /// A copy is asked for; the variant has no instance to place it on yet.
    Instances,
    /// An instance is up; the copy is starting on it.
    Copies,
    /// A copy serves.
    Serving,
}

impl WakePhase {
    /// `at zero`, `starting an instance`, `starting a copy`, `serving`.
    pub fn text(self) -> &'static str {
        match self {
            WakePhase::AtZero => "at zero",
            WakePhase::Instances => "starting an instance",
            WakePhase::Copies => "starting a copy",
            WakePhase::Serving => "serving",
        }
    }

    fn of(copies: &ComponentCopies, instances: Option<i32>) -> WakePhase {
        if copies.serving() {
            WakePhase::Serving
        } else if copies.desired == 0 {
            WakePhase::AtZero
        } else if instances.unwrap_or(0) == 0 {
            WakePhase::Instances
        } else {
            WakePhase::Copies
        }
    }
}

/// One look at a waking component.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WakeProgress {
    /// Component name.
    pub component: String,
    /// Since the wake (or the wait) began.
    #[serde(rename = "elapsed_ms", serialize_with = "ser_ms")]
    pub elapsed: Duration,
    /// Where it stands.
    pub phase: WakePhase,
    /// Its copies and status.
    pub copies: ComponentCopies,
    /// The variant's current instance count (None when the endpoint did not answer).
    pub instances: Option<i32>,
}

impl WakeProgress {
    /// One line: `llm: starting an instance · copies 0/1 · instances 0 · 12s`.
    pub fn line(&self) -> String {
        format!(
            "{}: {} · copies {}/{} · instances {} · {:.0}s",
            self.component,
            self.phase.text(),
            self.copies.current,
            self.copies.desired,
            self.instances.map_or("?".into(), |n| n.to_string()),
            self.elapsed.as_secs_f64()
        )
    }
}

/// Who may wake a component, and why: the audit log and the operator's reason. Without one
/// (read-only), a wait only follows the component.
#[derive(Debug, Clone)]
pub struct Waker<'a> {
    /// The audit log the wake is written to first.
    pub audited: &'a Audited,
    /// The operator's reason.
    pub reason: Option<String>,
}

/// How long to follow, and how often to look.
#[derive(Debug, Clone, Copy)]
pub struct FollowOptions {
    /// Give up when the component does not serve by then.
    pub deadline: Duration,
    /// Between two looks.
    pub poll: Duration,
}

impl Default for FollowOptions {
    fn default() -> Self {
        FollowOptions {
            deadline: Duration::from_secs(900),
            poll: Duration::from_secs(2),
        }
    }
}

/// How a wake or a wait ended well.
#[derive(Debug, Clone, Serialize)]
pub struct WakeReport {
    /// Component name.
    pub component: String,
    /// Whether this call sent the wake (false: it already had a copy asked for, or read-only).
    pub woke: bool,
    /// Request id of UpdateInferenceComponentRuntimeConfig, when sent.
    pub request_id: Option<String>,
    /// The last look.
    pub last: Option<WakeProgress>,
    /// Set when the audit result line could not be written (the wake was sent regardless).
    pub audit_warning: Option<String>,
}

/// Why a wake or a wait did not end with a serving component.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WakeError {
    /// Refused before sending (changed since read, not InService, audit log unwritable), or an
    /// AWS call failed.
    #[error("{0}")]
    Guard(#[from] GuardError),
    /// The component failed while waking.
    #[error("inference component {component} failed while waking: {reason}")]
    Failed {
        /// Component name.
        component: String,
        /// Its failure reason.
        reason: String,
    },
    /// It did not serve within the deadline.
    #[error("inference component {component} did not serve within {:.0}s (last seen: {}); it may still be waking: look again with `sagedeck components`", .waited.as_secs_f64(), .last.as_ref().map_or("nothing".into(), |p| p.line()))]
    Deadline {
        /// Component name.
        component: String,
        /// How long it was followed.
        waited: Duration,
        /// The last look.
        last: Option<WakeProgress>,
    },
}

impl From<AwsError> for WakeError {
    fn from(e: AwsError) -> WakeError {
        WakeError::Guard(GuardError::Aws(e))
    }
}

impl Fleet {
    /// DescribeInferenceComponent: its copies and status.
    pub async fn component_copies(&self, component: &str) -> Result<ComponentCopies, AwsError> {
        let out = self
            .sagemaker
            .describe_inference_component()
            .inference_component_name(component)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let runtime = out.runtime_config();
        Ok(ComponentCopies {
            component: component.to_string(),
            endpoint: out.endpoint_name().unwrap_or_default().to_string(),
            variant: out.variant_name().unwrap_or_default().to_string(),
            status: out
                .inference_component_status()
                .map(|s| s.as_str().to_string())
                .unwrap_or_default(),
            desired: runtime.and_then(|r| r.desired_copy_count()).unwrap_or(0),
            current: runtime.and_then(|r| r.current_copy_count()).unwrap_or(0),
            failure_reason: out.failure_reason().map(str::to_string),
        })
    }

    /// The current instance count of the variant hosting `copies` (None when it cannot be read).
    async fn host_instances(&self, copies: &ComponentCopies) -> Option<i32> {
        let out = self
            .sagemaker
            .describe_endpoint()
            .endpoint_name(&copies.endpoint)
            .send()
            .await
            .ok()?;
        out.production_variants()
            .iter()
            .find(|v| v.variant_name() == Some(copies.variant.as_str()))
            .and_then(|v| v.current_instance_count())
    }

    /// Asks for one copy of a component at zero: refused unless it is InService with the
    /// `expected_desired` copies the operator saw; audited first; a lost race when, once
    /// accepted, the component does not want the one copy. Does not follow it.
    pub async fn wake_component(
        &self,
        component: &str,
        expected_desired: i32,
        waker: &Waker<'_>,
    ) -> Result<WakeReport, WakeError> {
        let audited = waker.audited;
        let _lock = audited.audit.lock_exclusive().await.map_err(GuardError::from)?;
        let now = self.component_copies(component).await?;
        let refusal = wake_refusal(&now, expected_desired);
        if let Some(err) = refusal {
            audited.refused(WAKE_ACTION, component, &err.to_string(), waker.reason.clone());
            return Err(err.into());
        }
        let pending = audited
            .intent(Mutation {
                action: WAKE_ACTION.into(),
                target: component.to_string(),
                before: json!({ "endpoint": now.endpoint, "desired_copies": now.desired, "current_copies": now.current }),
                after: json!({ "desired_copies": 1 }),
                reason: waker.reason.clone(),
            }).await
            .map_err(GuardError::from)?;
        let sent = self
            .sagemaker
            .update_inference_component_runtime_config()
            .inference_component_name(component)
            .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(1).build())
            .send()
            .await;
        match sent {
            Ok(out) => {
                let request_id = out.request_id().map(str::to_string);
                // Accepted: the component must now want the one copy, else another writer's
                // change landed with this one.
                let lost = self.lost_wake(component).await;
                let outcome = match &lost {
                    None => Ok(request_id.clone()),
                    Some(e) => Err(format!(
                        "sent (request id {}), then {e}",
                        request_id.as_deref().unwrap_or("-")
                    )),
                };
                let audit_warning = audited.finish(&pending, outcome).err().map(|e| e.to_string());
                if let Some(e) = lost {
                    return Err(e.into());
                }
                Ok(WakeReport {
                    component: component.to_string(),
                    woke: true,
                    request_id,
                    last: None,
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

    /// The lost race after a wake was accepted: the component does not want one copy (None when
    /// it does, or when it cannot be read).
    async fn lost_wake(&self, component: &str) -> Option<GuardError> {
        let now = self.component_copies(component).await.ok()?;
        (now.desired != 1).then(|| GuardError::LostRace {
            endpoint: component.to_string(),
            differences: vec![Difference {
                variant: String::new(),
                field: "desired copies".into(),
                expected: "1".into(),
                actual: now.desired.to_string(),
            }],
        })
    }

    /// Follows a component until it serves, fails, or `opts.deadline` passes since `start`;
    /// every look goes to `on_progress`.
    pub async fn follow_component(
        &self,
        component: &str,
        start: Instant,
        opts: FollowOptions,
        on_progress: &mut (dyn FnMut(&WakeProgress) + Send),
    ) -> Result<WakeProgress, WakeError> {
        loop {
            let copies = self.component_copies(component).await?;
            if copies.status == "Failed" {
                return Err(WakeError::Failed {
                    component: component.to_string(),
                    reason: copies.failure_reason.unwrap_or_else(|| "no reason given".into()),
                });
            }
            let instances = self.host_instances(&copies).await;
            let look = WakeProgress {
                component: component.to_string(),
                elapsed: start.elapsed(),
                phase: WakePhase::of(&copies, instances),
                copies,
                instances,
            };
            on_progress(&look);
            if look.phase == WakePhase::Serving {
                return Ok(look);
            }
            if start.elapsed() + opts.poll > opts.deadline {
                return Err(WakeError::Deadline {
                    component: component.to_string(),
                    waited: start.elapsed(),
                    last: Some(look),
                });
            }
            tokio::time::sleep(opts.poll).await;
        }
    }

    /// What `--wait-for-capacity` does on a component at zero: wakes it when `waker` is given
    /// and nobody has asked for a copy yet, then follows it until it serves.
    pub async fn ensure_capacity(
        &self,
        component: &str,
        waker: Option<&Waker<'_>>,
        opts: FollowOptions,
        on_progress: &mut (dyn FnMut(&WakeProgress) + Send),
    ) -> Result<WakeReport, WakeError> {
        let start = Instant::now();
        let seen = self.component_copies(component).await?;
        let mut report = WakeReport {
            component: component.to_string(),
            woke: false,
            request_id: None,
            last: None,
            audit_warning: None,
        };
        if let Some(waker) = waker
            && seen.desired == 0
            && !seen.serving()
        {
            match self.wake_component(component, 0, waker).await {
                Ok(woke) => report = woke,
                // Another writer (the scaling alarm) moved first: follow its wake.
                Err(WakeError::Guard(GuardError::Changed { .. } | GuardError::NotInService { .. })) => {}
                Err(e) => return Err(e),
            }
        }
        report.last = Some(self.follow_component(component, start, opts, on_progress).await?);
        Ok(report)
    }
}

/// Why a wake of `now` must not be sent: not InService, or not the `expected_desired` copies
/// the operator saw.
fn wake_refusal(now: &ComponentCopies, expected_desired: i32) -> Option<GuardError> {
    if now.status != "InService" {
        Some(GuardError::NotInService {
            endpoint: now.component.clone(),
            status: now.status.clone(),
        })
    } else if now.desired != expected_desired {
        Some(GuardError::Changed {
            endpoint: now.component.clone(),
            differences: vec![Difference {
                variant: String::new(),
                field: "desired copies".into(),
                expected: expected_desired.to_string(),
                actual: now.desired.to_string(),
            }],
        })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copies(status: &str, desired: i32, current: i32) -> ComponentCopies {
        ComponentCopies {
            component: "llm".into(),
            endpoint: "ep".into(),
            variant: "AllTraffic".into(),
            status: status.into(),
            desired,
            current,
            failure_reason: None,
        }
    }

    #[test]
    fn phases_follow_copies_and_instances() {
        assert_eq!(WakePhase::of(&copies("InService", 0, 0), Some(0)), WakePhase::AtZero);
        assert_eq!(WakePhase::of(&copies("Updating", 1, 0), Some(0)), WakePhase::Instances);
        assert_eq!(WakePhase::of(&copies("Updating", 1, 0), Some(1)), WakePhase::Copies);
        assert_eq!(WakePhase::of(&copies("InService", 1, 1), Some(1)), WakePhase::Serving);
        assert_eq!(WakePhase::of(&copies("Updating", 1, 1), Some(1)), WakePhase::Copies);
    }

    #[test]
    fn progress_is_one_line() {
        let p = WakeProgress {
            component: "llm".into(),
            elapsed: Duration::from_secs(12),
            phase: WakePhase::Instances,
            copies: copies("Updating", 1, 0),
            instances: Some(0),
        };
        assert_eq!(p.line(), "llm: starting an instance · copies 0/1 · instances 0 · 12s");
    }
}
