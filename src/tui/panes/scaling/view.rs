//! Drawing of the Scaling pane: the variant's scalable target, its policies with lint badges,
//! what the policy will do next, the chart of metric against target and of instances (activities
//! marked), recent activities; and its two dialogs (findings, edit).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph, Wrap};

use super::{Mode, ScalingPane};
use crate::aws::endpoints::autoscaling::ActivityInfo;
use crate::aws::scaling::change::policy_text;
use crate::aws::scaling::lint::{Finding, FindingKind};
use crate::aws::scaling::view::{ScalingView, TrackedMetric, VariantView, capacity_change};
use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::chart::{fmt_count, nice_ceiling};
use crate::tui::widgets::{centered, modal, pane_frame, title};

/// Whether a finding means the scaling cannot work as meant (an error), or is a risk (a warning).
pub fn severity(kind: FindingKind) -> (Role, &'static str) {
    match kind {
        FindingKind::Statistic
        | FindingKind::MetricNotPublished
        | FindingKind::Units
        | FindingKind::Dimensions
        | FindingKind::NoTarget
        | FindingKind::BacklogVariantDimension
        | FindingKind::AsyncScaleToZero => (Role::StatusError, "error"),
        FindingKind::CooldownBelowTimeout => (Role::StatusWarn, "warning"),
        FindingKind::MinZero | FindingKind::Cooldowns | FindingKind::MaxBelowCurrent | FindingKind::PoliciesFight => {
            (Role::StatusWarn, "warning")
        }
    }
}

/// A finding's badge text.
pub fn badge(kind: FindingKind) -> &'static str {
    match kind {
        FindingKind::Statistic => "statistic",
        FindingKind::MetricNotPublished => "no such metric",
        FindingKind::Units => "units",
        FindingKind::Dimensions => "dimensions",
        FindingKind::MinZero => "min 0",
        FindingKind::Cooldowns => "cooldowns",
        FindingKind::MaxBelowCurrent => "max < current",
        FindingKind::PoliciesFight => "policies fight",
        FindingKind::NoTarget => "no target",
        FindingKind::BacklogVariantDimension => "backlog dims",
        FindingKind::AsyncScaleToZero => "zero, no wake",
        FindingKind::CooldownBelowTimeout => "cooldown < timeout",
    }
}

fn badges<'a>(findings: impl Iterator<Item = &'a Finding>, theme: &Theme) -> Vec<Span<'static>> {
    findings
        .map(|f| {
            let (role, _) = severity(f.kind);
            Span::styled(
                format!(" [{}]", badge(f.kind)),
                theme.fg(role).add_modifier(Modifier::BOLD),
            )
        })
        .collect()
}

fn muted(text: impl Into<String>, theme: &Theme) -> Span<'static> {
    Span::styled(text.into(), theme.fg(Role::Muted))
}

/// `3m ago`, `45s ago`, `2h ago`.
fn ago(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    match s {
        0..60 => format!("{s}s ago"),
        60..7200 => format!("{}m ago", s / 60),
        _ => format!("{}h ago", s / 3600),
    }
}

fn head_line(view: &ScalingView, v: &VariantView, index: usize, theme: &Theme) -> Line<'static> {
    let mut spans = vec![
        muted("variant ", theme),
        Span::styled(v.variant.clone(), theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
        muted(format!(" ({}/{})  ", index + 1, view.variants.len()), theme),
    ];
    match v.bounds {
        Some((min, max)) => spans.push(Span::raw(format!("target min {min} · max {max}"))),
        None => spans.push(Span::styled("no scalable target (m registers one)", theme.fg(Role::StatusWarn))),
    }
    let what = if v.serverless { " · provisioned concurrency" } else { "" };
    spans.push(Span::raw(format!(
        "{what} · desired {} · current {}",
        v.desired, v.current
    )));
    let own = view
        .findings
        .iter()
        .filter(|f| f.variant == v.variant && f.policy.is_empty());
    spans.extend(badges(own, theme));
    Line::from(spans)
}

