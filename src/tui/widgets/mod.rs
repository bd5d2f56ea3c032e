//! Widgets shared by the panes: header, footer, toasts, overlays (help, describe, confirm, error
//! log, weight editor), the `:` command line.

pub mod chart;
pub mod columns;
pub mod command_line;
pub mod confirm;
pub mod describe;
pub mod footer;
pub mod header;
pub mod help;
pub mod outside;
pub mod pack;
pub mod sampling;
pub mod schema_form;
pub mod scroll;
pub mod toasts;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::tui::theme::{Role, Theme};

/// A modal layer over the panes; it gets every key first.
#[derive(Debug)]
pub enum Overlay {
    /// Every key of the current context.
    Help {
        /// Scroll offset (clamped when drawn).
        scroll: u16,
    },
    /// The error log.
    ErrorLog {
        /// Scroll offset.
        scroll: u16,
    },
    /// The full description of an endpoint.
    Describe(describe::DescribeView),
    /// A yes/no confirmation that starts jobs.
    Confirm(confirm::Confirm),
    /// A server's sampling request, sent to the model on yes.
    Sampling(sampling::SamplingAsk),
}

/// A key and what it does, for the footer and the help overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyHint {
    /// The key as shown.
    pub key: &'static str,
    /// What it does.
    pub action: &'static str,
    /// Whether it is disabled now (read-only, nothing selected ...).
    pub disabled: bool,
}

impl KeyHint {
    /// An enabled hint.
    pub const fn new(key: &'static str, action: &'static str) -> KeyHint {
        KeyHint {
            key,
            action,
            disabled: false,
        }
    }

    /// A hint disabled when `off`.
    pub const fn when(key: &'static str, action: &'static str, off: bool) -> KeyHint {
        KeyHint {
            key,
            action,
            disabled: off,
        }
    }
}

impl Overlay {
    /// The open overlay's keys, for the footer (the panes' keys do not work under it).
    pub fn keys(&self) -> Vec<KeyHint> {
        match self {
            Overlay::Help { .. } | Overlay::ErrorLog { .. } => vec![
                KeyHint::new("↑↓", "scroll"),
                KeyHint::new("PgUp/PgDn", "page"),
                KeyHint::new("Esc", "close"),
            ],
            Overlay::Describe(_) => vec![
                KeyHint::new("↑↓", "scroll"),
                KeyHint::new("PgUp/PgDn", "page"),
                KeyHint::new("g/G", "top/bottom"),
                KeyHint::new("Esc", "close"),
            ],
            Overlay::Confirm(_) => vec![KeyHint::new("y/Enter", "apply"), KeyHint::new("n/Esc", "cancel")],
            Overlay::Sampling(_) => vec![KeyHint::new("y", "send to the model"), KeyHint::new("n/Esc", "decline")],
        }
    }
}

/// A rectangle of `pct_w` × `pct_h` percent centred in `area`, at least `min_w` × `min_h`.
pub fn centered(area: Rect, pct_w: u16, pct_h: u16, min_w: u16, min_h: u16) -> Rect {
    let w = (area.width * pct_w / 100).max(min_w).min(area.width);
    let h = (area.height * pct_h / 100).max(min_h).min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// A pane or box title: bold, in the theme's title colour.
pub fn title(text: impl Into<String>, theme: &Theme) -> Span<'static> {
    Span::styled(text.into(), theme.fg(Role::Title).add_modifier(Modifier::BOLD))
}

/// Draws `text` muted and wrapped over `area`: what a pane shows when it has nothing else to.
pub fn muted(f: &mut Frame, area: Rect, text: impl Into<String>, theme: &Theme) {
    f.render_widget(
        Paragraph::new(Span::styled(text.into(), theme.fg(Role::Muted))).wrap(Wrap { trim: false }),
        area,
    );
}

/// What an endpoint's pane says before one is selected: still loading, or pick one.
pub fn no_endpoint_text(loaded: bool) -> &'static str {
    if loaded {
        "no endpoint selected — pick one on the Endpoints tab (1)"
    } else {
        "loading endpoints…"
    }
}

/// Draws a pane's bordered frame titled `text` over `area` (the border lit when `focused`) and
/// returns the area inside it.
pub fn pane_frame(f: &mut Frame, area: Rect, text: impl Into<String>, focused: bool, theme: &Theme) -> Rect {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(title(text, theme));
    let inner = block.inner(area);
    f.render_widget(block, area);
    inner
}

/// Draws a box over whatever is below: clears `rect`, then `body` in the theme's base style
/// inside a border of `border` style titled `heading`.
pub fn modal(f: &mut Frame, rect: Rect, border: Style, heading: Span, body: Paragraph, theme: &Theme) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(heading);
    f.render_widget(Clear, rect);
    f.render_widget(body.style(theme.base()).block(block), rect);
}
