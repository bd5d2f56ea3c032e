//! The deploy form's fields and keys: the configuration (CONFIG or VARIANT=MODEL), the policy and
//! its size, the bakes, the timeout, the rolling rollback batch, the rollback alarms, the gate
//! alarms (kept or not), RetainDeploymentConfig and RetainAllVariantProperties — what `sagedeck
//! deploy` takes. Enter plans it (a read); once a plan is read, a change of the policy, a bake
//! or the timeout is checked again at once by the same rules as the CLI's (`aws/deploy/policy`)
//! and the schedule re-drawn, without a read; a change of anything else plans it again.

use crossterm::event::{KeyCode, KeyEvent};

use crate::aws::deploy::new_config::ModelSwap;
use crate::aws::deploy::plan::{ConfigChoice, DeployAsk, DeployPlan};
use crate::aws::deploy::policy::{Capacity, DeploySpec, Policy, Shift, refusals};
use crate::aws::deploy::send::DeployError;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::data::Data;
use crate::tui::event::{DEPLOYING, GuardJob};
use crate::tui::panes::{KeyHint, Outbox};
use crate::tui::widgets::Overlay;
use crate::tui::widgets::toasts::Level;

use super::view;

/// Longest value that can be typed in a field.
const MAX_TEXT: usize = 120;

/// How traffic moves, as the form picks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PolicyKind {
    /// Blue/green, a canary then the rest.
    #[default]
    Canary,
    /// Blue/green, linear steps.
    Linear,
    /// Blue/green, everything at once.
    AllAtOnce,
    /// Rolling batches.
    Rolling,
}

impl PolicyKind {
    const ALL: [PolicyKind; 4] = [
        PolicyKind::Canary,
        PolicyKind::Linear,
        PolicyKind::AllAtOnce,
        PolicyKind::Rolling,
    ];

    /// Its name in the form.
    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::Canary => "canary",
            PolicyKind::Linear => "linear",
            PolicyKind::AllAtOnce => "all at once",
            PolicyKind::Rolling => "rolling",
        }
    }

    fn step(self, by: isize) -> PolicyKind {
        let i = Self::ALL.iter().position(|k| *k == self).unwrap_or(0) as isize;
        Self::ALL[(i + by).rem_euclid(Self::ALL.len() as isize) as usize]
    }
}

/// The form's fields, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormField {
    /// CONFIG or VARIANT=MODEL.
    #[default]
    Config,
    /// The policy kind.
    Policy,
    /// Canary size (`1` instance or `10%`), linear step or rolling batch (percent).
    Size,
    /// WaitIntervalInSeconds.
    Bake,
    /// TerminationWaitInSeconds.
    FinalBake,
    /// MaximumExecutionTimeoutInSeconds (empty: the waits and 30 minutes).
    MaxTime,
    /// Rolling: RollbackMaximumBatchSize in percent (empty: all at once).
    RollbackBatch,
    /// Rollback alarms, comma-separated.
    Alarms,
    /// Create the gate alarms.
    GateAlarms,
    /// Keep the gate alarms after the deployment.
    KeepAlarms,
    /// RetainDeploymentConfig: the last DeploymentConfig instead of the policy's fields.
    RetainDeployment,
    /// RetainAllVariantProperties.
    RetainAll,
}

impl FormField {
    const ALL: [FormField; 12] = [
        FormField::Config,
        FormField::Policy,
        FormField::Size,
        FormField::Bake,
        FormField::FinalBake,
        FormField::MaxTime,
        FormField::RollbackBatch,
        FormField::Alarms,
        FormField::GateAlarms,
        FormField::KeepAlarms,
        FormField::RetainDeployment,
        FormField::RetainAll,
    ];

    /// Whether the field is a yes/no switch (Space or ←→ flips it).
    pub fn is_switch(self) -> bool {
        matches!(
            self,
            FormField::RetainDeployment | FormField::GateAlarms | FormField::KeepAlarms | FormField::RetainAll
        )
    }