fn policy_lines(pane: &ScalingPane, view: &ScalingView, v: &VariantView, theme: &Theme) -> Vec<Line<'static>> {
    let policies: Vec<_> = view.state.policies_of(&v.variant).collect();
    if policies.is_empty() {
        let hint = if v.serverless {
            "no scaling policy (t: target provisioned concurrency utilization, p: target p99 ms)"
        } else {
            "no scaling policy (t: target invocations, p: target p99 ms)"
        };
        return vec![Line::from(muted(hint, theme))];
    }
    let selected = pane.policy.min(policies.len() - 1);
    policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let marker = if i == selected { "› " } else { "  " };
            let style = if i == selected {
                theme.fg(Role::Fg).add_modifier(Modifier::BOLD)
            } else {
                theme.fg(Role::Fg)
            };
            let mut spans = vec![
                Span::styled(marker, theme.fg(Role::Accent)),
                Span::styled(p.policy_name.clone(), style),
            ];
            let own = view
                .findings
                .iter()
                .filter(|f| f.variant == v.variant && f.policy == p.policy_name);
            spans.extend(badges(own, theme));
            spans.push(muted(format!("  {}", policy_text(p)), theme));
            Line::from(spans)
        })
        .collect()
}

fn lint_line(view: &ScalingView, theme: &Theme) -> Line<'static> {
    if view.findings.is_empty() {
        return Line::from(Span::styled("lint: no findings", theme.fg(Role::StatusOk)));
    }
    let errors = view
        .findings
        .iter()
        .filter(|f| severity(f.kind).0 == Role::StatusError)
        .count();
    let warnings = view.findings.len() - errors;
    Line::from(vec![
        Span::styled(
            format!("lint: {errors} error(s)"),
            theme.fg(if errors > 0 { Role::StatusError } else { Role::Muted }),
        ),
        Span::styled(
            format!(", {warnings} warning(s)"),
            theme.fg(if warnings > 0 { Role::StatusWarn } else { Role::Muted }),
        ),
        muted(" — f: what, why, fix", theme),
    ])
}

fn next_line(view: &ScalingView, v: &VariantView, t: Option<&TrackedMetric>, theme: &Theme) -> Line<'static> {
    let Some(t) = t else {
        return Line::from(muted("next: no target-tracking policy", theme));
    };
    let bounds = v.bounds.unwrap_or((v.current, v.current));
    let Some(n) = t.next_step(view.end, v.current, bounds) else {
        let why = t.error.clone().unwrap_or_else(|| "no datapoints in the last complete minute".into());
        return Line::from(muted(format!("next ({}): idle — {why}", t.policy), theme));
    };
    let verb = match n.heading_to.cmp(&n.current) {
        std::cmp::Ordering::Greater => ("scale out", Role::StatusWarn),
        std::cmp::Ordering::Less => ("scale in", Role::Accent),
        std::cmp::Ordering::Equal => ("stay", Role::StatusOk),
    };
    Line::from(vec![
        muted("next: ", theme),
        Span::styled(
            format!("{} to {}", verb.0, n.heading_to),
            theme.fg(verb.1).add_modifier(Modifier::BOLD),
        ),
        Span::raw(format!(
            " — {} {} vs target {}: ceil({} × {}/{} = {:.2}) within {}-{}",
            t.label,
            fmt_count(n.metric * t.scale),
            fmt_count(n.target * t.scale),
            n.current,
            fmt_count(n.metric * t.scale),
            fmt_count(n.target * t.scale),
            n.wanted,
            bounds.0,
            bounds.1,
        )),
    ])
}

/// Vertical marks at each activity's start, from 0 to `top` (x in minutes before `end`).
fn marks(acts: &[&ActivityInfo], end: f64, top: f64) -> Vec<Vec<(f64, f64)>> {
    acts.iter()
        .map(|a| {
            let x = (a.start - end) / 60.0;
            vec![(x, 0.0), (x, top)]
        })
        .collect()
}

