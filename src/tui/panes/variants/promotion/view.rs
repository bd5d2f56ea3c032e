//! Drawing of the promotion: the plan editor, the timeline under the variants (each step's share,
//! InService, bake countdown, gate figures and verdict), and the modals (manual-mode question,
//! "hold here or roll back"). A child module of `panes::promotion`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{CONSOLIDATE, FIELDS, MODE, PlanEditor, PlanView, PromotionUi, is_choice};
use crate::aws::judge::compare::Outcome;
use crate::aws::promote::plan::{Mode, Phase, PlanState, StepRecord};
use crate::aws::promote::report::{GateReport, Verdict};
use crate::aws::promote::events::Question;
use crate::tui::panes::variants::num;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::{centered, modal, title};

/// `45s`, `5m`, `1h30m`, `2m05s`.
pub fn duration_text(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    let (h, m, s) = (s / 3600, (s % 3600) / 60, s % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, 0, _) => format!("{h}h"),
        (h, m, _) => format!("{h}h{m}m"),
    }
}

/// A plan in a few lines (for the resume / roll back confirmation).
pub fn plan_summary(state: Option<&PlanState>) -> Vec<String> {
    let Some(s) = state else {
        return vec!["(no saved state)".into()];
    };
    let w = |ws: &[(String, f64)]| {
        ws.iter()
            .map(|(n, x)| format!("{n}={}", num(*x)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut lines = vec![
        format!(
            "{} against baseline {}, step {} of {}",
            s.spec.canary,
            s.baseline,
            s.step + 1,
            s.spec.steps.len()
        ),
        format!(
            "Phase: {:?}; updated {}",
            s.phase,
            crate::format::time_text(s.updated)
        ),
        format!("Starting weights: {}", w(&s.start_weights)),
    ];
    if let Some(m) = &s.message {
        lines.push(console_message(m));
    }
    lines
}

fn check_text(report: &GateReport) -> String {
    let mut parts = Vec::new();
    for c in &report.checks {
        let v = c.value;
        let text = match c.name.as_str() {
            "p99_ratio" => format!(
                "p99 {}× (≤{})",
                v.map(|x| format!("{x:.2}")).unwrap_or("-".into()),
                num(c.limit)
            ),
            "5xx_rate" => format!("5XX {} (≤{})", rate(v), rate(Some(c.limit))),
            "4xx_rate" => format!("4XX {} (≤{})", rate(v), rate(Some(c.limit))),
            "invocations" => format!("inv {} (≥{})", v.map(num).unwrap_or("-".into()), num(c.limit)),
            other => format!("{other} {}", v.map(num).unwrap_or("-".into())),
        };
        parts.push(text);
    }
    parts.join("  ")
}

fn rate(v: Option<f64>) -> String {
    v.map(|x| format!("{:.2}%", x * 100.0)).unwrap_or_else(|| "-".into())
}

/// The timeline of a plan, one line per step, at wall time `now` (epoch seconds).
pub fn timeline_lines(p: &PlanView, theme: &Theme, now: f64) -> Vec<Line<'static>> {
    let Some(s) = &p.state else {
        return match &p.error {
            Some(e) => vec![Line::from(Span::styled(
                format!("promotion: {e}"),
                theme.fg(Role::StatusError),
            ))],
            None => vec![Line::from(Span::styled("promotion starting…", theme.fg(Role::Muted)))],
        };
    };
    let mut lines = vec![plan_heading(p, s, theme)];
    for (i, share) in s.spec.steps.iter().enumerate() {
        lines.push(step_line(p, s, (i, *share), theme, now));
        if let Some(gr) = s.timeline.get(i).and_then(|r| r.gate.as_ref()) {
            lines.extend(breach_line(gr, p.running, theme));
            lines.extend(judge_lines(gr, theme));
        }
    }
    if s.spec.consolidate {
        lines.push(consolidation_line(s, theme));
    }
    if let Some(m) = &s.message {
        lines.push(Line::from(Span::styled(
            format!("   {}", console_message(m)),
            theme.fg(Role::Muted),
        )));
    }
    if let Some(e) = &p.error {
        lines.push(Line::from(Span::styled(format!("   {e}"), theme.fg(Role::StatusError))));
    }
    lines
}

/// The plan's first line: canary vs baseline, mode, bake and gates, then its phase and whether
/// it runs.
fn plan_heading(p: &PlanView, s: &PlanState, theme: &Theme) -> Line<'static> {
    let muted = theme.fg(Role::Muted);
    let g = &s.spec.gates;
    let mode = match s.spec.mode {
        Mode::Auto => "auto",
        Mode::Manual => "manual",
    };
    let status = if p.running {
        "running"
    } else if s.phase.is_final() {
        "over"
    } else {
        "stopped: R resumes, B rolls back"
    };
    let phase_style = match s.phase {
        Phase::Completed => theme.fg(Role::StatusOk),
        Phase::RolledBack | Phase::RollingBack => theme.fg(Role::StatusError),
        Phase::Held => theme.fg(Role::StatusWarn),
        _ => theme.fg(Role::Accent),
    };
    // Where the plan stands before its settings: on a narrow pane the settings give way.
    Line::from(vec![
        Span::styled("Promotion ", theme.fg(Role::Title).add_modifier(Modifier::BOLD)),
        Span::styled(format!("{} vs {} — ", s.spec.canary, s.baseline), theme.fg(Role::Fg)),
        Span::styled(format!("{:?}", s.phase), phase_style.add_modifier(Modifier::BOLD)),
        Span::styled(format!(" ({status})"), muted),
        Span::styled(
            format!(
                " — {mode}, bake {}, p99 ≤{}×, 5XX ≤{}, ≥{} inv",
                duration_text(s.spec.bake.as_secs_f64()),
                num(g.max_p99_ratio),
                rate(Some(g.max_5xx_rate)),
                g.min_invocations
            ),
            muted,
        ),
    ])
}

/// Step `i` (to `share` percent): marked when current, then where it stands.
fn step_line(p: &PlanView, s: &PlanState, (i, share): (usize, f64), theme: &Theme, now: f64) -> Line<'static> {
    let current = i == s.step && !s.phase.is_final();
    let marker = if current { "▶" } else { " " };
    let mut spans = vec![Span::styled(
        format!(" {marker} step {} {:>5}%  ", i + 1, num(share)),
        if current { theme.fg(Role::Accent) } else { theme.fg(Role::Fg) },
    )];
    let (text, style) = step_state(p, s, (s.timeline.get(i), current), &mut spans, theme, now);
    spans.push(Span::styled(text, style));
    Line::from(spans)
}

