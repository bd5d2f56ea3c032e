//! Variants: the selected endpoint's production variants — current and desired weight, traffic
//! share, instances, variant status — beside their live p50/p99 model latency, 5XX rate and the
//! share of traffic actually observed (the variant's invocations / the endpoint's). The baseline
//! (largest current weight) and the canaries are labelled and coloured with the theme's
//! `baseline` and `canary` roles. `w` opens the weight editor (`c`, on a serverless variant,
//! the concurrency editor); while a weight change is followed
//! the pane shows the endpoint going Updating → InService with desired and current converging.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{KeyHint, Outbox, Pane, Tab};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, CHANGING_WEIGHTS, DEPLOYING, FleetJob, RESUMING_A_PROMOTION, SETTING_CONCURRENCY};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::describe::DescribeView;
use crate::tui::widgets::toasts::Level;
use concurrency::ConcurrencyEditor;
use weight_editor::WeightEditor;
use crate::tui::widgets::{Overlay, pane_frame};
use crate::tui::widgets::scroll;

pub mod concurrency;
pub mod deploy;
mod judge;
pub mod promotion;
mod shape;
mod view;
pub mod weight_editor;

/// Bar glyphs: the baseline, then the canaries in turn (told apart without colour too).
const GLYPHS: [&str; 4] = ["█", "▓", "▒", "▚"];

/// The index of the baseline variant: the largest current weight (the first one on ties).
pub fn baseline_index(e: &EndpointInfo) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, v) in e.variants.iter().enumerate() {
        if best.is_none_or(|b| v.current_weight > e.variants[b].current_weight) {
            best = Some(i);
        }
    }
    best
}

/// The theme role of a variant: `baseline` or `canary`.
pub fn role(is_baseline: bool) -> Role {
    if is_baseline { Role::Baseline } else { Role::Canary }
}

/// The bar glyph of the `n`-th variant, given which one is the baseline.
pub fn glyph(n: usize, baseline: Option<usize>) -> &'static str {
    match baseline {
        Some(b) if n == b => GLYPHS[0],
        Some(b) if n > b => GLYPHS[1 + (n - 1) % 3],
        _ => GLYPHS[1 + n % 3],
    }
}

