//! Logs: the selected endpoint's container logs from CloudWatch Logs — its streams (one per
//! variant and instance) and their lines merged by time, over a window (`w`: the last 5m … 24h,
//! or the minutes around a moment another pane jumped to), narrowed by a CloudWatch filter
//! pattern (`/` or `:filter PATTERN`) and by variant (`v`). Follow mode (`f`) polls from the
//! newest line seen, paging with CloudWatch's tokens in the worker ([`FleetJob::Logs`]); the UI never
//! waits. Errors and stack traces are highlighted; `y` copies the selected line.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane, PaneCommand};
use crate::aws::observe::logs::{ErrorMarker, LogLine, LogQuery, LogRead, MAX_LINES, StreamInfo};
use crate::tui::data::{Data, LogsJump};
use crate::tui::event::{AppEvent, FleetJob};
use crate::tui::theme::Theme;
use crate::tui::widgets::toasts::Level;
use crate::tui::widgets::scroll;

mod view;

/// The windows `w` cycles through.
pub const WINDOWS: [Duration; 5] = [
    Duration::from_secs(5 * 60),
    Duration::from_secs(15 * 60),
    Duration::from_secs(3600),
    Duration::from_secs(6 * 3600),
    Duration::from_secs(24 * 3600),
];

/// How long before and after a jumped-to moment the pane shows.
pub const AROUND: Duration = Duration::from_secs(5 * 60);

/// How often follow mode polls.
pub const FOLLOW_EVERY: Duration = Duration::from_secs(2);

/// How a line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// An ordinary line.
    Plain,
    /// An error line.
    Error,
    /// A line of a stack trace.
    Trace,
}

/// The pane's state.
#[derive(Debug)]
pub struct LogsPane {
    /// The endpoint shown.
    pub endpoint: Option<String>,
    /// Only this variant's streams.
    pub variant: Option<String>,
    /// Index into [`WINDOWS`].
    pub window_index: usize,
    /// A jumped-to window (epoch ms, start and end) instead of the last [`WINDOWS`].
    pub around: Option<(i64, i64)>,
    /// The CloudWatch filter pattern in force.
    pub filter: String,
    /// The pattern being typed after `/`.
    pub typing: Option<String>,
    /// Whether follow mode is on.
    pub follow: bool,
    /// The endpoint's streams.
    pub streams: Vec<StreamInfo>,
    /// Lines, oldest first.
    pub lines: Vec<LogLine>,
    /// How each line is drawn.
    pub marks: Vec<Mark>,
    /// The selected line.
    pub cursor: usize,
    /// Whether a read arrived for the current query.
    pub loaded: bool,
    /// Why the last read failed.
    pub error: Option<String>,
    /// Why there is nothing to read yet (no log group: the endpoint has not written any): a
    /// state, not an error.
    pub no_logs: Option<String>,
    /// FilterLogEvents pages of the last full read.
    pub pages: usize,
    /// Whether older lines were dropped.
    pub truncated: bool,
    seen: HashSet<String>,
    polling: bool,
    last_poll: Option<Instant>,
}

impl Default for LogsPane {
    fn default() -> Self {
        LogsPane {
            endpoint: None,
            variant: None,
            window_index: 1,
            around: None,
            filter: String::new(),
            typing: None,
            follow: false,
            streams: Vec::new(),
            lines: Vec::new(),
            marks: Vec::new(),
            cursor: 0,
            loaded: false,
            error: None,
            no_logs: None,
            pages: 0,
            truncated: false,
            seen: HashSet::new(),
            polling: false,
            last_poll: None,
        }
    }
}

const COMMANDS: &[PaneCommand] = &[
    PaneCommand {
        name: "filter",
        takes_arg: true,
        help: "Logs: a CloudWatch filter pattern (no argument clears it)",
    },
    PaneCommand {
        name: "since",
        takes_arg: true,
        help: "Logs: read from this long ago (5m, 1h, 2d)",
    },
];

fn epoch_ms() -> i64 {
    (crate::format::now_epoch() * 1000.0) as i64
}