/// Where a step stands (pending, applying, updating, baking, its verdict ...) with its style;
/// a step InService first gets that mark in `spans` (and its gate's figures once read).
fn step_state(
    p: &PlanView,
    s: &PlanState,
    (rec, current): (Option<&StepRecord>, bool),
    spans: &mut Vec<Span<'static>>,
    theme: &Theme,
    now: f64,
) -> (String, Style) {
    let muted = theme.fg(Role::Muted);
    let in_service = || Span::styled("InService ✓  ", theme.fg(Role::StatusOk));
    match rec {
        None if current && s.phase == Phase::Applying => ("applying…".into(), theme.fg(Role::Accent)),
        None => ("pending".into(), muted),
        Some(r) => match (&r.gate, current, s.phase) {
            (Some(gr), _, _) => {
                let style = match gr.verdict {
                    Verdict::Pass => theme.fg(Role::StatusOk),
                    Verdict::Fail => theme.fg(Role::StatusError),
                    Verdict::NoVerdict => theme.fg(Role::StatusWarn),
                };
                spans.push(in_service());
                spans.push(Span::styled(format!("{}  ", check_text(gr)), theme.fg(Role::Fg)));
                (gr.verdict.as_str().to_uppercase(), style.add_modifier(Modifier::BOLD))
            }
            (None, true, Phase::Applying) => ("applying…".into(), theme.fg(Role::Accent)),
            (None, true, Phase::Updating) => ("Updating → InService…".into(), theme.fg(Role::StatusWarn)),
            (None, true, Phase::Baking) => {
                spans.push(in_service());
                let until = p.baking_until.or(r.bake_end);
                match until {
                    _ if p.judging => ("judging: reading the gate…".into(), theme.fg(Role::Accent)),
                    Some(u) if u > now => (format!("baking, {} left", duration_text(u - now)), theme.fg(Role::Accent)),
                    _ => ("baked; reading the gate…".into(), theme.fg(Role::Accent)),
                }
            }
            (None, _, _) if r.applied_at.is_some() => ("applied".into(), theme.fg(Role::Fg)),
            (None, _, _) => ("not applied".into(), muted),
        },
    }
}

