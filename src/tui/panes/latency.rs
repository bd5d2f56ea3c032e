//! Latency pane (being built).
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::tui::data::Data;
use crate::tui::theme::Theme;

/// State.
#[derive(Debug, Default)]
pub struct LatencyPane {}

impl Pane for LatencyPane {
    fn handle_key(&mut self, _key: KeyEvent, _data: &mut Data, _out: &mut Outbox) -> bool {
        false
    }
    fn render(&mut self, _f: &mut Frame, _area: Rect, _data: &Data, _theme: &Theme) {}
    fn keys(&self, _data: &Data) -> Vec<KeyHint> {
        Vec::new()
    }
}

impl LatencyPane {
    /// The chart window.
    pub fn window(&self) -> std::time::Duration {
        std::time::Duration::from_secs(900)
    }
}
