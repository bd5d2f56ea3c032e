//! Drawing of the weight editor (rows, live before → after bar, inline problems, keys) and the
//! confirmation it opens. A child module of `widgets::weight_editor`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Field, WeightEditor};
use crate::aws::change::weights::WeightPlan;
use crate::tui::data::Data;
use crate::tui::event::{GuardJob, Job};
use crate::tui::panes::variants::{num, pct, role, split_bar};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::confirm::Confirm;
use crate::tui::widgets::{centered, modal};

impl WeightEditor {
    /// The confirmation for a plan: the exact request, then the split before → after. `seen` is
    /// the endpoint as the operator saw it: the change is refused if it differs when sent.
    pub fn confirm(plan: &WeightPlan, percent: bool, seen: &crate::aws::endpoints::inventory::EndpointInfo) -> Confirm {
        let mut lines = vec![
            "UpdateEndpointWeightsAndCapacities".to_string(),
            format!("  EndpointName: {}", plan.endpoint),
            "  DesiredWeightsAndCapacities:".to_string(),
        ];
        for c in &plan.changes {
            let mut l = format!("    - VariantName: {}", c.variant);
            if let Some(w) = c.weight {
                l.push_str(&format!(", DesiredWeight: {}", num(f64::from(w as f32))));
            }
            if let Some(n) = c.instances {
                l.push_str(&format!(", DesiredInstanceCount: {n}"));
            }
            lines.push(l);
        }
        if percent {
            lines.push("  (percentages are sent as weights)".into());
        }
        lines.push(String::new());
        let name_w = plan.before.iter().map(|b| b.variant.chars().count()).max().unwrap_or(0);
        for (b, a) in plan.before.iter().zip(&plan.after) {
            lines.push(format!(
                "  {:<name_w$}  traffic {} → {}   weight {} → {}   instances {} → {}",
                b.variant,
                pct(b.share),
                pct(a.share),
                num(b.weight),
                num(a.weight),
                b.instances,
                a.instances
            ));
        }
        lines.push(String::new());
        lines.push("The endpoint goes Updating and keeps serving; the console".into());
        lines.push("follows it until InService (progress on the Variants tab).".into());
        lines.push("Refused if the endpoint changed since it was shown; audited.".into());
        let danger = plan
            .before
            .iter()
            .zip(&plan.after)
            .any(|(b, a)| (b.share > 0.0 && a.share == 0.0) || a.instances < b.instances);
        Confirm {
            title: format!("Change the weights of {}?", plan.endpoint),
            lines,
            jobs: vec![Job::Guard(GuardJob::ApplyWeights {
                plan: plan.clone(),
                seen: Box::new(seen.clone()),
                reason: None,
            })],
            danger,
            force: Vec::new(),
        }
    }

