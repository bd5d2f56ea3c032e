//! The footer: the keys of the current pane (disabled ones dimmed and struck through).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::KeyHint;
use crate::tui::theme::{Role, Theme};

/// Draws the key hints.
pub fn render(f: &mut Frame, area: Rect, hints: &[KeyHint], theme: &Theme) {
    let mut spans = Vec::new();
    for h in hints {
        let (k, a) = if h.disabled {
            let s = theme.fg(Role::Muted).add_modifier(Modifier::CROSSED_OUT);
            (s, s)
        } else {
            (
                theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
                theme.fg(Role::Muted),
            )
        };
        spans.push(Span::styled(format!(" {}", h.key), k));
        spans.push(Span::styled(format!(" {} ", h.action), a));
    }
    f.render_widget(Paragraph::new(Line::from(spans)).style(theme.base()), area);
}
