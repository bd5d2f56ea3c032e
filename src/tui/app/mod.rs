//! The console's state machine: keys and background events in, state changes and jobs out.
//! Nothing here awaits; the run loop drains [`App::take_jobs`] into the worker.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::data::Data;
use super::event::{AppEvent, Job};
use super::panes::activity::ActivityPane;
use super::panes::endpoints::EndpointsPane;
use super::panes::invoke::InvokePane;
use super::panes::latency::LatencyPane;
use super::panes::models::ModelsPane;
use super::panes::tools::ToolsPane;
use super::panes::variants::VariantsPane;
use super::panes::{Outbox, Pane, Tab};
use super::theme::Theme;
use super::widgets::Overlay;
use super::widgets::command_line::CommandLine;
use super::widgets::describe::DescribeView;
use super::widgets::toasts::{Level, Toasts};

mod commands;
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
}

impl Default for Intervals {
    fn default() -> Self {
        Intervals {
            inventory: Duration::from_secs(10),
            metrics: Duration::from_secs(15),
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
    /// Endpoints pane.
    pub endpoints: EndpointsPane,
    /// Variants pane.
    pub variants: VariantsPane,
    /// Models pane.
    pub models: ModelsPane,
    /// Latency pane.
    pub latency: LatencyPane,
    /// Invoke pane.
    pub invoke: InvokePane,
    /// Tools pane (MCP).
    pub tools: ToolsPane,
    /// Activity pane (the audit log).
    pub activity: ActivityPane,
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
    /// Jobs in flight: id → label.
    pub inflight: BTreeMap<u64, String>,
    /// Whether to quit.
    pub quit: bool,
    /// Whether the screen needs drawing.
    pub dirty: bool,
    /// Remapped keys.
    pub keymap: super::config::Keymap,
    jobs: Vec<(u64, Job)>,
    effects: Vec<Effect>,
    next_id: u64,
    last_inventory: Option<Instant>,
    last_metrics: Option<Instant>,
}

impl App {
    /// A console with empty data.
    pub fn new(data: Data, theme: Theme) -> App {
        App {
            data,
            theme,
            tab: Tab::Endpoints,
            endpoints: EndpointsPane::default(),
            variants: VariantsPane::default(),
            models: ModelsPane::default(),
            latency: LatencyPane::default(),
            invoke: InvokePane::default(),
            tools: ToolsPane::default(),
            activity: ActivityPane::default(),
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
            jobs: Vec::new(),
            effects: Vec::new(),
            next_id: 1,
            last_inventory: None,
            last_metrics: None,
        }
    }

    /// Jobs to hand to the worker.
    pub fn take_jobs(&mut self) -> Vec<(u64, Job)> {
        std::mem::take(&mut self.jobs)
    }

    /// Effects for the run loop.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Queues a job and returns its id. A mutation without a reason of its own carries the
    /// session's (`:reason`).
    pub fn submit(&mut self, mut job: Job) -> u64 {
        job.stamp_reason(self.data.reason.as_deref());
        let id = self.next_id;
        self.next_id += 1;
        match &job {
            Job::Inventory => self.last_inventory = Some(Instant::now()),
            Job::Metrics { .. } => self.last_metrics = Some(Instant::now()),
            Job::Invoke { .. } => self.invoke.on_submitted(id),
            Job::McpConnect { .. } | Job::ToolCall { .. } => self.tools.on_submitted(id, &job),
            _ => {}
        }
        self.jobs.push((id, job));
        id
    }

    fn apply_outbox(&mut self, out: Outbox) {
        for (level, text) in out.toasts {
            self.toasts.push(level, text);
        }
        for job in out.jobs {
            self.submit(job);
        }
        if let Some(mut o) = out.overlay {
            if let (Overlay::Confirm(c), Some(r)) = (&mut o, &self.data.reason)
                && c.jobs.iter().any(Job::lacks_reason)
            {
                c.lines.push(format!("Reason: {r} (audit log; :reason changes it)"));
            }
            self.overlay = Some(o);
        }
        if let Some(t) = out.switch_to {
            self.switch(t);
        }
    }

    fn pane_mut(&mut self) -> Option<&mut dyn Pane> {
        match self.tab {
            Tab::Endpoints => Some(&mut self.endpoints),
            Tab::Variants => Some(&mut self.variants),
            Tab::Models => Some(&mut self.models),
            Tab::Latency => Some(&mut self.latency),
            Tab::Invoke => Some(&mut self.invoke),
            Tab::Tools => Some(&mut self.tools),
            Tab::Activity => Some(&mut self.activity),
        }
    }

    /// The visible pane's key hints.
    pub fn hints(&self) -> Vec<super::panes::KeyHint> {
        if let Some(Overlay::WeightEditor(editor)) = &self.overlay {
            return editor.keys();
        }
        match self.tab {
            Tab::Endpoints => self.endpoints.keys(&self.data),
            Tab::Variants => self.variants.keys(&self.data),
            Tab::Models => self.models.keys(&self.data),
            Tab::Latency => self.latency.keys(&self.data),
            Tab::Invoke => self.invoke.keys(&self.data),
            Tab::Tools => self.tools.keys(&self.data),
            Tab::Activity => self.activity.keys(&self.data),
        }
    }

    /// Switches tab.
    pub fn switch(&mut self, tab: Tab) {
        self.tab = tab;
        let mut out = Outbox::default();
        let mut data = std::mem::take(&mut self.data);
        if let Some(p) = self.pane_mut() {
            p.on_show(&mut data, &mut out);
        }
        self.data = data;
        self.apply_outbox(out);
    }

    /// Requests whatever refresh is due (called on every tick and at start).
    pub fn schedule_refreshes(&mut self) {
        let due = |last: Option<Instant>, every: Duration| last.is_none_or(|t| t.elapsed() >= every);
        let busy = |app: &App, prefix: &str| app.inflight.values().any(|l| l.starts_with(prefix));
        if due(self.last_inventory, self.intervals.inventory) && !busy(self, "refreshing endpoints") {
            self.submit(Job::Inventory);
        }
        if self.data.loaded && due(self.last_metrics, self.intervals.metrics) && !busy(self, "loading metrics") {
            self.request_metrics();
        }
    }

    /// Requests fleet metrics (short window); the Latency pane asks for its own detail window on its
    /// own cadence (see [`App::on_tick`]) and when `r` is pressed there.
    pub fn request_metrics(&mut self) {
        let serving: Vec<_> = self
            .data
            .inventory
            .iter()
            .filter(|e| matches!(e.status.as_str(), "InService" | "Updating"))
            .cloned()
            .collect();
        if !serving.is_empty() {
            self.submit(Job::Metrics {
                endpoints: serving,
                window: Duration::from_secs(900),
                detail: false,
            });
        }
        if self.tab == Tab::Latency {
            let mut out = Outbox::default();
            self.latency.request(&self.data, &mut out);
            self.apply_outbox(out);
        }
    }

    /// Handles a key.
    pub fn on_key(&mut self, key: KeyEvent) {
        self.dirty = true;
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            // With a plan running, the first Ctrl-C asks: hold here, or roll back.
            self.quit = !super::panes::variants::promotion::ask_before_quit(self);
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
        let capturing = match self.tab {
            Tab::Endpoints => self.endpoints.capturing_text(),
            Tab::Variants => self.variants.capturing_text(),
            Tab::Models => self.models.capturing_text(),
            Tab::Latency => self.latency.capturing_text(),
            Tab::Invoke => self.invoke.capturing_text(),
            Tab::Tools => self.tools.capturing_text(),
            Tab::Activity => self.activity.capturing_text(),
        };
        let key = if capturing { key } else { self.keymap.translate(key) };
        if capturing || !self.global_key(key) {
            let mut out = Outbox::default();
            let mut data = std::mem::take(&mut self.data);
            let used = self
                .pane_mut()
                .map(|p| p.handle_key(key, &mut data, &mut out))
                .unwrap_or(false);
            self.data = data;
            self.apply_outbox(out);
            if !used && capturing {
                self.global_key(key);
            }
        }
    }

    /// Global keys; false when the key is not one.
    fn global_key(&mut self, key: KeyEvent) -> bool {
        match key.code {
            KeyCode::Char('q') => self.quit = !super::panes::variants::promotion::ask_before_quit(self),
            KeyCode::Char(':') => self.command_line.open(),
            KeyCode::Char('?') => self.overlay = Some(Overlay::Help { scroll: 0 }),
            KeyCode::Char('e') => self.overlay = Some(Overlay::ErrorLog { scroll: 0 }),
            KeyCode::Char('r') => {
                self.submit(Job::Inventory);
                self.request_metrics();
                self.toasts.push(Level::Info, "refreshing");
            }
            KeyCode::Char(c @ '1'..='7') => self.switch(Tab::ALL[(c as u8 - b'1') as usize]),
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
                    .find(|(_, l)| !l.starts_with("refreshing") && !l.starts_with("loading metrics"))
                    .map(|(id, l)| (*id, l.clone()));
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
                KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => *scroll = scroll.saturating_add(1),
                KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
                KeyCode::PageDown | KeyCode::Char(' ') => *scroll = scroll.saturating_add(10),
                KeyCode::Home | KeyCode::Char('g') => *scroll = 0,
                KeyCode::End | KeyCode::Char('G') => *scroll = u16::MAX,
                _ => {}
            },
            Overlay::ErrorLog { scroll } => match key.code {
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('e') => self.overlay = None,
                KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => *scroll = scroll.saturating_add(1),
                _ => {}
            },
            Overlay::Describe(view) => match key.code {
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('d') => self.overlay = None,
                KeyCode::Up | KeyCode::Char('k') => view.scroll_by(-1, 20),
                KeyCode::Down | KeyCode::Char('j') => view.scroll_by(1, 20),
                KeyCode::PageUp => view.scroll_by(-20, 20),
                KeyCode::PageDown | KeyCode::Char(' ') => view.scroll_by(20, 20),
                KeyCode::Home | KeyCode::Char('g') => view.scroll = 0,
                KeyCode::End | KeyCode::Char('G') => view.scroll_by(isize::MAX / 2, 20),
                _ => {}
            },
            Overlay::Confirm(c) => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => {
                    let jobs = std::mem::take(&mut c.jobs);
                    self.overlay = None;
                    if self.data.read_only {
                        self.toasts.push(Level::Warn, "read-only: nothing was sent");
                        return;
                    }
                    for j in jobs {
                        self.submit(j);
                    }
                }
                KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc | KeyCode::Char('q') => {
                    self.overlay = None;
                    self.toasts.push(Level::Info, "not applied");
                }
                _ => {}
            },
            Overlay::WeightEditor(_) => {
                let Some(Overlay::WeightEditor(mut editor)) = self.overlay.take() else {
                    return;
                };
                let mut out = Outbox::default();
                let keep = editor.handle_key(key, &self.data, &mut out);
                if keep && out.overlay.is_none() {
                    self.overlay = Some(Overlay::WeightEditor(editor));
                }
                self.apply_outbox(out);
            }
        }
    }

