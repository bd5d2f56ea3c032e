//! The Tools tab's keys: moving between servers, tools and the form; the raw JSON editor and the
//! repeat count (both take every key); calling (refused when read-only, when the server is not
//! connected or the arguments do not conform; destructive tools confirmed first); the history
//! (re-run, load back); the endpoint jump.

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::Value;

use super::{Focus, Panel, ToolsPane};
use crate::mcp::ServerStatus;
use crate::tui::data::Data;
use crate::tui::event::{CALLING_TOOLS, McpJob};
use crate::tui::widgets::scroll::{Move, PAGE};
use crate::tui::panes::{KeyHint, Outbox, Tab, ctrl};
use crate::tui::widgets::Overlay;
use crate::tui::widgets::confirm::Confirm;
use crate::tui::widgets::toasts::Level;

/// Most calls one repeat may ask for.
pub const MAX_REPEAT: u32 = 1000;

impl ToolsPane {
    /// The repeat count (1 when empty).
    pub fn repeat_count(&self) -> Result<u32, String> {
        let t = self.repeat.trim();
        if t.is_empty() {
            return Ok(1);
        }
        match t.parse::<u32>() {
            Ok(n) if (1..=MAX_REPEAT).contains(&n) => Ok(n),
            _ => Err(format!("repeat must be 1 to {MAX_REPEAT}")),
        }
    }

    /// Calls the selected tool with the form's arguments.
    pub(super) fn send(&mut self, data: &Data, out: &mut Outbox) {
        let Some(tool) = self.selected_tool().cloned() else {
            out.toast(Level::Warn, "select a tool first");
            return;
        };
        let server = self.selected_server().map(|s| s.name.clone()).unwrap_or_default();
        if out.refused_on(data, CALLING_TOOLS, None) {
            self.notice = Some("read-only: tool calls are disabled".into());
            return;
        }
        if !matches!(
            self.selected_server().map(|s| &s.status),
            Some(ServerStatus::Connected { .. })
        ) {
            self.notice = Some(format!("not sent: {server} is not connected (c reconnects)"));
            return;
        }
        let repeat = match self.repeat_count() {
            Ok(n) => n,
            Err(e) => {
                self.notice = Some(format!("not sent: {e} (n)"));
                return;
            }
        };
        let raw_mode = self.focus == Focus::Raw;
        let Some(tf) = self.ensure_form() else { return };
        if raw_mode {
            tf.sync_form();
            if let Some(e) = tf.raw_error.clone() {
                self.notice = Some(format!("not sent: the raw JSON is invalid ({e})"));
                return;
            }
        }
        if let Some(first) = tf.form.errors.first().cloned() {
            let n = tf.form.errors.len();
            let (path, _, missing) = crate::tui::widgets::schema_form::problem_parts(&first);
            let field = missing.unwrap_or_else(|| path.to_string());
            tf.form.focus_path(&field);
            if !raw_mode {
                self.focus = Focus::Form;
            }
            self.notice = Some(format!(
                "not sent: {n} problem{} — {first}",
                if n == 1 { "" } else { "s" }
            ));
            return;
        }
        let args = tf.form.value();
        if let Err(e) = self.store.remember(&server, &tool.name, args.clone()) {
            out.toast(Level::Warn, format!("arguments not remembered: {e}"));
        }
        self.notice = None;
        let job = McpJob::ToolCall {
            server: server.clone(),
            tool: tool.name.to_string(),
            arguments: args.as_object().cloned(),
            repeat,
            reason: None,
        };
        let destructive = tool.annotations.as_ref().and_then(|a| a.destructive_hint) == Some(true)
            && tool.annotations.as_ref().and_then(|a| a.read_only_hint) != Some(true);
        if destructive {
            let mut lines = vec![
                format!("{} on {server} is annotated destructive.", tool.name),
                format!("arguments: {}", truncate(&args.to_string(), 200)),
            ];
            if repeat > 1 {
                lines.push(format!("it will be called {repeat} times"));
            }
            out.overlay = Some(Overlay::Confirm(Confirm {
                title: format!("Call {}?", tool.name),
                lines,
                jobs: vec![job.into()],
                danger: true,
                force: Vec::new(),
            }));
        } else {
            out.job(job);
        }
    }

