//! The weight editor of the Variants pane: type weights or percentages, or nudge them with +/-;
//! Tab edits instance counts instead. A live before → after traffic bar shows the split as it is
//! typed; invalid input (negative, not a number, all zero, percentages not adding up to 100) is
//! shown inline and blocks Enter. Enter opens a confirmation stating exactly the
//! UpdateEndpointWeightsAndCapacities `DesiredWeightsAndCapacities` list that will be sent.

use crossterm::event::{KeyCode, KeyEvent};

use crate::tui::widgets::Overlay;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::change::weights::{WeightChange, plan_weights};
use crate::tui::data::Data;
use super::{baseline_index, glyph, num};
use crate::tui::event::CHANGING_WEIGHTS;
use crate::tui::panes::{KeyHint, Outbox};
use crate::tui::widgets::toasts::Level;

mod view;

/// Percentage points a nudge moves in percent mode.
const PCT_STEP: f64 = 5.0;
/// Longest value that can be typed.
const MAX_TEXT: usize = 12;

/// Which value of a variant is being edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Field {
    /// The weight (or percentage).
    #[default]
    Weight,
    /// The instance count.
    Instances,
}

/// One variant in the editor.
#[derive(Debug, Clone, PartialEq)]
pub struct EditRow {
    /// Variant name.
    pub variant: String,
    /// Whether it is the baseline (largest current weight).
    pub baseline: bool,
    /// The bar glyph of the variant.
    pub glyph: &'static str,
    /// Weight when the editor opened.
    pub weight_before: f64,
    /// Traffic share when the editor opened.
    pub share_before: f64,
    /// Instance count when the editor opened.
    pub instances_before: i32,
    /// Serverless variants have no instance count.
    pub serverless: bool,
    /// The weight (or, in percent mode, the percentage) as typed.
    pub weight: String,
    /// The instance count as typed.
    pub instances: String,
}

/// Weight editor state.
#[derive(Debug, Clone, Default)]
pub struct WeightEditor {
    /// The endpoint being edited.
    pub endpoint: String,
    /// One row per variant, in the endpoint's order.
    pub rows: Vec<EditRow>,
    /// The selected row.
    pub cursor: usize,
    /// The field typing goes to.
    pub field: Field,
    /// Whether weights are typed as percentages (which must add up to 100).
    pub percent: bool,
    /// Why the last Enter was refused (cleared by the next edit).
    pub message: Option<String>,
    /// Whether the next typed character replaces the value (just focused).
    fresh: bool,
    /// The weights before percent mode, restored when leaving it unedited.
    saved_weights: Option<Vec<String>>,
    /// The endpoint as the operator saw it when the editor opened (the change is refused if it
    /// differs when sent).
    pub seen: Option<Box<EndpointInfo>>,
}

/// Percentages of `weights` in hundredths that add up to exactly 100 (largest remainder).
fn percentages(weights: &[f64]) -> Vec<f64> {
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return vec![0.0; weights.len()];
    }
    let exact: Vec<f64> = weights.iter().map(|w| w / total * 10_000.0).collect();
    let mut units: Vec<i64> = exact.iter().map(|x| x.floor() as i64).collect();
    let mut left = 10_000 - units.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|a, b| (exact[*b] - exact[*b].floor()).total_cmp(&(exact[*a] - exact[*a].floor())));
    for i in order.into_iter().cycle().take(weights.len() * 2) {
        if left <= 0 {
            break;
        }
        units[i] += 1;
        left -= 1;
    }
    units.into_iter().map(|u| u as f64 / 100.0).collect()
}

impl WeightEditor {
    /// An editor for `e` with the variant at `cursor` selected, values as last desired.
    pub fn new(e: &EndpointInfo, cursor: usize) -> WeightEditor {
        let base = baseline_index(e);
        WeightEditor {
            endpoint: e.name.clone(),
            rows: e
                .variants
                .iter()
                .enumerate()
                .map(|(i, v)| EditRow {
                    variant: v.name.clone(),
                    baseline: Some(i) == base,
                    glyph: glyph(i, base),
                    weight_before: v.desired_weight,
                    share_before: v.traffic_share,
                    instances_before: v.desired_instances,
                    serverless: v.instance_type.is_none(),
                    weight: num(v.desired_weight),
                    instances: v.desired_instances.to_string(),
                })
                .collect(),
            seen: Some(Box::new(e.clone())),
            cursor: cursor.min(e.variants.len().saturating_sub(1)),
            field: Field::Weight,
            percent: false,
            message: None,
            fresh: true,
            saved_weights: None,
        }
    }