impl LogsPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Logs";

    /// The window now.
    pub fn window(&self) -> Duration {
        WINDOWS[self.window_index.min(WINDOWS.len() - 1)]
    }

    /// The query of a full read.
    pub fn query(&self) -> Option<LogQuery> {
        let start = match self.around {
            Some((start, _)) => start,
            None => epoch_ms() - self.window().as_millis() as i64,
        };
        Some(LogQuery {
            endpoint: self.endpoint.clone()?,
            variant: self.variant.clone(),
            start_ms: Some(start),
            filter: (!self.filter.is_empty()).then(|| self.filter.clone()),
        })
    }

    /// Reads again from the start of the window (streams included).
    pub fn reload(&mut self, out: &mut Outbox) {
        let Some(query) = self.query() else { return };
        self.loaded = false;
        self.error = None;
        self.no_logs = None;
        self.polling = false;
        self.last_poll = Some(Instant::now());
        out.job(FleetJob::Logs {
            query,
            streams: true,
            follow: false,
        });
    }

    /// Shows the logs around a moment (from the Latency or Invoke pane); follow mode stops.
    pub fn jump(&mut self, jump: LogsJump, out: &mut Outbox) {
        let at = (jump.at * 1000.0) as i64;
        let pad = AROUND.as_millis() as i64;
        self.endpoint = Some(jump.endpoint);
        self.variant = jump.variant;
        self.around = Some((at - pad, at + pad));
        self.follow = false;
        self.reload(out);
    }

    /// Applies a read: a full one replaces the lines, a follow poll appends the new ones.
    pub fn apply(&mut self, follow: bool, streams: Option<Vec<StreamInfo>>, read: LogRead) {
        if let Some(s) = streams {
            self.streams = s;
        }
        let at_end = self.lines.is_empty() || self.cursor + 1 >= self.lines.len();
        if !follow {
            self.lines.clear();
            self.seen.clear();
            self.pages = read.pages;
            self.truncated = read.truncated;
        }
        let end = self.around.map(|(_, end)| end);
        for l in read.lines {
            if end.is_some_and(|e| l.timestamp_ms > e) || !self.seen.insert(l.event_id.clone()) {
                continue;
            }
            self.lines.push(l);
        }
        self.lines.sort_by_key(|l| l.timestamp_ms);
        if self.lines.len() > MAX_LINES {
            self.truncated = true;
            self.lines.drain(..self.lines.len() - MAX_LINES);
        }
        let mut marker = ErrorMarker::default();
        self.marks = self
            .lines
            .iter()
            .map(
                |l| match (marker.mark(l), crate::aws::observe::logs::is_error_line(&l.message)) {
                    (false, _) => Mark::Plain,
                    (true, true) => Mark::Error,
                    (true, false) => Mark::Trace,
                },
            )
            .collect();
        self.loaded = true;
        if at_end || self.follow || !follow && self.around.is_none() {
            self.cursor = self.lines.len().saturating_sub(1);
        }
        self.cursor = self.cursor.min(self.lines.len().saturating_sub(1));
    }

    /// Follow mode: asks for the lines since the newest seen, every [`FOLLOW_EVERY`].
    fn poll(&mut self, out: &mut Outbox) {
        if !self.follow || self.polling || !self.loaded {
            return;
        }
        if self.last_poll.is_some_and(|t| t.elapsed() < FOLLOW_EVERY) {
            return;
        }
        let Some(mut query) = self.query() else { return };
        if let Some(newest) = self.lines.last() {
            query.start_ms = Some(newest.timestamp_ms);
        }
        self.polling = true;
        self.last_poll = Some(Instant::now());
        out.job(FleetJob::Logs {
            query,
            streams: false,
            follow: true,
        });
    }

    fn set_filter(&mut self, pattern: &str, out: &mut Outbox) {
        self.filter = pattern.trim().to_string();
        self.reload(out);
    }

    fn cycle_variant(&mut self, data: &Data, out: &mut Outbox) {
        let names: Vec<String> = match self.endpoint.as_deref().and_then(|e| data.endpoint(e)) {
            Some(e) => e.variants.iter().map(|v| v.name.clone()).collect(),
            None => return,
        };
        let next = match self.variant.as_ref().and_then(|v| names.iter().position(|n| n == v)) {
            None => names.first().cloned(),
            Some(i) => names.get(i + 1).cloned(),
        };
        self.variant = next;
        self.reload(out);
    }

    fn typing_key(&mut self, code: KeyCode, out: &mut Outbox) {
        let Some(text) = self.typing.as_mut() else { return };
        match code {
            KeyCode::Enter => {
                let t = std::mem::take(text);
                self.typing = None;
                self.set_filter(&t, out);
            }
            KeyCode::Esc => self.typing = None,
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) => text.push(c),
            _ => {}
        }
    }

    fn copy(&self, out: &mut Outbox) {
        match self.lines.get(self.cursor) {
            Some(l) => {
                out.copy = Some(l.message.clone());
                out.toast(Level::Info, "copied the log line");
            }
            None => out.toast(Level::Info, "no line to copy"),
        }
    }
}

/// Lines PgUp and PgDn move the cursor by.
const LOG_PAGE: usize = 20;

