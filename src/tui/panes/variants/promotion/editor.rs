//! The promotion plan editor (`P` on the Variants pane): canary, baseline, steps, bake, gates,
//! auto/manual and the reason, validated on Enter; and the confirmation stating the plan. A child
//! module of `panes::promotion`.

use crossterm::event::{KeyCode, KeyEvent};

use crate::aws::inventory::EndpointInfo;
use crate::aws::promote::{Gates, Mode, PromotionSpec, parse_steps};
use crate::tui::event::Job;
use crate::tui::widgets::confirm::Confirm;

use super::super::{baseline_index, num};
use super::view;

/// The plan editor's fields, in order.
pub const FIELDS: [&str; 10] = [
    "canary variant",
    "baseline variant",
    "steps (%)",
    "bake per step",
    "max p99 ratio",
    "max 5XX rate",
    "max 4XX rate",
    "min invocations",
    "mode",
    "reason",
];

/// Index of the mode field (toggled, not typed).
pub const MODE: usize = 8;

/// The plan editor: one text per field (the mode is a toggle).
#[derive(Debug, Clone)]
pub struct PlanEditor {
    /// Endpoint.
    pub endpoint: String,
    /// The endpoint's variants.
    pub variants: Vec<String>,
    /// Field texts (the mode's is unused).
    pub values: [String; 10],
    /// Manual mode (asks before each step).
    pub manual: bool,
    /// Focused field.
    pub cursor: usize,
    /// The field that stopped the last Enter, and why.
    pub problem: Option<(usize, String)>,
}

/// What a key did to the editor.
#[derive(Debug, Clone, PartialEq)]
pub enum EditorOutcome {
    /// Still editing.
    Keep,
    /// Closed without a plan.
    Cancel,
    /// A valid plan (and the reason).
    Submit(Box<PromotionSpec>, Option<String>),
}

impl PlanEditor {
    /// An editor for `e` with defaults: the baseline is the largest current weight, the canary
    /// the selected variant when it is not the baseline (else the smallest weight).
    pub fn new(e: &EndpointInfo, cursor_variant: usize) -> PlanEditor {
        let base = baseline_index(e).unwrap_or(0);
        let canary = if cursor_variant != base && cursor_variant < e.variants.len() {
            cursor_variant
        } else {
            (0..e.variants.len())
                .filter(|i| *i != base)
                .min_by(|a, b| e.variants[*a].current_weight.total_cmp(&e.variants[*b].current_weight))
                .unwrap_or(0)
        };
        let g = Gates::default();
        let name = |i: usize| e.variants.get(i).map(|v| v.name.clone()).unwrap_or_default();
        PlanEditor {
            endpoint: e.name.clone(),
            variants: e.variants.iter().map(|v| v.name.clone()).collect(),
            values: [
                name(canary),
                name(base),
                "10,25,50,100".into(),
                "5m".into(),
                num(g.max_p99_ratio),
                num(g.max_5xx_rate),
                String::new(),
                g.min_invocations.to_string(),
                String::new(),
                String::new(),
            ],
            manual: false,
            cursor: 0,
            problem: None,
        }
    }

    /// The plan the fields describe, or the first field that is wrong and why.
    pub fn spec(&self) -> Result<(PromotionSpec, Option<String>), (usize, String)> {
        let v = |i: usize| self.values[i].trim();
        let known = |i: usize, what: &str| -> Result<String, (usize, String)> {
            let n = v(i);
            if self.variants.iter().any(|x| x == n) {
                Ok(n.to_string())
            } else {
                Err((
                    i,
                    format!(
                        "{what} `{n}` is not a variant of {} ({})",
                        self.endpoint,
                        self.variants.join(", ")
                    ),
                ))
            }
        };
        let canary = known(0, "canary")?;
        let baseline = if v(1).is_empty() {
            None
        } else {
            Some(known(1, "baseline")?)
        };
        if baseline.as_deref() == Some(canary.as_str()) {
            return Err((1, "the baseline must differ from the canary".into()));
        }
        let steps = parse_steps(v(2)).map_err(|e| (2, e))?;
        let bake = crate::format::parse_bake(v(3)).map_err(|e| (3, e))?;
        let number = |i: usize, lo: f64, hi: f64| -> Result<f64, (usize, String)> {
            match v(i).parse::<f64>() {
                Ok(x) if x > lo && x <= hi => Ok(x),
                _ => Err((i, format!("{} must be a number above {lo} and at most {hi}", FIELDS[i]))),
            }
        };
        let max_p99_ratio = number(4, 0.0, 1000.0)?;
        let max_5xx_rate = number(5, -1e-12, 1.0)?;
        let max_4xx_rate = if v(6).is_empty() {
            None
        } else {
            Some(number(6, -1e-12, 1.0)?)
        };
        let min_invocations: u64 = v(7)
            .parse()
            .map_err(|_| (7, "min invocations must be a whole number".to_string()))?;
        let spec = PromotionSpec {
            endpoint: self.endpoint.clone(),
            canary,
            baseline,
            steps,
            bake,
            gates: Gates {
                max_p99_ratio,
                max_5xx_rate,
                max_4xx_rate,
                min_invocations,
            },
            mode: if self.manual { Mode::Manual } else { Mode::Auto },
        };
        let reason = Some(v(9).to_string()).filter(|r| !r.is_empty());
        Ok((spec, reason))
    }