    /// The typed weight of row `i`, or why it is invalid.
    pub fn weight_of(&self, i: usize) -> Result<f64, String> {
        let r = &self.rows[i];
        let what = if self.percent { "percentage" } else { "weight" };
        let t = r.weight.trim();
        if t.is_empty() {
            return Err(format!("{}: enter a {what}", r.variant));
        }
        let w: f64 = t
            .parse()
            .map_err(|_| format!("{}: {what} `{t}` is not a number", r.variant))?;
        if !w.is_finite() {
            return Err(format!("{}: {what} must be a finite number (got {t})", r.variant));
        }
        if w < 0.0 {
            return Err(format!("{}: {what} must be ≥ 0 (got {t})", r.variant));
        }
        if self.percent && w > 100.0 {
            return Err(format!("{}: {t}% is more than 100%", r.variant));
        }
        Ok(w)
    }

    /// The typed instance count of row `i`, or why it is invalid.
    pub fn instances_of(&self, i: usize) -> Result<i32, String> {
        let r = &self.rows[i];
        let t = r.instances.trim();
        if t.is_empty() {
            return Err(format!("{}: enter an instance count", r.variant));
        }
        let n: i32 = t
            .parse()
            .map_err(|_| format!("{}: instance count `{t}` is not a whole number", r.variant))?;
        if n < 0 {
            return Err(format!("{}: instance count must be ≥ 0 (got {n})", r.variant));
        }
        Ok(n)
    }