/// A stacked bar of `width` cells: one segment per share, in order (largest remainder, and every
/// positive share gets at least one cell). All-zero shares draw a dotted, muted bar.
pub fn split_bar(parts: &[(f64, Style, &'static str)], width: usize, empty: Style) -> Vec<Span<'static>> {
    let total: f64 = parts.iter().map(|p| p.0.max(0.0)).sum();
    if total <= 0.0 || width == 0 {
        return vec![Span::styled("·".repeat(width), empty)];
    }
    let exact: Vec<f64> = parts.iter().map(|p| p.0.max(0.0) / total * width as f64).collect();
    let mut cells: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut left = width - cells.iter().sum::<usize>();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by(|a, b| (exact[*b] - exact[*b].floor()).total_cmp(&(exact[*a] - exact[*a].floor())));
    for i in order {
        if left == 0 {
            break;
        }
        cells[i] += 1;
        left -= 1;
    }
    for i in 0..parts.len() {
        if parts[i].0 > 0.0 && cells[i] == 0 {
            let donor = (0..cells.len()).max_by_key(|j| cells[*j]).unwrap_or(i);
            if cells[donor] > 1 {
                cells[donor] -= 1;
                cells[i] = 1;
            }
        }
    }
    parts
        .iter()
        .zip(cells)
        .filter(|(_, n)| *n > 0)
        .map(|(p, n)| Span::styled(p.2.repeat(n), p.1))
        .collect()
}

/// A number without trailing zeros (at most four decimals): `9`, `0.5`, `66.67`.
pub fn num(v: f64) -> String {
    let s = format!("{:.4}", (v * 10_000.0).round() / 10_000.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// A share as a percentage with one decimal.
pub fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// The endpoint the pane shows: the selected one, as last described while a weight change is
/// followed, else as in the inventory.
pub fn shown_endpoint(data: &Data) -> Option<&EndpointInfo> {
    let sel = data.selected_endpoint()?;
    match &data.weights_progress {
        Some(p) if p.name == sel.name => Some(p),
        _ => Some(sel),
    }
}

/// Whether a weight change of `e` is being followed.
fn following(data: &Data, e: &EndpointInfo) -> bool {
    data.weights_progress.as_ref().is_some_and(|p| p.name == e.name)
}

/// Why the weight editor cannot open for the selected endpoint, if it cannot.
pub fn editor_refusal(data: &Data) -> Option<String> {
    let Some(e) = shown_endpoint(data) else {
        return Some("no endpoint selected: pick one on the Endpoints tab (1)".into());
    };
    if following(data, e) {
        return Some(format!("{}: a weight change is still being applied", e.name));
    }
    if e.status != "InService" {
        return Some(format!(
            "{} is {}; weights can change only when it is InService",
            e.name, e.status
        ));
    }
    if e.variants.is_empty() {
        return Some(format!("{} has no production variants", e.name));
    }
    None
}

/// Observed traffic shares: each variant's invocations / the endpoint's, from the fleet metrics.
pub fn observed_shares(data: &Data, e: &EndpointInfo) -> Option<Vec<f64>> {
    let inv: Vec<f64> = e
        .variants
        .iter()
        .map(|v| data.summary(&e.name, &v.name).map(|s| s.invocations).unwrap_or(0.0))
        .collect();
    let total: f64 = inv.iter().sum();
    (total > 0.0).then(|| inv.iter().map(|i| i / total).collect())
}

/// The pane's state.
#[derive(Debug, Default)]
pub struct VariantsPane {
    /// Selected variant.
    pub cursor: usize,
    /// First visible variant row.
    pub offset: usize,
    /// Promotion plans: editor, timelines, questions.
    pub promo: self::promotion::PromotionUi,
    /// The weight editor, while open (it takes every key).
    pub editor: Option<WeightEditor>,
    /// The deploy form and the steppers of deployments started here.
    pub deploy: self::deploy::DeployUi,
    /// The concurrency editor of a serverless variant, while open (it takes every key).
    pub concurrency: Option<ConcurrencyEditor>,
    /// The judge's verdicts on shadows against production.
    shadow_judges: judge::ShadowJudges,
}

impl VariantsPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Variants";

    fn open_editor(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused(data, CHANGING_WEIGHTS) {
            return;
        }
        if let Some(why) = editor_refusal(data) {
            out.toast(Level::Warn, why);
            return;
        }
        if let Some(e) = shown_endpoint(data) {
            self.editor = Some(WeightEditor::new(e, self.cursor));
        }
    }

    fn open_concurrency(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused(data, SETTING_CONCURRENCY) {
            return;
        }
        let Some(e) = shown_endpoint(data) else {
            return out.toast(Level::Warn, "no endpoint selected");
        };
        if following(data, e) {
            return out.toast(Level::Warn, format!("{}: a change is still being applied", e.name));
        }
        match ConcurrencyEditor::open(e, self.cursor) {
            Ok(editor) => self.concurrency = Some(editor),
            Err(why) => out.toast(Level::Warn, why),
        }
    }
}

impl VariantsPane {
    /// The header and the alarm badges (or a blank row), each whole on as many rows as it needs:
    /// two rows of alarms at most when one fires (those in ALARM come first), one when none
    /// does; `sagedeck alarms` lists them all.
    fn head_lines(&self, data: &Data, e: &EndpointInfo, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut head = crate::tui::widgets::pack::pack_line(Self::header_line(e, theme), width);
        if let Some(components) = super::components::head_line(data, e, theme) {
            head.extend(crate::tui::widgets::pack::pack_line(components, width));
        }
        let verdict = self.shadow_judges.verdict(&e.name);
        head.extend(crate::tui::widgets::pack::pack_lines(shape::shape_lines(data, e, verdict, theme), width));
        match self::view::alarm_line(data, e, theme) {
            Some(alarms) => {
                let firing = data.alarms.get(&e.name).is_some_and(|a| a.iter().any(|x| x.firing()));
                let rows = crate::tui::widgets::pack::pack_line(alarms, width);
                head.extend(rows.into_iter().take(if firing { 2 } else { 1 }));
            }
            None => head.push(Line::from("")),
        }
        head
    }
}

impl Pane for VariantsPane {
    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        if let Some(editor) = self.editor.as_mut() {
            if !editor.handle_key(key, data, out) || out.overlay.is_some() {
                self.editor = None;
            }
            return true;
        }
        if let Some(editor) = self.concurrency.as_mut() {
            if !editor.handle_key(key, out) {
                self.concurrency = None;
            }
            return true;
        }
        if self.deploy.capturing() && self.deploy.handle_key(key, data, out) {
            return true;
        }
        if let Some(used) = self.promo.handle_key(key, self.cursor, data, out) {
            return used;
        }
        let n = data.selected_endpoint().map(|e| e.variants.len()).unwrap_or(0);
        match key.code {
            KeyCode::Char('w') => self.open_editor(data, out),
            KeyCode::Char('c') => self.open_concurrency(data, out),
            KeyCode::Char('D') => self.deploy.open(data, out),
            KeyCode::Char('A') => self.deploy.attach(data, out),
            KeyCode::Char('d') => match data.selected.clone() {
                Some(name) => {
                    out.overlay = Some(Overlay::Describe(DescribeView::loading(format!("describe {name}"))));
                    out.job(FleetJob::Describe { endpoint: name });
                }
                None => out.toast(Level::Warn, "no endpoint selected"),
            },
            KeyCode::Esc => out.switch_to = Some(Tab::Endpoints),
            _ => return scroll::cursor_key(&mut self.cursor, &key, n, scroll::PAGE),
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        let title = match data.selected.as_deref() {
            Some(n) => format!(" Variants of {n} "),
            None => " Variants ".to_string(),
        };
        let inner = pane_frame(f, area, title, true, theme);
        let muted = theme.fg(Role::Muted);
        let message = |f: &mut Frame, text: String| {
            f.render_widget(Paragraph::new(Span::styled(text, muted)), inner);
        };
        let Some(e) = shown_endpoint(data) else {
            return match (&data.selected, data.loaded) {
                (_, false) => message(f, "loading endpoints…".into()),
                (None, true) => message(f, "no endpoint selected: pick one on the Endpoints tab (1)".into()),
                (Some(n), true) => message(f, format!("endpoint {n} is no longer in the inventory")),
            };
        };
        match data.selected_state() {
            crate::tui::described::RowState::Loading => return message(f, format!("loading the variants of {}…", e.name)),
            crate::tui::described::RowState::Failed(why) => {
                return message(f, format!("could not describe {}: {}", e.name, why.escape_debug()));
            }
            crate::tui::described::RowState::Described => {}
        }
        if e.variants.is_empty() {
            return message(f, format!("{} has no production variants yet", e.name));
        }
        self.cursor = self.cursor.min(e.variants.len() - 1);
        let width = inner.width as usize;
        let traffic = Self::traffic_lines(data, e, width, theme);
        let ours = self.promo.plans.get(&e.name).is_some_and(|p| p.running);
        let update = Self::update_lines(data, e, ours, width, theme);
        // The variant's details show whole (a long image name on a row of its own).
        let mut details = crate::tui::widgets::pack::pack_lines(self.detail_lines(data, e, theme), width);
        if let Some(p) = self.promo.plans.get(&e.name) {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0);
            // The timeline keeps one row per step (its phase first, settings last): on a narrow
            // pane the current step stays in view rather than the settings.
            let mut t = self::promotion::view::timeline_lines(p, theme, now);
            t.push(Line::from(""));
            t.append(&mut details);
            details = t;
        }
        let below = traffic.len() + 1 + if update.is_empty() { 0 } else { update.len() + 1 } + details.len() + 1;
        let head = self.head_lines(data, e, width, theme);
        let head_h = head.len() as u16;
        // Every variant's row first; what follows the table gives way at the bottom (at least
        // the traffic bars stay in view).
        let reserve = (below as u16).min(4);
        let rows = e.variants.len() + e.shape.shadow_variants.len();
        let table_h = ((rows + 1) as u16).min(inner.height.saturating_sub(head_h + reserve).max(2));
        let mut y = inner.y;
        let row = |y: u16, h: u16| Rect {
            x: inner.x,
            y,
            width: inner.width,
            height: h.min(inner.bottom().saturating_sub(y)),
        };
        f.render_widget(Paragraph::new(head), row(y, head_h));
        y += head_h;
        self.table(f, row(y, table_h), data, e, theme);
        y += table_h + 1;
        let mut lines = traffic;
        if !update.is_empty() {
            lines.push(Line::from(""));
            lines.extend(update);
        }
        lines.push(Line::from(""));
        lines.extend(details);
        if y < inner.bottom() {
            f.render_widget(Paragraph::new(lines), row(y, inner.bottom() - y));
        }
        self.promo.render_modals(f, area, theme);
        if let Some(editor) = self.editor.as_mut() {
            editor.render(f, area, data, theme);
        }
        if let Some(editor) = &self.concurrency {
            editor.render(f, area, theme);
        }
        self.deploy.render(f, area, theme);
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        if let Some(editor) = &self.editor {
            return editor.keys();
        }
        if let Some(editor) = &self.concurrency {
            return editor.keys();
        }
        if let Some(keys) = self.deploy.keys() {
            return keys;
        }
        if let Some(keys) = self.promo.keys(data) {
            return keys;
        }
        let none = data.selected_endpoint().is_none();
        let running = self.promo.running(data);
        let mut keys = vec![KeyHint::new("↑↓", "variant")];
        if running {
            // The way to stop a running plan comes first: a narrow footer keeps it.
            keys.push(KeyHint::new("Esc", "hold / roll back"));
        }
        keys.extend([
            KeyHint::when(
                "w",
                "edit weights",
                data.refusal(Some(CHANGING_WEIGHTS)).is_some() || editor_refusal(data).is_some(),
            ),
            KeyHint::when("P", "promote", self.promo.refusal(data).is_some() || none),
        ]);
        if shown_endpoint(data).is_some_and(|e| e.kind.is_serverless()) {
            keys.push(KeyHint::when(
                "c",
                "concurrency",
                data.refusal(Some(SETTING_CONCURRENCY)).is_some(),
            ));
        }
        if self.promo.interrupted(data) {
            let refused = data.refusal(Some(RESUMING_A_PROMOTION)).is_some();
            keys.push(KeyHint::when("R", "resume plan", refused));
            keys.push(KeyHint::when("B", "roll plan back", refused));
        }
        keys.push(KeyHint::when("d", "describe", none));
        if !running {
            keys.push(KeyHint::new("Esc", "endpoints"));
        }
        keys.push(KeyHint::when("D", "deploy", data.refusal(Some(DEPLOYING)).is_some() || none));
        if data.selected_endpoint().is_some_and(|e| e.deploying) {
            keys.push(KeyHint::new("A", "attach stepper"));
        }
        keys.extend([
            KeyHint::new("r", "refresh"),
            KeyHint::new("?", "help"),
            KeyHint::new("q", "quit"),
        ]);
        keys
    }

    fn help(&self) -> Vec<KeyHint> {
        vec![
            KeyHint::new("P", "promotion plan: editor, then a confirmation"),
            KeyHint::new("D", "deploy (SageMaker guardrails): form, schedule, confirmation, stepper"),
            KeyHint::new("A", "attach the stepper to a deployment in flight (⇄), started anywhere"),
            KeyHint::new("c", "a serverless variant's max and provisioned concurrency, before → after"),
            KeyHint::new("Esc", "while a plan runs: h holds, b rolls back, whatever its phase"),
            KeyHint::new("R", "resume this endpoint's held or interrupted plan"),
            KeyHint::new("B", "roll this endpoint's held or interrupted plan back"),
            KeyHint::new("y / h / b", "answer a manual plan: proceed, hold, roll back"),
        ]
    }

    fn capturing_text(&self) -> bool {
        self.editor.is_some() || self.concurrency.is_some() || self.deploy.form.is_some() || self.promo.capturing()
    }

    fn on_refresh(&mut self, _visible: bool, data: &Data, out: &mut Outbox) {
        // One DescribeAlarms sweep, on the metrics cadence and `r`, feeds the badges here and
        // on the Endpoints table.
        if data.loaded && !data.inventory.is_empty() {
            out.job(FleetJob::Alarms);
        }
    }

    fn on_event(&mut self, ev: &AppEvent, data: &mut Data, out: &mut Outbox, visible: bool) {
        self.promo.on_event(ev, data, out, visible);
        self.deploy.on_event(ev, out);
        self.shadow_judges.on_event(ev, data, out, visible);
    }

    fn on_show(&mut self, data: &mut Data, out: &mut Outbox) {
        self.shadow_judges.ask(data, out);
    }

    fn hold_quit(&mut self, data: &mut Data, out: &mut Outbox) -> bool {
        self.promo.hold_quit(data, out)
    }
}