    /// Answers a key.
    pub fn handle_key(&mut self, key: KeyEvent) -> EditorOutcome {
        match key.code {
            KeyCode::Esc => return EditorOutcome::Cancel,
            KeyCode::Up | KeyCode::BackTab => self.cursor = (self.cursor + FIELDS.len() - 1) % FIELDS.len(),
            KeyCode::Down | KeyCode::Tab => self.cursor = (self.cursor + 1) % FIELDS.len(),
            KeyCode::Enter => match self.spec() {
                Ok((spec, reason)) => return EditorOutcome::Submit(Box::new(spec), reason),
                Err((i, why)) => {
                    self.cursor = i;
                    self.problem = Some((i, why));
                }
            },
            KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right if self.cursor == MODE => self.manual = !self.manual,
            KeyCode::Char('a') if self.cursor == MODE => self.manual = false,
            KeyCode::Char('m') if self.cursor == MODE => self.manual = true,
            KeyCode::Backspace if self.cursor != MODE => {
                self.values[self.cursor].pop();
                self.problem = None;
            }
            KeyCode::Char(c) if self.cursor != MODE => {
                self.values[self.cursor].push(c);
                self.problem = None;
            }
            _ => {}
        }
        EditorOutcome::Keep
    }
}

fn pct(x: f64) -> String {
    format!("{}%", num(x * 100.0))
}

/// The confirmation stating a plan.
pub fn confirm_plan(spec: &PromotionSpec, reason: Option<String>, e: &EndpointInfo) -> Confirm {
    let baseline = spec
        .baseline
        .clone()
        .or_else(|| crate::aws::promote::pick_baseline(e, &spec.canary, None).ok())
        .unwrap_or_else(|| "?".into());
    let steps: Vec<String> = spec.steps.iter().map(|s| format!("{}%", num(*s))).collect();
    let g = &spec.gates;
    let start: Vec<String> = e
        .variants
        .iter()
        .map(|v| format!("{}={}", v.name, num(v.current_weight)))
        .collect();
    let mut lines = vec![
        format!("Canary {} against baseline {baseline}", spec.canary),
        format!(
            "Steps: canary share {} — bake {} each",
            steps.join(" → "),
            view::duration_text(spec.bake.as_secs_f64())
        ),
        format!(
            "Gates: p99 ≤ {}× baseline, 5XX ≤ {}, 4XX {}, ≥ {} invocations (fewer: no verdict)",
            num(g.max_p99_ratio),
            pct(g.max_5xx_rate),
            g.max_4xx_rate
                .map(|r| format!("≤ {}", pct(r)))
                .unwrap_or_else(|| "not gated".into()),
            g.min_invocations
        ),
        match spec.mode {
            Mode::Auto => "Mode: auto — a failed gate rolls back to the starting weights".into(),
            Mode::Manual => "Mode: manual — asks before each step; a failed gate stops and asks".into(),
        },
        format!("Starting weights: {}", start.join(" ")),
    ];
    if let Some(r) = &reason {
        lines.push(format!("Reason: {r}"));
    }
    lines.push("Each step is compare-and-swap and audited; Esc on Variants holds or rolls back.".into());
    Confirm {
        title: format!("Promote {} on {}?", spec.canary, spec.endpoint),
        lines,
        jobs: vec![Job::Promote {
            spec: spec.clone(),
            reason,
        }],
        danger: true,
    }
}
