//! Promotion from the Variants pane: `P` opens the plan editor (canary, baseline, steps, bake,
//! gates, auto/manual, reason) → a confirmation stating the plan → [`GuardJob::Promote`], which runs a
//! `PromotionRunner` in the background. Its events become a timeline in the pane; manual mode asks
//! before each step (y proceeds, h holds, b rolls back); Esc during a running plan asks "hold here
//! or roll back". Plans a previous console left unfinished are announced at start and offered for
//! resume (`R`) or roll back (`B`). Drawing is in `promotion_view.rs`.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent};

use crate::aws::promote::plan::{Phase, PlanState};
use crate::aws::promote::events::{Control, PromotionEvent, Question};
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, FleetJob, GuardJob, Job, PROMOTION};
use crate::tui::panes::Outbox;
use crate::tui::panes::Tab;
use crate::tui::widgets::Overlay;
use crate::tui::widgets::confirm::Confirm;
use crate::tui::widgets::toasts::Level;

pub mod lock;
pub mod view;

mod editor;

pub use editor::{CONSOLIDATE, EditorOutcome, FIELDS, MODE, PlanEditor, confirm_plan, is_choice};

/// What the pane knows of one endpoint's plan.
#[derive(Debug, Clone, Default)]
pub struct PlanView {
    /// The state as last saved.
    pub state: Option<PlanState>,
    /// Whether a runner of this console drives it.
    pub running: bool,
    /// End of the current bake (epoch seconds).
    pub baking_until: Option<f64>,
    /// Why it could not start or go on.
    pub error: Option<String>,
    /// Whether the current step's gate is being read.
    pub judging: bool,
}

impl PlanView {
    /// Whether a previous console left it unfinished (resume or roll back).
    pub fn interrupted(&self) -> bool {
        !self.running && self.state.as_ref().is_some_and(|s| !s.phase.is_final())
    }
}

/// The promotion state of the Variants pane.
#[derive(Debug, Default)]
pub struct PromotionUi {
    /// The plan editor, when open.
    pub editor: Option<PlanEditor>,
    /// Plans by endpoint.
    pub plans: BTreeMap<String, PlanView>,
    /// A running plan's question (endpoint, question).
    pub question: Option<(String, Question)>,
    /// The "hold here or roll back" menu of an endpoint's running plan.
    pub esc_menu: Option<String>,
    /// With a team trail: what it says of a plan on the endpoint whose editor was opened (None
    /// while it is read).
    pub lock: Option<(String, Option<lock::LockRead>)>,
    /// A submitted plan waiting for that read before its confirmation opens.
    pub waiting: Option<Box<Submitted>>,
}

/// A plan the editor submitted: its spec, reason and extras.
pub type Submitted = (
    crate::aws::promote::plan::PromotionSpec,
    Option<String>,
    crate::aws::promote::events::PlanExtras,
);

impl PromotionUi {
    /// Whether a modal of the promotion takes the keys.
    pub fn capturing(&self) -> bool {
        self.editor.is_some() || self.question.is_some() || self.esc_menu.is_some()
    }

    /// The keys of the open modal (None: no modal).
    pub fn keys(&self, data: &Data) -> Option<Vec<super::KeyHint>> {
        use super::KeyHint;
        if self.editor.is_some() {
            return Some(vec![
                KeyHint::new("↑↓", "field"),
                KeyHint::new("a/m y/n", "choices"),
                KeyHint::new("Enter", "review"),
                KeyHint::new("Esc", "cancel"),
            ]);
        }
        if self.question.is_some() {
            let ro = data.read_only;
            return Some(vec![
                KeyHint::when("y", "proceed", ro),
                KeyHint::new("h", "hold here"),
                KeyHint::new("b", "roll back"),
            ]);
        }
        if self.esc_menu.is_some() {
            return Some(vec![
                KeyHint::new("h", "hold here"),
                KeyHint::new("b", "roll back"),
                KeyHint::new("Esc", "keep running"),
            ]);
        }
        None
    }

