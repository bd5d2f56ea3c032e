//! The deploy form of the Variants pane (`D`) and the stepper it opens: the configuration (a
//! named one, or VARIANT=MODEL written from the live one), the policy (canary, linear, all at
//! once, rolling) with its sizes and bakes, the rollback alarms; Enter plans it (a read: the
//! schedule, or the refusals as one line), Enter again asks for confirmation, and the start goes
//! through the guard runner's audited, read-only-gated job. The stepper is refreshed by the
//! watch task's events; Esc leaves it (the deployment runs on SageMaker), `D` opens it again.

use crossterm::event::{KeyCode, KeyEvent};

use crate::aws::deploy::new_config::ModelSwap;
use crate::aws::deploy::plan::{ConfigChoice, DeployAsk, DeployPlan};
use crate::aws::deploy::policy::{Capacity, Policy, Shift};
use crate::aws::deploy::stepper::{Outcome, Stepper};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, DEPLOYING, GuardJob};
use crate::tui::panes::{KeyHint, Outbox};
use crate::tui::widgets::Overlay;
use crate::tui::widgets::toasts::Level;

pub mod view;

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
    /// Rollback alarms, comma-separated.
    Alarms,
}

impl FormField {
    const ALL: [FormField; 6] = [
        FormField::Config,
        FormField::Policy,
        FormField::Size,
        FormField::Bake,
        FormField::FinalBake,
        FormField::Alarms,
    ];