fn chart<'a>(datasets: Vec<Dataset<'a>>, heading: Vec<Span<'a>>, window: f64, top: f64, theme: &Theme) -> Chart<'a> {
    let label = |v: f64| Span::raw(fmt_count(v));
    Chart::new(datasets)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border(false))
                .title(Line::from(heading)),
        )
        .style(theme.base())
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([-window, 0.0])
                .style(theme.fg(Role::Muted))
                .labels(vec![Span::raw(format!("-{window:.0}m")), Span::raw("now")]),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, top])
                .style(theme.fg(Role::Muted))
                .labels(vec![label(0.0), label(top / 2.0), label(top)]),
        )
}

fn line_set<'a>(points: &'a [(f64, f64)], style: Style) -> Dataset<'a> {
    Dataset::default()
        .marker(Marker::Braille)
        .graph_type(GraphType::Line)
        .style(style)
        .data(points)
}

fn draw_charts(f: &mut Frame, area: Rect, view: &ScalingView, v: &VariantView, t: Option<&TrackedMetric>, theme: &Theme) {
    let [left, right] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let window = (view.end - view.start) / 60.0;
    let acts = variant_activities(view, v);
    let act_style = theme.fg(Role::Accent);
    // Metric against target.
    match t {
        Some(t) => {
            let pts: Vec<(f64, f64)> = t
                .series
                .timestamps
                .iter()
                .zip(&t.series.values)
                .map(|(ts, val)| ((ts - view.end) / 60.0, val * t.scale))
                .collect();
            let target = t.target * t.scale;
            let top = nice_ceiling(pts.iter().map(|p| p.1).fold(target * 1.2, f64::max));
            let target_line = [(-window, target), (0.0, target)];
            let mark_pts = marks(&acts, view.end, top);
            let mut sets: Vec<Dataset> = mark_pts.iter().map(|m| line_set(m, act_style)).collect();
            sets.push(line_set(&target_line, theme.fg(Role::Chart3)));
            sets.push(line_set(&pts, theme.fg(Role::Chart1)));
            let latest = t.latest(view.end).map(|m| fmt_count(m * t.scale)).unwrap_or_else(|| "-".into());
            let heading = vec![
                title(format!(" {} ", t.label), theme),
                Span::styled(format!("metric {latest} "), theme.fg(Role::Chart1)),
                Span::styled(format!("target {} ", fmt_count(target)), theme.fg(Role::Chart3)),
                muted(format!("{} ", t.unit), theme),
                Span::styled("│ scaling ", act_style),
            ];
            f.render_widget(chart(sets, heading, window, top, theme), left);
        }
        None => {
            let block = Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border(false))
                .title(title(" metric ", theme));
            let text = muted("no target-tracking policy to chart", theme);
            f.render_widget(Paragraph::new(text).style(theme.base()).block(block), left);
        }
    }
    // Instances.
    let pts: Vec<(f64, f64)> = v
        .instances
        .iter()
        .map(|(ts, n)| ((ts - view.end) / 60.0, *n))
        .collect();
    let hi = pts.iter().map(|p| p.1).fold(f64::from(v.bounds.map(|b| b.1).unwrap_or(1)), f64::max);
    let top = (hi + 1.0).ceil();
    let mark_pts = marks(&acts, view.end, top);
    let mut sets: Vec<Dataset> = mark_pts.iter().map(|m| line_set(m, act_style)).collect();
    let max_line = v.bounds.map(|(_, max)| [(-window, f64::from(max)), (0.0, f64::from(max))]);
    if let Some(l) = &max_line {
        sets.push(line_set(l, theme.fg(Role::Muted)));
    }
    sets.push(line_set(&pts, theme.fg(Role::Chart2)));
    let heading = vec![
        title(if v.serverless { " provisioned concurrency " } else { " instances " }, theme),
        Span::styled(format!("{} ", v.current), theme.fg(Role::Chart2)),
        muted(
            v.bounds
                .map(|(a, b)| format!("min {a} max {b} "))
                .unwrap_or_default(),
            theme,
        ),
    ];
    f.render_widget(chart(sets, heading, window, top, theme), right);
}

