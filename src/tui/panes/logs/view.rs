//! Draws the Logs pane: a title naming what is read, the streams, then the lines (time, stream,
//! message), errors and stack traces in the theme's error and warning colours.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{LogsPane, Mark};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::pane_frame;

/// `HH:MM:SS` (UTC) of epoch milliseconds.
pub fn clock(ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(at).to_string()[11..19].to_string()
}

fn title(p: &LogsPane) -> String {
    let Some(ep) = &p.endpoint else {
        return " Logs ".into();
    };
    let window = match p.around {
        Some((start, end)) => format!("{}–{}", clock(start), clock(end)),
        None => format!("last {}", humantime::format_duration(p.window())),
    };
    let mut t = format!(" Logs — {ep} — {} — {window}", p.variant.as_deref().unwrap_or("all variants"));
    match &p.typing {
        Some(text) => t.push_str(&format!(" — /{text}▏")),
        None if !p.filter.is_empty() => t.push_str(&format!(" — /{}", p.filter)),
        None => {}
    }
    if p.follow {
        t.push_str(" — following ●");
    }
    t.push_str(&format!(" — {} lines ", p.lines.len()));
    t
}

fn streams_line(p: &LogsPane, theme: &Theme) -> Line<'static> {
    let muted = theme.fg(Role::Muted);
    let mut spans = vec![Span::styled(format!("{} streams: ", p.streams.len()), muted)];
    for (i, s) in p.streams.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled("  ", muted));
        }
        spans.push(Span::styled(s.name.clone(), theme.fg(Role::Fg)));
    }
    if p.pages > 1 || p.truncated {
        let more = if p.truncated { ", oldest dropped" } else { "" };
        spans.push(Span::styled(format!("   ({} pages{more})", p.pages), muted));
    }
    Line::from(spans)
}

/// A message as the terminal can draw it: tabs expanded, other control characters written out
/// (`\x1b`), so a log line cannot pass for something it is not.
pub fn printable(message: &str) -> String {
    crate::format::escape_line(&message.replace('\t', "    ")).into_owned()
}

/// Draws the pane.
pub fn render(p: &mut LogsPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let inner = pane_frame(f, area, title(p), true, theme);
    let muted = theme.fg(Role::Muted);
    let message = match (&p.endpoint, &p.error, p.loaded, p.lines.is_empty()) {
        (None, _, _, _) => Some(("select an endpoint first (1 Endpoints)".to_string(), muted)),
        (_, _, true, true) if p.no_logs.is_some() => Some((p.no_logs.clone().unwrap_or_default(), muted)),
        (_, Some(e), _, true) => Some((format!("cannot read the logs: {e}"), theme.fg(Role::StatusError))),
        (_, _, false, _) => Some(("reading the logs…".to_string(), muted)),
        (_, _, true, true) if !p.filter.is_empty() => Some(("no line matches the pattern".to_string(), muted)),
        (_, _, true, true) => Some(("no lines in this window".to_string(), muted)),
        _ => None,
    };
    let mut lines = vec![streams_line(p, theme)];
    if let Some((text, style)) = message {
        lines.push(Line::from(Span::styled(text, style)));
        return f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
    let height = (inner.height as usize).saturating_sub(1).max(1);
    let offset = (p.cursor + 1).saturating_sub(height);
    let stream_w = p.lines.iter().map(|l| l.stream.chars().count()).max().unwrap_or(0).min(24);
    for (i, l) in p.lines.iter().enumerate().skip(offset).take(height) {
        let style = match p.marks.get(i).copied().unwrap_or(Mark::Plain) {
            Mark::Plain => theme.fg(Role::Fg),
            Mark::Error => theme.fg(Role::StatusError),
            Mark::Trace => theme.fg(Role::StatusWarn),
        };
        let stream: String = l.stream.chars().take(stream_w).collect();
        let mut line = Line::from(vec![
            Span::styled(format!("{} ", clock(l.timestamp_ms)), muted),
            Span::styled(format!("{stream:<stream_w$} "), theme.fg(Role::Accent)),
            Span::styled(printable(&l.message), style),
        ]);
        if i == p.cursor {
            line = line.style(theme.selection());
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_log_line_is_drawn_with_its_control_characters_written_out() {
        let hostile = "ok\tdone\x1b[2J\x1b]52;c;AAAA\x07\rforged";
        assert_eq!(
            super::printable(hostile),
            "ok    done\\x1b[2J\\x1b]52;c;AAAA\\x07\\rforged"
        );
    }
}