    /// Re-runs the history entry under the cursor.
    fn rerun(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused_on(data, CALLING_TOOLS, None) {
            return;
        }
        let calls = self.tool_calls();
        if let Some(c) = calls.get(self.history_cursor).and_then(|&i| self.history.get(i)) {
            out.job(McpJob::ToolCall {
                server: c.server.clone(),
                tool: c.tool.clone(),
                arguments: c.arguments.clone(),
                repeat: c.repeat,
                reason: None,
            });
        }
    }

    /// Loads the arguments of the history entry under the cursor into the form.
    fn load(&mut self, out: &mut Outbox) {
        let calls = self.tool_calls();
        let Some(c) = calls.get(self.history_cursor).and_then(|&i| self.history.get(i)) else {
            return;
        };
        let (number, args) = (c.number, Value::Object(c.arguments.clone().unwrap_or_default()));
        if let Some(tf) = self.ensure_form() {
            tf.form.set_value(&args);
            tf.sync_raw();
        }
        self.panel = Panel::Result;
        self.focus = Focus::Form;
        out.toast(Level::Info, format!("loaded the arguments of call #{number}"));
    }

    /// Jumps to the endpoint behind the tool on the Variants (or Endpoints) tab.
    fn jump(&mut self, data: &mut Data, out: &mut Outbox, tab: Tab) {
        match self.endpoint_link() {
            Some(l) if data.endpoint(&l.endpoint).is_some() => {
                data.selected = Some(l.endpoint.clone());
                out.switch_to = Some(tab);
            }
            Some(l) => out.toast(Level::Warn, format!("{} is not in the inventory", l.endpoint)),
            None => out.toast(Level::Info, "this tool names no SageMaker endpoint"),
        }
    }

    pub(super) fn move_list(&mut self, m: Move) {
        match self.focus {
            Focus::Servers => {
                let n = self.servers.len();
                let before = self.server_cursor;
                self.server_cursor = m.cursor(self.server_cursor, n, PAGE);
                if before != self.server_cursor {
                    self.tool_cursor = 0;
                    self.show_latest();
                }
            }
            Focus::Tools => {
                let n = self.selected_server().map(|s| s.tools.len()).unwrap_or(0);
                self.tool_cursor = m.cursor(self.tool_cursor, n, PAGE);
                self.show_latest();
            }
            Focus::History => {
                let n = self.tool_calls().len();
                self.history_cursor = m.cursor(self.history_cursor, n, PAGE);
                self.shown = self.tool_calls().get(self.history_cursor).copied();
            }
            _ => {}
        }
    }

