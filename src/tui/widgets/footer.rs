//! The footer: the keys of the current pane (disabled ones dimmed and struck through). Hints
//! are never cut in the middle: when they do not all fit, the last ones give way and `? help`
//! (which lists every key) stays.

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
    for h in fitting(hints, area.width as usize) {
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

/// Columns a hint takes (` key action `).
fn hint_width(h: &KeyHint) -> usize {
    Span::raw(format!(" {} {} ", h.key, h.action)).width()
}

/// The hints that fit in `width` columns, whole: all of them, or the first ones that fit
/// beside the help hint (`?`), which then closes the line.
fn fitting(hints: &[KeyHint], width: usize) -> Vec<&KeyHint> {
    if hints.iter().map(hint_width).sum::<usize>() <= width {
        return hints.iter().collect();
    }
    let help = hints.iter().find(|h| h.key == "?");
    let mut left = width.saturating_sub(help.map_or(0, hint_width));
    let mut out: Vec<&KeyHint> = Vec::new();
    for h in hints.iter().filter(|h| h.key != "?") {
        let w = hint_width(h);
        if w > left {
            break;
        }
        left -= w;
        out.push(h);
    }
    out.extend(help);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_that_do_not_fit_give_way_whole_and_help_stays() {
        let hints = [
            KeyHint::new("↑↓", "move"),
            KeyHint::new("Enter", "variants"),
            KeyHint::new("d", "describe"),
            KeyHint::new("?", "help"),
            KeyHint::new("q", "quit"),
        ];
        let keys = |w| fitting(&hints, w).iter().map(|h| h.key.to_string()).collect::<Vec<_>>();
        assert_eq!(keys(200), ["↑↓", "Enter", "d", "?", "q"]);
        // " ↑↓ move " 9 + " Enter variants " 16 + " ? help " 8 = 33.
        assert_eq!(keys(33), ["↑↓", "Enter", "?"]);
        assert_eq!(keys(32), ["↑↓", "?"]);
    }
}
