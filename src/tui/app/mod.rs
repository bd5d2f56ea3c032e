//! The console's state machine: keys and background events in, state changes and jobs out.
//! Nothing here awaits; the run loop drains [`App::take_jobs`] into the worker.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::data::Data;
use super::event::{FleetJob, FleetKind, Job, JobKind};
use super::panes::{Outbox, Panes, Tab};
use super::theme::Theme;
use super::widgets::Overlay;
use super::widgets::command_line::CommandLine;
use super::widgets::describe::DescribeView;
use super::widgets::scroll;
use super::widgets::toasts::{Level, Toasts};

mod commands;
mod events;
pub use commands::known_profiles;

/// Something the run loop must do outside the state machine.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Reconnect with another region or profile.
    Reconnect {
        /// New profile (None = keep).
        profile: Option<String>,
        /// New region (None = keep).
        region: Option<String>,
    },
    /// Copy text to the clipboard (OSC 52).
    Copy(String),
}

/// Refresh cadence.
#[derive(Debug, Clone, Copy)]
pub struct Intervals {
    /// Inventory.
    pub inventory: Duration,
    /// Metrics.
    pub metrics: Duration,
    /// GetMetricData calls per minute the fleet's metrics may take (the endpoints in focus
    /// first, then a slice of the rest).
    pub metrics_calls_per_minute: u32,
}

impl Default for Intervals {
    fn default() -> Self {
        Intervals {
            inventory: Duration::from_secs(10),
            metrics: Duration::from_secs(15),
            metrics_calls_per_minute: super::refresh::DEFAULT_METRICS_CALLS_PER_MINUTE,
        }
    }
}

/// The whole console state.
pub struct App {
    /// Shared model.
    pub data: Data,
    /// Theme in use.
    pub theme: Theme,
    /// Visible tab.
    pub tab: Tab,
    /// Every pane, in tab order (`panes!` in `panes/mod.rs`).
    pub panes: Panes,
    /// The modal layer, if any.
    pub overlay: Option<Overlay>,
    /// The `:` line.
    pub command_line: CommandLine,
    /// Toasts and the error log.
    pub toasts: Toasts,
    /// Refresh cadence.
    pub intervals: Intervals,
    /// Themes the `:theme` command offers.
    pub theme_names: Vec<String>,
    /// Directory of user themes.
    pub theme_dir: Option<std::path::PathBuf>,
    /// Jobs in flight: id → kind and label.
    pub inflight: BTreeMap<u64, (JobKind, String)>,
    /// Whether to quit.
    pub quit: bool,
    /// Whether the screen needs drawing.
    pub dirty: bool,
    /// Remapped keys.
    pub keymap: super::config::Keymap,
    /// Refreshes of the previous region still in flight after `:region` (their results are
    /// dropped), and since when.
    pub stale_jobs: Vec<u64>,
    stale_since: Option<Instant>,
    jobs: Vec<(u64, Job)>,
    targets: std::collections::HashMap<u64, crate::aws::endpoints::multi::FleetTarget>,
    effects: Vec<Effect>,
    next_id: u64,
    last_inventory: Option<Instant>,
    last_metrics: Option<Instant>,
    /// Sampling requests waiting for their dialog (one shows at a time).
    asks: std::collections::VecDeque<crate::tui::widgets::sampling::SamplingAsk>,
    /// The endpoints in focus when the last fleet metrics were asked (their series are kept).
    metrics_focus: Vec<String>,
}

impl App {
    /// A console with empty data.
    pub fn new(data: Data, theme: Theme) -> App {
        App {
            data,
            theme,
            tab: Tab::Endpoints,
            panes: Panes::default(),
            overlay: None,
            command_line: CommandLine::default(),
            toasts: Toasts::default(),
            intervals: Intervals::default(),
            theme_names: super::theme::BUILTIN.iter().map(|b| b.0.to_string()).collect(),
            theme_dir: None,
            inflight: BTreeMap::new(),
            quit: false,
            dirty: true,
            keymap: super::config::Keymap::default(),
            stale_jobs: Vec::new(),
            stale_since: None,
            jobs: Vec::new(),
            targets: Default::default(),
            effects: Vec::new(),
            next_id: 1,
            last_inventory: None,
            last_metrics: None,
            asks: Default::default(),
            metrics_focus: Vec::new(),
        }
        .with_pane_commands()
    }

