//! The deploy form of the Variants pane (`D`, its fields in `form.rs`) and the stepper it
//! opens: the configuration (a named one, or VARIANT=MODEL written from the live one), the
//! policy (canary, linear, all at once, rolling) with its sizes, bakes, timeout and rollback
//! batch, the rollback and gate alarms, RetainDeploymentConfig and RetainAllVariantProperties;
//! Enter plans it (a read: the
//! schedule, or the refusals as one line), Enter again asks for confirmation, and the start goes
//! through the guard runner's audited, read-only-gated job. The stepper is refreshed by the
//! watch task's events; Esc leaves it (the deployment runs on SageMaker), `D` opens it again.

use crossterm::event::{KeyCode, KeyEvent};

use crate::aws::deploy::plan::DeployPlan;
use crate::aws::deploy::policy::Policy;
use crate::aws::deploy::stepper::{Outcome, Stepper};
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, DEPLOYING};
use crate::tui::panes::{KeyHint, Outbox};
use crate::tui::widgets::Overlay;
use crate::tui::widgets::toasts::Level;

pub mod form;
pub mod view;

pub use form::{DeployForm, FormField, PolicyKind};

/// A deployment the console follows: the last read and, once decided, the outcome.
#[derive(Debug, Clone)]
pub struct DeployWatch {
    /// Endpoint.
    pub endpoint: String,
    /// The configuration it goes onto (for one attached to, from its first read).
    pub target: String,
    /// The policy sent (for one attached to, LastDeploymentConfig's, from its first read).
    pub policy: Option<Policy>,
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

    /// `A`: attaches the stepper to the deployment in flight on the selected endpoint (the `⇄`
    /// mark: started by the CLI, CloudFormation or anyone), followed as `deploy --watch` does;
    /// the one already followed is opened again.
    pub fn attach(&mut self, data: &Data, out: &mut Outbox) {
        let Some(e) = data.selected_endpoint() else {
            return out.toast(Level::Warn, "no endpoint selected: pick one on the Endpoints tab (1)");
        };
        if self.watch(&e.name).is_some_and(|w| w.outcome.is_none()) {
            self.open = Some(e.name.clone());
            return;
        }
        if !e.deploying {
            return out.toast(Level::Info, format!("{} has no deployment in flight", e.name));
        }
        self.watches.retain(|w| w.endpoint != e.name);
        self.watches.push(DeployWatch {
            endpoint: e.name.clone(),
            target: String::new(),
            policy: None,
            stepper: None,
            outcome: None,
        });
        self.open = Some(e.name.clone());
        out.job(crate::tui::event::GuardJob::DeployAttach {
            endpoint: e.name.clone(),
            delete_leftover_gates: !data.read_only,
        });
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
            policy: Some(plan.spec.policy),
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
                    if let (true, Some(pending)) = (w.target.is_empty(), &stepper.pending_config) {
                        w.target = pending.clone();
                    }
                    w.policy = w.policy.or(stepper.policy);
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
