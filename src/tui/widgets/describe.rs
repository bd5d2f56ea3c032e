//! The `d` view: an endpoint's full description (endpoint, configuration, models, autoscaling
//! policies, recent scaling activities) as scrollable, highlighted JSON. Long values (a
//! FailureReason, an image URI) wrap at spaces, or anywhere when a token is wider than the view,
//! so nothing is cut; the scroll counts screen rows. The Activity record uses it too.

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
    /// Screen rows of the wrapped document at the last draw (0 before it).
    rows: usize,
    /// Rows visible at the last draw.
    page: usize,
}

impl DescribeView {
    /// A view waiting for its document.
    pub fn loading(title: impl Into<String>) -> Self {
        DescribeView {
            title: title.into(),
            lines: Vec::new(),
            scroll: 0,
            error: None,
            rows: 0,
            page: 20,
        }
    }

    /// The document as text (its lines joined).
    pub fn text(&self) -> String {
        self.lines.join("\n")
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

    /// Scrolls (clamped to the document as last drawn; a page is the page as drawn).
    pub fn scroll_with(&mut self, m: super::scroll::Move) {
        let rows = if self.rows == 0 { self.lines.len() } else { self.rows };
        let offsets = rows.saturating_sub(self.page.max(1)) + 1;
        self.scroll = m.cursor(self.scroll, offsets, self.page);
    }

    /// Draws the view.
    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        let rect = centered(area, 90, 90, 40, 10);
        let page = rect.height.saturating_sub(2) as usize;
        let width = rect.width.saturating_sub(2).max(8) as usize;
        let rows: Vec<Line> = if let Some(e) = &self.error {
            wrap(e, width)
                .into_iter()
                .map(|r| Line::from(Span::styled(r, theme.fg(Role::StatusError))))
                .collect()
        } else if self.lines.is_empty() {
            vec![Line::from(Span::styled("loading…", theme.fg(Role::Muted)))]
        } else {
            self.lines.iter().flat_map(|l| wrapped_line(l, width, theme)).collect()
        };
        self.rows = rows.len();
        self.page = page.max(1);
        self.scroll = self.scroll.min(self.rows.saturating_sub(page));
        let below = self.rows.saturating_sub(self.scroll + page);
        let heading = Span::styled(
            format!(
                " {} · rows {}-{}/{}{} · ↑↓ PgUp PgDn, Esc closes ",
                self.title,
                self.scroll + 1,
                (self.scroll + page).min(self.rows),
                self.rows.max(1),
                if below > 0 { ", more below" } else { "" }
            ),
            theme.fg(Role::Title),
        );
        let body: Vec<Line> = rows.into_iter().skip(self.scroll).take(page).collect();
        super::modal(f, rect, theme.border(true), heading, Paragraph::new(body), theme);
    }
}

/// Splits `text` into rows of at most `width` characters, at the last space that fits, or
/// anywhere when one token is wider than a row.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut rest: Vec<char> = text.chars().collect();
    while rest.len() > width {
        let cut = rest[..=width]
            .iter()
            .rposition(|c| *c == ' ')
            .filter(|p| *p > 0)
            .unwrap_or(width);
        out.push(rest[..cut].iter().collect::<String>().trim_end().to_string());
        rest.drain(..cut);
        while rest.first() == Some(&' ') {
            rest.remove(0);
        }
    }
    out.push(rest.into_iter().collect());
    out
}

/// One line of pretty JSON as screen rows of `width`: the first highlighted as JSON, the rest
/// indented under it in the value's colour.
fn wrapped_line(line: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    if line.chars().count() <= width {
        return vec![own(highlight(line, theme))];
    }
    let indent = (line.len() - line.trim_start().len() + 2).min(width / 2);
    let first = wrap(line, width).swap_remove(0);
    let rest: String = line.chars().skip(first.chars().count()).collect();
    let mut out = vec![own(highlight(&first, theme))];
    let value = line
        .trim_start()
        .split_once("\": ")
        .map_or(line.trim_start(), |(_, v)| v);
    let style = if value.starts_with('"') {
        theme.fg(Role::Chart4)
    } else {
        theme.fg(Role::Fg)
    };
    for r in wrap(rest.trim_start(), width - indent) {
        out.push(Line::from(vec![Span::raw(" ".repeat(indent)), Span::styled(r, style)]));
    }
    out
}

fn own(line: Line<'_>) -> Line<'static> {
    Line::from(
        line.spans
            .into_iter()
            .map(|s| Span::styled(s.content.into_owned(), s.style))
            .collect::<Vec<_>>(),
    )
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
