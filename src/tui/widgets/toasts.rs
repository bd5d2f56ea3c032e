//! Toasts: short messages that do not block and fade after a few seconds, all kept in the error
//! log for later. A toast a pane posted shows only on that pane's tab; a newer toast about the
//! same thing (same pane, same subject: the text before its first `: `) replaces the older one.
//! They are drawn whole (wrapped) at the top right of the pane, clear of the progress lines
//! panes draw at their bottom.

use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

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

/// A toast on screen: its entry, the tab title of the pane that posted it (None: the console's
/// own), and when it appeared.
#[derive(Debug, Clone)]
struct Shown {
    entry: LogEntry,
    origin: Option<&'static str>,
    since: Instant,
}

/// What a toast is about: the words before its first `: ` (`weights of ep`, `invoke ep`,
/// `not sent`), or the whole text (a one-word head such as `read-only` names no subject).
fn subject(text: &str) -> &str {
    match text.split_once(": ") {
        Some((head, _)) if head.contains(' ') && head.chars().count() <= 60 => head,
        _ => text,
    }
}

/// Visible toasts and the log of every message.
#[derive(Debug, Default)]
pub struct Toasts {
    visible: Vec<Shown>,
    /// Every message, oldest first (bounded).
    pub log: Vec<LogEntry>,
}

const SHOW_FOR: Duration = Duration::from_secs(6);
const LOG_LIMIT: usize = 500;

impl Toasts {
    /// Adds a message of the console's own (shown on every tab).
    pub fn push(&mut self, level: Level, text: impl Into<String>) {
        self.push_from(None, level, text);
    }

    /// Adds a message posted by the pane of tab `origin` (None: the console's own). It replaces
    /// a visible toast of the same origin and subject.
    pub fn push_from(&mut self, origin: Option<&'static str>, level: Level, text: impl Into<String>) {
        let entry = LogEntry {
            level,
            text: text.into(),
            at: crate::format::now_epoch(),
        };
        let about = subject(&entry.text).to_string();
        self.visible
            .retain(|s| s.origin != origin || subject(&s.entry.text) != about);
        self.visible.push(Shown {
            entry: entry.clone(),
            origin,
            since: Instant::now(),
        });
        if self.visible.len() > 4 {
            self.visible.remove(0);
        }
        self.log.push(entry);
        if self.log.len() > LOG_LIMIT {
            self.log.remove(0);
        }
    }

    /// Drops the visible warnings the pane of tab `origin` posted (its refusals: `not sent…`),
    /// once it has sent something after all.
    pub fn settle(&mut self, origin: &'static str) {
        self.visible
            .retain(|s| s.origin != Some(origin) || s.entry.level != Level::Warn);
    }

    /// Drops expired toasts; true when something changed.
    pub fn expire(&mut self) -> bool {
        let before = self.visible.len();
        self.visible.retain(|s| s.since.elapsed() < SHOW_FOR);
        before != self.visible.len()
    }

    /// Whether any toast shows.
    pub fn any_visible(&self) -> bool {
        !self.visible.is_empty()
    }

    /// The toasts on screen (newest last), whatever their tab.
    pub fn visible(&self) -> impl Iterator<Item = &LogEntry> {
        self.visible.iter().map(|s| &s.entry)
    }

    /// The toasts shown on the tab titled `tab` (newest last): the console's own and that pane's.
    pub fn visible_on<'a>(&'a self, tab: &'a str) -> impl Iterator<Item = &'a LogEntry> + 'a {
        self.visible
            .iter()
            .filter(move |s| s.origin.is_none_or(|o| o == tab))
            .map(|s| &s.entry)
    }

    /// Draws the toasts of tab `tab` at the top right of `area`, newest first, each wrapped whole
    /// (not over an open dialog: what they say is in the log, `e`).
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme, tab: &str) {
        let width = (area.width.saturating_sub(2)).clamp(20, 72).min(area.width);
        let inner = width.saturating_sub(4).max(1) as usize;
        let mut y = area.y + 1;
        let shown: Vec<&LogEntry> = self.visible_on(tab).collect();
        for e in shown.into_iter().rev() {
            let rows = super::describe::wrap(&e.text, inner);
            let h = rows.len() as u16 + 2;
            if y + h > area.bottom() {
                break;
            }
            let rect = Rect {
                x: area.right().saturating_sub(width + 1).max(area.x),
                y,
                width,
                height: h,
            };
            y += h;
            let style = theme.fg(e.level.role());
            let heading = Span::styled(format!(" {} ", e.level.label()), style.add_modifier(Modifier::BOLD));
            let lines: Vec<Line> = rows.into_iter().map(Line::from).collect();
            super::modal(f, rect, style, heading, Paragraph::new(lines), theme);
        }
    }
}