    /// The `:` line learns every tab's name and the panes' own commands.
    fn with_pane_commands(mut self) -> App {
        let mut cmds: Vec<(String, bool)> = Tab::ALL.iter().map(|t| (t.command(), false)).collect();
        let mut args = Vec::new();
        for (_, pane) in self.panes.all_mut() {
            cmds.extend(pane.commands().iter().map(|c| (c.name.to_string(), c.takes_arg)));
            for c in pane.commands() {
                let list = pane.command_args(c.name);
                if !list.is_empty() {
                    args.push((c.name.to_string(), list.iter().map(|a| a.to_string()).collect()));
                }
            }
        }
        self.command_line.pane_commands = cmds;
        self.command_line.pane_args = args;
        self
    }

    /// Jobs to hand to the worker.
    pub fn take_jobs(&mut self) -> Vec<(u64, Job)> {
        std::mem::take(&mut self.jobs)
    }

    /// The profile × region pair a job taken by [`App::take_jobs`] acts on (None: the
    /// console's own), forgotten once asked.
    pub fn take_target(&mut self, id: u64) -> Option<crate::aws::endpoints::multi::FleetTarget> {
        self.targets.remove(&id)
    }

    /// Effects for the run loop.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Queues a job and returns its id, or None when the read-only gate refuses it (with a
    /// toast saying so; nothing is sent). This is the console's one read-only gate: every job
    /// passes here. A mutation without a reason of its own carries the session's (`:reason`).
    pub fn submit(&mut self, job: impl Into<Job>) -> Option<u64> {
        let mut job = job.into();
        if let Some(why) = self.data.refusal_on(job.mutation(), job.endpoint()) {
            self.toasts.push(Level::Warn, why);
            return None;
        }
        job.stamp_reason(self.data.reason.as_deref());
        let id = self.next_id;
        self.next_id += 1;
        if let Some(o) = job.endpoint().and_then(|e| self.data.origin(e)) {
            self.targets.insert(id, o.target.clone());
        }
        match job.kind() {
            JobKind::Fleet(FleetKind::Inventory) => self.last_inventory = Some(Instant::now()),
            JobKind::Fleet(FleetKind::Metrics) => self.last_metrics = Some(Instant::now()),
            _ => {}
        }
        for (_, pane) in self.panes.all_mut() {
            pane.on_submitted(id, &job);
        }
        self.jobs.push((id, job));
        Some(id)
    }

    pub(crate) fn apply_outbox(&mut self, out: Outbox) {
        self.apply_outbox_from(out, None);
    }

    /// Applies what the pane of tab `origin` (None: several, or the app) asked for: its toasts
    /// show on its tab only, and a job it sends settles its earlier refusals.
    pub(crate) fn apply_outbox_from(&mut self, out: Outbox, origin: Option<Tab>) {
        let from = origin.map(Tab::title);
        if let Some(o) = from
            && !out.jobs.is_empty()
        {
            self.toasts.settle(o);
        }
        for (level, text) in out.toasts {
            self.toasts.push_from(from, level, text);
        }
        for job in out.jobs {
            self.submit(job);
        }
        if let Some(mut o) = out.overlay {
            if let (Overlay::Confirm(c), Some(r)) = (&mut o, &self.data.reason)
                && c.jobs.iter().chain(&c.force).any(Job::lacks_reason)
            {
                c.lines.push(format!("Reason: {r} (audit log; :reason changes it)"));
            }
            self.overlay = Some(o);
        }
        if let Some(t) = out.switch_to {
            self.switch(t);
        }
        if let Some(text) = out.copy {
            self.effects.push(Effect::Copy(text));
        }
    }

    /// Runs `f` on one pane with the shared data and an outbox, then applies the outbox.
    pub(crate) fn with_pane<R>(
        &mut self,
        tab: Tab,
        f: impl FnOnce(&mut dyn super::panes::Pane, &mut Data, &mut Outbox) -> R,
    ) -> R {
        let mut out = Outbox::default();
        let mut data = std::mem::take(&mut self.data);
        let r = f(self.panes.get_mut(tab), &mut data, &mut out);
        self.data = data;
        self.apply_outbox_from(out, Some(tab));
        r
    }

    /// Runs `f` on every pane in tab order (with whether it is visible), then applies what they
    /// asked for: each pane's toasts show on its own tab, whichever tab is visible.
    pub(crate) fn each_pane(&mut self, f: impl FnMut(&mut dyn super::panes::Pane, &mut Data, &mut Outbox, bool)) {
        self.each_pane_with(f, true);
    }

