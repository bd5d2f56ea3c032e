//! The rows of endpoints listed but not described: name, status and last modification as
//! ListEndpoints gave them, a loading mark in every column the describe brings, or, when it
//! failed, the error in their place. Sorting on a column a row does not know yet puts the row
//! last, whichever the direction.

use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use super::Column;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::data::Data;
use crate::tui::described::RowState;
use crate::tui::theme::{Role, Theme};

/// The mark of a column whose value is on its way.
pub(super) const LOADING: &str = "…";

/// Whether sorting on `column` needs the row described.
pub(super) fn needs_describe(column: Column) -> bool {
    !matches!(column, Column::Name | Column::Status | Column::Modified)
}

/// The cells of a row in `state` (not described), in table order.
pub(super) fn cells(data: &Data, e: &EndpointInfo, state: RowState<'_>, theme: &Theme) -> Vec<Cell<'static>> {
    let muted = theme.fg(Role::Muted);
    let error = theme.fg(Role::StatusError);
    let (mark, first) = match state {
        RowState::Failed(why) => (
            Span::styled("?", muted),
            Span::styled(format!("✗ describe: {}", escaped(why)), error),
        ),
        _ => (Span::styled(LOADING, muted), Span::styled(LOADING, muted)),
    };
    let failed_badge = if matches!(state, RowState::Failed(_)) { "✗ " } else { "" };
    let mut cells = vec![
        Cell::from(Line::from(vec![
            Span::styled(data.alarm_badge(&e.name), theme.fg(Role::StatusError)),
            Span::styled(failed_badge, error),
            Span::raw(e.name.clone()),
        ])),
        Cell::from(Span::styled(e.status.clone(), theme.status(&e.status))),
        Cell::from(first),
    ];
    cells.extend((0..6).map(|_| Cell::from(mark.clone())));
    cells.push(Cell::from(crate::format::time_text(e.modified)));
    cells
}

/// `text` with its control characters escaped (an error text comes from outside).
fn escaped(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}