    /// Applies a background event.
    pub fn on_event(&mut self, ev: AppEvent) {
        self.dirty = true;
        match ev {
            AppEvent::Started { id, label } => {
                self.inflight.insert(id, label);
            }
            AppEvent::Finished { id, cancelled } => {
                let label = self.inflight.remove(&id).unwrap_or_default();
                if cancelled {
                    if label.starts_with("invoking") {
                        self.invoke.on_cancelled(id);
                    } else if label.starts_with("prewarming") {
                        self.models.on_cancelled();
                    }
                }
                self.tools.on_finished(id, cancelled, &mut self.toasts);
            }
            AppEvent::Inventory(Ok(inv)) => {
                self.data.inventory = inv.endpoints;
                self.data.failures = inv.failures;
                self.data.loaded = true;
                self.data.last_ok = Some(Instant::now());
                if self.data.refresh_failed {
                    self.toasts.push(Level::Info, "endpoints refreshed again");
                }
                self.data.refresh_failed = false;
                for f in &self.data.failures {
                    self.toasts
                        .push(Level::Warn, format!("could not describe {}: {}", f.endpoint, f.error));
                }
                if self.data.selected.is_none() {
                    self.data.selected = self.data.inventory.first().map(|e| e.name.clone());
                }
                self.endpoints.on_inventory(&self.data);
                if self.last_metrics.is_none() {
                    self.request_metrics();
                }
            }
            AppEvent::Inventory(Err(e)) => {
                let first = !self.data.refresh_failed;
                self.data.refresh_failed = true;
                if first {
                    self.toasts.push(Level::Error, format!("refresh failed: {e}"));
                }
            }
            AppEvent::Metrics { detail, result: Ok(m) } => {
                if detail {
                    self.data.detail_metrics = Some(m);
                } else {
                    self.data.fleet_metrics = Some(m);
                }
            }
            AppEvent::Metrics { result: Err(e), .. } => self.toasts.push(Level::Warn, format!("metrics: {e}")),
            AppEvent::Described { endpoint, result } => {
                if let Some(Overlay::Describe(view)) = self.overlay.as_mut() {
                    match result {
                        Ok((info, acts)) => {
                            view.set(&serde_json::json!({ "endpoint": info, "scaling_activities": acts }))
                        }
                        Err(e) => view.error = Some(format!("describe {endpoint}: {e}")),
                    }
                }
            }
            AppEvent::WeightsProgress(info) => {
                self.data.weights_progress = Some(info.clone());
                replace_endpoint(&mut self.data, info);
            }
            AppEvent::WeightsDone { endpoint, result } => {
                self.data.weights_progress = None;
                match result {
                    Ok(info) => {
                        self.toasts
                            .push(Level::Info, format!("{endpoint} is InService with the new weights"));
                        replace_endpoint(&mut self.data, info);
                    }
                    Err(e) => self.toasts.push(Level::Error, format!("weights of {endpoint}: {e}")),
                }
            }
            AppEvent::Invoked { id, index, result } => {
                if let Ok(r) = &result {
                    self.data.own_latency.record(r.latency);
                }
                self.invoke.on_result(id, index, result, &mut self.toasts);
            }
            AppEvent::Catalog { endpoint, result } => match result {
                Ok(c) => {
                    self.data.catalog_errors.remove(&endpoint);
                    self.data.catalogs.insert(endpoint, c);
                }
                Err(e) => {
                    self.data.catalog_errors.insert(endpoint.clone(), e.to_string());
                    self.toasts.push(Level::Error, format!("models of {endpoint}: {e}"));
                }
            },
            ev @ (AppEvent::McpServers { .. } | AppEvent::ToolProgress { .. } | AppEvent::ToolResult { .. }) => {
                self.tools.on_event(ev, &mut self.toasts)
            }
            AppEvent::Activity(r) => self.activity.on_read(r),
            AppEvent::Notice { error, text } => self.toasts.push(if error { Level::Error } else { Level::Info }, text),
            ev @ (AppEvent::Promotion { .. } | AppEvent::PromotionEnded { .. }) => {
                super::panes::variants::promotion::on_event(self, ev)
            }
            AppEvent::Prewarm { endpoint, event } => self.models.on_prewarm_event(&endpoint, event, &mut self.data),
            AppEvent::PrewarmDone { endpoint, result } => {
                self.models
                    .on_prewarm_done(&endpoint, result, &mut self.data, &mut self.toasts)
            }
        }
    }