/// What an empty or chosen field shows (None: its text as typed).
fn field_display(ed: &PlanEditor, i: usize, focused: bool) -> Option<String> {
    let empty = ed.values[i].trim().is_empty() && !focused;
    Some(match i {
        MODE if ed.manual => "manual (asks before each step)".into(),
        MODE => "auto (a failed gate rolls back)".into(),
        CONSOLIDATE if ed.consolidate => "yes: keep only the canary at 100%".into(),
        CONSOLIDATE => "no: end with the canary at 100%".into(),
        1 if empty => "the other variant with the most weight".into(),
        6 if empty => "not gated".into(),
        10 if empty => "off (an alpha such as 0.05 turns the judge on)".into(),
        15 | 16 if empty => "none".into(),
        _ => return None,
    })
}

/// ` = 1%` after a rate typed as a fraction.
fn as_percent(i: usize, text: &str) -> Option<String> {
    if !matches!(i, 5 | 6 | 12 | 13) {
        return None;
    }
    let x: f64 = text.trim().parse().ok()?;
    Some(format!("  = {}%", num(x * 100.0)))
}

/// A runner's message without the CLI commands it names (the console has keys for them).
pub fn console_message(m: &str) -> String {
    match m.find("; resume with `sagedeck promote") {
        Some(i) => format!("{}: R resumes, B rolls back", &m[..i]),
        None => m.to_string(),
    }
}

/// The consolidation step's line: pending, under way, done or failed.
fn consolidation_line(s: &PlanState, theme: &Theme) -> Line<'static> {
    let current = s.phase == Phase::Consolidating;
    let marker = if current { "▶" } else { " " };
    let (text, style) = match s.phase {
        Phase::Consolidating => (
            format!("Updating → InService… (a new config with only {})", s.spec.canary),
            theme.fg(Role::StatusWarn),
        ),
        Phase::Completed if s.consolidation_started => ("done (old config kept)".into(), theme.fg(Role::StatusOk)),
        Phase::Held if s.consolidation_started => ("FAILED (see below)".into(), theme.fg(Role::StatusError)),
        Phase::RolledBack if s.consolidation_started => ("undone (back on the old config)".into(), theme.fg(Role::Muted)),
        _ => (format!("pending: keep only {} at 100%", s.spec.canary), theme.fg(Role::Muted)),
    };
    Line::from(vec![
        Span::styled(
            format!(" {marker} last   consolidate  "),
            if current { theme.fg(Role::Accent) } else { theme.fg(Role::Fg) },
        ),
        Span::styled(text, style.add_modifier(Modifier::BOLD)),
    ])
}

