//! Components: the inference components of the selected IC endpoint, one row each — status,
//! zero state (AT ZERO, WAKING since t, SERVING), a copies bar (current/desired), what a copy
//! reserves against how much of it is used (`/aws/sagemaker/InferenceComponents` utilization),
//! p50/p99 ModelLatency, 4XX/5XX and invocations per copy (`AWS/SageMaker` by
//! `InferenceComponentName`, in one GetMetricData plan) — and the selected component's detail
//! (specification, placement per instance type, failure reason, last deployment). `c` sets the
//! copies now and `w` wakes a component at zero: each a [`GuardJob::SetCopies`] after a before →
//! after confirmation (read-only refused, audited, compare-and-swapped on the copy count read);
//! a wake is followed, re-read every 2 s, until a copy serves. `u` rolls a component over to
//! another model (batch, bake) as a [`GuardJob::UpdateComponent`], followed to its outcome. The
//! Models pane stays for MMEs.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::aws::components::Component;
use crate::tui::data::{ComponentsRead, Data};
use crate::tui::event::{
    AppEvent, FleetJob, GuardJob, Job, SETTING_COPIES, UPDATING_A_COMPONENT, UpdateProgress, WAKING_A_COMPONENT,
};
use crate::tui::theme::Theme;
use crate::tui::widgets::Overlay;
use crate::tui::widgets::scroll::Move;
use crate::tui::widgets::toasts::Level;

mod copies;
pub mod state;
mod update;
mod view;

pub use copies::CopiesForm;
pub use update::UpdateForm;
pub use state::ZeroState;
pub use view::head_line;

/// How often the components are read again while the pane shows.
pub const REFRESH: Duration = Duration::from_secs(5);
/// How often while a component of the endpoint is waking.
pub const FOLLOW: Duration = Duration::from_secs(2);

/// The pane's state.
#[derive(Debug, Default)]
pub struct ComponentsPane {
    /// Selected row.
    cursor: usize,
    /// First visible row.
    offset: usize,
    /// Rows visible at the last draw.
    page: usize,
    /// The component under the cursor, kept across reads.
    current: Option<String>,
    /// The endpoint the cursor belongs to.
    endpoint: Option<String>,
    /// The last read asked: endpoint and when; and whether it is still out.
    requested: Option<(String, Instant)>,
    in_flight: bool,
    /// Why the last read of an endpoint failed.
    error: Option<(String, String)>,
    /// Components this console woke, by (endpoint, component): when (epoch seconds).
    woken: HashMap<(String, String), f64>,
    /// How long each woken component took to serve, once it did.
    served_after: HashMap<(String, String), f64>,
    /// The copies form, while open.
    form: Option<CopiesForm>,
    /// The rolling-update form, while open.
    update: Option<UpdateForm>,
    /// Rolling updates this console sent and follows, by (endpoint, component): to which model.
    rollouts: HashMap<(String, String), String>,
    /// The clock the badges count from (epoch seconds): the last tick or read.
    now: f64,
}