    /// A slow tick: expires toasts, schedules refreshes; marks dirty when the header ages.
    pub fn on_tick(&mut self) {
        if self.toasts.expire() {
            self.dirty = true;
        }
        self.schedule_refreshes();
        // The Activity tab re-reads the log while visible.
        if self.tab == Tab::Activity {
            let mut out = Outbox::default();
            self.activity.tick(self.intervals.inventory, &mut out);
            self.apply_outbox(out);
        }
        if self.tab == Tab::Latency && self.data.loaded {
            let mut out = Outbox::default();
            self.latency.tick(&self.data, &mut out);
            self.apply_outbox(out);
        }
        // The refresh age in the header changes every second.
        self.dirty = true;
    }

    /// Opens the describe view of the selected endpoint.
    pub fn describe_selected(&mut self) {
        if let Some(e) = self.data.selected.clone() {
            self.overlay = Some(Overlay::Describe(DescribeView::loading(format!("describe {e}"))));
            self.submit(Job::Describe { endpoint: e });
        }
    }
}

fn replace_endpoint(data: &mut Data, info: crate::aws::inventory::EndpointInfo) {
    if let Some(slot) = data.inventory.iter_mut().find(|e| e.name == info.name) {
        let scaling = std::mem::take(&mut slot.autoscaling);
        *slot = info;
        if slot.autoscaling.is_empty() {
            slot.autoscaling = scaling;
        }
    }
}