/// A limit the canary broke although too few invocations left the gate without a verdict: shown
/// loud, with the key that rolls back in place.
fn breach_line(gr: &GateReport, running: bool, theme: &Theme) -> Option<Line<'static>> {
    if gr.verdict != Verdict::NoVerdict {
        return None;
    }
    let inv = gr.checks.iter().find(|c| c.name == "invocations")?;
    let broken: Vec<String> = gr
        .checks
        .iter()
        .filter(|c| matches!(c.name.as_str(), "5xx_rate" | "4xx_rate") && c.ok.is_none())
        .filter(|c| c.value.is_some_and(|v| v > c.limit))
        .map(|c| {
            format!(
                "{} {} is above its {} limit",
                if c.name == "5xx_rate" { "5XX" } else { "4XX" },
                rate(c.value),
                rate(Some(c.limit))
            )
        })
        .collect();
    if broken.is_empty() {
        return None;
    }
    let key = if running { "Esc then b rolls back" } else { "B rolls back" };
    Some(Line::from(vec![
        Span::styled(
            format!("   ⚠ BREACH: {}", broken.join(", ")),
            theme.fg(Role::StatusError).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(
                " (only {} invocations, {} needed for a verdict) — ",
                num(inv.value.unwrap_or(0.0)),
                num(inv.limit)
            ),
            theme.fg(Role::StatusWarn),
        ),
        Span::styled(key, theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
    ]))
}

/// The judge's verdict of each metric of a gate: outcome, p-value, effect and samples.
fn judge_lines(gr: &GateReport, theme: &Theme) -> Vec<Line<'static>> {
    gr.judge
        .iter()
        .map(|v| {
            let style = match v.outcome {
                Outcome::Pass => theme.fg(Role::StatusOk),
                Outcome::Fail => theme.fg(Role::StatusError),
                Outcome::Inconclusive => theme.fg(Role::StatusWarn),
            };
            let rate_metric = v.metric.contains("rate");
            let amount = |x: f64| {
                if rate_metric {
                    format!("{:+.2}pp", x * 100.0)
                } else {
                    format!("{x:+.1}ms")
                }
            };
            let effect = match (v.effect, v.allowed) {
                (Some(e), Some(a)) => format!("effect {} (≤{})", amount(e), amount(a).trim_start_matches('+')),
                (Some(e), None) => format!("effect {}", amount(e)),
                _ => "effect -".into(),
            };
            Line::from(vec![
                Span::styled(format!("      judge {:<17} ", v.metric), theme.fg(Role::Muted)),
                Span::styled(format!("{:<13}", v.outcome.as_str()), style.add_modifier(Modifier::BOLD)),
                Span::styled(
                    format!(
                        "p {}  n {}/{}  {effect}",
                        v.p_value.map(|p| format!("{p:.4}")).unwrap_or("-".into()),
                        v.canary.len(),
                        v.baseline.len()
                    ),
                    theme.fg(Role::Fg),
                ),
            ])
        })
        .collect()
}

impl PlanEditor {
    /// Draws the editor over `area` (the fields scroll with the cursor when they do not fit).
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let rect = centered(area, 70, 70, 60, FIELDS.len() as u16 + 6);
        let room = (rect.height.saturating_sub(6) as usize).clamp(1, FIELDS.len());
        let first = self.cursor.saturating_sub(room - 1).min(FIELDS.len() - room);
        let more = if room < FIELDS.len() {
            format!("  (fields {}–{} of {}, ↑↓ scroll)", first + 1, first + room, FIELDS.len())
        } else {
            String::new()
        };
        let mut lines = vec![
            Line::from(Span::styled(
                format!("Variants: {}{more}", self.variants.join(", ")),
                theme.fg(Role::Muted),
            )),
            Line::from(""),
        ];
        for (i, name) in FIELDS.iter().enumerate().skip(first).take(room) {
            let focused = i == self.cursor;
            let bad = self.problem.as_ref().is_some_and(|p| p.0 == i);
            let value = field_display(self, i, focused).unwrap_or_else(|| self.values[i].clone());
            let style = if bad {
                theme.fg(Role::StatusError)
            } else if focused {
                theme.selection()
            } else {
                theme.fg(Role::Fg)
            };
            let cursor = if focused && !is_choice(i) { "▏" } else { "" };
            let mut spans = vec![
                Span::styled(format!(" {:<18}", name), theme.fg(Role::Muted)),
                Span::styled(format!("{value}{cursor}"), style),
            ];
            if let Some(p) = as_percent(i, &self.values[i]) {
                spans.push(Span::styled(p, theme.fg(Role::Muted)));
            }
            lines.push(Line::from(spans));
        }
        lines.push(Line::from(""));
        let hint = match self.cursor {
            MODE => "a auto · m manual · ←/→ switch · ↑↓ field · Enter review · Esc cancel",
            CONSOLIDATE => "y consolidate · n end at 100% · ←/→ switch · ↑↓ field · Enter review · Esc cancel",
            _ => "↑↓/Tab field · type to edit · Enter review · Esc cancel",
        };
        match &self.problem {
            Some((_, why)) => lines.push(Line::from(Span::styled(why.clone(), theme.fg(Role::StatusError)))),
            None => lines.push(Line::from(Span::styled(hint, theme.fg(Role::Muted)))),
        }
        modal(
            f,
            rect,
            theme.border(true),
            title(format!(" Promotion plan for {} ", self.endpoint), theme),
            Paragraph::new(lines).wrap(Wrap { trim: false }),
            theme,
        );
    }
}

