//! The Invoke pane's OpenAI mode: the body becomes a Chat Completions request (messages as JSON,
//! or a plain line wrapped into one user message), sent streamed over the OpenAI path; the
//! answer's deltas are gathered here as they arrive (text and tool calls) for the response panel.

use ratatui::text::{Line, Span};
use serde_json::{Value, json};

use super::{InvokePane, component};
use crate::aws::invoke::session::SessionInfo;
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, FleetJob, INVOKING};
use crate::tui::panes::Outbox;
use crate::tui::widgets::toasts::Level;
use crate::format::escape_line;
use crate::tui::theme::{Role, Theme};

/// One streamed chat call and what has come back so far.
#[derive(Debug, Clone, Default)]
pub struct ChatView {
    /// Job id, once submitted.
    pub id: Option<u64>,
    /// The endpoint (and component) it went to.
    pub target: String,
    /// Bytes of an event not yet ended by a blank line.
    pending: String,
    /// The answer's text so far.
    pub text: String,
    /// Tool calls so far: name and arguments (arguments arrive in pieces).
    pub tool_calls: Vec<(String, String)>,
    /// Whether the call ended (its last event arrived).
    pub done: bool,
    /// Why it failed.
    pub error: Option<String>,
    /// The session the call left.
    pub session: SessionInfo,
    /// The MCP server whose tools were offered, and how many.
    pub tools: Option<(String, usize)>,
}

/// The request for the typed body: a JSON object with `messages` is sent as is (with `stream`
/// set), a JSON array is taken as the messages, anything else is one user message; `tools` (a
/// chosen MCP server's) are added unless the request sets its own.
pub fn request_body(typed: &str, tools: Option<&[Value]>) -> Result<Vec<u8>, String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err("the message is empty".into());
    }
    let mut request = match serde_json::from_str::<Value>(typed) {
        Ok(Value::Object(o)) if o.contains_key("messages") => Value::Object(o),
        Ok(Value::Object(_)) => return Err("a JSON object needs `messages`".into()),
        Ok(messages @ Value::Array(_)) => json!({ "messages": messages }),
        _ => json!({ "messages": [{ "role": "user", "content": typed }] }),
    };
    request["stream"] = Value::Bool(true);
    if let Some(tools) = tools.filter(|_| request.get("tools").is_none()) {
        request["tools"] = Value::Array(tools.to_vec());
    }
    serde_json::to_vec(&request).map_err(|e| e.to_string())
}

impl ChatView {
    /// A call about to be submitted.
    pub fn new(target: String, tools: Option<(String, usize)>) -> ChatView {
        ChatView {
            target,
            tools,
            ..ChatView::default()
        }
    }

    /// Feeds bytes of the server-sent events; complete `data:` lines are applied.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.pending.push_str(&String::from_utf8_lossy(bytes));
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            if let Some(data) = line.trim().strip_prefix("data:") {
                self.apply(data.trim());
            }
        }
    }

    /// Applies one event's data: a `chat.completion.chunk`'s delta, or `[DONE]`.
    fn apply(&mut self, data: &str) {
        if data == "[DONE]" {
            return;
        }
        let Ok(chunk) = serde_json::from_str::<Value>(data) else {
            return;
        };
        let Some(delta) = chunk.pointer("/choices/0/delta") else {
            return;
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.text.push_str(text);
        }
        for call in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            let index = call.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
            while self.tool_calls.len() <= index {
                self.tool_calls.push((String::new(), String::new()));
            }
            let slot = &mut self.tool_calls[index];
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                slot.0.push_str(name);
            }
            if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
                slot.1.push_str(args);
            }
        }
    }

    /// The response panel's lines (text from the model escaped).
    pub fn lines(&self, theme: &Theme) -> Vec<Line<'static>> {
        let state = match (&self.error, self.done) {
            (Some(_), _) => "failed",
            (None, true) => "done",
            (None, false) => "streaming…",
        };
        let mut lines = vec![Line::from(Span::styled(
            format!("OpenAI chat · {} · {state}", self.target),
            theme.fg(Role::Muted),
        ))];
        if let Some((server, n)) = &self.tools {
            lines.push(Line::from(Span::styled(
                format!("tools offered: {n} of {}", escape_line(server)),
                theme.fg(Role::Muted),
            )));
        }
        if let Some(id) = &self.session.id {
            let expires = self.session.expires.as_deref().unwrap_or("?");
            lines.push(Line::from(format!("session {} · expires {}", escape_line(id), escape_line(expires))));
        }
        if let Some(e) = &self.error {
            lines.push(Line::from(Span::styled(escape_line(e).into_owned(), theme.fg(Role::Danger))));
        }
        lines.push(Line::default());
        lines.extend(self.text.lines().map(|l| Line::from(escape_line(l).into_owned())));
        for (name, args) in &self.tool_calls {
            lines.push(Line::from(Span::styled(
                format!("tool call {}({})", escape_line(name), escape_line(args)),
                theme.fg(Role::Accent),
            )));
        }
        lines
    }
}

