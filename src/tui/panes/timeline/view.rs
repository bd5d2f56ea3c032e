//! Draws the Timeline pane: a line saying how far CloudTrail is read (throttling in the warning
//! colour, its delivery delay), a table newest first (time, failed mark, kind, who, what) and
//! an entry whole on Enter. Text from CloudTrail and the audit log is shown escaped.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::TimelinePane;
use crate::format::{escape_line, time_text};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::{centered, modal, pane_frame};

/// A principal as shown: the last part of an ARN.
pub fn who(p: Option<&str>) -> String {
    match p {
        Some(p) => p.rsplit([':', '/']).next().unwrap_or(p).to_string(),
        None => "-".into(),
    }
}

/// Draws the pane.
pub fn render(p: &mut TimelinePane, f: &mut Frame, area: Rect, theme: &Theme) {
    let rows = p.rows();
    let title = match &p.endpoint {
        Some(e) => format!(" Timeline — {e} — {} entries, newest first ", rows.len()),
        None => " Timeline ".into(),
    };
    let mut inner = pane_frame(f, area, title, true, theme);
    let muted = theme.fg(Role::Muted);
    if let Some(t) = p.trail.as_ref().filter(|_| inner.height > 2) {
        let style = if t.throttled.is_some() || t.error.is_some() {
            theme.fg(Role::StatusWarn)
        } else {
            muted
        };
        let line = Rect { height: 1, ..inner };
        f.render_widget(Paragraph::new(Span::styled(escape_line(&t.line()).into_owned(), style)), line);
        inner.y += 1;
        inner.height -= 1;
    }
    let message = match (&p.endpoint, &p.error, p.loaded, rows.is_empty()) {
        (None, ..) => Some(("select an endpoint first (1 Endpoints)".to_string(), muted)),
        (_, Some(e), _, true) => Some((format!("cannot read the timeline: {e}"), theme.fg(Role::StatusError))),
        (_, _, false, true) => Some(("reading what changed…".to_string(), muted)),
        (_, _, true, true) => Some(("nothing changed in the last 7 days".to_string(), muted)),
        _ => None,
    };
    if let Some((text, style)) = message {
        let para = Paragraph::new(Span::styled(text, style)).wrap(Wrap { trim: false });
        return f.render_widget(para, inner);
    }
    let cursor = p.cursor.min(rows.len() - 1);
    let height = (inner.height as usize).saturating_sub(1).max(1);
    let offset = (cursor + 1).saturating_sub(height);
    let table_rows: Vec<Row> = rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(i, e)| {
            let what = if e.failed {
                theme.fg(Role::StatusError)
            } else {
                theme.fg(Role::Fg)
            };
            let row = Row::new(vec![
                Cell::from(Span::styled(time_text(e.epoch), muted)),
                Cell::from(Span::styled(if e.failed { "!" } else { "" }, theme.fg(Role::StatusError))),
                Cell::from(Span::styled(e.kind.clone(), theme.fg(Role::Accent))),
                Cell::from(Span::styled(escape_line(&who(e.principal.as_deref())).into_owned(), muted)),
                Cell::from(Span::styled(escape_line(&e.summary).into_owned(), what)),
            ]);
            if i == cursor { row.style(theme.selection()) } else { row }
        })
        .collect();
    let widths = [
        Constraint::Length(16),
        Constraint::Length(1),
        Constraint::Length(10),
        Constraint::Length(12),
        Constraint::Fill(1),
    ];
    let header = Row::new(
        ["TIME", "", "KIND", "WHO", "WHAT"]
            .map(|c| Cell::from(Span::styled(c, theme.fg(Role::Header)))),
    );
    f.render_widget(Table::new(table_rows, widths).header(header).column_spacing(1), inner);
    if p.detail
        && let Some(e) = rows.get(cursor)
    {
        let rect = centered(area, 80, 60, 40, 10);
        let mut lines = vec![
            Line::from(format!("time       {} UTC", time_text(e.epoch))),
            Line::from(format!("kind       {}", e.kind)),
            Line::from(format!("who        {}", escape_line(e.principal.as_deref().unwrap_or("-")))),
            Line::from(format!("went wrong {}", if e.failed { "yes" } else { "no" })),
        ];
        if let Some(o) = &e.origin {
            lines.push(Line::from(format!("where      {}", escape_line(o))));
        }
        lines.push(Line::from(""));
        lines.push(Line::from(escape_line(&e.summary).into_owned()));
        let heading = Span::styled(" What changed — Esc closes ", theme.fg(Role::Title));
        modal(f, rect, theme.border(true), heading, Paragraph::new(lines).wrap(Wrap { trim: false }), theme);
    }
}
