//! The Scaling pane's edits: what the operator types (`1 4` for min/max, `120` for a target,
//! `300 60` for cooldowns in/out, `3` instances) becomes a [`ChangeRequest`], planned by the
//! fleet layer's shared code ([`plan`], the same as `sagedeck autoscaling --variant`), and shown
//! before → after in a confirmation whose yes sends one [`GuardJob::ChangeScaling`].

use crate::aws::scaling::plan::{ChangeRequest, change_lines, plan};
use crate::aws::scaling::view::ScalingView;
use crate::tui::event::{GuardJob, Job};
use crate::tui::widgets::confirm::Confirm;

/// Which edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    /// MinCapacity and MaxCapacity.
    Bounds,
    /// Target tracking on invocations per instance.
    TargetInvocations,
    /// Target tracking on ModelLatency p99 (ms).
    TargetP99,
    /// The selected policy's cooldowns (in, out).
    Cooldowns,
    /// Removing the selected policy.
    RemovePolicy,
    /// The desired instance count now.
    Instances,
}

impl EditKind {
    /// What the editor asks for.
    pub fn prompt(self) -> &'static str {
        match self {
            EditKind::Bounds => "min max",
            EditKind::TargetInvocations => "invocations per instance per minute",
            EditKind::TargetP99 => "ModelLatency p99 target in milliseconds",
            EditKind::Cooldowns => "scale-in scale-out cooldowns (seconds)",
            EditKind::RemovePolicy => "remove the policy",
            EditKind::Instances => "desired instances now",
        }
    }
}

/// An edit being typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Editor {
    /// Which edit.
    pub kind: EditKind,
    /// Endpoint.
    pub endpoint: String,
    /// Variant.
    pub variant: String,
    /// The policy it concerns (cooldowns, removal).
    pub policy: Option<String>,
    /// What was typed.
    pub input: String,
    /// Why the input cannot be sent (shown under it).
    pub error: Option<String>,
    /// Whether the variant is serverless (`t` then targets provisioned concurrency utilization).
    pub serverless: bool,
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v}") }
}

impl Editor {
    /// What the editor asks for (of a serverless variant, `t` asks for a utilization).
    pub fn prompt(&self) -> &'static str {
        match self.kind {
            EditKind::TargetInvocations if self.serverless => "provisioned concurrency utilization (0 to 1)",
            kind => kind.prompt(),
        }
    }

    /// An editor prefilled with the variant's current values.
    pub fn open(kind: EditKind, view: &ScalingView, variant: &str, policy: Option<&str>) -> Result<Editor, String> {
        let v = view.variants.iter().find(|v| v.variant == variant);
        let tt = |name: Option<&str>| {
            view.state
                .policies_of(variant)
                .find(|p| Some(p.policy_name.as_str()) == name)
                .and_then(|p| p.target_tracking_scaling_policy_configuration.clone())
        };
        let input = match kind {
            EditKind::Bounds => v
                .and_then(|v| v.bounds)
                .map(|(a, b)| format!("{a} {b}"))
                .unwrap_or_default(),
            EditKind::TargetInvocations if v.is_some_and(|v| v.serverless) => {
                tt(Some("sagedeck-provisioned-utilization"))
                    .map(|t| fmt_num(t.target_value))
                    .unwrap_or_default()
            }
            EditKind::TargetInvocations => tt(Some("sagedeck-invocations"))
                .or_else(|| {
                    v.and_then(|v| v.tracked.iter().find(|t| t.label.starts_with("InvocationsPerInstance")))
                        .and_then(|t| tt(Some(t.policy.as_str())))
                })
                .map(|t| fmt_num(t.target_value))
                .unwrap_or_default(),
            EditKind::TargetP99 => tt(Some("sagedeck-p99-latency"))
                .map(|t| fmt_num(t.target_value / 1000.0))
                .unwrap_or_default(),
            EditKind::Cooldowns => {
                let t = tt(policy).ok_or("select a target-tracking policy (↑↓) to change its cooldowns")?;
                format!(
                    "{} {}",
                    t.scale_in_cooldown.unwrap_or(300),
                    t.scale_out_cooldown.unwrap_or(300)
                )
            }
            EditKind::RemovePolicy => {
                policy.ok_or_else(|| format!("{variant} has no policy to remove"))?;
                String::new()
            }
            EditKind::Instances => v.map(|v| v.desired.to_string()).unwrap_or_default(),
        };
        Ok(Editor {
            kind,
            endpoint: view.state.info.name.clone(),
            variant: variant.to_string(),
            policy: policy.map(str::to_string),
            input,
            error: None,
            serverless: v.is_some_and(|v| v.serverless),
        })
    }

    /// The request the typed text makes.
    pub fn request(&self) -> Result<ChangeRequest, String> {
        let words: Vec<&str> = self.input.split_whitespace().collect();
        let int = |w: &str| w.parse::<i32>().map_err(|_| format!("{w:?} is not a whole number"));
        let num = |w: &str| w.parse::<f64>().map_err(|_| format!("{w:?} is not a number"));
        let want = |n: usize| {
            if words.len() == n {
                Ok(())
            } else {
                Err(format!("type {}", self.prompt()))
            }
        };
        let mut r = ChangeRequest::default();
        match self.kind {
            EditKind::Bounds => {
                want(2)?;
                (r.min, r.max) = (Some(int(words[0])?), Some(int(words[1])?));
            }
            EditKind::TargetInvocations if self.serverless => {
                want(1)?;
                r.target_provisioned_utilization = Some(num(words[0])?);
            }
            EditKind::TargetInvocations => {
                want(1)?;
                r.target_invocations = Some(num(words[0])?);
            }
            EditKind::TargetP99 => {
                want(1)?;
                r.target_p99_ms = Some(num(words[0])?);
            }
            EditKind::Cooldowns => {
                want(2)?;
                (r.scale_in_cooldown, r.scale_out_cooldown) = (Some(int(words[0])?), Some(int(words[1])?));
                r.policy_name = self.policy.clone();
            }
            EditKind::RemovePolicy => r.remove_policy = self.policy.clone(),
            EditKind::Instances => {
                want(1)?;
                r.instances = Some(int(words[0])?);
            }
        }
        Ok(r)
    }

    /// The confirmation of this edit (before → after, what is checked, the job on yes), or why
    /// it cannot be sent.
    pub fn confirm(&self, view: &ScalingView) -> Result<Confirm, String> {
        let changes = plan(&self.request()?, &view.state, &self.variant)?;
        if changes.is_empty() {
            return Err("nothing to change".into());
        }
        let seen = super::snapshot_of(view, &self.variant);
        let mut lines = change_lines(&self.variant, &changes, &seen);
        lines.push(String::new());
        lines.push("Audited first; refused if changed since read.".to_string());
        let danger = matches!(self.kind, EditKind::RemovePolicy | EditKind::Instances);
        Ok(Confirm {
            title: format!("Change the autoscaling of {} {}", self.endpoint, self.variant),
            lines,
            jobs: vec![Job::Guard(GuardJob::ChangeScaling {
                endpoint: self.endpoint.clone(),
                variant: self.variant.clone(),
                changes,
                seen: Box::new(seen),
                reason: None,
            })],
            danger,
        })
    }
}
