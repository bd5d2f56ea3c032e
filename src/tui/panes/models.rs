//! Models pane (being built).
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::tui::data::Data;
use crate::tui::theme::Theme;

/// State.
#[derive(Debug, Default)]
pub struct ModelsPane {}

impl Pane for ModelsPane {
    fn handle_key(&mut self, _key: KeyEvent, _data: &mut Data, _out: &mut Outbox) -> bool {
        false
    }
    fn render(&mut self, _f: &mut Frame, _area: Rect, _data: &Data, _theme: &Theme) {}
    fn keys(&self, _data: &Data) -> Vec<KeyHint> {
        Vec::new()
    }
}

impl ModelsPane {
    /// A prewarm was cancelled.
    pub fn on_cancelled(&mut self) {}
    /// Prewarm progress.
    pub fn on_prewarm_event(&mut self, _endpoint: &str, _event: crate::aws::prewarm::PrewarmEvent, _data: &mut Data) {}
    /// Prewarm done.
    pub fn on_prewarm_done(
        &mut self,
        _endpoint: &str,
        _result: Result<Vec<crate::aws::prewarm::PrewarmResult>, crate::aws::AwsError>,
        _data: &mut Data,
        _toasts: &mut crate::tui::widgets::toasts::Toasts,
    ) {
    }
}