    fn step(self, by: isize) -> FormField {
        let i = Self::ALL.iter().position(|k| *k == self).unwrap_or(0) as isize;
        Self::ALL[(i + by).clamp(0, Self::ALL.len() as isize - 1) as usize]
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
    /// The rollback alarms, as typed.
    pub alarms: String,
    /// The focused field.
    pub field: FormField,
    /// The plan for the values shown, or its refusals in one line.
    pub planned: Option<Result<Box<DeployPlan>, String>>,
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
            alarms: String::new(),
            field: FormField::Config,
            planned: None,
            planning: false,
            message: None,
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
                rollback_percent: None,
            },
        })
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
        let alarms = self
            .alarms
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string)
            .collect();
        Ok(DeployAsk {
            config,
            policy: self.policy()?,
            max_time_secs: None,
            alarms,
            gate_alarms: false,
            retain_all: false,
            retain_deployment: false,
            expected_config: self.seen.config_name.clone(),
        })
    }

    fn text_mut(&mut self) -> Option<&mut String> {
        match self.field {
            FormField::Config => Some(&mut self.config),
            FormField::Policy => None,
            FormField::Size => Some(&mut self.size),
            FormField::Bake => Some(&mut self.bake),
            FormField::FinalBake => Some(&mut self.final_bake),
            FormField::Alarms => Some(&mut self.alarms),
        }
    }

    fn edited(&mut self) {
        self.planned = None;
        self.message = None;
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
        match key.code {
            KeyCode::Esc => {
                out.toast(Level::Info, format!("no deployment of {} started", self.seen.name));
                return false;
            }
            KeyCode::Enter => self.enter(data, out),
            KeyCode::Up | KeyCode::BackTab => self.field = self.field.step(-1),
            KeyCode::Down | KeyCode::Tab => self.field = self.field.step(1),
            KeyCode::Left if self.field == FormField::Policy => {
                self.kind = self.kind.step(-1);
                self.edited();
            }
            KeyCode::Right | KeyCode::Char(' ') if self.field == FormField::Policy => {
                self.kind = self.kind.step(1);
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
    fn on_planned(&mut self, endpoint: &str, result: &Result<Box<DeployPlan>, String>) {
        if endpoint == self.seen.name && self.planning {
            self.planning = false;
            self.planned = Some(result.clone());
        }
    }

    /// The form's keys, for the footer.
    pub fn keys(&self) -> Vec<KeyHint> {
        let confirm = matches!(self.planned, Some(Ok(_)));
        vec![
            KeyHint::new("↑↓", "field"),
            KeyHint::new("←→", "policy"),
            KeyHint::new("Enter", if confirm { "confirm" } else { "plan" }),
            KeyHint::new("Esc", "cancel"),
        ]
    }
}

/// A deployment the console follows: the last read and, once decided, the outcome.
#[derive(Debug, Clone)]
pub struct DeployWatch {
    /// Endpoint.
    pub endpoint: String,
    /// The configuration it goes onto.
    pub target: String,
    /// The policy sent.
    pub policy: Policy,
    /// The last read.
    pub stepper: Option<Stepper>,
    /// The outcome, or why the start or the watch failed.
    pub outcome: Option<Result<Outcome, String>>,
}

/// The pane's deploy state: the form while open, and the deployments followed.
#[derive(Debug, Default)]
pub struct DeployUi {
    /// The form, while open (it takes every key).
    pub form: Option<DeployForm>,
    /// Deployments started from the console, one per endpoint.
    pub watches: Vec<DeployWatch>,
    /// The endpoint whose stepper is open, if one is.
    pub open: Option<String>,
}

impl DeployUi {
    /// `D`: the stepper of the selected endpoint's deployment when one is followed and still
    /// running, else the form.
    pub fn open(&mut self, data: &Data, out: &mut Outbox) {
        let Some(e) = data.selected_endpoint() else {
            return out.toast(Level::Warn, "no endpoint selected: pick one on the Endpoints tab (1)");
        };
        if self
            .watch(&e.name)
            .is_some_and(|w| w.stepper.is_some() && w.outcome.is_none())
        {
            self.open = Some(e.name.clone());
            return;
        }
        if out.refused(data, DEPLOYING) {
            return;
        }
        if e.config_name.is_none() {
            return out.toast(Level::Warn, format!("{} is still being described", e.name));
        }
        if e.status != "InService" {
            return out.toast(
                Level::Warn,
                format!("{} is {}; a deployment starts only from InService", e.name, e.status),
            );
        }
        self.form = Some(DeployForm::new(e));
    }

    /// The deployment followed on `endpoint`.
    pub fn watch(&self, endpoint: &str) -> Option<&DeployWatch> {
        self.watches.iter().find(|w| w.endpoint == endpoint)
    }

    /// Whether the form or the stepper takes the keys.
    pub fn capturing(&self) -> bool {
        self.form.is_some() || self.open.is_some()
    }

    /// Handles a key while capturing; true when used.
    pub fn handle_key(&mut self, key: KeyEvent, data: &Data, out: &mut Outbox) -> bool {
        if let Some(form) = self.form.as_mut() {
            let keep = form.handle_key(key, data, out);
            if let Some(Overlay::Confirm(_)) = &out.overlay
                && let Some(Ok(plan)) = &form.planned
            {
                Self::pending(&mut self.watches, plan);
            }
            if !keep {
                self.form = None;
            }
            return true;
        }
        if self.open.is_some() && key.code == KeyCode::Esc {
            self.open = None;
            return true;
        }
        self.open.is_some()
    }

    /// Remembers the plan being confirmed, so the stepper opens when its start is reported.
    fn pending(watches: &mut Vec<DeployWatch>, plan: &DeployPlan) {
        watches.retain(|w| w.endpoint != plan.info.name);
        watches.push(DeployWatch {
            endpoint: plan.info.name.clone(),
            target: plan.target.name.clone(),
            policy: plan.spec.policy,
            stepper: None,
            outcome: None,
        });
    }

    /// The footer's keys while the form or the stepper is open.
    pub fn keys(&self) -> Option<Vec<KeyHint>> {
        if let Some(f) = &self.form {
            return Some(f.keys());
        }
        self.open
            .as_ref()
            .map(|_| vec![KeyHint::new("Esc", "leave (the deployment goes on)")])
    }

    /// Draws the form or the open stepper over `area`.
    pub fn render(&self, f: &mut ratatui::Frame, area: ratatui::layout::Rect, theme: &crate::tui::theme::Theme) {
        if let Some(form) = &self.form {
            return form.render(f, area, theme);
        }
        if let Some(w) = self.open.as_deref().and_then(|e| self.watch(e)) {
            view::render_stepper(f, area, w, theme);
        }
    }

    /// Takes the worker's deploy events.
    pub fn on_event(&mut self, ev: &AppEvent, out: &mut Outbox) {
        match ev {
            AppEvent::DeployPlanned { endpoint, result } => {
                if let Some(f) = self.form.as_mut() {
                    f.on_planned(endpoint, result);
                }
            }
            AppEvent::Deployment { endpoint, stepper } => {
                if let Some(w) = self.watches.iter_mut().find(|w| &w.endpoint == endpoint) {
                    if w.stepper.is_none() {
                        self.form = None;
                        self.open = Some(endpoint.clone());
                    }
                    w.stepper = Some((**stepper).clone());
                }
            }
            AppEvent::DeploymentEnded { endpoint, result } => {
                if let (Some(f), Err(e)) = (self.form.as_mut(), result) {
                    f.message = Some(e.clone());
                    f.planned = None;
                }
                if let Some(w) = self.watches.iter_mut().find(|w| &w.endpoint == endpoint) {
                    w.outcome = Some(result.clone());
                    let (level, text) = view::outcome_toast(endpoint, result);
                    out.toast(level, text);
                }
            }
            _ => {}
        }
    }
}