impl ComponentsPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Components";

    /// The selected endpoint's name, when it hosts inference components.
    fn ic_endpoint(data: &Data) -> Option<String> {
        let e = data.selected_endpoint()?;
        e.kind.is_components().then(|| e.name.clone())
    }

    /// The selected endpoint's components as last read.
    pub fn read<'a>(&self, data: &'a Data) -> Option<&'a ComponentsRead> {
        data.components.get(data.selected.as_deref()?)
    }

    /// The component under the cursor.
    pub fn selected<'a>(&self, data: &'a Data) -> Option<&'a Component> {
        self.read(data)?.components.get(self.cursor)
    }

    /// The zero state of `c` (of the selected endpoint), with what this console knows of its wake.
    pub fn zero_state(&self, c: &Component) -> ZeroState {
        ZeroState::of(c, self.woken.get(&(c.endpoint.clone(), c.name.clone())).copied())
    }

    /// [`Self::zero_state`], an adapter's being its base component's (it serves in the base's
    /// copies) when the base is in `read`.
    pub fn zero_state_in(&self, c: &Component, read: &ComponentsRead) -> ZeroState {
        let base = c.base_component.as_ref().and_then(|b| read.component(b));
        self.zero_state(base.unwrap_or(c))
    }

    /// The copies form, while open.
    pub fn form(&self) -> Option<&CopiesForm> {
        self.form.as_ref()
    }

    /// The rolling-update form, while open.
    pub fn update_form(&self) -> Option<&UpdateForm> {
        self.update.as_ref()
    }

    /// The model a rolling update this console follows is taking `c` to.
    pub fn rollout(&self, c: &Component) -> Option<&str> {
        self.rollouts.get(&(c.endpoint.clone(), c.name.clone())).map(String::as_str)
    }

    /// Whether a component of `endpoint` this console woke is still waking.
    fn following(&self, endpoint: &str) -> bool {
        self.woken.keys().any(|(e, _)| e == endpoint)
    }

    /// Asks for the selected IC endpoint's components when due (`force`: now).
    fn request(&mut self, data: &Data, out: &mut Outbox, every: Option<Duration>) {
        let Some(endpoint) = Self::ic_endpoint(data) else { return };
        let asked = self.requested.as_ref().filter(|(e, _)| *e == endpoint);
        let due = match (asked, every) {
            (None, _) => true,
            (Some(_), None) => !self.in_flight,
            (Some((_, at)), Some(every)) => {
                let every = if self.following(&endpoint) { FOLLOW } else { every };
                at.elapsed() >= every && (!self.in_flight || at.elapsed() >= every * 6)
            }
        };
        if due {
            self.requested = Some((endpoint.clone(), Instant::now()));
            self.in_flight = true;
            out.job(FleetJob::Components { endpoint });
        }
    }

    /// Keeps the cursor on its component across reads and selection changes.
    fn sync(&mut self, data: &Data) {
        if data.selected != self.endpoint {
            self.endpoint = data.selected.clone();
            self.cursor = 0;
            self.offset = 0;
            self.current = None;
        }
        let Some(read) = self.read(data) else { return };
        let last = read.components.len().saturating_sub(1);
        let found = self
            .current
            .as_ref()
            .and_then(|name| read.components.iter().position(|c| &c.name == name));
        self.cursor = found.unwrap_or(self.cursor).min(last);
        self.current = read.components.get(self.cursor).map(|c| c.name.clone());
    }

    /// A read arrived: stored for every pane, and every woken component that now serves is
    /// announced with how long it took.
    fn on_read(&mut self, endpoint: &str, result: &Result<Box<ComponentsRead>, crate::aws::AwsError>, data: &mut Data, out: &mut Outbox) {
        if self.requested.as_ref().is_some_and(|(e, _)| e == endpoint) {
            self.in_flight = false;
        }
        match result {
            Ok(read) => {
                self.error = None;
                self.now = self.now.max(read.at);
                for c in &read.components {
                    self.check_woken(c, read.at, out);
                }
                data.components.insert(endpoint.to_string(), (**read).clone());
            }
            Err(e) => self.error = Some((endpoint.to_string(), e.to_string())),
        }
        self.sync(data);
    }

    /// A woken component that serves (or failed) is no longer followed.
    fn check_woken(&mut self, c: &Component, at: f64, out: &mut Outbox) {
        let key = (c.endpoint.clone(), c.name.clone());
        let Some(since) = self.woken.get(&key).copied() else { return };
        match ZeroState::of(c, Some(since)) {
            ZeroState::Serving => {
                self.woken.remove(&key);
                let took = at - since;
                self.served_after.insert(key, took);
                out.toast(
                    Level::Info,
                    format!("{} serves: {} copy up after {}", c.name, c.copies.current, state::elapsed(took)),
                );
            }
            ZeroState::Failed | ZeroState::AtZero => {
                self.woken.remove(&key);
                out.toast(
                    Level::Warn,
                    format!("{} did not wake: {} ({} copies asked)", c.name, c.status, c.copies.desired),
                );
            }
            ZeroState::Waking { .. } => {}
        }
    }

    /// A copy-count change ended: the component as described after it, or why nothing was sent.
    fn on_copies_set(
        &mut self,
        (endpoint, component): (&str, &str),
        result: &Result<Box<Component>, String>,
        data: &mut Data,
        out: &mut Outbox,
    ) {
        match result {
            Ok(c) => {
                if let Some(read) = data.components.get_mut(endpoint)
                    && let Some(slot) = read.components.iter_mut().find(|x| x.name == component)
                {
                    *slot = (**c).clone();
                }
                out.toast(
                    Level::Info,
                    format!("{component}: {} copies asked ({} serving)", c.copies.desired, c.copies.current),
                );
                // Read again at once: the follow goes on from the new counts.
                self.requested = None;
                self.in_flight = false;
                self.request(data, out, None);
            }
            Err(why) => {
                self.woken.remove(&(endpoint.to_string(), component.to_string()));
                out.toast(Level::Error, format!("{component}: not sent: {why}"));
            }
        }
    }

    /// `c`: opens the copies form on the selected component (refused at once in read-only mode).
    fn open_form(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused(data, SETTING_COPIES) {
            return;
        }
        match self.selected(data) {
            Some(c) => self.form = Some(CopiesForm::new(c)),
            None => out.toast(Level::Warn, "no component selected (the components are still being read)"),
        }
    }

    /// `w`: wakes the selected component from zero (copies 0 → 1) after a confirmation.
    fn wake(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused(data, WAKING_A_COMPONENT) {
            return;
        }
        let Some(c) = self.selected(data) else { return };
        if let Some(base) = &c.base_component {
            out.toast(
                Level::Info,
                format!("{} is an adapter on {base}: it wakes with its base (`w` on {base})", c.name),
            );
            return;
        }
        if c.copies.desired > 0 {
            out.toast(
                Level::Info,
                format!("{} is not at zero: {} copies asked ({} serving); `c` sets the copies", c.name, c.copies.desired, c.copies.current),
            );
            return;
        }
        out.overlay = Some(Overlay::Confirm(copies::confirm(c, 1, true)));
    }

    /// `u`: opens the rolling-update form on the selected component (refused at once in
    /// read-only mode).
    fn open_update(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused(data, UPDATING_A_COMPONENT) {
            return;
        }
        match self.selected(data) {
            Some(c) if c.is_adapter() => out.toast(
                Level::Info,
                format!("{} is an adapter: it serves its base's model (update the base)", c.name),
            ),
            Some(c) => self.update = Some(UpdateForm::new(c)),
            None => out.toast(Level::Warn, "no component selected (the components are still being read)"),
        }
    }

    /// A key while the rolling-update form is open.
    fn update_key(&mut self, key: KeyEvent, data: &Data, out: &mut Outbox) {
        match key.code {
            KeyCode::Esc => self.update = None,
            KeyCode::Enter => {
                let current = self.selected(data).cloned();
                let Some(form) = self.update.as_mut() else { return };
                match current.as_ref().map(|c| form.confirm(c)) {
                    Some(Ok(confirm)) => {
                        out.overlay = Some(Overlay::Confirm(confirm));
                        self.update = None;
                    }
                    Some(Err(why)) => form.error = Some(why),
                    None => self.update = None,
                }
            }
            code => {
                if let Some(form) = self.update.as_mut() {
                    form.type_key(code);
                }
            }
        }
    }

    /// A rolling update's progress: its states land in the components read, its end in a toast.
    fn on_update(&mut self, (endpoint, component): (&str, &str), progress: &UpdateProgress, data: &mut Data, out: &mut Outbox) {
        use crate::aws::components::RolloutOutcome;
        let key = (endpoint.to_string(), component.to_string());
        let replace = |data: &mut Data, c: &Component| {
            if let Some(slot) = data
                .components
                .get_mut(endpoint)
                .and_then(|r| r.components.iter_mut().find(|x| x.name == component))
            {
                *slot = c.clone();
            }
        };
        match progress {
            UpdateProgress::State(c) => replace(data, c),
            UpdateProgress::Done(Ok(report)) => {
                self.rollouts.remove(&key);
                replace(data, &report.last);
                let took = state::elapsed(report.elapsed_secs);
                let (level, text) = match &report.outcome {
                    RolloutOutcome::Succeeded => (Level::Info, format!("{component} serves {} (rolled out in {took})", report.to_model)),
                    RolloutOutcome::RolledBack { reason } => (
                        Level::Warn,
                        format!("{component} rolled back to {}: {}", report.from_model.as_deref().unwrap_or("-"), reason.as_deref().unwrap_or("no reason given")),
                    ),
                    RolloutOutcome::Failed { reason } => {
                        (Level::Error, format!("{component} failed: {}", reason.as_deref().unwrap_or("no reason given")))
                    }
                };
                out.toast(level, crate::format::escape_line(&text).into_owned());
            }
            UpdateProgress::Done(Err(why)) => {
                self.rollouts.remove(&key);
                out.toast(Level::Error, format!("{component}: rolling update not done: {why}"));
            }
        }
    }

    /// A job was queued: a wake starts being followed from now, a rolling update until it ends.
    fn note_submitted(&mut self, job: &Job) {
        if let Job::Guard(GuardJob::UpdateComponent {
            endpoint, seen, update, ..
        }) = job
        {
            self.rollouts
                .insert((endpoint.clone(), seen.component.clone()), update.model.clone());
        }
        if let Job::Guard(GuardJob::SetCopies {
            endpoint,
            seen,
            wake: true,
            ..
        }) = job
        {
            let now = crate::format::now_epoch();
            self.now = self.now.max(now);
            self.woken.insert((endpoint.clone(), seen.component.clone()), now);
        }
    }

    /// A key while the form is open.
    fn form_key(&mut self, key: KeyEvent, data: &Data, out: &mut Outbox) {
        let Some(form) = self.form.as_mut() else { return };
        match key.code {
            KeyCode::Esc => self.form = None,
            KeyCode::Enter => {
                let current = self.selected(data).cloned();
                let Some(form) = self.form.as_mut() else { return };
                match current.as_ref().map(|c| form.confirm(c)) {
                    Some(Ok(confirm)) => {
                        out.overlay = Some(Overlay::Confirm(confirm));
                        self.form = None;
                    }
                    Some(Err(why)) => form.error = Some(why),
                    None => self.form = None,
                }
            }
            code => form.type_key(code),
        }
    }
}