    /// Everything wrong with the input now; empty when Enter may proceed.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut weights = Vec::new();
        for i in 0..self.rows.len() {
            match self.weight_of(i) {
                Ok(w) => weights.push(w),
                Err(e) => out.push(e),
            }
            if !self.rows[i].serverless
                && let Err(e) = self.instances_of(i)
            {
                out.push(e);
            }
        }
        if weights.len() == self.rows.len() {
            let total: f64 = weights.iter().sum();
            if total <= 0.0 {
                out.push("all weights are 0: at least one variant must keep traffic".into());
            } else if self.percent && (total - 100.0).abs() > 0.005 {
                out.push(format!("percentages add up to {}, not 100", num(total)));
            }
        }
        out
    }

    /// The traffic shares the typed values would give (invalid values count as 0).
    pub fn after_shares(&self) -> Vec<f64> {
        let w: Vec<f64> = (0..self.rows.len()).map(|i| self.weight_of(i).unwrap_or(0.0)).collect();
        let total: f64 = w.iter().sum();
        w.iter().map(|x| if total > 0.0 { x / total } else { 0.0 }).collect()
    }

    /// The changes to send: only what differs from the values when the editor opened (in percent
    /// mode every weight, when the split changes at all).
    pub fn changes(&self) -> Result<Vec<WeightChange>, String> {
        if let Some(p) = self.problems().into_iter().next() {
            return Err(p);
        }
        let shares = self.after_shares();
        let split_changes = self
            .rows
            .iter()
            .zip(&shares)
            .any(|(r, s)| (r.share_before - s).abs() > 1e-9);
        let mut out = Vec::new();
        for (i, r) in self.rows.iter().enumerate() {
            let w = self.weight_of(i)?;
            let weight = if self.percent {
                split_changes.then_some(w)
            } else {
                (w != r.weight_before).then_some(w)
            };
            let instances = if r.serverless {
                None
            } else {
                Some(self.instances_of(i)?).filter(|n| *n != r.instances_before)
            };
            if weight.is_some() || instances.is_some() {
                out.push(WeightChange {
                    variant: r.variant.clone(),
                    weight,
                    instances,
                });
            }
        }
        if out.is_empty() {
            return Err("nothing changes: these are the weights and counts already set".into());
        }
        Ok(out)
    }

    fn focus(&mut self) {
        self.fresh = true;
        self.message = None;
    }

    fn text_mut(&mut self) -> &mut String {
        let r = &mut self.rows[self.cursor];
        match self.field {
            Field::Weight => &mut r.weight,
            Field::Instances => &mut r.instances,
        }
    }

    fn edited(&mut self) {
        self.message = None;
        if self.field == Field::Weight {
            self.saved_weights = None;
        }
    }

    fn type_char(&mut self, c: char) {
        if self.field == Field::Instances && c == '.' {
            self.message = Some("instance counts are whole numbers".into());
            return;
        }
        let fresh = std::mem::replace(&mut self.fresh, false);
        let t = self.text_mut();
        if fresh {
            t.clear();
        }
        if t.chars().count() < MAX_TEXT {
            t.push(c);
        }
        self.edited();
    }

    fn nudge(&mut self, up: bool) {
        let sign = if up { 1.0 } else { -1.0 };
        match self.field {
            Field::Instances => {
                let n = self.rows[self.cursor].instances.trim().parse::<i32>().unwrap_or(0);
                self.rows[self.cursor].instances = (n + sign as i32).to_string();
            }
            Field::Weight if self.percent => {
                // Move points between this variant and its counterpart so the total stays put.
                let i = self.cursor;
                let other = (0..self.rows.len())
                    .filter(|j| *j != i)
                    .find(|j| self.rows[*j].baseline)
                    .or_else(|| {
                        (0..self.rows.len())
                            .filter(|j| *j != i)
                            .max_by(|a, b| self.rows[*a].weight_before.total_cmp(&self.rows[*b].weight_before))
                    });
                let value = |j: usize| self.rows[j].weight.trim().parse::<f64>().unwrap_or(0.0);
                let mine = value(i);
                // min/max rather than clamp: typed values may be out of range.
                let mut delta = (sign * PCT_STEP).max(-mine).min(100.0 - mine);
                if let Some(o) = other {
                    let theirs = value(o);
                    delta = delta.max(theirs - 100.0).min(theirs);
                    self.rows[o].weight = num(theirs - delta);
                }
                self.rows[i].weight = num(mine + delta);
            }
            Field::Weight => {
                let w = self.rows[self.cursor].weight.trim().parse::<f64>().unwrap_or(0.0);
                self.rows[self.cursor].weight = num(w + sign);
            }
        }
        self.fresh = true;
        self.edited();
    }

    fn toggle_percent(&mut self) {
        if self.percent {
            self.percent = false;
            if let Some(saved) = self.saved_weights.take() {
                for (r, w) in self.rows.iter_mut().zip(saved) {
                    r.weight = w;
                }
            }
        } else {
            let weights: Result<Vec<f64>, String> = (0..self.rows.len()).map(|i| self.weight_of(i)).collect();
            let weights = match weights {
                Ok(w) if w.iter().sum::<f64>() > 0.0 => w,
                _ => {
                    self.message = Some("fix the weights before switching to percentages".into());
                    return;
                }
            };
            self.saved_weights = Some(self.rows.iter().map(|r| r.weight.clone()).collect());
            for (r, p) in self.rows.iter_mut().zip(percentages(&weights)) {
                r.weight = num(p);
            }
            self.percent = true;
            self.field = Field::Weight;
        }
        self.focus();
    }

    fn submit(&mut self, data: &Data, out: &mut Outbox) -> bool {
        if out.refused(data, CHANGING_WEIGHTS) {
            return false;
        }
        let changes = match self.changes() {
            Ok(c) => c,
            Err(e) => {
                self.message = Some(e);
                return true;
            }
        };
        let Some(info) = data.endpoint(&self.endpoint) else {
            self.message = Some(format!("endpoint {} is no longer in the inventory", self.endpoint));
            return true;
        };
        if info.status != "InService" {
            self.message = Some(format!(
                "{} is now {}; weights can change only when it is InService",
                info.name, info.status
            ));
            return true;
        }
        match plan_weights(info, &changes) {
            Ok(plan) => {
                out.overlay = Some(Overlay::Confirm(Self::confirm(
                    &plan,
                    self.percent,
                    self.seen.as_deref().unwrap_or(info),
                )));
                false
            }
            Err(e) => {
                self.message = Some(e);
                true
            }
        }
    }

    /// Handles a key; false closes the editor.
    pub fn handle_key(&mut self, key: KeyEvent, data: &Data, out: &mut Outbox) -> bool {
        if self.rows.is_empty() {
            return false;
        }
        match key.code {
            KeyCode::Esc => {
                out.toast(Level::Info, format!("weights of {} not changed", self.endpoint));
                return false;
            }
            KeyCode::Enter => return self.submit(data, out),
            KeyCode::Up | KeyCode::Char('k') => {
                self.cursor = self.cursor.saturating_sub(1);
                self.focus();
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.cursor = (self.cursor + 1).min(self.rows.len() - 1);
                self.focus();
            }
            KeyCode::Tab | KeyCode::BackTab => {
                if self.rows[self.cursor].serverless {
                    self.message = Some(format!("{} is serverless: it has no instance count", self.variant()));
                } else {
                    self.field = match self.field {
                        Field::Weight => Field::Instances,
                        Field::Instances => Field::Weight,
                    };
                    self.focus();
                }
            }
            KeyCode::Char('%') => self.toggle_percent(),
            KeyCode::Char('+') | KeyCode::Char('=') => self.nudge(true),
            KeyCode::Char('-') | KeyCode::Char('_') => self.nudge(false),
            KeyCode::Char(c) if c.is_ascii_digit() || c == '.' => self.type_char(c),
            KeyCode::Backspace => {
                self.fresh = false;
                self.text_mut().pop();
                self.edited();
            }
            KeyCode::Delete => {
                self.fresh = false;
                self.text_mut().clear();
                self.edited();
            }
            _ => {}
        }
        if self.field == Field::Instances && self.rows[self.cursor].serverless {
            self.field = Field::Weight;
        }
        true
    }

    fn variant(&self) -> &str {
        &self.rows[self.cursor].variant
    }

    /// The editor's keys, for the footer and help.
    pub fn keys(&self) -> Vec<KeyHint> {
        vec![
            KeyHint::new("↑↓", "variant"),
            KeyHint::new("0-9 . ⌫", "type"),
            KeyHint::new("+/-", if self.percent { "±5 points" } else { "±1" }),
            KeyHint::new("%", if self.percent { "weights" } else { "percent" }),
            KeyHint::new("Tab", "weight/instances"),
            KeyHint::when("Enter", "review", !self.problems().is_empty()),
            KeyHint::new("Esc", "cancel"),
        ]
    }
}