    /// Whether a plan of this console runs on the selected endpoint.
    pub fn running(&self, data: &Data) -> bool {
        data.selected
            .as_deref()
            .and_then(|s| self.plans.get(s))
            .is_some_and(|p| p.running)
    }

    /// Whether the selected endpoint has a plan to resume or roll back.
    pub fn interrupted(&self, data: &Data) -> bool {
        data.selected
            .as_deref()
            .and_then(|s| self.plans.get(s))
            .is_some_and(PlanView::interrupted)
    }

    /// Why `P` cannot open for the selected endpoint, if it cannot.
    pub fn refusal(&self, data: &Data) -> Option<String> {
        if let Some(why) = data.refusal(Some(PROMOTION)) {
            return Some(why);
        }
        let e = data.selected_endpoint()?;
        if let Some(p) = self.plans.get(&e.name).filter(|p| p.running || p.interrupted()) {
            let what = if p.running {
                "running"
            } else {
                "unfinished (R resumes, B rolls back)"
            };
            return Some(format!("{}: a promotion plan is {what}", e.name));
        }
        if e.status != "InService" {
            return Some(format!(
                "{} is {}; a promotion starts only when it is InService",
                e.name, e.status
            ));
        }
        if e.variants.len() < 2 {
            return Some(format!("{} needs a canary and a baseline variant", e.name));
        }
        None
    }

    /// Answers a key of the Variants pane; None when it is not the promotion's.
    pub fn handle_key(&mut self, key: KeyEvent, cursor: usize, data: &Data, out: &mut Outbox) -> Option<bool> {
        if let Some(ed) = self.editor.as_mut() {
            match ed.handle_key(key) {
                EditorOutcome::Keep => {}
                EditorOutcome::Cancel => self.editor = None,
                EditorOutcome::Submit(spec, reason, extras) => {
                    self.editor = None;
                    self.submitted(Box::new((*spec, reason, extras)), data, out);
                }
            }
            return Some(true);
        }
        if let Some((ep, _)) = self.question.clone() {
            let control = match key.code {
                KeyCode::Char('y') | KeyCode::Enter => Control::Proceed,
                KeyCode::Char('h') | KeyCode::Char('n') | KeyCode::Esc => Control::Hold,
                KeyCode::Char('b') => Control::Rollback,
                _ => return Some(true),
            };
            self.question = None;
            out.job(GuardJob::PromoteControl { endpoint: ep, control });
            return Some(true);
        }
        if let Some(ep) = self.esc_menu.clone() {
            let control = match key.code {
                KeyCode::Char('h') => Control::Hold,
                KeyCode::Char('b') => Control::Rollback,
                KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('c') => {
                    self.esc_menu = None;
                    return Some(true);
                }
                _ => return Some(true),
            };
            self.esc_menu = None;
            out.job(GuardJob::PromoteControl { endpoint: ep, control });
            return Some(true);
        }
        let selected = data.selected_endpoint()?;
        let plan = self.plans.get(&selected.name);
        match key.code {
            KeyCode::Char('P') => match self.refusal(data) {
                Some(why) => out.toast(Level::Warn, why),
                None => {
                    self.editor = Some(PlanEditor::new(selected, cursor));
                    self.read_lock(&selected.name, data, out);
                }
            },
            KeyCode::Char('R') | KeyCode::Char('B') => {
                let rollback = key.code == KeyCode::Char('B');
                let job = Job::Guard(GuardJob::PromoteResume {
                    endpoint: selected.name.clone(),
                    rollback,
                });
                if let Some(why) = data.refusal(job.mutation()) {
                    out.toast(Level::Warn, why);
                } else if !plan.is_some_and(PlanView::interrupted) {
                    out.toast(Level::Warn, format!("{}: no unfinished promotion plan", selected.name));
                } else {
                    let verb = if rollback { "Roll back" } else { "Resume" };
                    out.overlay = Some(Overlay::Confirm(Confirm {
                        title: format!("{verb} the promotion of {}?", selected.name),
                        lines: view::plan_summary(plan.and_then(|p| p.state.as_ref())),
                        jobs: vec![Job::Guard(GuardJob::PromoteResume {
                            endpoint: selected.name.clone(),
                            rollback,
                        })],
                        danger: rollback,
                        force: Vec::new(),
                    }));
                }
            }
            KeyCode::Esc if plan.is_some_and(|p| p.running) => self.esc_menu = Some(selected.name.clone()),
            _ => return None,
        }
        Some(true)
    }
}