fn variant_activities<'a>(view: &'a ScalingView, v: &VariantView) -> Vec<&'a ActivityInfo> {
    let suffix = format!("/variant/{}", v.variant);
    view.activities
        .iter()
        .filter(|a| a.resource_id.ends_with(&suffix))
        .collect()
}

fn activity_lines(view: &ScalingView, v: &VariantView, n: usize, theme: &Theme) -> Vec<Line<'static>> {
    let acts = variant_activities(view, v);
    let mut out = vec![Line::from(title("Recent scaling activities", theme))];
    if acts.is_empty() {
        out.push(Line::from(muted("  none recorded", theme)));
    }
    for a in acts.into_iter().take(n) {
        let role = match a.status.as_str() {
            "Successful" => Role::StatusOk,
            "Failed" | "Unfulfilled" => Role::StatusError,
            _ => Role::StatusWarn,
        };
        let change = capacity_change(&a.cause)
            .map(|(from, to)| format!("{from} → {to}  "))
            .unwrap_or_default();
        out.push(Line::from(vec![
            muted(format!("{:>8} ", ago(view.end - a.start)), theme),
            Span::styled(format!("{:<11}", a.status), theme.fg(role)),
            Span::styled(change, theme.fg(Role::Accent)),
            Span::raw(a.cause.clone()),
        ]));
    }
    out
}

impl ScalingPane {
    /// Draws the pane.
    pub(super) fn draw(&self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        let Some(endpoint) = data.selected.as_deref() else {
            let inner = pane_frame(f, area, " Scaling ", true, theme);
            f.render_widget(Paragraph::new(muted("select an endpoint on the Endpoints tab", theme)), inner);
            return;
        };
        let inner = pane_frame(f, area, format!(" Scaling · {endpoint} "), true, theme);
        let Some(view) = self.view(data) else {
            let text = match &self.error {
                Some(e) => Span::styled(format!("autoscaling of {endpoint}: {e}"), theme.fg(Role::StatusError)),
                None => muted(format!("reading the autoscaling of {endpoint}…"), theme),
            };
            f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
            return;
        };
        if let Some((i, c)) = self.component(view) {
            super::component::draw_component(f, inner, view, c, i, theme);
        } else {
            let Some(v) = self.variant(view) else {
                f.render_widget(Paragraph::new(muted("the endpoint has no variants", theme)), inner);
                return;
            };
            self.draw_view(f, inner, view, v, theme);
        }
        match &self.mode {
            Mode::Findings { scroll } => draw_findings(f, area, view, *scroll, theme),
            Mode::Edit(e) => draw_editor(f, area, e, theme),
            Mode::Normal => {}
        }
    }

    fn draw_view(&self, f: &mut Frame, inner: Rect, view: &ScalingView, v: &VariantView, theme: &Theme) {
        let policy = self.selected_policy_of(view, v);
        let tracked = v
            .tracked
            .iter()
            .find(|t| Some(t.policy.as_str()) == policy.as_deref())
            .or(v.tracked.first());
        let mut top = vec![head_line(view, v, self.variant.min(view.variants.len() - 1), theme)];
        top.extend(policy_lines(self, view, v, theme));
        top.push(lint_line(view, theme));
        if let Some(e) = &view.components_error {
            let text = format!("inference components not read: {}", crate::format::escape_line(e));
            top.push(Line::from(Span::styled(text, theme.fg(Role::StatusWarn))));
        } else if !view.components.is_empty() {
            let text = format!("{} inference component(s): v shows each with its scale-to-zero doctor", view.components.len());
            top.push(Line::from(muted(text, theme)));
        }
        top.push(next_line(view, v, tracked, theme));
        let acts = if inner.height >= 30 { 6 } else { 3 };
        let [head, charts, bottom] = Layout::vertical([
            Constraint::Length(top.len() as u16),
            Constraint::Min(6),
            Constraint::Length(acts as u16 + 1),
        ])
        .areas(inner);
        f.render_widget(Paragraph::new(top).style(theme.base()), head);
        draw_charts(f, charts, view, v, tracked, theme);
        f.render_widget(
            Paragraph::new(activity_lines(view, v, acts, theme)).style(theme.base()),
            bottom,
        );
    }

