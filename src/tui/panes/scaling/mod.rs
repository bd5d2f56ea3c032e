//! Scaling: the autoscaling of the selected endpoint, one variant at a time (`v`): its scalable
//! target (min/max/desired), its policies with the lint's findings as badges (`f` shows each
//! finding's what/why/fix), a chart of the tracked metric against the policy's target and of the
//! instance count over the last hour with scaling activities marked, what the policy will do
//! next, and the recent activities with their causes. Edits (`m` min/max, `t` target
//! invocations, `p` target p99 ms, `c` cooldowns, `x` remove the policy, `n` instances now) are
//! planned by the fleet layer's shared code, shown before → after in a confirmation, and sent as
//! one [`GuardJob::ChangeScaling`]. After the variants, `v` shows each inference component of
//! the endpoint: its copies, policies and the scale-to-zero doctor (`component.rs`), where `m`
//! sets min/max copies, `t` the target invocations per copy and `z` runs the scale-to-zero plan,
//! each confirmed before → after and sent as one [`GuardJob::ChangeComponentScaling`]. The view
//! refreshes in the background every few seconds.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::aws::scaling::change::ScalingSnapshot;
use crate::aws::scaling::view::{ScalingView, VariantView};
use crate::aws::scaling::zero::view::ComponentView;
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, CHANGING_AUTOSCALING, FleetJob, FleetKind, JobKind};
use crate::tui::theme::Theme;
use crate::tui::widgets::toasts::Level;
use crate::tui::widgets::scroll::{Move, PAGE};

mod component;
mod edit;
mod view;

pub use edit::{EditKind, Editor};

/// How often the view refreshes while it shows.
pub const REFRESH: Duration = Duration::from_secs(5);

/// What the pane is doing.
#[derive(Debug, Default)]
enum Mode {
    /// The view.
    #[default]
    Normal,
    /// The findings, each with what/why/fix.
    Findings {
        /// Scroll offset.
        scroll: u16,
    },
    /// An edit being typed.
    Edit(Editor),
}

/// The pane's state.
#[derive(Debug, Default)]
pub struct ScalingPane {
    view: Option<Box<ScalingView>>,
    error: Option<String>,
    variant: usize,
    policy: usize,
    mode: Mode,
    last_request: Option<Instant>,
    in_flight: bool,
}

