//! The Endpoints table across regions and accounts: the ACCOUNT and REGION cells of each row,
//! and one line per profile × region that failed, with its reason (it never hides the others).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph};

use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};

/// Titles of the columns after the table's own: ACCOUNT (index 10), REGION (index 11).
pub(super) const TITLES: [&str; 2] = ["ACCOUNT", "REGION"];

/// Where a column shows: NAME, then ACCOUNT and REGION, then the others in table order.
pub(super) fn display_rank(column: usize) -> usize {
    match column {
        0 => 0,
        10 => 1,
        11 => 2,
        c => c + 2,
    }
}

/// The REGION column's width: the longest region shown.
pub(super) fn region_width(data: &Data) -> u16 {
    let longest = data.regions.iter().map(|r| r.target.region.len()).max();
    longest.unwrap_or(6).clamp(6, 20) as u16
}

/// The ACCOUNT and REGION cells of the endpoint at `index` of the inventory.
pub(super) fn cells(data: &Data, index: usize) -> impl Iterator<Item = Cell<'static>> {
    texts(data, index).into_iter().map(Cell::from)
}

/// The ACCOUNT and REGION texts of the endpoint at `index` of the inventory.
pub(super) fn texts(data: &Data, index: usize) -> [String; 2] {
    let row = data.origins.get(index).and_then(|o| data.regions.get(*o));
    let account = row.and_then(|r| r.account.clone()).unwrap_or_else(|| "-".into());
    let region = row.map(|r| r.target.region.clone()).unwrap_or_else(|| "-".into());
    [account, region]
}

/// Splits off the bottom lines for the failed pairs (at most a third of the area).
pub(super) fn split_failed(area: Rect, data: &Data) -> (Rect, Rect) {
    let failed = data.regions.iter().filter(|r| r.error.is_some()).count() as u16;
    let n = failed.min(area.height / 3).max(u16::from(failed > 0 && area.height > 2));
    let table = Rect {
        height: area.height - n,
        ..area
    };
    let rest = Rect {
        y: area.y + table.height,
        height: n,
        ..area
    };
    (table, rest)
}

/// One line per failed pair: `✗ eu-west-1  profile prod  FAILED: reason`.
pub(super) fn render_failed(f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
    if area.height == 0 {
        return;
    }
    let lines: Vec<Line> = data
        .regions
        .iter()
        .filter_map(|r| Some((r, r.error.as_ref()?)))
        .take(area.height as usize)
        .map(|(r, e)| {
            Line::from(vec![
                Span::styled(
                    format!("✗ {} {} ", r.target.region, r.profile),
                    theme.fg(Role::StatusError),
                ),
                Span::styled(format!("FAILED: {e}"), theme.fg(Role::StatusError)),
            ])
        })
        .collect();
    f.render_widget(Paragraph::new(lines).style(theme.base()), area);
}
