//! The Scaling pane's edits: what the operator types (`1 4` for min/max, `120` for a target,
//! `300 60` for cooldowns in/out, `3` instances) becomes a [`ChangeRequest`], planned by the
//! fleet layer's shared code ([`plan`], the same as `sagedeck autoscaling --variant`), and shown
//! before → after in a confirmation whose yes sends one [`GuardJob::ChangeScaling`]. On a
//! component's page, `1 4` (copies), `10` (invocations per copy) and the scale-to-zero plan
//! become a [`ComponentRequest`] planned by [`plan_component`] (the same as `sagedeck autoscaling
//! --inference-component`) and sent as one [`GuardJob::ChangeComponentScaling`].

use crate::aws::scaling::change::ScalingSnapshot;
use crate::aws::scaling::plan::{ChangeRequest, change_lines, plan};
use crate::aws::scaling::view::ScalingView;
use crate::aws::scaling::zero::plan::{ComponentRequest, plan_component};
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
    /// A component's MinCapacity and MaxCapacity (copies).
    CopyBounds,
    /// A component's target tracking on invocations per copy.
    TargetPerCopy,
    /// Every piece of a component's scale to zero the doctor finds missing or wrong.
    ScaleToZero,
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
            EditKind::CopyBounds => "min max copies",
            EditKind::TargetPerCopy => "invocations per copy per minute",
            EditKind::ScaleToZero => "set up scale to zero",
        }
    }

    /// Whether this edit is of an inference component (else of a variant).
    pub fn of_component(self) -> bool {
        matches!(
            self,
            EditKind::CopyBounds | EditKind::TargetPerCopy | EditKind::ScaleToZero
        )
    }
}

/// An edit being typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Editor {
    /// Which edit.
    pub kind: EditKind,
    /// Endpoint.
    pub endpoint: String,
    /// Variant (the component, for a component's edit).
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
    /// An editor prefilled with component `name`'s current values.
    pub fn open_component(kind: EditKind, view: &ScalingView, name: &str) -> Result<Editor, String> {
        let c = view
            .components
            .iter()
            .find(|c| c.scaling.component == name)
            .ok_or_else(|| format!("no component {name} in the view"))?;
        let s = &c.scaling;
        let input = match kind {
            EditKind::CopyBounds => s.bounds.map(|(a, b)| format!("{a} {b}")).unwrap_or_default(),
            EditKind::TargetPerCopy => s
                .policies
                .iter()
                .filter_map(|p| p.spec.target_tracking_scaling_policy_configuration.as_ref())
                .map(|t| fmt_num(t.target_value))
                .next()
                .unwrap_or_default(),
            _ => String::new(),
        };
        Ok(Editor {
            kind,
            endpoint: s.endpoint.clone(),
            variant: name.to_string(),
            policy: None,
            input,
            error: None,
            serverless: false,
        })
    }

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
            EditKind::CopyBounds | EditKind::TargetPerCopy | EditKind::ScaleToZero => {
                return Err("a component's edit on a variant".into());
            }
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
            EditKind::CopyBounds | EditKind::TargetPerCopy | EditKind::ScaleToZero => {
                return Err("a component's edit on a variant".into());
            }
        }
        Ok(r)
    }

    /// The component request the typed text makes.
    pub fn component_request(&self) -> Result<ComponentRequest, String> {
        let words: Vec<&str> = self.input.split_whitespace().collect();
        let int = |w: &str| w.parse::<i32>().map_err(|_| format!("{w:?} is not a whole number"));
        let mut r = ComponentRequest::default();
        match (self.kind, words.as_slice()) {
            (EditKind::CopyBounds, [min, max]) => (r.min, r.max) = (Some(int(min)?), Some(int(max)?)),
            (EditKind::TargetPerCopy, [n]) => {
                let n = n.parse::<f64>().map_err(|_| format!("{n:?} is not a number"))?;
                r.target_invocations_per_copy = Some(n);
            }
            (EditKind::ScaleToZero, _) => r.scale_to_zero = true,
            _ => return Err(format!("type {}", self.kind.prompt())),
        }
        Ok(r)
    }

    /// The confirmation of a component's edit: before → after of every change the plan makes
    /// (the variant's new configuration and UpdateEndpoint first for scale to zero).
    fn confirm_component(&self, view: &ScalingView) -> Result<Confirm, String> {
        let c = view
            .components
            .iter()
            .find(|c| c.scaling.component == self.variant)
            .ok_or_else(|| format!("component {} is no longer in the view", self.variant))?;
        let changes = plan_component(&self.component_request()?, &c.scaling)?;
        let seen = ScalingSnapshot::of_component(&c.scaling);
        let mut lines = change_lines(&self.variant, &changes, &seen);
        lines.push(String::new());
        lines.push("Audited first; refused if changed since read.".to_string());
        Ok(Confirm {
            title: format!("Change the autoscaling of {} {}", self.endpoint, self.variant),
            lines,
            jobs: vec![Job::Guard(GuardJob::ChangeComponentScaling {
                endpoint: self.endpoint.clone(),
                component: self.variant.clone(),
                changes,
                seen: Box::new(seen),
                reason: None,
            })],
            danger: self.kind == EditKind::ScaleToZero,
            force: Vec::new(),
        })
    }

    /// The confirmation of this edit (before → after, what is checked, the job on yes), or why
    /// it cannot be sent.
    pub fn confirm(&self, view: &ScalingView) -> Result<Confirm, String> {
        if self.kind.of_component() {
            return self.confirm_component(view);
        }
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
            force: Vec::new(),
        })
    }
}
