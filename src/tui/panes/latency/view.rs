//! Drawing of the Latency pane: the window line, one row of braille charts per variant and the
//! panel of the console's own invoke latencies.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph};

use crate::tui::widgets::{muted, no_endpoint_text};
use crate::tui::widgets::chart::{LineChart, Plot, fmt_count, fmt_ms, fmt_ms_short, points, thousands, window_label};
use super::{LatencyPane, WINDOWS, variant_role};
use crate::aws::endpoints::inventory::{EndpointInfo, VariantInfo};
use crate::aws::observe::metrics::{Metric, MetricsSnapshot, VariantMetrics};
use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::pane_frame;

/// Rows a variant needs: its title line and a chart of four plot rows with borders.
const ROW_MIN: u16 = 7;
/// Height of the own-latency panel.
const OWN_HEIGHT: u16 = 7;

/// The snapshot of `endpoint`, if `detail_metrics` holds it, and whether its window is the pane's.
fn snapshot<'a>(data: &'a Data, endpoint: &str, window: Duration) -> Option<(&'a MetricsSnapshot, bool)> {
    let s = data.detail_metrics.as_ref()?;
    if !s.variants.iter().any(|v| v.endpoint == endpoint) {
        return None;
    }
    Some((s, ((s.end - s.start) - window.as_secs_f64()).abs() < 1.0))
}

