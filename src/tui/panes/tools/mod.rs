//! Tools: call MCP tools by hand. The servers of the registry with their status (connecting,
//! connected with the protocol version, failed and why); the selected server's tools with their
//! annotations; a form generated from the tool's input schema, validated as it is edited, and a
//! raw JSON editor kept in sync with it; the result (text, pretty JSON, structured content,
//! images, resource links, `isError` highlighted) with a progress bar while the call runs; the
//! server's log; each tool's history with durations and re-run; repeat N with p50/p95/p99; the
//! SageMaker endpoint behind the tool with its status and live p99, and a key to jump to it.
//! Arguments last sent to each tool are remembered across runs ([`ArgsStore`]). Calling only
//! queues a [`McpJob::ToolCall`]; destructive tools ask first; read-only mode refuses. `v`
//! switches to the Resources and Prompts views, and a server's request for input is answered in
//! a dialog over the pane (`catalog/`).

pub mod catalog;
mod calls;
mod keys;
mod login;
mod result;
mod view;

use std::collections::HashMap;
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui_textarea::TextArea;
use rmcp::model::Tool;
use serde_json::Value;

use super::{KeyHint, Outbox, Pane, Tab};
use crate::mcp::events::ServerLog;
use crate::mcp::{EndpointLink, ServerStatus, ServerView, endpoint_link};
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, Job, JobKind, McpJob};
use crate::tui::theme::Theme;
use crate::tui::widgets::schema_form::SchemaForm;
use crate::tui::widgets::toasts::Level;

pub use calls::{ArgsStore, ToolCall, ToolCallState};
pub use login::LoginDialog;

/// Calls kept in the history (all tools together).
pub const HISTORY_LIMIT: usize = 200;

/// Which part of the pane has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    /// The server list.
    #[default]
    Servers,
    /// The tool list.
    Tools,
    /// The generated form.
    Form,
    /// The raw JSON editor.
    Raw,
    /// The repeat count.
    Repeat,
    /// The selected tool's call history.
    History,
}

/// What the lower right panel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Panel {
    /// The shown call's result.
    #[default]
    Result,
    /// The server's log.
    Log,
    /// The tool's history.
    History,
}

/// The arguments of one tool: the form and the raw JSON editor.
#[derive(Debug, Clone)]
pub struct ToolForm {
    /// The generated form.
    pub form: SchemaForm,
    /// The raw JSON editor.
    pub raw: TextArea<'static>,
    /// Why the raw JSON does not parse (line, column, message).
    pub raw_error: Option<String>,
}

impl ToolForm {
    /// The form of `tool`, filled with remembered arguments when there are some.
    pub fn new(tool: &Tool, remembered: Option<&Value>) -> ToolForm {
        let mut form = SchemaForm::new(&Value::Object((*tool.input_schema).clone()));
        if let Some(v) = remembered {
            form.set_value(v);
        }
        let mut f = ToolForm {
            form,
            raw: TextArea::default(),
            raw_error: None,
        };
        f.sync_raw();
        f
    }

    /// Rewrites the raw editor from the form.
    pub fn sync_raw(&mut self) {
        self.raw = TextArea::new(self.form.json_text().split('\n').map(str::to_string).collect());
        self.raw_error = None;
    }

    /// The raw editor's text.
    pub fn raw_text(&self) -> String {
        self.raw.lines().join("\n")
    }

    /// Parses the raw editor and fills the form from it when it is a JSON object.
    pub fn sync_form(&mut self) {
        match serde_json::from_str::<Value>(&self.raw_text()) {
            Ok(v @ Value::Object(_)) => {
                self.form.set_value(&v);
                self.raw_error = None;
            }
            Ok(_) => self.raw_error = Some("the arguments must be a JSON object".into()),
            Err(e) => self.raw_error = Some(format!("line {}, column {}: {e}", e.line(), e.column())),
        }
    }
}