    /// Whether a change of the field is checked again without a read (once a plan is read).
    fn checked_locally(self) -> bool {
        matches!(
            self,
            FormField::Policy
                | FormField::Size
                | FormField::Bake
                | FormField::FinalBake
                | FormField::MaxTime
                | FormField::RollbackBatch
        )
    }
}

/// The deploy form's state.
#[derive(Debug, Clone)]
pub struct DeployForm {
    /// The endpoint as the operator saw it when the form opened.
    pub seen: Box<EndpointInfo>,
    /// CONFIG or VARIANT=MODEL.
    pub config: String,
    /// The policy kind.
    pub kind: PolicyKind,
    /// The size, as typed.
    pub size: String,
    /// The bake in seconds, as typed.
    pub bake: String,
    /// The final bake in seconds, as typed.
    pub final_bake: String,
    /// The timeout in seconds, as typed (empty: the default).
    pub max_time: String,
    /// The rolling rollback batch in percent, as typed (empty: all at once).
    pub rollback_batch: String,
    /// The rollback alarms, as typed.
    pub alarms: String,
    /// Create the gate alarms.
    pub gate_alarms: bool,
    /// Keep them after the deployment.
    pub keep_alarms: bool,
    /// RetainDeploymentConfig.
    pub retain_deployment: bool,
    /// RetainAllVariantProperties.
    pub retain_all: bool,
    /// The focused field.
    pub field: FormField,
    /// The plan for the values shown, or its refusals in one line.
    pub planned: Option<Result<Box<DeployPlan>, String>>,
    /// The last plan read over the wire, which local checks start from.
    pub read: Option<Box<DeployPlan>>,
    /// Whether a plan was asked and has not come back.
    pub planning: bool,
    /// Why the last Enter was refused (cleared by the next edit).
    pub message: Option<String>,
}

fn seconds(what: &str, text: &str) -> Result<i32, String> {
    text.trim()
        .parse::<i32>()
        .ok()
        .filter(|n| *n >= 0)
        .ok_or_else(|| format!("{what} `{}` is not a number of seconds", text.trim()))
}

fn percent(what: &str, text: &str) -> Result<i32, String> {
    let t = text.trim().trim_end_matches('%');
    t.parse::<i32>()
        .map_err(|_| format!("{what} `{}` is not a percentage", text.trim()))
}

impl DeployForm {
    /// A form for `e`, offering its first variant's model to be replaced.
    pub fn new(e: &EndpointInfo) -> DeployForm {
        let first = e.variants.first().map(|v| format!("{}=", v.name)).unwrap_or_default();
        DeployForm {
            seen: Box::new(e.clone()),
            config: first,
            kind: PolicyKind::Canary,
            size: "1".into(),
            bake: "300".into(),
            final_bake: "300".into(),
            max_time: String::new(),
            rollback_batch: String::new(),
            alarms: String::new(),
            gate_alarms: false,
            keep_alarms: false,
            retain_deployment: false,
            retain_all: false,
            field: FormField::Config,
            planned: None,
            read: None,
            planning: false,
            message: None,
        }
    }

    /// Whether `field` is shown (and focusable) with the values as they are: the policy's
    /// fields not when the last DeploymentConfig is retained, the rollback batch for rolling
    /// only and the final bake for blue/green only, keep-alarms with gate alarms only.
    pub fn shows(&self, field: FormField) -> bool {
        use FormField::*;
        match field {
            Config | RetainDeployment | RetainAll => true,
            Policy | Size | Bake | MaxTime | Alarms | GateAlarms => !self.retain_deployment,
            FinalBake => !self.retain_deployment && self.kind != PolicyKind::Rolling,
            RollbackBatch => !self.retain_deployment && self.kind == PolicyKind::Rolling,
            KeepAlarms => !self.retain_deployment && self.gate_alarms,
        }
    }