impl PromotionUi {
    /// Quitting with a plan running: the first time, shows that plan's "hold here or roll back"
    /// menu on the Variants tab and returns true (do not quit); once the menu is open, false.
    pub fn hold_quit(&mut self, data: &mut Data, out: &mut Outbox) -> bool {
        if self.esc_menu.is_some() || self.question.is_some() {
            return false;
        }
        let Some(ep) = self.plans.iter().find(|(_, p)| p.running).map(|(e, _)| e.clone()) else {
            return false;
        };
        self.esc_menu = Some(ep.clone());
        data.selected = Some(ep.clone());
        out.switch_to = Some(Tab::Variants);
        out.toast(
            Level::Warn,
            format!(
                "the promotion of {ep} is running: h holds, b rolls back; Ctrl-C again quits (the plan stays saved)"
            ),
        );
        true
    }

    /// Shows plans a previous console left unfinished, with a toast each.
    fn announce_unfinished(&mut self, plans: &[PlanState], out: &mut Outbox) {
        for s in plans {
            let ep = s.spec.endpoint.clone();
            out.toast(
                Level::Warn,
                format!(
                    "unfinished promotion of {} on {ep} ({:?}, step {}): Variants tab, R resumes, B rolls back",
                    s.spec.canary,
                    s.phase,
                    s.step + 1
                ),
            );
            self.plans.insert(
                ep,
                PlanView {
                    state: Some(s.clone()),
                    ..Default::default()
                },
            );
        }
    }

    /// Applies the events of plans: unfinished ones found at start, a running plan's progress,
    /// and its end.
    pub fn on_event(&mut self, ev: &AppEvent, data: &Data, out: &mut Outbox, visible: bool) {
        match ev {
            AppEvent::UnfinishedPlans(plans) => self.announce_unfinished(plans, out),
            AppEvent::Promotion { endpoint, event } => {
                let elsewhere = !visible || data.selected.as_deref() != Some(endpoint);
                self.on_progress(endpoint, event, elsewhere, out);
            }
            AppEvent::PromotionEnded { endpoint, result } => self.on_ended(endpoint, result, out),
            AppEvent::PlanLock { endpoint, result } => self.on_lock(endpoint, result, data, out),
            _ => {}
        }
    }

    /// With a team trail configured, asks what it says of a plan on `endpoint` (the answer
    /// comes as [`AppEvent::PlanLock`]).
    fn read_lock(&mut self, endpoint: &str, data: &Data, out: &mut Outbox) {
        self.lock = None;
        if data.team_trail.is_some() {
            self.lock = Some((endpoint.to_string(), None));
            out.job(GuardJob::PlanLock {
                endpoint: endpoint.to_string(),
            });
        }
    }

    /// The editor's plan: its confirmation now, or, while the team's trail is read, once it is.
    fn submitted(&mut self, plan: Box<Submitted>, data: &Data, out: &mut Outbox) {
        let read = match &self.lock {
            Some((ep, read)) if *ep == plan.0.endpoint => read.clone(),
            _ if data.team_trail.is_some() => {
                self.read_lock(&plan.0.endpoint, data, out);
                None
            }
            _ => return self.confirm(*plan, None, data, out),
        };
        match read {
            Some(r) => self.confirm(*plan, Some(&r), data, out),
            None => {
                let what = format!("reading the team's audit trail for a plan on {}…", plan.0.endpoint);
                out.toast(Level::Info, what);
                self.waiting = Some(plan);
            }
        }
    }

