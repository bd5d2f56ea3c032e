//! The `?` overlay: every key of the current context, then the global keys and `:` commands.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::KeyHint;
use super::centered;
use crate::tui::theme::{Role, Theme};

/// Keys that work everywhere.
pub const GLOBAL_KEYS: &[(&str, &str)] = &[
    ("1-9, 0, Tab, ⇧Tab", "switch tabs (number keys as in the tab row)"),
    (":", "command line (Tab completes, ↑↓ history)"),
    ("?", "this help"),
    ("r", "refresh now"),
    ("e", "error log"),
    ("y", "copy the selected name/ARN (OSC 52)"),
    ("Esc", "close / cancel the call in flight"),
    ("q / Ctrl-C", "quit"),
];

/// The `:` commands (besides those that open a tab).
pub const COMMANDS: &[(&str, &str)] = &[
    (":region R", "switch region"),
    (":profile P", "switch profile"),
    (":theme T", "switch theme"),
    (":refresh SECONDS", "inventory refresh interval"),
    (":readonly", "toggle read-only"),
    (":reason TEXT", "audit reason for this session's changes (alone: clear)"),
    (":errors", "error log"),
    (":quit", "quit"),
];

/// Draws the help overlay from line `scroll` (clamped to the last screenful, and written back);
/// `tab_commands` names the `:` commands that open the tabs.
pub fn render(
    f: &mut Frame,
    area: Rect,
    (pane, tab_commands): (&str, &str),
    hints: &[KeyHint],
    scroll: &mut u16,
    theme: &Theme,
) {
    let rect = centered(area, 80, 100, 60, 20);
    let key = theme.fg(Role::Accent).add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::from(Span::styled(
        format!("{pane} pane"),
        theme.fg(Role::Title).add_modifier(Modifier::BOLD),
    ))];
    for h in hints {
        let style = if h.disabled {
            theme.fg(Role::Muted).add_modifier(Modifier::CROSSED_OUT)
        } else {
            theme.fg(Role::Fg)
        };
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<22}", h.key), key),
            Span::styled(h.action, style),
        ]));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "Everywhere",
        theme.fg(Role::Title).add_modifier(Modifier::BOLD),
    )));
    for (k, a) in GLOBAL_KEYS {
        lines.push(Line::from(vec![
            Span::styled(format!("  {k:<22}"), key),
            Span::styled(*a, theme.fg(Role::Fg)),
        ]));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "Commands",
        theme.fg(Role::Title).add_modifier(Modifier::BOLD),
    )));
    // The tabs' commands, a few to a line.
    let words: Vec<&str> = tab_commands.split_whitespace().collect();
    for (i, chunk) in words.chunks(6).enumerate() {
        let what = if i == 0 { "open a tab" } else { "" };
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<62}", chunk.join(" ")), key),
            Span::styled(what, theme.fg(Role::Fg)),
        ]));
    }
    for (k, a) in COMMANDS {
        lines.push(Line::from(vec![
            Span::styled(format!("  {k:<22} "), key),
            Span::styled(*a, theme.fg(Role::Fg)),
        ]));
    }
    let visible = rect.height.saturating_sub(2) as usize;
    let max_scroll = lines.len().saturating_sub(visible) as u16;
    *scroll = (*scroll).min(max_scroll);
    let below = max_scroll - *scroll;
    let title = match (*scroll, below) {
        (0, 0) => " Help — Esc closes ".to_string(),
        (_, 0) => " Help — ↑ scrolls · Esc closes ".to_string(),
        (_, 1) => " Help — ↑↓ scroll (1 more line) · Esc closes ".to_string(),
        (_, n) => format!(" Help — ↑↓ scroll ({n} more lines) · Esc closes "),
    };
    let heading = Span::styled(title, theme.fg(Role::Title));
    let body = Paragraph::new(lines).scroll((*scroll, 0));
    super::modal(f, rect, theme.border(true), heading, body, theme);
}