    fn step_field(&mut self, by: isize) {
        let all = FormField::ALL;
        let mut i = all.iter().position(|f| *f == self.field).unwrap_or(0) as isize;
        loop {
            i += by;
            if i < 0 || i >= all.len() as isize {
                return;
            }
            if self.shows(all[i as usize]) {
                self.field = all[i as usize];
                return;
            }
        }
    }

    /// The policy the fields give, or why they do not give one.
    pub fn policy(&self) -> Result<Policy, String> {
        let bake_secs = seconds("bake", &self.bake)?;
        let final_bake_secs = seconds("final bake", &self.final_bake)?;
        let blue_green = |shift| Policy::BlueGreen {
            shift,
            bake_secs,
            final_bake_secs,
        };
        Ok(match self.kind {
            PolicyKind::Canary if self.size.trim().ends_with('%') => {
                blue_green(Shift::Canary(Capacity::Percent(percent("canary", &self.size)?)))
            }
            PolicyKind::Canary => {
                let n = self.size.trim().parse::<i32>();
                let n = n.map_err(|_| format!("canary `{}` is not a number of instances or N%", self.size.trim()))?;
                blue_green(Shift::Canary(Capacity::Instances(n)))
            }
            PolicyKind::Linear => blue_green(Shift::Linear(percent("linear step", &self.size)?)),
            PolicyKind::AllAtOnce => blue_green(Shift::AllAtOnce),
            PolicyKind::Rolling => Policy::Rolling {
                batch_percent: percent("batch", &self.size)?,
                bake_secs,
                rollback_percent: match self.rollback_batch.trim() {
                    "" => None,
                    t => Some(percent("rollback batch", t)?),
                },
            },
        })
    }

    /// The timeout typed, when one is.
    pub fn max_time_secs(&self) -> Result<Option<i32>, String> {
        match self.max_time.trim() {
            "" => Ok(None),
            t => seconds("max time", t).map(Some),
        }
    }

    /// What the form asks for, or why it asks for nothing yet.
    pub fn ask(&self) -> Result<DeployAsk, String> {
        let text = self.config.trim();
        let config = if text.is_empty() {
            return Err("enter a configuration name, or VARIANT=MODEL".into());
        } else if text.contains('=') {
            ConfigChoice::Swap(ModelSwap::parse(text)?)
        } else {
            ConfigChoice::Named(text.to_string())
        };
        let retained = self.retain_deployment;
        let alarms = if retained {
            Vec::new()
        } else {
            let typed = self.alarms.split(',').map(str::trim).filter(|a| !a.is_empty());
            typed.map(str::to_string).collect()
        };
        Ok(DeployAsk {
            config,
            policy: self.policy()?,
            max_time_secs: self.max_time_secs()?,
            alarms,
            gate_alarms: self.gate_alarms && !retained,
            keep_alarms: self.keep_alarms && self.gate_alarms && !retained,
            retain_all: self.retain_all,
            retain_deployment: retained,
            expected_config: self.seen.config_name.clone(),
        })
    }

    /// The plan read last with the policy and timeout the fields give now, checked by the
    /// CLI's rules; the refusals in one line.
    fn checked_again(&self, read: &DeployPlan) -> Result<Box<DeployPlan>, String> {
        let policy = self.policy()?;
        let max_time_secs = self
            .max_time_secs()?
            .unwrap_or_else(|| DeploySpec::default_max_time(&policy, &read.facts));
        let spec = DeploySpec {
            policy,
            max_time_secs,
            ..read.spec.clone()
        };
        let refused = refusals(&spec, &read.facts);
        if !refused.is_empty() {
            return Err(DeployError::Invalid(refused).to_string());
        }
        Ok(Box::new(DeployPlan { spec, ..read.clone() }))
    }