fn small_box(f: &mut Frame, area: Rect, heading: String, lines: Vec<Line<'static>>, theme: &Theme) {
    let width = centered(area, 60, 20, 50, 1).width.saturating_sub(2) as usize;
    let lines = fit_lines(lines, width);
    let rect = centered(area, 60, 20, 50, lines.len() as u16 + 2);
    modal(
        f,
        rect,
        theme.fg(Role::Danger),
        title(heading, theme),
        Paragraph::new(lines).wrap(Wrap { trim: false }),
        theme,
    );
}

/// `lines` as rows of at most `width` columns, so that a box can be as tall as its text: a line
/// of one span breaks between words, a line of keys between its keys.
fn fit_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .flat_map(|line| match line.spans.as_slice() {
            [span] => crate::tui::widgets::describe::wrap(&span.content, width)
                .into_iter()
                .map(|row| Line::from(Span::styled(row, span.style)))
                .collect(),
            _ => crate::tui::widgets::pack::pack_line(line, width),
        })
        .collect()
}

fn key_line(keys: &[(&'static str, &'static str)], theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (k, a) in keys {
        spans.push(Span::styled(
            format!(" {k} "),
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled(format!("{a}  "), theme.fg(Role::Muted)));
    }
    Line::from(spans)
}

impl PromotionUi {
    /// Draws the editor, the question or the hold / roll back menu, whichever is open.
    pub fn render_modals(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        if let Some(ed) = &self.editor {
            return ed.render(f, area, theme);
        }
        if let Some((ep, q)) = &self.question {
            let text = match q {
                Question::NextStep { step, share } => {
                    format!("Apply step {} — canary share {}%?", step + 1, num(*share))
                }
                Question::AfterGate { step, verdict } => format!(
                    "Step {}'s gate gave {}: proceed (bake again after no verdict), hold, or roll back?",
                    step + 1,
                    verdict.as_str()
                ),
                Question::Consolidate { canary } => format!(
                    "Every step passed. Consolidate: a new endpoint config with only {canary} (the old config kept for rollback)?"
                ),
            };
            let lines = vec![
                Line::from(text),
                Line::from(""),
                key_line(&[("y", "proceed"), ("h", "hold here"), ("b", "roll back")], theme),
            ];
            return small_box(f, area, format!(" Promotion of {ep} asks "), lines, theme);
        }
        if let Some(ep) = &self.esc_menu {
            let lines = vec![
                Line::from("The plan is running. Stop it?"),
                Line::from(""),
                key_line(
                    &[("h", "hold here"), ("b", "roll back"), ("Esc", "keep running")],
                    theme,
                ),
                Line::from(Span::styled(
                    "Ctrl-C quits; the plan stays saved (R resumes at the next start)",
                    theme.fg(Role::Muted),
                )),
            ];
            small_box(f, area, format!(" Promotion of {ep} "), lines, theme);
        }
    }
}