impl InvokePane {
    /// `t` in OpenAI mode: the next connected MCP server whose tools are offered (then none).
    pub(super) fn cycle_tools(&mut self, out: &mut Outbox) {
        if !self.tools.any() {
            out.toast(Level::Info, "no connected MCP server has tools (6 Tools connects them)");
            return;
        }
        let text = match self.tools.cycle() {
            Some(server) => format!("OpenAI mode offers the tools of {}", escape_line(server)),
            None => "OpenAI mode offers no tools".to_string(),
        };
        out.toast(Level::Info, text);
    }

    /// `o`: toggles OpenAI mode (the body is a chat request).
    pub(super) fn toggle_openai(&mut self, out: &mut Outbox) {
        self.openai = !self.openai;
        let text = if self.openai {
            "OpenAI mode: the body is a chat request (messages JSON or a plain line); ^S streams the answer"
        } else {
            "raw mode: the body is sent to /invocations as typed"
        };
        out.toast(Level::Info, text);
    }

    /// Sends the body as a streamed Chat Completions call (read-only mode refuses it).
    pub(super) fn send_chat(&mut self, data: &Data, out: &mut Outbox) {
        let Some(form) = self.form.as_ref() else {
            out.toast(Level::Warn, "select an endpoint first (1 Endpoints)");
            return;
        };
        if out.refused(data, INVOKING) {
            return;
        }
        if form.hosts_components && form.component.is_none() {
            self.notice = Some("not sent: this endpoint hosts inference components: pick one (m)".into());
            return;
        }
        let body = match request_body(&form.body_text(), self.tools.chosen().map(|(_, t)| t)) {
            Ok(b) => b,
            Err(e) => {
                self.notice = Some(format!("not sent: {e}"));
                return;
            }
        };
        let component = form.component.clone().filter(|_| form.hosts_components);
        let target = match &component {
            Some(ic) => format!("{}/{ic}", form.endpoint),
            None => form.endpoint.clone(),
        };
        out.job(FleetJob::Chat {
            endpoint: form.endpoint.clone(),
            component,
            body,
            session_id: self.session.clone(),
            reason: None,
        });
        self.chat = Some(ChatView::new(target, self.tools.chosen().map(|(s, t)| (s.to_string(), t.len()))));
        self.notice = None;
        self.scroll = 0;
    }

    /// A chat job was submitted.
    pub(super) fn chat_submitted(&mut self, id: u64) {
        if let Some(c) = self.chat.as_mut().filter(|c| c.id.is_none()) {
            c.id = Some(id);
        }
    }

    /// A part of, or the end of, the shown chat call.
    pub(super) fn on_chat_event(&mut self, ev: &AppEvent, out: &mut Outbox) {
        match ev {
            AppEvent::ChatPart { id, bytes } => {
                if let Some(c) = self.chat.as_mut().filter(|c| c.id == Some(*id)) {
                    c.feed(bytes);
                }
            }
            AppEvent::Chatted { id, result } => {
                let Some(c) = self.chat.as_mut().filter(|c| c.id == Some(*id)) else {
                    return;
                };
                c.done = true;
                match result {
                    Ok(session) => {
                        if session.opened {
                            self.session = session.id.clone();
                        } else if session.closed {
                            self.session = None;
                        }
                        c.session = session.clone();
                    }
                    Err(e) => {
                        let text = component::error_text(e);
                        out.toast(Level::Error, format!("chat {}: {text}", c.target));
                        c.error = Some(text);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn a_plain_line_becomes_one_streamed_user_message() {
        let body: Value = serde_json::from_slice(&request_body("hello", None).unwrap()).unwrap();
        assert_eq!(body, json!({"messages": [{"role": "user", "content": "hello"}], "stream": true}));
        assert!(request_body("{\"model\": 1}", None).is_err());
        let tools = [json!({"type": "function", "function": {"name": "top_song"}})];
        let body: Value = serde_json::from_slice(&request_body("hi", Some(&tools)).unwrap()).unwrap();
        assert_eq!(body["tools"][0]["function"]["name"], "top_song");
        let own = r#"{"messages": [], "tools": []}"#;
        let body: Value = serde_json::from_slice(&request_body(own, Some(&tools)).unwrap()).unwrap();
        assert_eq!(body["tools"], json!([]), "the request's own tools are kept");
    }

    #[test]
    fn deltas_gather_into_text_and_tool_calls_across_parts() {
        let mut v = ChatView::new("ep".into(), None);
        v.feed(b"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"del");
        v.feed(b"ta\":{\"content\":\"lo\",\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"top_song\",\"arguments\":\"{}\"}}]}}]}\n\n");
        v.feed(b"data: [DONE]\n\n");
        assert_eq!(v.text, "Hello");
        assert_eq!(v.tool_calls, vec![("top_song".to_string(), "{}".to_string())]);
    }
}
