//! The promotion plan editor (`P` on the Variants pane): canary, baseline, steps, bake, gates,
//! auto/manual and the reason, validated on Enter; and the confirmation stating the plan. A child
//! module of `panes::promotion`.

use crossterm::event::{KeyCode, KeyEvent};

use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::judge::compare::JudgeConfig;
use crate::aws::promote::plan::{Mode, PromotionSpec, parse_steps};
use crate::aws::promote::report::Gates;
use crate::aws::promote::events::PlanExtras;
use crate::tui::event::{GuardJob, Job};
use crate::tui::widgets::confirm::Confirm;

use super::super::{baseline_index, num};
use super::view;

/// The plan editor's fields, in order.
pub const FIELDS: [&str; 18] = [
    "canary variant",
    "baseline variant",
    "steps (%)",
    "bake per step",
    "max p99 ratio",
    "max 5XX rate",
    "max 4XX rate",
    "min invocations",
    "mode",
    "consolidate",
    "judge alpha",
    "judge min points",
    "judge latency tol",
    "judge rate tol",
    "judge period (s)",
    "gate alarms",
    "load (req/s)",
    "reason",
];

/// Index of the mode field (a choice: `a` auto, `m` manual, ←/→).
pub const MODE: usize = 8;
/// Index of the consolidation field (a choice: `y` / `n`, ←/→).
pub const CONSOLIDATE: usize = 9;
/// Index of the judge's alpha (empty: the judge is off).
pub const JUDGE_ALPHA: usize = 10;
/// Index of the gate alarms (comma-separated names).
pub const ALARMS: usize = 15;
/// Index of the load (empty: none).
pub const LOAD: usize = 16;
/// Index of the reason.
pub const REASON: usize = 17;

/// Whether field `i` is a choice (not typed).
pub fn is_choice(i: usize) -> bool {
    i == MODE || i == CONSOLIDATE
}

/// The plan editor: one text per field (the choices' texts are unused).
#[derive(Debug, Clone)]
pub struct PlanEditor {
    /// Endpoint.
    pub endpoint: String,
    /// The endpoint's variants.
    pub variants: Vec<String>,
    /// Field texts (the choices' are unused).
    pub values: [String; 18],
    /// Manual mode (asks before each step).
    pub manual: bool,
    /// The plan's last step: consolidation (on by default).
    pub consolidate: bool,
    /// Focused field.
    pub cursor: usize,
    /// The field that stopped the last Enter, and why (also a typed key a choice refused).
    pub problem: Option<(usize, String)>,
}

