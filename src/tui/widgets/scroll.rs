//! The one scroller of the console: every list, table and scrolling view turns ↑ ↓ j k, PgUp PgDn
//! (Space), g G Home End and the mouse wheel into a [`Move`], and applies it to its cursor (a
//! selected row, clamped to the rows there are now) or to its offset (a view whose length is
//! known where it is drawn). A pane matches its own keys first, so a key it gives another meaning
//! (`g` jumps on Tools and Agent, Space marks on Models) keeps it.

use crossterm::event::{KeyCode, KeyEvent, MouseEventKind};

/// Rows a page moves by where the pane does not know its page (it is not drawn yet).
pub const PAGE: usize = 10;

/// One movement of a cursor or a scroll offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// One row up (↑, k, wheel up).
    Up,
    /// One row down (↓, j, wheel down).
    Down,
    /// A page up (PgUp).
    PageUp,
    /// A page down (PgDn, Space).
    PageDown,
    /// The first row (g, Home).
    Top,
    /// The last row (G, End).
    Bottom,
}

impl Move {
    /// The movement `key` asks for, if it is a scrolling key.
    pub fn of_key(key: &KeyEvent) -> Option<Move> {
        Some(match key.code {
            KeyCode::Up | KeyCode::Char('k') => Move::Up,
            KeyCode::Down | KeyCode::Char('j') => Move::Down,
            KeyCode::PageUp => Move::PageUp,
            KeyCode::PageDown | KeyCode::Char(' ') => Move::PageDown,
            KeyCode::Home | KeyCode::Char('g') => Move::Top,
            KeyCode::End | KeyCode::Char('G') => Move::Bottom,
            _ => return None,
        })
    }

    /// The movement a mouse event asks for, if it is the wheel.
    pub fn of_mouse(kind: MouseEventKind) -> Option<Move> {
        match kind {
            MouseEventKind::ScrollUp => Some(Move::Up),
            MouseEventKind::ScrollDown => Some(Move::Down),
            _ => None,
        }
    }

    /// Where a cursor at `pos` goes over `len` rows of which `page` are shown at once: always
    /// on a row (0 when there are none), so a list that shrank under the cursor brings it back.
    pub fn cursor(self, pos: usize, len: usize, page: usize) -> usize {
        let last = len.saturating_sub(1);
        let pos = pos.min(last);
        let page = page.max(1);
        match self {
            Move::Up => pos.saturating_sub(1),
            Move::Down => pos.saturating_add(1).min(last),
            Move::PageUp => pos.saturating_sub(page),
            Move::PageDown => pos.saturating_add(page).min(last),
            Move::Top => 0,
            Move::Bottom => last,
        }
    }

    /// Where the offset of a view at `pos` goes, `page` rows a page, when the view's length is
    /// known only where it is drawn: [`Move::Bottom`] goes as far as it can, and the drawing
    /// clamps it.
    pub fn offset(self, pos: u16, page: u16) -> u16 {
        let page = page.max(1);
        match self {
            Move::Up => pos.saturating_sub(1),
            Move::Down => pos.saturating_add(1),
            Move::PageUp => pos.saturating_sub(page),
            Move::PageDown => pos.saturating_add(page),
            Move::Top => 0,
            Move::Bottom => u16::MAX,
        }
    }
}

/// Moves `cursor` over `len` rows (`page` shown at once) when `key` is a scrolling key; whether
/// it was.
pub fn cursor_key(cursor: &mut usize, key: &KeyEvent, len: usize, page: usize) -> bool {
    match Move::of_key(key) {
        Some(m) => {
            *cursor = m.cursor(*cursor, len, page);
            true
        }
        None => false,
    }
}

