//! Lines that carry text from outside (MCP servers, models, endpoints, logs): every span's
//! control characters written out (`\x1b`, `\r`) before the lines are drawn. ratatui drops a
//! control character silently, which still lets `\x1b[2K` print as `[2K` and hides what a
//! server sent; written out, the operator sees it.

use ratatui::text::{Line, Span};

use crate::format::escape_line;

/// `lines` with the control characters of every span written out.
pub fn escaped(lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
    lines.into_iter().map(escaped_line).collect()
}

/// One line of [`escaped`].
pub fn escaped_line(line: Line<'static>) -> Line<'static> {
    let Line {
        spans,
        style,
        alignment,
        ..
    } = line;
    let spans: Vec<Span<'static>> = spans
        .into_iter()
        .map(|s| Span::styled(escape_line(&s.content).into_owned(), s.style))
        .collect();
    let mut out = Line::from(spans).style(style);
    out.alignment = alignment;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_keep_their_style_and_lose_their_escapes() {
        let style = ratatui::style::Style::default().fg(ratatui::style::Color::Red);
        let line = Line::from(vec![Span::styled("a\x1b]0;t\x07", style), Span::raw("b")]);
        let out = escaped_line(line);
        assert_eq!(out.spans[0].content, "a\\x1b]0;t\\x07");
        assert_eq!(out.spans[0].style, style);
        assert_eq!(out.spans[1].content, "b");
    }
}
