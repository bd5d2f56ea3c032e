//! Small chart helpers shared by the Models and Latency panes: braille line charts over a time
//! window (the legend with the latest values sits in the title), text sparklines, and number
//! formats that stay short in narrow columns.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph};

use crate::tui::theme::{Role, Theme};

/// The eight block heights of a text sparkline.
const SPARK: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// One line of a chart: its legend label and value, its style, and its points (x in minutes
/// relative to the end of the window, so ≤ 0).
#[derive(Debug, Clone)]
pub struct Plot {
    /// Legend label (`p99`).
    pub label: String,
    /// Legend value (latest or total), already formatted.
    pub value: String,
    /// Line colour.
    pub style: Style,
    /// (minutes before the end, value).
    pub points: Vec<(f64, f64)>,
}

/// Points of a series as (minutes before `end`, value × `scale`).
pub fn points(timestamps: &[f64], values: &[f64], end: f64, scale: f64) -> Vec<(f64, f64)> {
    timestamps
        .iter()
        .zip(values)
        .map(|(t, v)| ((t - end) / 60.0, v * scale))
        .collect()
}

/// The smallest 1, 2 or 5 × 10ⁿ at or above `v` (1 for nothing).
pub fn nice_ceiling(v: f64) -> f64 {
    if !v.is_finite() || v <= 0.0 {
        return 1.0;
    }
    let mag = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if v <= m * mag * (1.0 + 1e-9) {
            return m * mag;
        }
    }
    10.0 * mag
}

/// Milliseconds for tables: `48 ms`, `4.25 ms`, `1.20 s`, `12.4 s`, `2m05s`.
pub fn fmt_ms(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else if ms < 10_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms < 120_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as u64;
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

/// Milliseconds for legends and axes, four characters or so: `4.25`, `42.5`, `425`, `1.23s`.
pub fn fmt_ms_short(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.2}")
    } else if ms < 100.0 {
        format!("{ms:.1}")
    } else if ms < 1000.0 {
        format!("{ms:.0}")
    } else if ms < 10_000.0 {
        format!("{:.2}s", ms / 1000.0)
    } else {
        format!("{:.1}s", ms / 1000.0)
    }
}

/// A count: `12`, `4.5`, `1.2k`, `3.4M`.
pub fn fmt_count(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if v.fract() == 0.0 || v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// A whole number with thousands separators: `10,000`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A window length as the tab shows it: `15m`, `1h`, `24h`, `90s`.
pub fn window_label(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 && s.is_multiple_of(3600) {
        format!("{}h", s / 3600)
    } else if s >= 60 && s.is_multiple_of(60) {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

/// A text sparkline of the last `width` values, scaled from their minimum to their maximum (a
/// flat series sits at mid-height).
pub fn spark(values: &[f64], width: usize) -> String {
    let tail = &values[values.len().saturating_sub(width)..];
    let lo = tail.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = tail.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    tail.iter()
        .map(|v| {
            if !v.is_finite() {
                SPARK[0]
            } else if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
                SPARK[3]
            } else {
                let i = (((v - lo) / (hi - lo)) * (SPARK.len() - 1) as f64).round() as usize;
                SPARK[i.min(SPARK.len() - 1)]
            }
        })
        .collect()
}

/// A braille line chart in a bordered block whose title carries the legend
/// (`Model  p50 12.3  p90 30.1  p99 48.0 ms`). X runs over `[-window_min, 0]`; Y from 0 to a round
/// ceiling over the data, labelled with `fmt`. With no points, it says so instead.
pub struct LineChart<'a> {
    /// Title before the legend.
    pub title: &'a str,
    /// Unit after the legend (may be empty).
    pub unit: &'a str,
    /// The lines, drawn in order (the last on top).
    pub plots: &'a [Plot],
    /// Window length in minutes.
    pub window_min: f64,
    /// Formats the Y labels.
    pub fmt: fn(f64) -> String,
    /// Border style (the variant's canary/baseline colour, or the plain border).
    pub border: Style,
}

impl LineChart<'_> {
    /// Draws the chart.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let mut spans = vec![Span::styled(
            format!(" {} ", self.title),
            theme.fg(Role::Title).add_modifier(Modifier::BOLD),
        )];
        for p in self.plots {
            spans.push(Span::styled(format!(" {} {}", p.label, p.value), p.style));
        }
        if self.unit.is_empty() {
            spans.push(Span::raw(" "));
        } else {
            spans.push(Span::styled(format!(" {} ", self.unit), theme.fg(Role::Muted)));
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(self.border)
            .title(Line::from(spans));
        if self.plots.iter().all(|p| p.points.is_empty()) {
            f.render_widget(
                Paragraph::new(Span::styled("no datapoints in the window", theme.fg(Role::Muted)))
                    .style(theme.base())
                    .block(block),
                area,
            );
            return;
        }
        let top = self
            .plots
            .iter()
            .flat_map(|p| p.points.iter().map(|x| x.1))
            .fold(0.0, f64::max);
        let ceiling = nice_ceiling(top);
        let datasets: Vec<Dataset> = self
            .plots
            .iter()
            .map(|p| {
                Dataset::default()
                    .marker(Marker::Braille)
                    .graph_type(GraphType::Line)
                    .style(p.style)
                    .data(&p.points)
            })
            .collect();
        let chart = Chart::new(datasets)
            .block(block)
            .style(theme.base())
            .legend_position(None)
            .x_axis(Axis::default().bounds([-self.window_min, 0.0]))
            .y_axis(
                Axis::default()
                    .bounds([0.0, ceiling])
                    .style(theme.fg(Role::Muted))
                    .labels(vec![
                        Span::raw("0"),
                        Span::raw((self.fmt)(ceiling / 2.0)),
                        Span::raw((self.fmt)(ceiling)),
                    ]),
            );
        f.render_widget(chart, area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_stay_short() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(48.0), 50.0);
        assert_eq!(nice_ceiling(120.0), 200.0);
        assert_eq!(nice_ceiling(1.0), 1.0);
        assert_eq!(fmt_ms(48.2), "48 ms");
        assert_eq!(fmt_ms(12_400.0), "12.4 s");
        assert_eq!(fmt_ms(125_000.0), "2m05s");
        assert_eq!(fmt_ms_short(1234.0), "1.23s");
        assert_eq!(fmt_count(1234.0), "1.2k");
        assert_eq!(thousands(10_000), "10,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(window_label(Duration::from_secs(900)), "15m");
        assert_eq!(window_label(Duration::from_secs(86_400)), "24h");
        assert_eq!(spark(&[0.0, 1.0, 2.0], 8), "▁▅█");
        assert_eq!(spark(&[1.0, 2.0, 3.0], 2), "▁█");
        assert_eq!(spark(&[5.0, 5.0], 8), "▄▄");
    }
}