    fn text_mut(&mut self) -> Option<&mut String> {
        match self.field {
            FormField::Config => Some(&mut self.config),
            FormField::Size => Some(&mut self.size),
            FormField::Bake => Some(&mut self.bake),
            FormField::FinalBake => Some(&mut self.final_bake),
            FormField::MaxTime => Some(&mut self.max_time),
            FormField::RollbackBatch => Some(&mut self.rollback_batch),
            FormField::Alarms => Some(&mut self.alarms),
            _ => None,
        }
    }

    fn flip(&mut self) {
        match self.field {
            FormField::RetainDeployment => self.retain_deployment = !self.retain_deployment,
            FormField::GateAlarms => self.gate_alarms = !self.gate_alarms,
            FormField::KeepAlarms => self.keep_alarms = !self.keep_alarms,
            FormField::RetainAll => self.retain_all = !self.retain_all,
            _ => {}
        }
    }

    /// After an edit: checked again at once when a plan was read and only the policy, a bake or
    /// the timeout changed (the schedule re-drawn); else planned again on Enter.
    fn edited(&mut self) {
        self.message = None;
        match &self.read {
            Some(read) if self.field.checked_locally() && !read.spec.retain_deployment => {
                self.planned = Some(self.checked_again(read));
            }
            _ => {
                self.planned = None;
                self.read = None;
            }
        }
    }

    fn enter(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused(data, DEPLOYING) {
            return;
        }
        if self.planning {
            self.message = Some("the plan is being read".into());
            return;
        }
        match &self.planned {
            Some(Ok(plan)) => out.overlay = Some(Overlay::Confirm(view::confirm(plan))),
            _ => match self.ask() {
                Ok(ask) => {
                    self.planning = true;
                    self.planned = None;
                    out.job(GuardJob::DeployPlan {
                        info: self.seen.clone(),
                        ask: Box::new(ask),
                    });
                }
                Err(e) => self.message = Some(e),
            },
        }
    }

    /// Handles a key; false closes the form.
    pub fn handle_key(&mut self, key: KeyEvent, data: &Data, out: &mut Outbox) -> bool {
        let switch = self.field.is_switch();
        match key.code {
            KeyCode::Esc => {
                out.toast(Level::Info, format!("no deployment of {} started", self.seen.name));
                return false;
            }
            KeyCode::Enter => self.enter(data, out),
            KeyCode::Up | KeyCode::BackTab => self.step_field(-1),
            KeyCode::Down | KeyCode::Tab => self.step_field(1),
            KeyCode::Left if self.field == FormField::Policy => {
                self.kind = self.kind.step(-1);
                self.edited();
            }
            KeyCode::Right | KeyCode::Char(' ') if self.field == FormField::Policy => {
                self.kind = self.kind.step(1);
                self.edited();
            }
            KeyCode::Left | KeyCode::Right | KeyCode::Char(' ') if switch => {
                self.flip();
                self.edited();
            }
            KeyCode::Backspace => {
                if let Some(t) = self.text_mut() {
                    t.pop();
                }
                self.edited();
            }
            KeyCode::Char(c) if !c.is_control() => {
                if let Some(t) = self.text_mut()
                    && t.chars().count() < MAX_TEXT
                {
                    t.push(c);
                }
                self.edited();
            }
            _ => {}
        }
        true
    }

    /// The plan (or refusal) asked for, when it is for this form's endpoint.
    pub(super) fn on_planned(&mut self, endpoint: &str, result: &Result<Box<DeployPlan>, String>) {
        if endpoint == self.seen.name && self.planning {
            self.planning = false;
            self.planned = Some(result.clone());
            self.read = result.as_ref().ok().cloned();
        }
    }

    /// The form's keys, for the footer.
    pub fn keys(&self) -> Vec<KeyHint> {
        let confirm = matches!(self.planned, Some(Ok(_)));
        let flip = if self.field.is_switch() { "switch" } else { "policy" };
        vec![
            KeyHint::new("↑↓", "field"),
            KeyHint::new("←→", flip),
            KeyHint::new("Enter", if confirm { "confirm" } else { "plan" }),
            KeyHint::new("Esc", "cancel"),
        ]
    }
}