impl Pane for ComponentsPane {
    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        self.sync(data);
        if self.form.is_some() {
            self.form_key(key, data, out);
            return true;
        }
        if self.update.is_some() {
            self.update_key(key, data, out);
            return true;
        }
        match key.code {
            KeyCode::Char('c') => self.open_form(data, out),
            KeyCode::Char('w') => self.wake(data, out),
            KeyCode::Char('u') => self.open_update(data, out),
            _ => {
                let rows = self.read(data).map_or(0, |r| r.components.len());
                let Some(m) = Move::of_key(&key) else { return false };
                self.cursor = m.cursor(self.cursor, rows, self.page.max(1));
                self.current = self.read(data).and_then(|r| r.components.get(self.cursor)).map(|c| c.name.clone());
            }
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        self.sync(data);
        self.draw(f, area, data, theme);
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        if self.form.is_some() {
            return vec![
                KeyHint::new("0-9", "copies"),
                KeyHint::new("Enter", "review"),
                KeyHint::new("Esc", "cancel"),
            ];
        }
        if self.update.is_some() {
            return vec![
                KeyHint::new("Tab", "next field"),
                KeyHint::new("Enter", "review"),
                KeyHint::new("Esc", "cancel"),
            ];
        }
        let no_change = data.read_only || self.selected(data).is_none();
        let no_wake = no_change || self.selected(data).is_some_and(|c| c.copies.desired > 0);
        vec![
            KeyHint::new("↑↓", "move"),
            KeyHint::when("c", "set copies", no_change),
            KeyHint::when("w", "wake", no_wake),
            KeyHint::when("u", "rolling update", no_change),
            KeyHint::new("r", "refresh"),
            KeyHint::new("?", "help"),
        ]
    }