/// Moves the `offset` of a view clamped where it is drawn when `key` is a scrolling key; whether
/// it was.
pub fn offset_key(offset: &mut u16, key: &KeyEvent, page: u16) -> bool {
    match Move::of_key(key) {
        Some(m) => {
            *offset = m.offset(*offset, page);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::from(code)
    }

    #[test]
    fn every_scrolling_key_and_the_wheel_name_a_move() {
        let pairs = [
            (KeyCode::Up, Move::Up),
            (KeyCode::Char('k'), Move::Up),
            (KeyCode::Down, Move::Down),
            (KeyCode::Char('j'), Move::Down),
            (KeyCode::PageUp, Move::PageUp),
            (KeyCode::PageDown, Move::PageDown),
            (KeyCode::Char(' '), Move::PageDown),
            (KeyCode::Home, Move::Top),
            (KeyCode::Char('g'), Move::Top),
            (KeyCode::End, Move::Bottom),
            (KeyCode::Char('G'), Move::Bottom),
        ];
        for (code, m) in pairs {
            assert_eq!(Move::of_key(&key(code)), Some(m), "{code:?}");
        }
        assert_eq!(Move::of_key(&key(KeyCode::Char('x'))), None);
        assert_eq!(Move::of_key(&key(KeyCode::Enter)), None);
        assert_eq!(Move::of_mouse(MouseEventKind::ScrollUp), Some(Move::Up));
        assert_eq!(Move::of_mouse(MouseEventKind::ScrollDown), Some(Move::Down));
        assert_eq!(Move::of_mouse(MouseEventKind::Moved), None);
    }

    #[test]
    fn a_cursor_stays_within_its_rows() {
        assert_eq!(Move::Up.cursor(0, 5, 2), 0);
        assert_eq!(Move::Down.cursor(4, 5, 2), 4);
        assert_eq!(Move::Down.cursor(1, 5, 2), 2);
        assert_eq!(Move::Top.cursor(3, 5, 2), 0);
        assert_eq!(Move::Bottom.cursor(0, 5, 2), 4);
        for m in [
            Move::Up,
            Move::Down,
            Move::PageUp,
            Move::PageDown,
            Move::Top,
            Move::Bottom,
        ] {
            assert_eq!(m.cursor(3, 0, 10), 0, "{m:?} on no rows");
        }
    }

    #[test]
    fn a_page_moves_by_the_page_and_stops_at_the_ends() {
        assert_eq!(Move::PageDown.cursor(0, 100, 20), 20);
        assert_eq!(Move::PageDown.cursor(90, 100, 20), 99);
        assert_eq!(Move::PageUp.cursor(50, 100, 20), 30);
        assert_eq!(Move::PageUp.cursor(5, 100, 20), 0);
        // A page of 0 rows (not drawn yet) still moves.
        assert_eq!(Move::PageDown.cursor(0, 100, 0), 1);
    }

    #[test]
    fn a_list_that_shrank_under_the_cursor_brings_it_back() {
        // The cursor was on row 40 of 50; the list is now 3 rows long.
        assert_eq!(Move::Up.cursor(40, 3, 10), 1);
        assert_eq!(Move::Down.cursor(40, 3, 10), 2);
        assert_eq!(Move::PageUp.cursor(40, 3, 10), 0);
    }

    #[test]
    fn an_offset_goes_to_the_end_and_back() {
        assert_eq!(Move::Down.offset(0, 10), 1);
        assert_eq!(Move::PageDown.offset(0, 10), 10);
        assert_eq!(Move::PageUp.offset(5, 10), 0);
        assert_eq!(Move::Bottom.offset(3, 10), u16::MAX);
        assert_eq!(Move::Down.offset(u16::MAX, 10), u16::MAX);
        assert_eq!(Move::Top.offset(500, 10), 0);
    }

    #[test]
    fn the_key_helpers_move_only_on_scrolling_keys() {
        let mut cursor = 2;
        assert!(cursor_key(&mut cursor, &key(KeyCode::Char('G')), 7, 3));
        assert_eq!(cursor, 6);
        assert!(!cursor_key(&mut cursor, &key(KeyCode::Char('x')), 7, 3));
        assert_eq!(cursor, 6);
        let mut offset = 4;
        assert!(offset_key(&mut offset, &key(KeyCode::Char('k')), 10));
        assert_eq!(offset, 3);
        assert!(!offset_key(&mut offset, &key(KeyCode::Enter), 10));
    }
}
