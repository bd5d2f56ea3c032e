//! Toasts: short messages that do not block and fade after a few seconds, all kept in the error
//! log for later.

use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::theme::{Role, Theme};

/// How loud a toast is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// A completed action.
    Info,
    /// A refusal or a warning.
    Warn,
    /// A failure.
    Error,
}

impl Level {
    fn role(self) -> Role {
        match self {
            Level::Info => Role::ToastInfo,
            Level::Warn => Role::ToastWarn,
            Level::Error => Role::ToastError,
        }
    }

    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// One logged message.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    /// Level.
    pub level: Level,
    /// Text (one line).
    pub text: String,
    /// When (epoch seconds).
    pub at: f64,
}

/// Visible toasts and the log of every message.
#[derive(Debug, Default)]
pub struct Toasts {
    visible: Vec<(LogEntry, Instant)>,
    /// Every message, oldest first (bounded).
    pub log: Vec<LogEntry>,
}

const SHOW_FOR: Duration = Duration::from_secs(6);
const LOG_LIMIT: usize = 500;

impl Toasts {
    /// Adds a message.
    pub fn push(&mut self, level: Level, text: impl Into<String>) {
        let entry = LogEntry {
            level,
            text: text.into(),
            at: crate::format::now_epoch(),
        };
        self.visible.push((entry.clone(), Instant::now()));
        if self.visible.len() > 4 {
            self.visible.remove(0);
        }
        self.log.push(entry);
        if self.log.len() > LOG_LIMIT {
            self.log.remove(0);
        }
    }

    /// Drops expired toasts; true when something changed.
    pub fn expire(&mut self) -> bool {
        let before = self.visible.len();
        self.visible.retain(|(_, t)| t.elapsed() < SHOW_FOR);
        before != self.visible.len()
    }

    /// Whether any toast shows.
    pub fn any_visible(&self) -> bool {
        !self.visible.is_empty()
    }

    /// The toasts on screen (newest last).
    pub fn visible(&self) -> impl Iterator<Item = &LogEntry> {
        self.visible.iter().map(|(e, _)| e)
    }

    /// Draws the toasts in the bottom-right corner of `area`.
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width.clamp(20, 64);
        let mut y = area.bottom().saturating_sub(1);
        for (e, _) in self.visible.iter().rev() {
            let inner = width.saturating_sub(4).max(1) as usize;
            let lines = (e.text.chars().count() / inner + 1) as u16;
            let h = lines + 2;
            if y < area.y + h {
                break;
            }
            y -= h;
            let rect = Rect {
                x: area.right().saturating_sub(width + 1),
                y,
                width,
                height: h,
            };
            let style = theme.fg(e.level.role());
            let heading = Span::styled(format!(" {} ", e.level.label()), style.add_modifier(Modifier::BOLD));
            let body = Paragraph::new(Line::from(e.text.clone())).wrap(Wrap { trim: true });
            super::modal(f, rect, style, heading, body, theme);
        }
    }
}