impl ScalingPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Scaling";

    /// The view as last read, if it is of the selected endpoint.
    pub fn view(&self, data: &Data) -> Option<&ScalingView> {
        let v = self.view.as_deref()?;
        (data.selected.as_deref() == Some(v.state.info.name.as_str())).then_some(v)
    }

    /// The variant shown.
    pub fn variant<'a>(&self, view: &'a ScalingView) -> Option<&'a VariantView> {
        view.variants.get(self.variant.min(view.variants.len().saturating_sub(1)))
    }

    /// The component shown, when the page selected (`v`) is past the variants.
    pub fn component<'a>(&self, view: &'a ScalingView) -> Option<(usize, &'a ComponentView)> {
        let i = self.variant.checked_sub(view.variants.len())?;
        view.components.get(i).map(|c| (i, c))
    }

    /// The edit being typed, if any.
    pub fn editor(&self) -> Option<&Editor> {
        match &self.mode {
            Mode::Edit(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the findings detail is open.
    pub fn showing_findings(&self) -> bool {
        matches!(self.mode, Mode::Findings { .. })
    }

    /// Asks for the selected endpoint's view (unless one is in flight).
    pub fn request(&mut self, data: &Data, out: &mut Outbox) {
        let Some(endpoint) = data.selected.clone() else { return };
        if self.in_flight && self.last_request.is_some_and(|t| t.elapsed() < REFRESH * 6) {
            return;
        }
        out.job(FleetJob::ScalingView { endpoint });
        self.in_flight = true;
        self.last_request = Some(Instant::now());
    }

    /// The policy names of the variant shown.
    fn policy_names(&self, data: &Data) -> Vec<String> {
        let Some(view) = self.view(data) else { return Vec::new() };
        let Some(v) = self.variant(view) else { return Vec::new() };
        view.state.policies_of(&v.variant).map(|p| p.policy_name.clone()).collect()
    }

    /// The selected policy of the variant shown.
    pub fn selected_policy(&self, data: &Data) -> Option<String> {
        let names = self.policy_names(data);
        names.get(self.policy.min(names.len().saturating_sub(1))).cloned()
    }

    /// Opens the editor of `kind` (refused at once in read-only mode).
    fn open_editor(&mut self, kind: EditKind, data: &Data, out: &mut Outbox) {
        if out.refused(data, CHANGING_AUTOSCALING) {
            return;
        }
        let Some(view) = self.view(data) else {
            out.toast(Level::Warn, "the autoscaling view has not been read yet");
            return;
        };
        if let Some((_, c)) = self.component(view) {
            let kind = match kind {
                EditKind::Bounds => EditKind::CopyBounds,
                EditKind::TargetInvocations => EditKind::TargetPerCopy,
                k if k.of_component() => k,
                _ => {
                    out.toast(Level::Warn, "on a component: m min/max copies, t target per copy, z scale to zero");
                    return;
                }
            };
            match Editor::open_component(kind, view, &c.scaling.component) {
                Ok(e) => self.mode = Mode::Edit(e),
                Err(why) => out.toast(Level::Warn, why),
            }
            return;
        }
        if kind.of_component() {
            out.toast(Level::Warn, "z sets up scale to zero on a component's page (v past the variants)");
            return;
        }
        let Some(v) = self.variant(view) else { return };
        let policy = self.selected_policy(data);
        match Editor::open(kind, view, &v.variant, policy.as_deref()) {
            Ok(e) => self.mode = Mode::Edit(e),
            Err(why) => out.toast(Level::Warn, why),
        }
    }

    /// Plans the typed edit; on success the confirmation replaces the editor.
    fn review(&mut self, out: &mut Outbox) {
        let Mode::Edit(editor) = &mut self.mode else { return };
        let Some(view) = self.view.as_deref() else { return };
        match editor.confirm(view) {
            Ok(confirm) => {
                out.overlay = Some(crate::tui::widgets::Overlay::Confirm(confirm));
                self.mode = Mode::Normal;
            }
            Err(why) => editor.error = Some(why),
        }
    }

    fn edit_key(&mut self, key: KeyEvent, out: &mut Outbox) {
        let Mode::Edit(editor) = &mut self.mode else { return };
        match key.code {
            KeyCode::Esc => self.mode = Mode::Normal,
            KeyCode::Enter => self.review(out),
            KeyCode::Backspace => {
                editor.input.pop();
                editor.error = None;
            }
            KeyCode::Char(c) if c.is_ascii_digit() || c == ' ' || c == '.' => {
                editor.input.push(c);
                editor.error = None;
            }
            _ => {}
        }
    }

    fn normal_key(&mut self, key: KeyEvent, data: &Data, out: &mut Outbox) -> bool {
        match key.code {
            KeyCode::Char('v') => {
                let n = self
                    .view(data)
                    .map(|v| v.variants.len() + v.components.len())
                    .unwrap_or(0);
                self.variant = if n == 0 { 0 } else { (self.variant + 1) % n };
                self.policy = 0;
            }
            KeyCode::Char('f') | KeyCode::Enter => self.mode = Mode::Findings { scroll: 0 },
            KeyCode::Char('m') => self.open_editor(EditKind::Bounds, data, out),
            KeyCode::Char('t') => self.open_editor(EditKind::TargetInvocations, data, out),
            KeyCode::Char('p') => self.open_editor(EditKind::TargetP99, data, out),
            KeyCode::Char('c') => self.open_editor(EditKind::Cooldowns, data, out),
            KeyCode::Char('n') => self.open_editor(EditKind::Instances, data, out),
            KeyCode::Char('x') => {
                self.open_editor(EditKind::RemovePolicy, data, out);
                if matches!(self.mode, Mode::Edit(_)) {
                    self.review(out);
                }
            }
            KeyCode::Char('z') => {
                self.open_editor(EditKind::ScaleToZero, data, out);
                if matches!(self.mode, Mode::Edit(_)) {
                    self.review(out);
                }
            }
            _ => {
                let policies = self.policy_names(data).len();
                return crate::tui::widgets::scroll::cursor_key(&mut self.policy, &key, policies, PAGE);
            }
        }
        true
    }

    fn on_changed(&mut self, variant: &str, result: &Result<Vec<Option<String>>, String>, out: &mut Outbox) {
        match result {
            Ok(ids) => out.toast(
                Level::Info,
                format!("autoscaling of {variant}: {} change(s) applied", ids.len()),
            ),
            Err(e) => out.toast(Level::Error, format!("autoscaling of {variant} not changed: {e}")),
        }
    }
}

impl Pane for ScalingPane {
    fn on_show(&mut self, data: &mut Data, out: &mut Outbox) {
        self.request(data, out);
    }

    fn on_tick(&mut self, visible: bool, data: &Data, out: &mut Outbox) {
        if visible && data.loaded && self.last_request.is_none_or(|t| t.elapsed() >= REFRESH) {
            self.request(data, out);
        }
    }

    fn on_refresh(&mut self, visible: bool, data: &Data, out: &mut Outbox) {
        if visible {
            self.in_flight = false;
            self.request(data, out);
        }
    }

    fn on_event(&mut self, ev: &AppEvent, data: &mut Data, out: &mut Outbox, _visible: bool) {
        match ev {
            AppEvent::Scaling { endpoint, result } => {
                self.in_flight = false;
                if data.selected.as_deref() != Some(endpoint.as_str()) {
                    return;
                }
                match result {
                    Ok(v) => {
                        self.view = Some(v.clone());
                        self.error = None;
                    }
                    Err(e) => self.error = Some(e.to_string()),
                }
            }
            AppEvent::ScalingChanged { variant, result, .. } => {
                self.on_changed(variant, result, out);
                self.in_flight = false;
                self.request(data, out);
            }
            _ => {}
        }
    }

    fn on_finished(&mut self, _id: u64, kind: Option<JobKind>, cancelled: bool, _out: &mut Outbox) {
        if cancelled && kind == Some(JobKind::Fleet(FleetKind::ScalingView)) {
            self.in_flight = false;
        }
    }

    fn capturing_text(&self) -> bool {
        matches!(self.mode, Mode::Edit(_))
    }

    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        let rows = self.view(data).map_or(1, view::findings_rows);
        match &mut self.mode {
            Mode::Edit(_) => self.edit_key(key, out),
            Mode::Findings { scroll } => match key.code {
                KeyCode::Esc | KeyCode::Char('f') | KeyCode::Char('q') => self.mode = Mode::Normal,
                _ => {
                    if let Some(m) = Move::of_key(&key) {
                        *scroll = m.cursor(usize::from(*scroll), rows, PAGE) as u16;
                    }
                }
            },
            Mode::Normal => return self.normal_key(key, data, out),
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        self.draw(f, area, data, theme);
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        match &self.mode {
            Mode::Edit(_) => vec![
                KeyHint::new("0-9 .", "type"),
                KeyHint::new("Enter", "review before → after"),
                KeyHint::new("Esc", "cancel"),
            ],
            Mode::Findings { .. } => vec![KeyHint::new("↑↓", "scroll"), KeyHint::new("Esc", "close")],
            Mode::Normal => {
                let none = self.view(data).is_none();
                let on_component = self.view(data).is_some_and(|v| self.component(v).is_some());
                let off = none || data.read_only;
                if on_component {
                    return vec![
                        KeyHint::new("v", "variant"),
                        KeyHint::when("m", "min/max copies", off),
                        KeyHint::when("t", "target per copy", off),
                        KeyHint::when("z", "scale to zero", off),
                        KeyHint::new("r", "refresh"),
                    ];
                }
                let no_policy = self.selected_policy(data).is_none();
                let serverless = self
                    .view(data)
                    .and_then(|v| self.variant(v))
                    .is_some_and(|v| v.serverless);
                let target = if serverless { "target util" } else { "target inv" };
                vec![
                    KeyHint::when("v", "variant", none),
                    KeyHint::when("↑↓", "policy", no_policy),
                    KeyHint::when("f", "findings", none),
                    KeyHint::when("m", "min/max", off),
                    KeyHint::when("t", target, off),
                    KeyHint::when("p", "target p99", off),
                    KeyHint::when("c", "cooldowns", off || no_policy),
                    KeyHint::when("x", "remove policy", off || no_policy),
                    KeyHint::when("n", "instances", off || serverless),
                    KeyHint::new("r", "refresh"),
                ]
            }
        }
    }
}

/// The variant's autoscaling as the view read it (what a change is compare-and-swapped against).
pub fn snapshot_of(view: &ScalingView, variant: &str) -> ScalingSnapshot {
    ScalingSnapshot::of(&view.state, variant)
}