    /// Answers a key (the pane's entry point): Ctrl-S / F5 calls, then the focused part (the raw
    /// editor, the repeat count, the form, the history) has the key, then the pane's own keys.
    pub(super) fn on_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        if ctrl(&key, 's') || key.code == KeyCode::F(5) {
            self.send(data, out);
            return true;
        }
        let taken = match self.focus {
            Focus::Raw => {
                self.on_raw_key(key);
                true
            }
            Focus::Repeat => {
                self.on_repeat_key(key);
                true
            }
            Focus::Form => self.on_form_key(key),
            Focus::History => self.on_history_key(key, data, out),
            _ => false,
        };
        taken || self.on_pane_key(key, data, out)
    }

    /// The raw JSON editor takes every key; Esc goes back to the form, synced with the text.
    fn on_raw_key(&mut self, key: KeyEvent) {
        if key.code == KeyCode::Esc {
            self.focus = Focus::Form;
            if let Some(tf) = self.ensure_form() {
                tf.sync_form();
                if tf.raw_error.is_none() {
                    tf.sync_raw();
                }
            }
        } else if let Some(tf) = self.ensure_form()
            && tf.raw.input(key)
        {
            tf.sync_form();
            self.notice = None;
        }
    }

    /// The repeat count takes every key: digits, Backspace, and Esc / Enter / Tab to leave.
    fn on_repeat_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Esc | KeyCode::Enter | KeyCode::Tab => self.focus = Focus::Form,
            KeyCode::Backspace => {
                self.repeat.pop();
            }
            KeyCode::Char(c) if c.is_ascii_digit() => self.repeat.push(c),
            _ => {}
        }
    }

    /// The form's keys; whether it took the key (every key while a field is being edited).
    fn on_form_key(&mut self, key: KeyEvent) -> bool {
        let Some(tf) = self.ensure_form() else {
            return false;
        };
        let editing = tf.form.editing;
        let (used, changed) = tf.form.handle_key(key);
        if changed {
            tf.sync_raw();
        }
        if used && changed {
            self.notice = None;
        }
        used || editing
    }

    /// The history's keys (re-run, load, close); whether it took the key.
    fn on_history_key(&mut self, key: KeyEvent, data: &Data, out: &mut Outbox) -> bool {
        match key.code {
            KeyCode::Enter => self.rerun(data, out),
            KeyCode::Char('l') => self.load(out),
            KeyCode::Esc | KeyCode::Char('h') => {
                self.focus = Focus::Form;
                self.panel = Panel::Result;
            }
            _ => return false,
        }
        true
    }

    /// The pane's own keys: moving between and within the lists, the panels, the tool's
    /// description, reconnecting, the endpoint jumps and scrolling.
    fn on_pane_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        match key.code {
            KeyCode::Enter | KeyCode::Right => self.focus_inward(),
            KeyCode::Left | KeyCode::Esc | KeyCode::Backspace => return self.focus_outward(key.code),
            KeyCode::Char('J') if self.selected_tool().is_some() => {
                if let Some(tf) = self.ensure_form() {
                    tf.form.editing = false;
                }
                self.focus = Focus::Raw;
            }
            KeyCode::Char('n') if self.selected_tool().is_some() => self.focus = Focus::Repeat,
            KeyCode::Char('d') if matches!(self.focus, Focus::Tools | Focus::Servers) => self.describe_tool(out),
            KeyCode::Char('h') => self.open_history(out),
            KeyCode::Char('L') => {
                self.panel = if self.panel == Panel::Log {
                    Panel::Result
                } else {
                    Panel::Log
                };
                self.scroll = 0;
            }
            KeyCode::Char('c') => {
                if let Some(s) = self.selected_server() {
                    out.job(McpJob::Connect {
                        server: Some(s.name.clone()),
                    });
                }
            }
            KeyCode::Char('o') if matches!(self.focus, Focus::Tools | Focus::Servers) => self.start_login(false, out),
            KeyCode::Char('O') if matches!(self.focus, Focus::Tools | Focus::Servers) => self.start_login(true, out),
            KeyCode::Char('g') => self.jump(data, out, Tab::Variants),
            KeyCode::Char('G') => self.jump(data, out, Tab::Endpoints),
            // Rows move the focused list; pages scroll the result.
            _ => match Move::of_key(&key) {
                Some(m @ (Move::PageUp | Move::PageDown)) => self.scroll = m.offset(self.scroll, PAGE as u16),
                Some(m) => self.move_list(m),
                None => return false,
            },
        }
        true
    }

    /// Enter / Right: from the servers to their tools, from a tool to its form.
    fn focus_inward(&mut self) {
        match self.focus {
            Focus::Servers => self.focus = Focus::Tools,
            Focus::Tools if self.selected_tool().is_some() => self.focus = Focus::Form,
            _ => {}
        }
    }

    /// Left / Esc / Backspace: from the form to the tools, from the tools to the servers; an Esc
    /// with nowhere to go is left to the app (false).
    fn focus_outward(&mut self, code: KeyCode) -> bool {
        match self.focus {
            Focus::Tools => self.focus = Focus::Servers,
            Focus::Form => self.focus = Focus::Tools,
            _ if code == KeyCode::Esc => return false,
            _ => {}
        }
        true
    }

    /// The tool whole (a description cut in the header, the schemas), wrapped and scrollable.
    fn describe_tool(&self, out: &mut Outbox) {
        if let Some(t) = self.selected_tool() {
            let mut view = crate::tui::widgets::describe::DescribeView::loading(format!("tool {}", t.name));
            view.set(&serde_json::to_value(t).unwrap_or_default());
            out.overlay = Some(Overlay::Describe(view));
        }
    }

    /// Opens the history of the selected tool's calls (a hint when there is none yet).
    fn open_history(&mut self, out: &mut Outbox) {
        if self.tool_calls().is_empty() {
            out.toast(Level::Info, "no calls of this tool yet: Ctrl-S or F5 calls it");
        } else {
            self.panel = Panel::History;
            self.focus = Focus::History;
            self.history_cursor = self.history_cursor.min(self.tool_calls().len() - 1);
        }
    }

    /// Whether the selected server is a streamable HTTP one (it may log in with OAuth).
    fn selected_is_http(&self) -> bool {
        self.selected_server()
            .is_some_and(|s| s.transport == crate::mcp::TransportKind::Http)
    }

    /// The footer's keys for the current focus.
    pub(super) fn hints(&self, data: &Data) -> Vec<KeyHint> {
        let no_tool = self.selected_tool().is_none();
        let call = KeyHint::when("^S/F5", "call", no_tool || data.read_only);
        match self.focus {
            Focus::Raw => vec![KeyHint::new("Esc", "back to the form"), call],
            Focus::Repeat => vec![KeyHint::new("0-9", "repeat count"), KeyHint::new("Enter", "done"), call],
            Focus::History => vec![
                KeyHint::new("↑↓", "move"),
                KeyHint::when("Enter", "re-run", data.read_only),
                KeyHint::new("l", "load args"),
                KeyHint::new("Esc/h", "close"),
            ],
            Focus::Form if self.tool_form().is_some_and(|f| f.form.editing) => vec![
                KeyHint::new("Enter/Esc", "done"),
                KeyHint::new("Tab/↑↓", "next/prev field"),
                KeyHint::new("^U", "clear"),
                call,
            ],
            Focus::Form => vec![
                call,
                KeyHint::new("↑↓", "field"),
                KeyHint::new("⏎/i", "edit"),
                KeyHint::new("Space/←→", "toggle/choose"),
                KeyHint::new("a/d", "add/delete"),
                KeyHint::new("J", "raw JSON"),
                KeyHint::new("n", "repeat"),
                KeyHint::when("h", "history", self.tool_calls().is_empty()),
                KeyHint::new("L", "log"),
                KeyHint::when("g", "endpoint", self.endpoint_link().is_none()),
            ],
            Focus::Servers | Focus::Tools => {
                let mut keys = vec![
                    KeyHint::new("↑↓", "move"),
                    KeyHint::new("⏎/→", "open"),
                KeyHint::new("v", "resources/prompts"),
                    KeyHint::new("←", "back"),
                    KeyHint::when("c", "reconnect", self.servers.is_empty()),
                    call,
                    KeyHint::when("J", "raw JSON", no_tool),
                    KeyHint::when("d", "whole tool", no_tool),
                    KeyHint::new("L", "log"),
                    KeyHint::when("g/G", "endpoint", self.endpoint_link().is_none()),
                ];
                // Only an HTTP server logs in (OAuth): the key is offered where it works.
                if self.selected_is_http() {
                    keys.insert(4, KeyHint::new("o/O", "log in/out"));
                }
                keys
            }
        }
    }
}

/// At most `max` characters of `s`, with an ellipsis when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max.saturating_sub(1)).collect::<String>())
    }
}