    fn selected_policy_of(&self, view: &ScalingView, v: &VariantView) -> Option<String> {
        let names: Vec<&str> = view.state.policies_of(&v.variant).map(|p| p.policy_name.as_str()).collect();
        names
            .get(self.policy.min(names.len().saturating_sub(1)))
            .map(|s| s.to_string())
    }
}

/// How many rows the findings take before wrapping (five a finding, or the line saying there is
/// none, and the keys): the findings' scroll stops there.
pub(super) fn findings_rows(view: &ScalingView) -> usize {
    (view.findings.len() * 5).max(1) + 1
}

fn draw_findings(f: &mut Frame, area: Rect, view: &ScalingView, scroll: u16, theme: &Theme) {
    let mut lines = Vec::new();
    if view.findings.is_empty() {
        lines.push(Line::from(Span::styled(
            "Every policy and scalable target passes the lint.",
            theme.fg(Role::StatusOk),
        )));
    }
    for fd in &view.findings {
        let (role, word) = severity(fd.kind);
        let whose = if fd.policy.is_empty() {
            format!("{} scalable target", fd.variant)
        } else {
            format!("{} policy {}", fd.variant, fd.policy)
        };
        lines.push(Line::from(vec![
            Span::styled(format!("● {word} [{}] ", badge(fd.kind)), theme.fg(role).add_modifier(Modifier::BOLD)),
            Span::raw(whose),
        ]));
        for (label, text) in [("what", &fd.problem), ("why ", &fd.consequence), ("fix ", &fd.fix)] {
            lines.push(Line::from(vec![muted(format!("  {label}: "), theme), Span::raw(text.clone())]));
        }
        lines.push(Line::from(""));
    }
    lines.push(Line::from(muted("↑↓ scroll   Esc close", theme)));
    let rect = centered(area, 90, 85, 60, 12);
    let heading = title(format!(" Lint findings ({}) ", view.findings.len()), theme);
    let body = Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((scroll, 0));
    modal(f, rect, theme.border(true), heading, body, theme);
}

fn draw_editor(f: &mut Frame, area: Rect, e: &super::Editor, theme: &Theme) {
    let mut lines = vec![Line::from(vec![muted("variant ", theme), Span::raw(e.variant.clone())])];
    if let (Some(p), super::EditKind::Cooldowns | super::EditKind::RemovePolicy) = (&e.policy, e.kind) {
        lines.push(Line::from(vec![muted("policy  ", theme), Span::raw(p.clone())]));
    }
    lines.push(Line::from(vec![
        muted(format!("{}: ", e.prompt()), theme),
        Span::styled(format!("{}▏", e.input), theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
    ]));
    if let Some(err) = &e.error {
        lines.push(Line::from(Span::styled(err.clone(), theme.fg(Role::StatusError))));
    }
    lines.push(Line::from(muted(
        "Enter shows before → after; nothing is sent yet.",
        theme,
    )));
    lines.push(Line::from(vec![
        Span::styled(" Enter ", theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
        muted("review   ", theme),
        Span::styled(" Esc ", theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
        muted("cancel", theme),
    ]));
    let rect = centered(area, 70, 10, 60, lines.len() as u16 + 2);
    let heading = title(format!(" Edit autoscaling of {} ", e.endpoint), theme);
    modal(
        f,
        rect,
        theme.border(true),
        heading,
        Paragraph::new(lines).wrap(Wrap { trim: false }),
        theme,
    );
}