    /// `each_pane`, the toasts on their pane's tab when `own_tab`, else on every tab (what a `:`
    /// command typed on any tab answers).
    pub(crate) fn each_pane_with(
        &mut self,
        mut f: impl FnMut(&mut dyn super::panes::Pane, &mut Data, &mut Outbox, bool),
        own_tab: bool,
    ) {
        let mut outs = Vec::new();
        let mut data = std::mem::take(&mut self.data);
        let visible = self.tab;
        for (tab, pane) in self.panes.all_mut() {
            let mut out = Outbox::default();
            f(pane, &mut data, &mut out, tab == visible);
            outs.push((tab, out));
        }
        self.data = data;
        for (tab, mut out) in outs {
            let origin = own_tab.then(|| tab.title());
            for (level, text) in std::mem::take(&mut out.toasts) {
                self.toasts.push_from(origin, level, text);
            }
            self.apply_outbox(out);
        }
    }

    /// The visible pane's key hints.
    pub fn hints(&self) -> Vec<super::panes::KeyHint> {
        if let Some(o) = &self.overlay {
            return o.keys();
        }
        self.panes.get(self.tab).keys(&self.data)
    }

    /// Switches tab.
    pub fn switch(&mut self, tab: Tab) {
        self.tab = tab;
        self.with_pane(tab, |p, data, out| p.on_show(data, out));
    }

    /// Requests whatever refresh is due (called on every tick and at start).
    pub fn schedule_refreshes(&mut self) {
        let due = |last: Option<Instant>, every: Duration| last.is_none_or(|t| t.elapsed() >= every);
        let busy = |app: &App, kind: JobKind| app.inflight.values().any(|(k, _)| *k == kind);
        if due(self.last_inventory, self.data.refresh_every()) && !busy(self, JobKind::Fleet(FleetKind::Inventory)) {
            self.refresh_inventory();
        }
        if self.data.loaded
            && due(self.last_metrics, self.intervals.metrics)
            && !busy(self, JobKind::Fleet(FleetKind::Metrics))
        {
            self.request_metrics();
        }
    }

    /// Asks for a refresh of the inventory, the selected endpoint read fresh.
    pub fn refresh_inventory(&mut self) {
        let selected = self.data.selected.clone();
        self.submit(FleetJob::Inventory { selected });
    }

    /// Requests fleet metrics (short window): the selected endpoint and the Endpoints table's
    /// visible rows first, then the next slice of the rest within the calls-per-minute budget.
    /// The Latency pane asks for its own detail window on its own cadence (see
    /// [`App::on_tick`]) and when `r` is pressed there.
    pub fn request_metrics(&mut self) {
        let mut focus = self.panes.endpoints.visible_names(&self.data);
        if let Some(s) = &self.data.selected
            && !focus.contains(s)
        {
            focus.insert(0, s.clone());
        }
        let per_minute = f64::from(self.intervals.metrics_calls_per_minute.max(1));
        let calls = (per_minute * self.intervals.metrics.as_secs_f64() / 60.0)
            .floor()
            .max(1.0) as usize;
        let window = Duration::from_secs(900);
        let endpoints = self.data.metrics_slice(&focus, calls, window);
        self.metrics_focus = focus;
        if !endpoints.is_empty() {
            self.submit(FleetJob::Metrics {
                endpoints,
                window,
                detail: false,
            });
        }
        self.each_pane(|p, data, out, visible| p.on_refresh(visible, data, out));
    }