/// What a key did to the editor.
#[derive(Debug, Clone, PartialEq)]
pub enum EditorOutcome {
    /// Still editing.
    Keep,
    /// Closed without a plan.
    Cancel,
    /// A valid plan, the reason, and the judge, alarms and load it adds.
    Submit(Box<PromotionSpec>, Option<String>, PlanExtras),
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
        let j = JudgeConfig::default();
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
                String::new(),
                j.min_points.to_string(),
                num(j.latency_tolerance),
                num(j.rate_tolerance),
                j.period.to_string(),
                String::new(),
                String::new(),
                String::new(),
            ],
            manual: false,
            consolidate: true,
            cursor: 0,
            problem: None,
        }
    }

    /// The plan the fields describe, or the first field that is wrong and why.
    pub fn spec(&self) -> Result<(PromotionSpec, Option<String>, PlanExtras), (usize, String)> {
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
            consolidate: self.consolidate,
        };
        let reason = Some(v(REASON).to_string()).filter(|r| !r.is_empty());
        Ok((spec, reason, self.extras()?))
    }

    /// The judge (when its alpha is given), the alarms and the load of the fields.
    fn extras(&self) -> Result<PlanExtras, (usize, String)> {
        let v = |i: usize| self.values[i].trim();
        let number = |i: usize, lo: f64, hi: f64| -> Result<f64, (usize, String)> {
            match v(i).parse::<f64>() {
                Ok(x) if x >= lo && x <= hi => Ok(x),
                _ => Err((i, format!("{} must be a number from {lo} to {hi}", FIELDS[i]))),
            }
        };
        let judge = if v(JUDGE_ALPHA).is_empty() {
            None
        } else {
            let alpha = number(JUDGE_ALPHA, 0.0001, 0.5)?;
            let min_points = number(11, 2.0, 1000.0)? as usize;
            let period = number(14, 10.0, 3600.0)? as i32;
            if !(matches!(period, 10 | 20 | 30) || period % 60 == 0) {
                return Err((14, "judge period must be 10, 20, 30 or a multiple of 60 seconds".into()));
            }
            Some(JudgeConfig {
                alpha,
                min_points,
                latency_tolerance: number(12, 0.0, 10.0)?,
                rate_tolerance: number(13, 0.0, 1.0)?,
                period,
            })
        };
        let alarms = v(ALARMS)
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string)
            .collect();
        let load_rps = if v(LOAD).is_empty() {
            None
        } else {
            Some(number(LOAD, 0.1, 1000.0)?)
        };
        Ok(PlanExtras {
            judge,
            alarms,
            load_rps,
        })
    }

    /// A key typed into a choice field: `a`/`m` (mode), `y`/`n` (consolidation), ←/→ flip it;
    /// anything else is refused with the keys that work (never dropped silently).
    fn choose(&mut self, code: KeyCode) {
        let flip = matches!(code, KeyCode::Left | KeyCode::Right);
        let (ok, keys) = if self.cursor == MODE {
            let ok = match code {
                KeyCode::Char('a') | KeyCode::Char('A') => Some(false),
                KeyCode::Char('m') | KeyCode::Char('M') => Some(true),
                _ if flip => Some(!self.manual),
                _ => None,
            };
            if let Some(m) = ok {
                self.manual = m;
            }
            (ok.is_some(), "a auto · m manual · ←/→ switch")
        } else {
            let ok = match code {
                KeyCode::Char('y') | KeyCode::Char('Y') => Some(true),
                KeyCode::Char('n') | KeyCode::Char('N') => Some(false),
                _ if flip => Some(!self.consolidate),
                _ => None,
            };
            if let Some(c) = ok {
                self.consolidate = c;
            }
            (ok.is_some(), "y consolidate · n end at 100% · ←/→ switch")
        };
        self.problem = if ok {
            None
        } else {
            let typed = match code {
                KeyCode::Char(' ') => "space".to_string(),
                KeyCode::Char(c) => format!("`{c}`"),
                other => format!("{other:?}"),
            };
            Some((self.cursor, format!("{} is a choice, {typed} does nothing here: {keys}", FIELDS[self.cursor])))
        };
    }

    /// Answers a key.
    pub fn handle_key(&mut self, key: KeyEvent) -> EditorOutcome {
        match key.code {
            KeyCode::Esc => return EditorOutcome::Cancel,
            KeyCode::Up | KeyCode::BackTab => self.cursor = (self.cursor + FIELDS.len() - 1) % FIELDS.len(),
            KeyCode::Down | KeyCode::Tab => self.cursor = (self.cursor + 1) % FIELDS.len(),
            KeyCode::Enter => match self.spec() {
                Ok((spec, reason, extras)) => return EditorOutcome::Submit(Box::new(spec), reason, extras),
                Err((i, why)) => {
                    self.cursor = i;
                    self.problem = Some((i, why));
                }
            },
            KeyCode::Char(_) | KeyCode::Left | KeyCode::Right | KeyCode::Backspace if is_choice(self.cursor) => {
                self.choose(key.code)
            }
            KeyCode::Backspace => {
                self.values[self.cursor].pop();
                self.problem = None;
            }
            KeyCode::Char(c) => {
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

/// The judge, alarms and load of a plan, in words (nothing when it has none).
pub fn extras_lines(x: &PlanExtras) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(j) = &x.judge {
        lines.push(format!(
            "Judge: Mann-Whitney at alpha {}, ≥ {} points of {}s, tolerating latency +{} and error rate +{}",
            num(j.alpha),
            j.min_points,
            j.period,
            pct(j.latency_tolerance),
            pct(j.rate_tolerance)
        ));
    }
    if !x.alarms.is_empty() {
        lines.push(format!(
            "Alarms: {} (in ALARM: the plan does not start; entering ALARM fails the step)",
            x.alarms.join(", ")
        ));
    }
    if let Some(rps) = x.load_rps {
        lines.push(format!("Load: {} req/s to canary and baseline during each bake", num(rps)));
    }
    lines
}

/// The confirmation stating a plan.
pub fn confirm_plan(spec: &PromotionSpec, reason: Option<String>, extras: PlanExtras, e: &EndpointInfo) -> Confirm {
    let baseline = spec
        .baseline
        .clone()
        .or_else(|| crate::aws::promote::plan::pick_baseline(e, &spec.canary, None).ok())
        .unwrap_or_else(|| "?".into());
    let steps: Vec<String> = spec.steps.iter().map(|s| format!("{}%", num(*s))).collect();
    let g = &spec.gates;
    let start: Vec<String> = e
        .variants
        .iter()
        .map(|v| format!("{}={}", v.name, num(v.current_weight)))
        .collect();
    let mut lines = vec![
        format!("{} against baseline {baseline}", spec.canary),
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
        if spec.consolidate {
            format!(
                "Last step: consolidate — a new endpoint config with only {} (the old one kept for rollback)",
                spec.canary
            )
        } else {
            "Last step: none — the plan ends with the canary at 100% (both variants stay)".into()
        },
    ];
    lines.extend(extras_lines(&extras));
    if let Some(r) = &reason {
        lines.push(format!("Reason: {r}"));
    }
    lines.push("Each step is compare-and-swap and audited; Esc on Variants holds or rolls back.".into());
    Confirm {
        title: format!("Promote {} on {}?", spec.canary, spec.endpoint),
        lines,
        jobs: vec![Job::Guard(GuardJob::Promote {
            spec: spec.clone(),
            reason,
            extras,
        })],
        danger: true,
        force: Vec::new(),
    }
}
