//! Activity: the audit log of mutations, newest first — time, principal, action, target,
//! before → after, result, reason. `/` filters (substring or regex, `!` inverts) over the whole
//! row; Enter shows the full record (wrapped and scrollable to every field). Columns take the
//! width of their content; when the row does not fit, the widest give way first. The log is read by the worker ([`GuardJob::Activity`]) when the
//! tab is shown, on the refresh tick while it is visible, and whenever the console writes to it.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};
use serde_json::Value;

use super::{KeyHint, Outbox, Pane};
use crate::aws::change::audit::{AuditPhase, AuditRecord};
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, GuardJob};
use crate::tui::filter::Filter;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::describe::DescribeView;
use crate::tui::widgets::pane_frame;
use crate::tui::widgets::scroll::{self, Move};

/// One row: a result line, or an intent whose result never came.
#[derive(Debug, Clone)]
pub struct ActivityRow {
    /// The record shown.
    pub record: AuditRecord,
    /// The cells, in column order.
    pub cells: [String; 7],
}

/// Column titles.
pub const COLUMNS: [&str; 7] = [
    "TIME",
    "PRINCIPAL",
    "ACTION",
    "TARGET",
    "BEFORE → AFTER",
    "RESULT",
    "REASON",
];

/// A short text of an audit `before`/`after` value: `Stable=9 Canary=1`, `3 models`, else JSON.
pub fn summarize(v: &Value) -> String {
    if let Some(weights) = crate::aws::observe::timeline::weights_text(v, super::variants::num) {
        return weights;
    }
    if let Some(m) = v.get("models").and_then(Value::as_array) {
        return format!("{} model{}", m.len(), if m.len() == 1 { "" } else { "s" });
    }
    match v {
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn row_of(r: &AuditRecord) -> ActivityRow {
    let principal = r
        .principal
        .as_deref()
        .map(|p| p.rsplit(':').next().unwrap_or(p).to_string())
        .unwrap_or_else(|| "?".into());
    let change = match (&r.before, &r.after) {
        (Value::Null, Value::Null) => "-".to_string(),
        (b, a) => format!("{} → {}", summarize(b), summarize(a)),
    };
    let result = match (r.phase, &r.result) {
        (AuditPhase::Intent, _) => "no result (interrupted?)".to_string(),
        (_, Some(x)) => x.clone(),
        (_, None) => "-".into(),
    };
    ActivityRow {
        cells: [
            r.time.replace('T', " ").trim_end_matches('Z').to_string(),
            principal,
            r.action.clone(),
            r.target.clone(),
            change,
            result,
            r.reason.clone().unwrap_or_default(),
        ],
        record: r.clone(),
    }
}

/// Rows of a log, newest first: result lines, and intents without a result.
pub fn rows(records: &[AuditRecord]) -> Vec<ActivityRow> {
    let finished: std::collections::HashSet<&str> = records
        .iter()
        .filter(|r| r.phase == AuditPhase::Result)
        .map(|r| r.id.as_str())
        .collect();
    records
        .iter()
        .rev()
        .filter(|r| r.phase == AuditPhase::Result || !finished.contains(r.id.as_str()))
        .map(row_of)
        .collect()
}

/// Column widths by content: each column as wide as its widest cell (or title); while the row
/// is wider than `width`, the reason gives way first, then the result, target and principal, the
/// date (the time of day stays), then the widest column one character at a time (never below
/// its title or 6 characters), so a short RESULT is not padded while the change is cut.
pub fn column_widths(rows: &[&ActivityRow], width: u16) -> Vec<u16> {
    let mut w: Vec<usize> = COLUMNS.iter().map(|c| c.chars().count()).collect();
    for r in rows {
        for (i, c) in r.cells.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let room = (width as usize).saturating_sub(COLUMNS.len() - 1);
    let mut floor: Vec<usize> = COLUMNS.iter().map(|c| c.chars().count().max(6)).collect();
    floor[0] = 8;
    // The reason (free text, whole in the record) gives way first, then a long result (a
    // refusal's text), the target and the principal, each down to a readable width, then the
    // date (the time of day stays); the change keeps its width longest.
    for (c, keep) in [(6, 6), (5, 13), (3, 14), (1, 11)] {
        let over = w.iter().sum::<usize>().saturating_sub(room);
        w[c] = w[c].saturating_sub(over).max(keep.min(w[c]));
    }
    if w.iter().sum::<usize>() > room {
        w[0] = w[0].min(8);
    }
    while w.iter().sum::<usize>() > room {
        let Some(i) = (0..w.len()).filter(|i| w[*i] > floor[*i]).max_by_key(|i| w[*i]) else {
            break;
        };
        w[i] -= 1;
    }
    w.into_iter().map(|x| x as u16).collect()
}

/// The pane's state.
#[derive(Debug, Default)]
pub struct ActivityPane {
    /// Every row, newest first.
    pub rows: Vec<ActivityRow>,
    /// Why the log could not be read.
    pub error: Option<String>,
    /// Whether a read arrived.
    pub loaded: bool,
    /// The `/` filter.
    pub filter: Filter,
    /// Whether `/` is being typed.
    pub filtering: bool,
    /// Selected row among the visible ones.
    pub cursor: usize,
    /// The full record shown (Enter), if any: wrapped, scrollable JSON.
    pub detail: Option<DescribeView>,
    /// When the log was last asked for.
    pub last_read: Option<std::time::Instant>,
    /// The file shown (in the title).
    pub path: Option<std::path::PathBuf>,
}

impl ActivityPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Activity";

    /// On the refresh tick while visible: asks for the log again every `every`.
    fn tick(&mut self, every: std::time::Duration, out: &mut Outbox) {
        if self.last_read.is_none_or(|t| t.elapsed() >= every) {
            self.last_read = Some(std::time::Instant::now());
            out.job(GuardJob::Activity);
        }
    }

    /// Applies a read of the log.
    fn on_read(&mut self, r: Result<Vec<AuditRecord>, String>) {
        self.loaded = true;
        match r {
            Ok(recs) => {
                self.rows = rows(&recs);
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// The rows the filter lets through.
    pub fn visible(&self) -> Vec<&ActivityRow> {
        self.rows
            .iter()
            .filter(|r| self.filter.is_empty() || self.filter.matches(&r.cells.join(" ")))
            .collect()
    }
}

impl Pane for ActivityPane {
    fn on_tick(&mut self, visible: bool, data: &Data, out: &mut Outbox) {
        if visible {
            self.tick(data.refresh_interval, out);
        }
    }

    fn on_event(&mut self, ev: &AppEvent, _data: &mut Data, _out: &mut Outbox, _visible: bool) {
        if let AppEvent::Activity(r) = ev {
            self.on_read(r.clone());
        }
    }

    fn handle_key(&mut self, key: KeyEvent, _data: &mut Data, _out: &mut Outbox) -> bool {
        if let Some(d) = self.detail.as_mut() {
            match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => self.detail = None,
                _ => _ = Move::of_key(&key).map(|m| d.scroll_with(m)),
            }
            return true;
        }
        if self.filtering {
            // Here Backspace on an empty filter also leaves it.
            if key.code == KeyCode::Backspace && self.filter.is_empty() {
                self.filtering = false;
            } else if !self.filter.type_key(key.code, &mut self.filtering) {
                return false;
            }
            self.cursor = 0;
            return true;
        }
        let rows = self.visible().len();
        match key.code {
            KeyCode::Char('/') => self.filtering = true,
            KeyCode::Enter => {
                if let Some(r) = self.visible().get(self.cursor) {
                    let mut view = DescribeView::loading(format!("audit record {}", r.record.action));
                    view.set(&serde_json::to_value(&r.record).unwrap_or_default());
                    self.detail = Some(view);
                }
            }
            KeyCode::Esc if !self.filter.is_empty() => self.filter.clear(),
            _ => return scroll::cursor_key(&mut self.cursor, &key, rows, scroll::PAGE),
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, _data: &Data, theme: &Theme) {
        self.cursor = self.cursor.min(self.visible().len().saturating_sub(1));
        let shown = self.visible();
        let title = match (self.filter.is_empty(), self.filtering) {
            (true, false) => match &self.path {
                Some(p) => format!(" Activity — {} entries, newest first — {} ", shown.len(), p.display()),
                None => format!(" Activity — {} entries, newest first ", shown.len()),
            },
            _ => format!(
                " Activity — /{}{} ({} of {}) ",
                self.filter.text(),
                if self.filtering { "▏" } else { "" },
                shown.len(),
                self.rows.len()
            ),
        };
        let inner = pane_frame(f, area, title, true, theme);
        let muted = theme.fg(Role::Muted);
        if let Some(e) = &self.error {
            let p = Paragraph::new(Span::styled(
                format!("cannot read the audit log: {e}"),
                theme.fg(Role::StatusError),
            ));
            return f.render_widget(p.wrap(Wrap { trim: false }), inner);
        }
        if shown.is_empty() {
            let text = match (self.loaded, self.rows.is_empty()) {
                (false, _) => "reading the audit log…",
                (true, true) => "no mutations recorded yet",
                (true, false) => "no entry matches the filter",
            };
            return f.render_widget(Paragraph::new(Span::styled(text, muted)), inner);
        }
        let height = inner.height.saturating_sub(1) as usize;
        let offset = (self.cursor + 1).saturating_sub(height.max(1));
        let widths = column_widths(&shown, inner.width);
        // Too narrow for the date: the time of day (the record has both).
        let clock_only = widths[0] < 19;
        let rows: Vec<Row> = shown
            .iter()
            .enumerate()
            .skip(offset)
            .take(height)
            .map(|(i, r)| {
                let result_style = if r.cells[5] == "ok" {
                    theme.fg(Role::StatusOk)
                } else if r.cells[5].starts_with("refused") || r.cells[5].starts_with("no result") {
                    theme.fg(Role::StatusWarn)
                } else {
                    theme.fg(Role::StatusError)
                };
                let cells = r.cells.iter().enumerate().map(|(c, t)| {
                    let style = match c {
                        0 | 1 | 6 => muted,
                        5 => result_style,
                        _ => theme.fg(Role::Fg),
                    };
                    let text = match t.split_once(' ') {
                        Some((_, clock)) if c == 0 && clock_only => clock.to_string(),
                        _ => t.clone(),
                    };
                    Cell::from(Span::styled(text, style))
                });
                let row = Row::new(cells);
                if i == self.cursor {
                    row.style(theme.selection())
                } else {
                    row
                }
            })
            .collect();
        let widths: Vec<Constraint> = widths.into_iter().map(Constraint::Length).collect();
        let header = Row::new(COLUMNS.iter().map(|c| Cell::from(Span::styled(*c, theme.fg(Role::Header)))));
        f.render_widget(Table::new(rows, widths).header(header).column_spacing(1), inner);
        if let Some(d) = self.detail.as_mut() {
            d.render(f, area, theme);
        }
    }

    fn keys(&self, _data: &Data) -> Vec<KeyHint> {
        if self.detail.is_some() {
            return vec![
                KeyHint::new("↑↓", "scroll"),
                KeyHint::new("PgUp/PgDn", "page"),
                KeyHint::new("g/G", "top/bottom"),
                KeyHint::new("Esc", "close"),
            ];
        }
        if self.filtering {
            return vec![KeyHint::new("Enter", "keep filter"), KeyHint::new("Esc", "clear")];
        }
        vec![
            KeyHint::new("↑↓", "entry"),
            KeyHint::new("Enter", "full record"),
            KeyHint::new("/", "filter"),
            KeyHint::new("r", "refresh"),
            KeyHint::new("?", "help"),
            KeyHint::new("q", "quit"),
        ]
    }

    fn capturing_text(&self) -> bool {
        self.filtering || self.detail.is_some()
    }

    fn on_show(&mut self, _data: &mut Data, out: &mut Outbox) {
        self.last_read = Some(std::time::Instant::now());
        out.job(GuardJob::Activity);
    }
}
