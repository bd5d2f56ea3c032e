//! The Tools tab's records: one entry per tool call (a repeat aggregated: answers, tool errors,
//! failures, latency percentiles, the last answer and progress), and the arguments last sent to
//! each tool, kept across runs in a JSON file of the XDG state directory.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use rmcp::model::JsonObject;
use serde_json::Value;

use crate::aws::observe::latency::LatencyStats;
use crate::mcp::events::Progress;
use crate::mcp::{CallError, CallOutcome};

/// Where a call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCallState {
    /// Waiting for answers.
    Running,
    /// Every answer is in.
    Done,
    /// Cancelled with Esc.
    Cancelled,
}

/// One call (or one repeated call) of a tool.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// Number in this session (1-based).
    pub number: usize,
    /// Job id.
    pub id: u64,
    /// Server name.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// Arguments sent.
    pub arguments: Option<JsonObject>,
    /// Calls asked for.
    pub repeat: u32,
    /// State.
    pub state: ToolCallState,
    /// Answers received (results and errors).
    pub done: u32,
    /// Results without `isError`.
    pub ok: u32,
    /// Results with `isError`.
    pub tool_errors: u32,
    /// Calls without a result (JSON-RPC error, timeout, disconnect).
    pub failed: u32,
    /// Durations of the calls that got a result.
    pub stats: LatencyStats,
    /// The last answer.
    pub last: Option<Result<CallOutcome, CallError>>,
    /// The last answer's result as text, made once when it arrives (empty for errors).
    pub last_text: String,
    /// The last progress notification of the call in flight.
    pub progress: Option<Progress>,
}

impl ToolCall {
    /// A call just submitted.
    pub fn new(
        number: usize,
        id: u64,
        server: &str,
        tool: &str,
        arguments: Option<JsonObject>,
        repeat: u32,
    ) -> ToolCall {
        ToolCall {
            number,
            id,
            server: server.into(),
            tool: tool.into(),
            arguments,
            repeat: repeat.max(1),
            state: ToolCallState::Running,
            done: 0,
            ok: 0,
            tool_errors: 0,
            failed: 0,
            stats: LatencyStats::new(),
            last: None,
            last_text: String::new(),
            progress: None,
        }
    }

    /// Records one answer; returns whether the call is complete.
    pub fn record(&mut self, result: Result<CallOutcome, CallError>) -> bool {
        self.done += 1;
        match &result {
            Ok(o) => {
                self.stats.record(o.duration);
                if o.result.is_error {
                    self.tool_errors += 1;
                } else {
                    self.ok += 1;
                }
            }
            Err(CallError::Cancelled) => self.state = ToolCallState::Cancelled,
            Err(_) => self.failed += 1,
        }
        self.last_text = match &result {
            Ok(o) => o.result.to_text(),
            Err(_) => String::new(),
        };
        self.last = Some(result);
        self.progress = None;
        let complete = self.done >= self.repeat
            || matches!(self.last, Some(Err(CallError::Cancelled | CallError::Disconnected(_))));
        if complete && self.state == ToolCallState::Running {
            self.state = ToolCallState::Done;
        }
        complete
    }

    /// Whether answers are still expected.
    pub fn in_flight(&self) -> bool {
        self.state == ToolCallState::Running
    }

    /// The last answer's duration.
    pub fn last_duration(&self) -> Option<Duration> {
        match &self.last {
            Some(Ok(o)) => Some(o.duration),
            _ => None,
        }
    }

    /// One line: the state, duration or percentiles.
    pub fn summary(&self) -> String {
        match self.state {
            ToolCallState::Running => match self.progress.as_ref().and_then(|p| p.task.as_deref()) {
                Some(task) => format!("task {task}"),
                None => format!("running {}/{}", self.done, self.repeat),
            },
            ToolCallState::Cancelled => "cancelled".into(),
            ToolCallState::Done if self.repeat > 1 => {
                let p = self
                    .stats
                    .percentiles()
                    .map(|p| format!(" · p50 {:.1} ms", p.p50_ms))
                    .unwrap_or_default();
                format!("{}/{} ok{p}", self.ok, self.repeat)
            }
            ToolCallState::Done => match &self.last {
                Some(Ok(o)) if o.result.is_error => format!("isError · {:.1} ms{}", ms(o.duration), task_note(o)),
                Some(Ok(o)) => format!("ok · {:.1} ms{}", ms(o.duration), task_note(o)),
                Some(Err(e)) => format!("failed: {e}"),
                None => "-".into(),
            },
        }
    }
}

/// ` · task ID completed` when the call was answered with a task.
fn task_note(o: &CallOutcome) -> String {
    o.task
        .as_ref()
        .map(|t| format!(" · task {} {}", t.task_id, t.status))
        .unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The arguments last sent to each tool (`server/tool` → arguments), kept in a JSON file.
#[derive(Debug, Clone, Default)]
pub struct ArgsStore {
    path: Option<PathBuf>,
    map: BTreeMap<String, Value>,
}

impl ArgsStore {
    /// `$XDG_STATE_HOME/sagedeck/tool_args.json`, else `~/.local/state/sagedeck/tool_args.json`.
    pub fn default_path() -> Option<PathBuf> {
        crate::local::dirs::state_dir().map(|d| d.join("tool_args.json"))
    }

    /// The store kept at `path` (None: in memory only), read when the file exists.
    pub fn at(path: Option<PathBuf>) -> ArgsStore {
        let map = path
            .as_deref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        ArgsStore { path, map }
    }

    fn key(server: &str, tool: &str) -> String {
        format!("{server}/{tool}")
    }

    /// The arguments last sent to a tool.
    pub fn get(&self, server: &str, tool: &str) -> Option<&Value> {
        self.map.get(&Self::key(server, tool))
    }

    /// Remembers a tool's arguments and writes the file (atomically: a temporary file renamed).
    pub fn remember(&mut self, server: &str, tool: &str, args: Value) -> Result<(), String> {
        self.map.insert(Self::key(server, tool), args);
        let Some(path) = &self.path else { return Ok(()) };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(&self.map).unwrap_or_default();
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}
