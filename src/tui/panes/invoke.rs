//! Invoke pane (being built).
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::tui::data::Data;
use crate::tui::theme::Theme;

/// State.
#[derive(Debug, Default)]
pub struct InvokePane {}

impl Pane for InvokePane {
    fn handle_key(&mut self, _key: KeyEvent, _data: &mut Data, _out: &mut Outbox) -> bool {
        false
    }
    fn render(&mut self, _f: &mut Frame, _area: Rect, _data: &Data, _theme: &Theme) {}
    fn keys(&self, _data: &Data) -> Vec<KeyHint> {
        Vec::new()
    }
}

impl InvokePane {
    /// A job was submitted.
    pub fn on_submitted(&mut self, _id: u64) {}
    /// A job was cancelled.
    pub fn on_cancelled(&mut self, _id: u64) {}
    /// An invocation finished.
    pub fn on_result(
        &mut self,
        _id: u64,
        _index: u32,
        _result: Result<crate::aws::invoke::InvokeResult, crate::aws::invoke::InvokeFailure>,
        _toasts: &mut crate::tui::widgets::toasts::Toasts,
    ) {
    }
}