    /// The team's trail answered: kept for the editor's endpoint, and a waiting plan confirmed.
    fn on_lock(&mut self, endpoint: &str, result: &lock::LockRead, data: &Data, out: &mut Outbox) {
        if let Some((ep, read)) = self.lock.as_mut()
            && ep == endpoint
        {
            *read = Some(result.clone());
        }
        if let Some(plan) = self.waiting.take_if(|p| p.0.endpoint == endpoint) {
            self.confirm(*plan, Some(result), data, out);
        }
    }

    /// Opens a plan's confirmation, with what the team's trail says when it was read.
    fn confirm(&mut self, (spec, reason, extras): Submitted, read: Option<&lock::LockRead>, data: &Data, out: &mut Outbox) {
        let Some(e) = data.endpoint(&spec.endpoint) else {
            return out.toast(Level::Warn, format!("{} is no longer in the inventory", spec.endpoint));
        };
        let endpoint = spec.endpoint.clone();
        let mut c = confirm_plan(&spec, reason, extras, e);
        if let Some(r) = read {
            let now = crate::format::now_epoch();
            c = lock::with_lock(c, &endpoint, r, data.reason.as_deref(), now);
        }
        out.overlay = Some(Overlay::Confirm(c));
    }

    fn on_progress(&mut self, endpoint: &str, event: &PromotionEvent, elsewhere: bool, out: &mut Outbox) {
        let plan = self.plans.entry(endpoint.to_string()).or_default();
        plan.running = true;
        plan.error = None;
        match event {
            PromotionEvent::Saved { state } => {
                if state.phase != Phase::Baking {
                    plan.baking_until = None;
                }
                plan.state = Some((**state).clone());
                // The plan moved the endpoint: read it now rather than at the next refresh, so
                // that the Variants table beside the plan shows its status and weights.
                out.job(Job::Fleet(FleetJob::Describe {
                    endpoint: endpoint.to_string(),
                }));
            }
            PromotionEvent::Baking { until, .. } => {
                plan.baking_until = Some(*until);
                plan.judging = false;
            }
            PromotionEvent::Gate { step, report } => {
                plan.judging = false;
                if let Some(rec) = plan.state.as_mut().and_then(|s| s.timeline.get_mut(*step)) {
                    rec.gate = Some((**report).clone());
                }
                let level = match report.verdict {
                    crate::aws::promote::report::Verdict::Pass => Level::Info,
                    _ => Level::Warn,
                };
                out.toast(
                    level,
                    format!("{endpoint} step {}: gate {}", step + 1, report.verdict.as_str()),
                );
            }
            PromotionEvent::Applied { .. } => {}
            PromotionEvent::Judging { .. } => plan.judging = true,
            PromotionEvent::Ask { question } => {
                if elsewhere {
                    out.toast(
                        Level::Warn,
                        format!("the promotion of {endpoint} is waiting for you on the Variants tab (2)"),
                    );
                }
                self.question = Some((endpoint.to_string(), question.clone()));
            }
        }
    }

    fn on_ended(&mut self, endpoint: &str, result: &Result<Box<PlanState>, String>, out: &mut Outbox) {
        if self.question.as_ref().is_some_and(|q| q.0 == endpoint) {
            self.question = None;
        }
        if self.esc_menu.as_deref() == Some(endpoint) {
            self.esc_menu = None;
        }
        let plan = self.plans.entry(endpoint.to_string()).or_default();
        plan.running = false;
        plan.baking_until = None;
        match result {
            Ok(state) => {
                let (level, what) = match state.phase {
                    Phase::Completed => (Level::Info, "completed"),
                    Phase::RolledBack => (Level::Warn, "rolled back"),
                    _ => (Level::Warn, "held"),
                };
                let msg = state
                    .message
                    .as_deref()
                    .map(|m| format!(": {}", view::console_message(m)))
                    .unwrap_or_default();
                out.toast(level, format!("promotion of {endpoint} {what}{msg}"));
                plan.state = Some((**state).clone());
            }
            Err(e) => {
                out.toast(Level::Error, format!("promotion of {endpoint}: {e}"));
                plan.error = Some(e.clone());
            }
        }
    }
}
