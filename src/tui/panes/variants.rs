//! Variants pane (being built).
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::tui::data::Data;
use crate::tui::theme::Theme;

/// State.
#[derive(Debug, Default)]
pub struct VariantsPane {}

impl Pane for VariantsPane {
    fn handle_key(&mut self, _key: KeyEvent, _data: &mut Data, _out: &mut Outbox) -> bool {
        false
    }
    fn render(&mut self, _f: &mut Frame, _area: Rect, _data: &Data, _theme: &Theme) {}
    fn keys(&self, _data: &Data) -> Vec<KeyHint> {
        Vec::new()
    }
}