/// The pane's state.
#[derive(Debug, Default)]
pub struct ToolsPane {
    servers: Vec<ServerView>,
    logs: HashMap<String, ServerLog>,
    server_cursor: usize,
    tool_cursor: usize,
    focus: Focus,
    panel: Panel,
    forms: HashMap<(String, String), ToolForm>,
    history: Vec<ToolCall>,
    calls_made: usize,
    shown: Option<usize>,
    history_cursor: usize,
    scroll: u16,
    repeat: String,
    notice: Option<String>,
    store: ArgsStore,
    catalog: catalog::CatalogState,
    login: Option<LoginDialog>,
}

impl ToolsPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Tools";

    /// Keeps remembered arguments in `path` (None: in memory only); tests point it at a
    /// temporary directory, the console at [`ArgsStore::default_path`].
    pub fn set_args_path(&mut self, path: Option<PathBuf>) {
        self.store = ArgsStore::at(path);
        self.forms.clear();
    }

    /// The servers as last reported.
    pub fn servers(&self) -> &[ServerView] {
        &self.servers
    }

    /// Shows these servers (the registry before connecting: their status is Idle).
    pub fn set_servers(&mut self, servers: Vec<ServerView>) {
        self.servers = servers;
        self.server_cursor = self.server_cursor.min(self.servers.len().saturating_sub(1));
    }

    /// Which part has the keys.
    pub fn focus(&self) -> Focus {
        self.focus
    }

    /// What the lower right panel shows.
    pub fn panel(&self) -> Panel {
        self.panel
    }

    /// Why the last call was refused (shown until the next edit or call).
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Every call, oldest first.
    pub fn history(&self) -> &[ToolCall] {
        &self.history
    }

    /// The call the result panel shows.
    pub fn shown_call(&self) -> Option<&ToolCall> {
        self.shown.and_then(|i| self.history.get(i))
    }

    /// The Resources and Prompts views' state (and the requests for input waiting).
    pub fn catalog(&self) -> &catalog::CatalogState {
        &self.catalog
    }

    /// ` · protocol VERSION` of the selected server once connected (empty before).
    pub fn protocol_text(&self) -> String {
        match self.selected_server().map(|s| &s.status) {
            Some(ServerStatus::Connected { protocol_version, .. }) => format!(" · protocol {protocol_version}"),
            _ => String::new(),
        }
    }

    /// The selected server.
    pub fn selected_server(&self) -> Option<&ServerView> {
        self.servers.get(self.server_cursor)
    }

    /// The selected tool.
    pub fn selected_tool(&self) -> Option<&Tool> {
        self.selected_server()?.tools.get(self.tool_cursor)
    }

    /// Selects a server and a tool by name; returns whether both exist.
    pub fn select(&mut self, server: &str, tool: &str) -> bool {
        let Some(si) = self.servers.iter().position(|s| s.name == server) else {
            return false;
        };
        let Some(ti) = self.servers[si].tools.iter().position(|t| t.name == tool) else {
            return false;
        };
        self.server_cursor = si;
        self.tool_cursor = ti;
        self.focus = Focus::Form;
        self.show_latest();
        self.ensure_form();
        true
    }

    fn key_of(&self) -> Option<(String, String)> {
        let s = self.selected_server()?;
        let t = s.tools.get(self.tool_cursor)?;
        Some((s.name.clone(), t.name.to_string()))
    }

    /// The selected tool's arguments (created on first use).
    pub fn tool_form(&self) -> Option<&ToolForm> {
        self.key_of().and_then(|k| self.forms.get(&k))
    }

    fn ensure_form(&mut self) -> Option<&mut ToolForm> {
        let key = self.key_of()?;
        if !self.forms.contains_key(&key) {
            let tool = self.selected_tool()?.clone();
            let form = ToolForm::new(&tool, self.store.get(&key.0, &key.1));
            self.forms.insert(key.clone(), form);
        }
        self.forms.get_mut(&key)
    }

    /// The selected tool's calls (indices into the history), oldest first.
    pub fn tool_calls(&self) -> Vec<usize> {
        let Some((s, t)) = self.key_of() else { return Vec::new() };
        (0..self.history.len())
            .filter(|&i| self.history[i].server == s && self.history[i].tool == t)
            .collect()
    }

    fn show_latest(&mut self) {
        let calls = self.tool_calls();
        self.shown = calls.last().copied();
        self.history_cursor = calls.len().saturating_sub(1);
        self.scroll = 0;
    }

    /// The SageMaker endpoint behind the selected tool: from its latest result's structured
    /// content, else from the tool's metadata.
    pub fn endpoint_link(&self) -> Option<EndpointLink> {
        let tool = self.selected_tool()?;
        let structured = self
            .tool_calls()
            .iter()
            .rev()
            .find_map(|&i| match &self.history[i].last {
                Some(Ok(o)) => o.result.structured.as_ref(),
                _ => None,
            });
        endpoint_link(Some(tool), structured)
    }

    /// A job was queued: connections mark their servers connecting; a call gets its record.
    fn take_id(&mut self, id: u64, job: &Job) {
        match job {
            Job::Mcp(McpJob::Login { server }) => self.login_submitted(id, server),
            Job::Mcp(McpJob::Connect { server }) => {
                for s in &mut self.servers {
                    if server.as_ref().is_none_or(|n| *n == s.name) {
                        s.status = ServerStatus::Connecting;
                    }
                }
            }
            Job::Mcp(McpJob::ToolCall {
                server,
                tool,
                arguments,
                repeat,
                ..
            }) => {
                self.calls_made += 1;
                self.history.push(ToolCall::new(
                    self.calls_made,
                    id,
                    server,
                    tool,
                    arguments.clone(),
                    *repeat,
                ));
                if self.history.len() > HISTORY_LIMIT {
                    self.history.remove(0);
                }
                self.shown = Some(self.history.len() - 1);
                self.history_cursor = self.tool_calls().len().saturating_sub(1);
                self.panel = Panel::Result;
                self.scroll = 0;
            }
            _ => {}
        }
    }

    /// The worker is done with job `id`: a call still waiting for answers ends, cancelled (Esc)
    /// or done with fewer answers than asked.
    fn finished(&mut self, id: u64, cancelled: bool, out: &mut Outbox) {
        let Some(c) = self.history.iter_mut().find(|c| c.id == id && c.in_flight()) else {
            return;
        };
        if cancelled {
            c.state = ToolCallState::Cancelled;
        } else {
            // Fewer answers than asked: the rest were never sent (refused, or the server went).
            c.state = ToolCallState::Done;
            out.toast(Level::Warn, format!("{} ×{}: {}", c.tool, c.repeat, c.summary()));
        }
    }

    /// Applies an MCP event from the worker.
    fn apply_event(&mut self, ev: AppEvent, out: &mut Outbox) {
        match ev {
            AppEvent::McpServers { servers, logs } => {
                let selected = self.selected_server().map(|s| s.name.clone());
                for s in &servers {
                    let before = self.servers.iter().find(|o| o.name == s.name).map(|o| &o.status);
                    if let ServerStatus::Failed { reason, class } = &s.status
                        && !matches!(before, Some(ServerStatus::Failed { .. }))
                    {
                        let why = match class.as_str() {
                            "login_required" => format!("{reason} (or press o in the Tools tab)"),
                            _ => reason.clone(),
                        };
                        out.toast(Level::Error, format!("MCP server {}: {why}", s.name));
                    }
                }
                self.servers = servers;
                self.logs.extend(logs);
                if let Some(i) = selected.and_then(|n| self.servers.iter().position(|s| s.name == n)) {
                    self.server_cursor = i;
                }
                self.server_cursor = self.server_cursor.min(self.servers.len().saturating_sub(1));
                let n = self.selected_server().map(|s| s.tools.len()).unwrap_or(0);
                self.tool_cursor = self.tool_cursor.min(n.saturating_sub(1));
            }
            AppEvent::McpLogin { server, step } => self.login_step(&server, &step, out),
            AppEvent::ToolProgress { id, progress } => {
                if let Some(c) = self.history.iter_mut().find(|c| c.id == id && c.in_flight()) {
                    c.progress = Some(progress);
                }
            }
            AppEvent::ToolResult { id, result, .. } => {
                let Some(c) = self.history.iter_mut().find(|c| c.id == id) else {
                    return;
                };
                let failure = match &result {
                    Err(crate::mcp::CallError::Cancelled) => None,
                    Err(e) => Some(e.to_string()),
                    Ok(_) => None,
                };
                let done = c.record(result);
                if c.repeat == 1 {
                    if let Some(e) = failure {
                        out.toast(Level::Error, format!("{}: {e}", c.tool));
                    }
                } else if done {
                    let level = if c.failed + c.tool_errors > 0 {
                        Level::Warn
                    } else {
                        Level::Info
                    };
                    out.toast(level, format!("{} ×{}: {}", c.tool, c.repeat, c.summary()));
                }
            }
            _ => {}
        }
    }

    /// The log of the selected server (None before it connects).
    pub fn log(&self) -> Option<&ServerLog> {
        self.logs.get(&self.selected_server()?.name)
    }
}

