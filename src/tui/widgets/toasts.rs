//! Toasts: short messages that do not block and fade after a few seconds, all kept in the error
//! log for later. A toast a pane posted shows only on that pane's tab; a newer toast about the
//! same thing (same pane, same subject: the text before its first `: `) replaces the older one.
//! They are drawn whole (wrapped) in a band of their own between the pane and the footer (as
//! k9s's flash line): the pane gives up those rows, so a toast never covers a table row, a
//! progress line or a chart.

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

    /// A mark that does not rely on colour.
    pub fn mark(self) -> &'static str {
        match self {
            Level::Info => "✓",
            Level::Warn => "!",
            Level::Error => "✗",
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

    /// The band's lines for tab `tab` at `width` columns, oldest first (the newest sits next to
    /// the footer): each toast's level then its text, wrapped whole with a hanging indent. Empty
    /// when no toast shows.
    pub fn band_lines(&self, tab: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let indent = BAND_LABEL_WIDTH;
        let inner = (width as usize).saturating_sub(indent + 1).max(8);
        let mut lines = Vec::new();
        for e in self.visible_on(tab) {
            let style = theme.fg(e.level.role());
            for (i, row) in super::describe::wrap(&e.text, inner).into_iter().enumerate() {
                let head = if i == 0 {
                    Span::styled(
                        format!("{:<indent$}", format!(" {} {}", e.level.mark(), e.level.label())),
                        style.add_modifier(Modifier::BOLD),
                    )
                } else {
                    Span::raw(" ".repeat(indent))
                };
                lines.push(Line::from(vec![head, Span::styled(row, style)]));
            }
        }
        lines
    }

    /// The rows the band takes in a body of `body_height` rows for these `lines`: all of them,
    /// at most a third of the body so that the pane keeps its rows.
    pub fn band_height(lines: &[Line], body_height: u16) -> u16 {
        (lines.len() as u16).min((body_height / 3).max(1))
    }

    /// Draws the band's `lines` in `area` (from `band_height`): the newest lines when not all
    /// fit; every message stays in the log (`e`).
    pub fn render(lines: Vec<Line<'static>>, f: &mut Frame, area: Rect, theme: &Theme) {
        if area.height == 0 {
            return;
        }
        let skip = lines.len().saturating_sub(area.height as usize);
        let shown: Vec<Line> = lines.into_iter().skip(skip).collect();
        f.render_widget(ratatui::widgets::Clear, area);
        f.render_widget(Paragraph::new(shown).style(theme.base()), area);
    }
}

/// Columns of a band line's label (` ✗ error `), the hanging indent of its wrapped rows.
const BAND_LABEL_WIDTH: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::{Terminal, backend::TestBackend};

    fn band(t: &Toasts, width: u16, height: u16) -> (u16, Vec<String>) {
        let theme = Theme::default_theme();
        let lines = t.band_lines("Endpoints", width, &theme);
        let h = Toasts::band_height(&lines, height);
        let mut term = Terminal::new(TestBackend::new(width, h.max(1))).unwrap();
        term.draw(|f| Toasts::render(lines, f, Rect::new(0, 0, width, h), &theme))
            .unwrap();
        let buf = term.backend().buffer().clone();
        let rows = (0..h)
            .map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect();
        (h, rows)
    }

    #[test]
    fn a_long_toast_wraps_whole_with_a_hanging_indent() {
        let mut t = Toasts::default();
        t.push(
            Level::Error,
            "weights of llm-tgi-chat: invalid request: Cannot update in-progress endpoint",
        );
        let (h, rows) = band(&t, 40, 30);
        assert_eq!(h, 3, "{rows:#?}");
        assert!(rows[0].starts_with(" ✗ error  weights of"), "{rows:#?}");
        assert!(rows[1].starts_with("          "), "{rows:#?}");
        assert!(rows.concat().contains("endpoint"), "nothing is cut: {rows:#?}");
    }

    #[test]
    fn the_band_takes_at_most_a_third_of_the_body_and_keeps_the_newest() {
        let mut t = Toasts::default();
        for i in 0..4 {
            t.push(Level::Info, format!("message number {i}"));
        }
        let (h, rows) = band(&t, 60, 9);
        assert_eq!(h, 3);
        assert!(
            rows[2].contains("message number 3"),
            "the newest is next to the footer: {rows:#?}"
        );
        assert!(!rows.concat().contains("message number 0"), "{rows:#?}");
        let none = Toasts::default().band_lines("Endpoints", 60, &Theme::default_theme());
        assert_eq!(Toasts::band_height(&none, 9), 0);
    }
}