    pub(super) fn value_span(&self, i: usize, field: Field, theme: &Theme) -> Span<'static> {
        let r = &self.rows[i];
        let (text, bad) = match field {
            Field::Weight => (
                format!("{}{}", r.weight, if self.percent { "%" } else { "" }),
                self.weight_of(i).is_err(),
            ),
            Field::Instances if r.serverless => ("-".into(), false),
            Field::Instances => (r.instances.clone(), self.instances_of(i).is_err()),
        };
        let editing = i == self.cursor && field == self.field;
        let style = if bad {
            theme.fg(Role::StatusError).add_modifier(Modifier::BOLD)
        } else if editing {
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD)
        } else {
            theme.fg(Role::Fg)
        };
        let shown = if editing {
            format!("[{text}▏]")
        } else {
            format!(" {text} ")
        };
        Span::styled(
            shown,
            if editing && self.fresh {
                style.add_modifier(Modifier::UNDERLINED)
            } else {
                style
            },
        )
    }

    /// Draws the editor.
    pub fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        let title = theme.fg(Role::Title).add_modifier(Modifier::BOLD);
        let name_w = self
            .rows
            .iter()
            .map(|r| r.variant.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(8, 24);
        let shares = self.after_shares();
        let mut lines = vec![self.heading_line(name_w, title)];
        // One share per row.
        for (i, after) in shares.iter().enumerate() {
            lines.push(self.row_line(i, name_w, *after, theme));
        }
        lines.push(Line::from(""));
        lines.extend(self.share_bars(area, &shares, theme));
        lines.push(Line::from(""));
        lines.extend(self.problem_lines(data, theme));
        // Keep the key line when the screen is short: drop body lines first.
        let h = (lines.len() as u16 + 3).min(area.height);
        lines.truncate(h.saturating_sub(3) as usize);
        lines.push(self.key_line(theme));
        let rect = centered(area, 90, 0, 70, h);
        let mode = if self.percent { "percent" } else { "weights" };
        let heading = Span::styled(format!(" Weights of {} — {mode} ", self.endpoint), title);
        modal(f, rect, theme.border(true), heading, Paragraph::new(lines), theme);
    }

    /// The column titles of the rows.
    fn heading_line(&self, name_w: usize, title: Style) -> Line<'static> {
        let new_head = if self.percent { "NEW %" } else { "NEW WEIGHT" };
        Line::from(Span::styled(
            format!(
                "   {}{}{}{}{}TRAFFIC NOW → AFTER",
                pad("VARIANT".into(), name_w + 2),
                pad("ROLE".into(), 12),
                pad("NOW".into(), 8),
                pad(format!(" {new_head}"), 15),
                pad(" INSTANCES".into(), 15),
            ),
            title,
        ))
    }

    /// Row `i`: the variant, its role, its weight now, the two edited values and its traffic
    /// share now → after the change (`after`).
    fn row_line(&self, i: usize, name_w: usize, after: f64, theme: &Theme) -> Line<'static> {
        let r = &self.rows[i];
        let rs = theme.fg(role(r.baseline));
        let now = if self.percent {
            pct(r.share_before)
        } else {
            num(r.weight_before)
        };
        let name: String = r.variant.chars().take(name_w).collect();
        let mut spans = vec![
            Span::styled(if i == self.cursor { " ▸ " } else { "   " }, theme.fg(Role::Accent)),
            Span::styled(pad(name, name_w + 2), rs.add_modifier(Modifier::BOLD)),
            Span::styled(pad(format!("{} {}", r.glyph, role(r.baseline).name()), 12), rs),
            Span::styled(pad(now, 8), theme.fg(Role::Muted)),
        ];
        for field in [Field::Weight, Field::Instances] {
            let v = self.value_span(i, field, theme);
            let n = v.content.chars().count();
            spans.push(v);
            spans.push(Span::raw(" ".repeat(15usize.saturating_sub(n))));
        }
        let moved = (after - r.share_before).abs() > 1e-9;
        spans.push(Span::styled(
            format!("{} → {}", pct(r.share_before), pct(after)),
            if moved { theme.fg(Role::StatusWarn) } else { theme.fg(Role::Fg) },
        ));
        Line::from(spans)
    }

    /// The traffic split before and after the change as two bars, then their legend.
    fn share_bars(&self, area: Rect, shares: &[f64], theme: &Theme) -> Vec<Line<'static>> {
        let muted = theme.fg(Role::Muted);
        let title = theme.fg(Role::Title).add_modifier(Modifier::BOLD);
        let width = (area.width * 9 / 10).max(70).min(area.width);
        let bar_w = (width as usize).saturating_sub(14).clamp(10, 80);
        let bar = |label: &str, shares: &[f64]| {
            let parts: Vec<(f64, Style, &'static str)> = self
                .rows
                .iter()
                .zip(shares)
                .map(|(r, s)| (*s, theme.fg(role(r.baseline)), r.glyph))
                .collect();
            let mut spans = vec![Span::styled(format!(" {label:<8}"), title)];
            spans.extend(split_bar(&parts, bar_w, muted));
            Line::from(spans)
        };
        let before: Vec<f64> = self.rows.iter().map(|r| r.share_before).collect();
        let mut legend = vec![Span::raw("         ")];
        for (r, s) in self.rows.iter().zip(shares) {
            legend.push(Span::styled(format!("{} ", r.glyph), theme.fg(role(r.baseline))));
            legend.push(Span::styled(format!("{} {}   ", r.variant, pct(*s)), theme.fg(Role::Fg)));
        }
        vec![bar("before", &before), bar("after", shares), Line::from(legend)]
    }

    /// Why Enter would refuse (the endpoint no longer InService, the first problems), else the
    /// last message or the promise of a review.
    fn problem_lines(&self, data: &Data, theme: &Theme) -> Vec<Line<'static>> {
        let bad = theme.fg(Role::StatusError).add_modifier(Modifier::BOLD);
        let problems = self.problems();
        let mut lines = Vec::new();
        if let Some(e) = data.endpoint(&self.endpoint).filter(|e| e.status != "InService") {
            lines.push(Line::from(Span::styled(
                format!(" ✗ {} is now {}: Enter will refuse", e.name, e.status),
                bad,
            )));
        }
        for p in problems.iter().take(3) {
            lines.push(Line::from(Span::styled(format!(" ✗ {p}"), bad)));
        }
        if problems.is_empty() {
            lines.push(match &self.message {
                Some(m) => Line::from(Span::styled(format!(" ✗ {m}"), theme.fg(Role::StatusWarn))),
                None => Line::from(Span::styled(
                    " ✓ Enter reviews the exact request before anything is sent",
                    theme.fg(Role::StatusOk),
                )),
            });
        }
        lines
    }

    /// The editor's keys, those that do nothing now crossed out.
    fn key_line(&self, theme: &Theme) -> Line<'static> {
        let muted = theme.fg(Role::Muted);
        let mut keys = vec![Span::raw(" ")];
        for k in self.keys() {
            let ks = if k.disabled {
                muted.add_modifier(Modifier::CROSSED_OUT)
            } else {
                theme.fg(Role::Accent).add_modifier(Modifier::BOLD)
            };
            keys.push(Span::styled(k.key, ks));
            keys.push(Span::styled(format!(" {}  ", k.action), muted));
        }
        Line::from(keys)
    }
}

/// `text` padded with spaces to `w` characters.
fn pad(text: String, w: usize) -> String {
    format!("{text:<w$}")
}