impl Pane for ToolsPane {
    fn on_submitted(&mut self, id: u64, job: &Job) {
        if matches!(job, Job::Mcp(_)) {
            self.take_id(id, job);
        }
    }

    fn on_finished(&mut self, id: u64, _kind: Option<JobKind>, cancelled: bool, out: &mut Outbox) {
        self.finished(id, cancelled, out);
    }

    fn on_event(&mut self, ev: &AppEvent, _data: &mut Data, out: &mut Outbox, _visible: bool) {
        if let AppEvent::McpElicit(slot) = ev {
            if let Some(ask) = slot.take() {
                out.toast(Level::Info, format!("{} asks for input", ask.server));
                self.catalog.eliciting.push(ask);
                out.switch_to = Some(Tab::Tools);
            }
            return;
        }
        self.catalog.apply(ev, out);
        if matches!(
            ev,
            AppEvent::McpServers { .. }
                | AppEvent::McpLogin { .. }
                | AppEvent::ToolProgress { .. }
                | AppEvent::ToolResult { .. }
        ) {
            self.apply_event(ev.clone(), out);
        }
    }

    fn capturing_text(&self) -> bool {
        if self.catalog.eliciting.active() {
            return true;
        }
        if self.catalog.view != catalog::View::Tools {
            return self.catalog.form_focus && self.catalog.form.as_ref().is_some_and(|(_, f)| f.editing);
        }
        if self.login.is_some() {
            return true;
        }
        match self.focus {
            Focus::Raw | Focus::Repeat => true,
            Focus::Form => self.tool_form().is_some_and(|f| f.form.editing),
            _ => false,
        }
    }

    fn on_show(&mut self, _data: &mut Data, _out: &mut Outbox) {
        self.ensure_form();
    }

    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        if self.catalog.eliciting.active() {
            if let Some(verb) = self.catalog.eliciting.on_key(key) {
                out.toast(Level::Info, format!("request for input {verb}"));
            }
            return true;
        }
        if self.catalog.view != catalog::View::Tools {
            return self.on_catalog_key(key, out);
        }
        if key.code == KeyCode::Char('v') && matches!(self.focus, Focus::Servers | Focus::Tools) {
            self.switch_view();
            return true;
        }
        if self.login.is_some() {
            self.on_login_key(key, out);
            return true;
        }
        self.ensure_form();
        self.on_key(key, data, out)
    }

    fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        self.ensure_form();
        view::render(self, f, area, data, theme);
        if let Some(d) = &self.login {
            login::render_login(d, f, area, theme);
        }
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        if self.catalog.eliciting.active() {
            return self.catalog.eliciting.hints();
        }
        if self.catalog.view != catalog::View::Tools {
            return self.catalog_hints();
        }
        self.hints(data)
    }
}