    fn capturing_text(&self) -> bool {
        self.form.is_some() || self.update.is_some()
    }

    fn on_show(&mut self, data: &mut Data, out: &mut Outbox) {
        self.request(data, out, Some(REFRESH));
    }

    fn on_event(&mut self, ev: &AppEvent, data: &mut Data, out: &mut Outbox, _visible: bool) {
        match ev {
            AppEvent::Components { endpoint, result } => self.on_read(endpoint, result, data, out),
            AppEvent::CopiesSet {
                endpoint,
                component,
                result,
            } => self.on_copies_set((endpoint, component), result, data, out),
            AppEvent::ComponentUpdate {
                endpoint,
                component,
                progress,
            } => self.on_update((endpoint, component), progress, data, out),
            _ => {}
        }
    }

    fn on_submitted(&mut self, _id: u64, job: &Job) {
        self.note_submitted(job);
    }

    fn on_tick(&mut self, visible: bool, data: &Data, out: &mut Outbox) {
        self.now = self.now.max(crate::format::now_epoch());
        // The header of an IC endpoint names its components: read them once it is selected.
        let selected = data.selected.as_deref();
        let unread = selected.is_some_and(|s| {
            !data.components.contains_key(s) && self.requested.as_ref().is_none_or(|(e, _)| e != s)
        });
        let following = selected.is_some_and(|s| self.following(s));
        if visible || following {
            self.request(data, out, Some(REFRESH));
        } else if unread {
            self.request(data, out, None);
        }
    }

    fn on_refresh(&mut self, visible: bool, data: &Data, out: &mut Outbox) {
        if visible {
            self.request(data, out, None);
        }
    }
}