impl Pane for LogsPane {
    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        if self.typing.is_some() {
            self.typing_key(key.code, out);
            return true;
        }
        match key.code {
            KeyCode::Char('/') => self.typing = Some(self.filter.clone()),
            KeyCode::Char('y') => self.copy(out),
            KeyCode::Char('v') => self.cycle_variant(data, out),
            KeyCode::Char('f') => {
                self.follow = !self.follow;
                if self.follow && self.around.take().is_some() {
                    self.reload(out);
                }
                out.toast(
                    Level::Info,
                    if self.follow {
                        "following new lines"
                    } else {
                        "follow off"
                    },
                );
            }
            KeyCode::Char('w') => {
                self.window_index = (self.window_index + 1) % WINDOWS.len();
                self.around = None;
                self.reload(out);
            }
            KeyCode::Char('r') => self.reload(out),
            KeyCode::Esc if !self.filter.is_empty() => self.set_filter("", out),
            KeyCode::Esc if self.around.is_some() => {
                self.around = None;
                self.reload(out);
            }
            _ => return scroll::cursor_key(&mut self.cursor, &key, self.lines.len(), LOG_PAGE),
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, _data: &Data, theme: &Theme) {
        view::render(self, f, area, theme);
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        if self.typing.is_some() {
            return vec![KeyHint::new("Enter", "apply pattern"), KeyHint::new("Esc", "cancel")];
        }
        let none = self.endpoint.is_none() && data.selected.is_none();
        vec![
            KeyHint::new("↑↓", "line"),
            KeyHint::when("/", "filter", none),
            KeyHint::when("f", "follow", none),
            KeyHint::when("w", "window", none),
            KeyHint::when("v", "variant", none),
            KeyHint::when("y", "copy line", self.lines.is_empty()),
            KeyHint::new("?", "help"),
            KeyHint::new("q", "quit"),
        ]
    }

    fn help(&self) -> Vec<KeyHint> {
        vec![
            KeyHint::new("g/G", "first/last line"),
            KeyHint::new("PgUp/PgDn", "page"),
            KeyHint::new("r", "read again"),
            KeyHint::new("Esc", "clear the filter, then the jumped-to window"),
            KeyHint::new(":filter P", "CloudWatch filter pattern"),
            KeyHint::new(":since 1h", "read from this long ago"),
        ]
    }

    fn commands(&self) -> &'static [PaneCommand] {
        COMMANDS
    }

    fn run_command(&mut self, name: &str, arg: Option<&str>, _data: &mut Data, out: &mut Outbox) -> bool {
        match name {
            "filter" => self.set_filter(arg.unwrap_or(""), out),
            "since" => match crate::format::parse_duration(arg.unwrap_or("")) {
                Ok(d) => {
                    self.window_index = WINDOWS.iter().position(|w| *w >= d).unwrap_or(WINDOWS.len() - 1);
                    self.around = None;
                    self.reload(out);
                }
                Err(e) => out.toast(Level::Warn, e),
            },
            _ => return false,
        }
        out.switch_to = Some(super::Tab::Logs);
        true
    }

    /// The pane takes every key first (`y` copies a line here, not the endpoint's name); the
    /// keys it does not use are the console's.
    fn capturing_text(&self) -> bool {
        true
    }

    fn on_show(&mut self, data: &mut Data, out: &mut Outbox) {
        if let Some(jump) = data.logs_jump.take() {
            return self.jump(jump, out);
        }
        if data.selected.is_some() && (data.selected != self.endpoint || !self.loaded) {
            self.endpoint = data.selected.clone();
            self.variant = None;
            self.around = None;
            self.reload(out);
        }
    }

    fn on_tick(&mut self, visible: bool, _data: &Data, out: &mut Outbox) {
        if visible {
            self.poll(out);
        }
    }

    fn on_event(&mut self, ev: &AppEvent, data: &mut Data, out: &mut Outbox, _visible: bool) {
        let AppEvent::Logs {
            endpoint,
            follow,
            result,
        } = ev
        else {
            return;
        };
        if self.endpoint.as_ref() != Some(endpoint) {
            return;
        }
        if *follow {
            self.polling = false;
        }
        match result {
            Ok((streams, read)) => {
                self.error = None;
                self.no_logs = None;
                self.apply(*follow, streams.clone(), read.clone());
            }
            Err(crate::aws::AwsError::NotFound(_)) => {
                // CloudWatch makes the log group when the container first writes to it.
                self.no_logs = Some(match data.endpoint(endpoint).map(|e| e.status.as_str()) {
                    Some(status) if status != "InService" => format!("no logs yet: the endpoint is {status}"),
                    _ => "no logs yet: the endpoint's containers have written none".into(),
                });
                self.error = None;
                self.loaded = true;
            }
            Err(e) => {
                if self.error.is_none() {
                    out.toast(Level::Error, format!("logs of {endpoint}: {e}"));
                }
                self.error = Some(e.to_string());
                self.loaded = true;
            }
        }
    }
}
