//! The weight editor of the Variants pane (being built).

/// Weight editor state.
#[derive(Debug, Clone, Default)]
pub struct WeightEditor {}

impl WeightEditor {
    /// Handles a key; false closes the editor.
    pub fn handle_key(
        &mut self,
        _key: crossterm::event::KeyEvent,
        _data: &crate::tui::data::Data,
        _out: &mut crate::tui::panes::Outbox,
    ) -> bool {
        false
    }

    /// Draws the editor.
    pub fn render(
        &mut self,
        _f: &mut ratatui::Frame,
        _area: ratatui::layout::Rect,
        _data: &crate::tui::data::Data,
        _theme: &crate::tui::theme::Theme,
    ) {
    }
}