    /// Handles a key.
    pub fn on_key(&mut self, key: KeyEvent) {
        self.dirty = true;
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            // With a plan running, the first Ctrl-C asks: hold here, or roll back.
            self.quit = !self.hold_quit();
            return;
        }
        if self.command_line.open {
            self.on_command_key(key);
            return;
        }
        if self.overlay.is_some() {
            self.on_overlay_key(key);
            return;
        }
        // The pane first: it may be typing, or use the key itself.
        let capturing = self.panes.get(self.tab).capturing_text();
        let key = if capturing { key } else { self.keymap.translate(key) };
        if capturing || !self.global_key(key) {
            let used = self.with_pane(self.tab, |p, data, out| p.handle_key(key, data, out));
            if !used && capturing {
                self.global_key(key);
            }
        }
    }

    /// Global keys; false when the key is not one.
    fn global_key(&mut self, key: KeyEvent) -> bool {
        match key.code {
            KeyCode::Char('q') => self.quit = !self.hold_quit(),
            KeyCode::Char(':') => self.command_line.open(),
            KeyCode::Char('?') => self.overlay = Some(Overlay::Help { scroll: 0 }),
            KeyCode::Char('e') => self.overlay = Some(Overlay::ErrorLog { scroll: 0 }),
            KeyCode::Char('r') => {
                self.refresh_inventory();
                self.request_metrics();
                self.toasts.push(Level::Info, "refreshing");
            }
            KeyCode::Char(c) if Tab::for_key(c).is_some() => {
                if let Some(tab) = Tab::for_key(c) {
                    self.switch(tab)
                }
            }
            KeyCode::Tab => self.switch(Tab::ALL[(self.tab.index() + 1) % Tab::ALL.len()]),
            KeyCode::BackTab => self.switch(Tab::ALL[(self.tab.index() + Tab::ALL.len() - 1) % Tab::ALL.len()]),
            KeyCode::Char('y') => {
                if let Some(e) = self.data.selected_endpoint() {
                    let text = if key.modifiers.contains(KeyModifiers::SHIFT) {
                        e.arn.clone()
                    } else {
                        e.name.clone()
                    };
                    self.toasts.push(Level::Info, format!("copied {text}"));
                    self.effects.push(Effect::Copy(text));
                }
            }
            KeyCode::Char('Y') => {
                if let Some(e) = self.data.selected_endpoint() {
                    let text = e.arn.clone();
                    self.toasts.push(Level::Info, format!("copied {text}"));
                    self.effects.push(Effect::Copy(text));
                }
            }
            KeyCode::Esc => {
                // Esc cancels the newest call in flight that the user started.
                let user_job = self
                    .inflight
                    .iter()
                    .rev()
                    .find(|(_, (kind, _))| !kind.is_refresh())
                    .map(|(id, (_, l))| (*id, l.clone()));
                match user_job {
                    Some((id, label)) => {
                        self.submit(Job::Cancel(id));
                        self.toasts.push(Level::Warn, format!("cancelled: {label}"));
                    }
                    None => return false,
                }
            }
            _ => return false,
        }
        true
    }

    fn on_overlay_key(&mut self, key: KeyEvent) {
        let Some(overlay) = self.overlay.as_mut() else { return };
        match overlay {
            Overlay::Help { scroll } => match key.code {
                KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => self.overlay = None,
                _ => _ = scroll::offset_key(scroll, &key, scroll::PAGE as u16),
            },
            Overlay::ErrorLog { scroll } => match key.code {
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('e') => self.overlay = None,
                _ => _ = scroll::offset_key(scroll, &key, scroll::PAGE as u16),
            },
            Overlay::Describe(view) => match key.code {
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('d') => self.overlay = None,
                _ => _ = scroll::Move::of_key(&key).map(|m| view.scroll_with(m)),
            },
            Overlay::Confirm(c) => {
                if let Some((jobs, note)) = c.answer(key.code) {
                    self.overlay = None;
                    if let Some(n) = note {
                        self.toasts.push(Level::Info, n);
                    }
                    for j in jobs {
                        self.submit(j);
                    }
                }
            }
            Overlay::Sampling(a) => {
                let send = match key.code {
                    KeyCode::Char('y') | KeyCode::Char('Y') => true,
                    KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => false,
                    _ => return,
                };
                a.decide(send);
                let said = match send {
                    true => format!("sampling request of {} sent to {}", a.request.server, a.request.model),
                    false => format!("sampling request of {} declined", a.request.server),
                };
                self.overlay = None;
                self.toasts.push(Level::Info, crate::format::escape_line(&said));
            }
        }
        self.show_ask();
    }

    /// Opens the next waiting sampling request when no other dialog is open.
    pub(super) fn show_ask(&mut self) {
        if self.overlay.is_none()
            && let Some(a) = self.asks.pop_front()
        {
            self.overlay = Some(Overlay::Sampling(a));
        }
    }

    /// Asks every pane whether it holds a quit (a running promotion asks first): true holds.
    pub fn hold_quit(&mut self) -> bool {
        let mut held = false;
        self.each_pane(|p, data, out, _| held = held || p.hold_quit(data, out));
        held
    }

    /// Opens the describe view of the selected endpoint.
    pub fn describe_selected(&mut self) {
        if let Some(e) = self.data.selected.clone() {
            self.overlay = Some(Overlay::Describe(DescribeView::loading(format!("describe {e}"))));
            self.submit(FleetJob::Describe { endpoint: e });
        }
    }
}
