//! The Scaling pane's page for one inference component: its copies and scalable target, its
//! policies, the scale-to-zero doctor's word on each piece (with what to do for each one
//! missing or wrong) and its recent scaling activities. Its changes (`m`, `t`, `z`) are the
//! pane's editor's (`edit.rs`), the same plan as `sagedeck autoscaling --inference-component`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::aws::scaling::change::policy_text;
use crate::aws::scaling::view::{ScalingView, capacity_change};
use crate::aws::scaling::zero::doctor::PieceState;
use crate::aws::scaling::zero::view::ComponentView;
use crate::format::escape_line;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::title;

fn muted(text: impl Into<String>, theme: &Theme) -> Span<'static> {
    Span::styled(text.into(), theme.fg(Role::Muted))
}

fn head_line(view: &ScalingView, c: &ComponentView, index: usize, theme: &Theme) -> Line<'static> {
    let s = &c.scaling;
    let n = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
    let mut spans = vec![
        muted("component ", theme),
        Span::styled(
            escape_line(&s.component).into_owned(),
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
        ),
        muted(format!(" ({}/{})  ", index + 1, view.components.len()), theme),
    ];
    match s.bounds {
        Some((min, max)) => spans.push(Span::raw(format!("target min {min} · max {max}"))),
        None => spans.push(Span::styled("no scalable target", theme.fg(Role::StatusWarn))),
    }
    spans.push(Span::raw(format!(
        " · copies desired {} · current {}",
        n(s.desired_copies),
        n(s.current_copies)
    )));
    Line::from(spans)
}

fn policy_lines(c: &ComponentView, theme: &Theme) -> Vec<Line<'static>> {
    if c.scaling.policies.is_empty() {
        return vec![Line::from(muted("no scaling policy", theme))];
    }
    c.scaling
        .policies
        .iter()
        .map(|p| {
            Line::from(vec![
                Span::raw(format!("  {}", escape_line(&p.spec.policy_name))),
                muted(format!("  {}", escape_line(&policy_text(&p.spec))), theme),
            ])
        })
        .collect()
}

fn doctor_lines(c: &ComponentView, theme: &Theme) -> Vec<Line<'static>> {
    let findings = c.doctor.iter().filter(|r| r.is_finding()).count();
    let mut out = vec![if findings == 0 {
        Line::from(Span::styled("scale to zero: every piece in place", theme.fg(Role::StatusOk)))
    } else {
        Line::from(vec![
            title("scale to zero", theme),
            Span::styled(
                format!(": {findings} of {} pieces missing or wrong", c.doctor.len()),
                theme.fg(Role::StatusError),
            ),
        ])
    }];
    for r in &c.doctor {
        let (mark, role) = match r.state {
            PieceState::Ok => ("✓ ", Role::StatusOk),
            PieceState::Missing => ("✗ missing ", Role::StatusError),
            PieceState::Wrong => ("✗ wrong ", Role::StatusError),
        };
        out.push(Line::from(vec![
            Span::styled(mark, theme.fg(role)),
            Span::styled(r.piece.label(), theme.fg(Role::Fg).add_modifier(Modifier::BOLD)),
            muted(format!("  {}", escape_line(&r.detail)), theme),
        ]));
        if r.is_finding() {
            out.push(Line::from(vec![muted("    fix: ", theme), Span::raw(escape_line(&r.fix).into_owned())]));
        }
    }
    out
}

fn activity_lines(view: &ScalingView, c: &ComponentView, n: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(title("Recent scaling activities", theme))];
    if c.activities.is_empty() {
        out.push(Line::from(muted("  none recorded", theme)));
    }
    for a in c.activities.iter().take(n) {
        let role = if a.status == "Successful" {
            Role::StatusOk
        } else {
            Role::StatusWarn
        };
        let change = capacity_change(&a.cause)
            .map(|(from, to)| format!("{from} → {to}  "))
            .unwrap_or_default();
        let secs = (view.end - a.start).max(0.0) as u64;
        let ago = match secs {
            0..60 => format!("{secs}s ago"),
            60..7200 => format!("{}m ago", secs / 60),
            _ => format!("{}h ago", secs / 3600),
        };
        out.push(Line::from(vec![
            muted(format!("{ago:>8} "), theme),
            Span::styled(format!("{:<11}", a.status), theme.fg(role)),
            Span::styled(change, theme.fg(Role::Accent)),
            Span::raw(escape_line(&a.cause).into_owned()),
        ]));
    }
    out
}

/// Draws the page of component `c` (the `index`th of the view's components).
pub(super) fn draw_component(f: &mut Frame, area: Rect, view: &ScalingView, c: &ComponentView, index: usize, theme: &Theme) {
    let mut lines = vec![head_line(view, c, index, theme)];
    lines.extend(policy_lines(c, theme));
    lines.extend(doctor_lines(c, theme));
    lines.push(Line::from(muted(
        "change: m min/max copies · t target invocations per copy · z scale to zero (what the doctor finds missing)",
        theme,
    )));
    let acts = if area.height >= 30 { 6 } else { 3 };
    lines.extend(activity_lines(view, c, acts, theme));
    f.render_widget(Paragraph::new(lines).style(theme.base()).wrap(Wrap { trim: false }), area);
}
