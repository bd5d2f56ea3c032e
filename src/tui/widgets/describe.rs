//! The `d` view: an endpoint's full description (endpoint, configuration, models, autoscaling
//! policies, recent scaling activities) as scrollable, highlighted JSON.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::centered;
use crate::tui::theme::{Role, Theme};

/// A scrollable JSON document.
#[derive(Debug, Clone)]
pub struct DescribeView {
    /// Title.
    pub title: String,
    /// Pretty-printed JSON lines (empty while loading).
    pub lines: Vec<String>,
    /// First visible line.
    pub scroll: usize,
    /// An error instead of a document.
    pub error: Option<String>,
}

impl DescribeView {
    /// A view waiting for its document.
    pub fn loading(title: impl Into<String>) -> Self {
        DescribeView {
            title: title.into(),
            lines: Vec::new(),
            scroll: 0,
            error: None,
        }
    }

    /// Sets the document.
    pub fn set(&mut self, value: &serde_json::Value) {
        self.lines = serde_json::to_string_pretty(value)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        self.scroll = 0;
    }

    /// Scrolls by `delta` lines (clamped).
    pub fn scroll_by(&mut self, delta: isize, page: usize) {
        let max = self.lines.len().saturating_sub(page.max(1));
        self.scroll = (self.scroll as isize + delta).clamp(0, max as isize) as usize;
    }

    /// Draws the view.
    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        let rect = centered(area, 90, 90, 40, 10);
        let page = rect.height.saturating_sub(2) as usize;
        self.scroll = self.scroll.min(self.lines.len().saturating_sub(page));
        let body: Vec<Line> = if let Some(e) = &self.error {
            vec![Line::from(Span::styled(e.clone(), theme.fg(Role::StatusError)))]
        } else if self.lines.is_empty() {
            vec![Line::from(Span::styled("loading…", theme.fg(Role::Muted)))]
        } else {
            self.lines
                .iter()
                .skip(self.scroll)
                .take(page)
                .map(|l| highlight(l, theme))
                .collect()
        };
        let heading = Span::styled(
            format!(
                " {} — ↑↓ PgUp PgDn scroll, Esc closes ({}/{}) ",
                self.title,
                self.scroll + 1,
                self.lines.len().max(1)
            ),
            theme.fg(Role::Title),
        );
        super::modal(f, rect, theme.border(true), heading, Paragraph::new(body), theme);
    }
}

/// Colours one line of pretty JSON: keys, strings, numbers, literals.
pub fn highlight<'a>(line: &'a str, theme: &Theme) -> Line<'a> {
    let indent_len = line.len() - line.trim_start().len();
    let (indent, rest) = line.split_at(indent_len);
    let mut spans = vec![Span::raw(indent)];
    let value_style = |v: &str| -> Style {
        let t = v.trim_end_matches(',');
        if t.starts_with('"') {
            theme.fg(Role::Chart4)
        } else if t == "true" || t == "false" || t == "null" {
            theme.fg(Role::Chart2)
        } else if t.parse::<f64>().is_ok() {
            theme.fg(Role::Chart3)
        } else {
            theme.fg(Role::Fg)
        }
    };
    if rest.starts_with('"')
        && let Some(pos) = rest.find("\": ")
    {
        let (k, v) = rest.split_at(pos + 1);
        spans.push(Span::styled(k, theme.fg(Role::Accent)));
        spans.push(Span::raw(": "));
        let v = &v[2..];
        spans.push(Span::styled(v, value_style(v)));
        return Line::from(spans);
    }
    spans.push(Span::styled(rest, value_style(rest)));
    Line::from(spans)
}