/// A percentile plot of a latency metric; the figure beside it is the last complete period's
/// (the one still filling holds too few samples to judge).
fn latency_plots(vm: &VariantMetrics, metric: Metric, (end, period): (f64, f64), theme: &Theme) -> Vec<Plot> {
    [("p50", Role::Chart1), ("p90", Role::Chart2), ("p99", Role::Chart3)]
        .into_iter()
        .map(|(stat, role)| {
            let s = vm.series(metric, stat);
            Plot {
                label: stat.into(),
                value: s
                    .and_then(|s| s.latest_complete(end, period))
                    .map(|(_, v)| fmt_ms_short(v))
                    .unwrap_or_else(|| "-".into()),
                style: theme.fg(role),
                points: s
                    .map(|s| points(&s.timestamps, &s.values, end, 1.0))
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// Calls, 4XX and 5XX per minute.
fn call_plots(vm: &VariantMetrics, end: f64, period: i32, theme: &Theme) -> Vec<Plot> {
    let per_min = 60.0 / f64::from(period.max(60));
    [
        (Metric::Invocations, "inv", Role::Chart4),
        (Metric::Invocation4xxErrors, "4XX", Role::StatusWarn),
        (Metric::Invocation5xxErrors, "5XX", Role::StatusError),
    ]
    .into_iter()
    .map(|(metric, label, role)| {
        let s = vm.series(metric, "Sum");
        Plot {
            label: label.into(),
            value: s
                .and_then(|s| s.latest_complete(end, f64::from(period)))
                .map(|(_, v)| fmt_count(v * per_min))
                .unwrap_or_else(|| "-".into()),
            style: theme.fg(role),
            points: s
                .map(|s| points(&s.timestamps, &s.values, end, per_min))
                .unwrap_or_default(),
        }
    })
    .collect()
}

/// The title line of a variant row: role tag, name, instances, traffic share, window totals.
fn variant_title(e: &EndpointInfo, v: &VariantInfo, vm: Option<&VariantMetrics>, theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    let shadow = e.shape.shadow_variants.iter().any(|s| s.name == v.name);
    if shadow {
        spans.push(Span::styled(
            " SHADOW ",
            theme.fg(Role::Accent).add_modifier(Modifier::REVERSED | Modifier::BOLD),
        ));
        spans.push(Span::raw(" "));
    } else if let Some(role) = variant_role(e, &v.name) {
        spans.push(Span::styled(
            format!(" {} ", role.name()),
            theme.fg(role).add_modifier(Modifier::REVERSED | Modifier::BOLD),
        ));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(
        v.name.clone(),
        theme.fg(Role::Title).add_modifier(Modifier::BOLD),
    ));
    let kind = v.instance_type.clone().unwrap_or_else(|| "serverless".into());
    let share = match shadow {
        true => "of production's calls copied",
        false => "traffic",
    };
    spans.push(Span::styled(
        format!(
            "  {kind} ×{} · {:.0}% {share}",
            v.current_instances,
            v.traffic_share * 100.0
        ),
        theme.fg(Role::Muted),
    ));
    if let Some(vm) = vm {
        let s = &vm.summary;
        let pct = |r: Option<f64>| r.map(|r| format!(" ({:.2}%)", r * 100.0)).unwrap_or_default();
        spans.push(Span::styled(
            format!(" · {} calls", thousands(s.invocations.max(0.0).round() as usize)),
            theme.fg(Role::Fg),
        ));
        spans.push(Span::styled(
            format!(" · 4XX {}{}", fmt_count(s.errors_4xx), pct(s.error_rate_4xx)),
            theme.fg(Role::StatusWarn),
        ));
        spans.push(Span::styled(
            format!(" · 5XX {}{}", fmt_count(s.errors_5xx), pct(s.error_rate_5xx)),
            theme.fg(Role::StatusError),
        ));
        if let Some(max) = s.model_latency_p99_max_ms {
            spans.push(Span::styled(format!(" · worst p99 {}", fmt_ms(max)), theme.fg(Role::Muted)));
        }
    }
    Line::from(spans)
}

impl LatencyPane {
    /// Draws the pane.
    pub(super) fn draw(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        let e = data.selected_endpoint();
        let title = match e {
            Some(e) => format!(" Latency — {} ", e.name),
            None => " Latency ".into(),
        };
        let inner = pane_frame(f, area, title, true, theme);
        let own_h = if inner.height > ROW_MIN + OWN_HEIGHT {
            OWN_HEIGHT
        } else {
            0
        };
        let [info, rows, own] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(0), Constraint::Length(own_h)]).areas(inner);
        if own_h > 0 {
            render_own(f, own, data, theme);
        }
        let Some(e) = e else {
            let msg = no_endpoint_text(data.loaded);
            return muted(f, info.union(rows), msg, theme);
        };
        if data.selected_state() != crate::tui::described::RowState::Described {
            return muted(f, info.union(rows), format!("loading the variants of {}…", e.name), theme);
        }
        let variants: Vec<&VariantInfo> = match self.focused(e) {
            Some(name) => e.variants.iter().filter(|v| v.name == name).collect(),
            // A shadow's charts beside production's: it publishes under its own name.
            None => e.variants.iter().chain(&e.shape.shadow_variants).collect(),
        };
        let fit = ((rows.height / ROW_MIN) as usize).max(1);
        let hidden = variants.len().saturating_sub(fit);
        let shown = &variants[..variants.len().min(fit)];
        let snap = snapshot(data, &e.name, self.window());
        self.info_line(f, info, e, snap, hidden, theme);
        let Some((snap, _)) = snap else {
            return muted(f, rows, format!("loading the metrics of {}…", e.name), theme);
        };
        if shown.is_empty() {
            return muted(f, rows, "this endpoint has no variants", theme);
        }
        let areas = Layout::vertical(shown.iter().map(|_| Constraint::Fill(1))).split(rows);
        for (v, area) in shown.iter().zip(areas.iter()) {
            render_variant(f, *area, e, v, snap, theme);
        }
    }

    fn info_line(
        &self,
        f: &mut Frame,
        area: Rect,
        e: &EndpointInfo,
        snap: Option<(&MetricsSnapshot, bool)>,
        hidden: usize,
        theme: &Theme,
    ) {
        let label = theme.fg(Role::Muted);
        let mut spans = vec![Span::styled("window ", label)];
        for (i, w) in WINDOWS.iter().enumerate() {
            if i == self.window_index {
                spans.push(Span::styled(
                    format!("[{}]", window_label(*w)),
                    theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
                ));
            } else {
                spans.push(Span::styled(format!(" {} ", window_label(*w)), label));
            }
        }
        spans.push(Span::styled(
            format!("  ·  refresh {}", window_label(self.refresh_interval())),
            theme.fg(Role::Fg),
        ));
        let focus = self.focused(e).unwrap_or("all");
        spans.push(Span::styled("  ·  variants ", label));
        spans.push(Span::styled(focus.to_string(), theme.fg(Role::Fg)));
        if hidden > 0 {
            spans.push(Span::styled(
                format!(" (+{hidden} below; v shows one)"),
                theme.fg(Role::StatusWarn),
            ));
        }
        match snap {
            None => spans.push(Span::styled("  ·  loading…", theme.fg(Role::Accent))),
            Some((s, false)) => spans.push(Span::styled(
                format!(
                    "  ·  loading {}… (showing {})",
                    window_label(self.window()),
                    window_label(Duration::from_secs_f64((s.end - s.start).max(0.0)))
                ),
                theme.fg(Role::Accent),
            )),
            Some((s, true)) => {
                let period = window_label(Duration::from_secs(s.period.max(0) as u64));
                let at = crate::format::time_text(s.end);
                let at = at.get(11..).unwrap_or(&at);
                spans.push(Span::styled(format!("  ·  {period} points, to {at} UTC"), label));
                if !s.warnings.is_empty() {
                    spans.push(Span::styled(
                        format!("  ·  {} warnings", s.warnings.len()),
                        theme.fg(Role::StatusWarn),
                    ));
                }
            }
        }
        f.render_widget(Paragraph::new(Line::from(spans)), area);
    }
}

/// One variant: its title line and three charts side by side.
fn render_variant(f: &mut Frame, area: Rect, e: &EndpointInfo, v: &VariantInfo, snap: &MetricsSnapshot, theme: &Theme) {
    let vm = snap.variant(&e.name, &v.name);
    let [title, charts] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    f.render_widget(Paragraph::new(variant_title(e, v, vm, theme)), title);
    let Some(vm) = vm else {
        return muted(f, charts, "no metrics for this variant in the snapshot", theme);
    };
    let border = match variant_role(e, &v.name) {
        Some(role) => theme.fg(role),
        None => theme.border(false),
    };
    let window_min = ((snap.end - snap.start) / 60.0).max(1.0);
    let [model, overhead, calls] = Layout::horizontal([Constraint::Fill(1); 3]).areas(charts);
    let chart = |title, unit, plots: &[Plot], fmt: fn(f64) -> String, area: Rect, f: &mut Frame| {
        LineChart {
            title,
            unit,
            plots,
            window_min,
            fmt,
            border,
        }
        .render(f, area, theme)
    };
    let plots = latency_plots(vm, Metric::ModelLatency, (snap.end, f64::from(snap.period)), theme);
    chart("Model", "ms", &plots, fmt_ms_short, model, f);
    let plots = latency_plots(vm, Metric::OverheadLatency, (snap.end, f64::from(snap.period)), theme);
    chart("Overhead", "ms", &plots, fmt_ms_short, overhead, f);
    let plots = call_plots(vm, snap.end, snap.period, theme);
    chart("Calls", "/min", &plots, fmt_count, calls, f);
}

/// The console's own invoke latencies: percentiles and a histogram.
fn render_own(f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
    let inner = pane_frame(
        f,
        area,
        " Measured by this console (client side, retries included) ",
        false,
        theme,
    );
    let Some(p) = data.own_latency.percentiles() else {
        return muted(
            f,
            inner,
            "no invocations yet — the calls made from the Invoke tab (5) are measured here",
            theme,
        );
    };
    let [text, hist] = Layout::horizontal([Constraint::Length(34), Constraint::Min(0)]).areas(inner);
    let (label, value) = (theme.fg(Role::Muted), theme.fg(Role::Fg));
    let pair = |a: &str, x: f64, b: &str, y: f64| {
        Line::from(vec![
            Span::styled(format!("{a:<5}"), label),
            Span::styled(format!("{:<12}", fmt_ms(x)), value),
            Span::styled(format!("{b:<5}"), label),
            Span::styled(fmt_ms(y), value),
        ])
    };
    let lines = vec![
        Line::from(vec![
            Span::styled(
                thousands(p.count as usize),
                theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
            ),
            Span::styled(" calls  (x clears)", label),
        ]),
        pair("p50", p.p50_ms, "p95", p.p95_ms),
        pair("p99", p.p99_ms, "mean", p.mean_ms),
        pair("min", p.min_ms, "max", p.max_ms),
        Line::from(Span::styled("calls per latency bucket (≤ ms) →", label)),
    ];
    f.render_widget(Paragraph::new(lines), text);
    let buckets = (hist.width / 6).clamp(1, 16) as usize;
    let bars: Vec<Bar> = data
        .own_latency
        .histogram(buckets)
        .into_iter()
        .map(|(upper, count)| {
            Bar::default()
                .value(count)
                .label(Line::from(fmt_ms_short(upper)))
                .text_value(count.to_string())
        })
        .collect();
    f.render_widget(
        BarChart::default()
            .data(BarGroup::default().bars(&bars))
            .bar_width(5)
            .bar_gap(1)
            .bar_style(theme.fg(Role::Chart1))
            .value_style(theme.fg(Role::Chart1).add_modifier(Modifier::REVERSED))
            .label_style(theme.fg(Role::Muted))
            .style(Style::default()),
        hist,
    );
}
