//! Invoke: test-invoke the selected endpoint. A form (content type, accept, target variant cycled
//! through the endpoint's variants, target model completed from an MME's catalog, repeat N) over
//! a multi-line body editor whose JSON is checked as it is typed; the response pretty-printed (or
//! size and hex preview), invoked variant, latency, attempts, the classified error; a repeat's
//! p50/p95/p99 and variant split; a history of calls to re-run or load back. Sending only queues a
//! [`FleetJob::Invoke`] (`send.rs`); on an asynchronous endpoint a [`FleetJob::InvokeAsync`], each
//! request then followed to its end (`asynchronous.rs`, its list in `requests.rs`); OpenAI mode
//! in `chat.rs`. Read-only mode refuses every one.

mod asynchronous;
mod calls;
mod chat;
mod component;
mod form;
mod keys;
mod requests;
mod send;
mod session;
mod tools;
mod upload;
mod view;

use std::collections::{HashMap, HashSet};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane, PaneCommand, ctrl};
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, FleetJob, FleetKind, Job, JobKind};
use crate::tui::theme::Theme;
use crate::tui::widgets::scroll;
use crate::tui::widgets::toasts::Level;

pub use calls::{Call, CallState};
pub use chat::ChatView;
pub use form::{BodyCheck, CONTENT_TYPES, Field, Form, PayloadKind, check_body, reindent};
use keys::model_completions;
pub use requests::{AsyncRequest, AsyncRequestState, AsyncRequests};
pub use upload::PendingAsync;

/// Calls kept in the history.
pub const HISTORY_LIMIT: usize = 50;

/// The pane's state.
#[derive(Debug, Default)]
pub struct InvokePane {
    /// The form of the selected endpoint.
    form: Option<Form>,
    /// Forms of other endpoints, kept while the selection moves.
    drafts: HashMap<String, Form>,
    /// The field being edited (None: the pane's own keys).
    focus: Option<Field>,
    /// Calls, oldest first.
    history: Vec<Call>,
    /// Calls made this session.
    calls_made: usize,
    /// Whether the history list is open.
    history_open: bool,
    /// Row of the history list.
    history_cursor: usize,
    /// The call the response panel shows.
    shown: Option<usize>,
    /// Response scroll offset.
    scroll: u16,
    /// Why the last send was refused (shown inline until the next edit or send).
    notice: Option<String>,
    /// MME catalogs already asked for.
    catalogs_requested: HashSet<String>,
    /// Components of IC endpoints already asked for.
    components_requested: HashSet<String>,
    /// The stateful session the next calls are sent in (`:session new|ID|off`): `NEW_SESSION`
    /// until a call opens one, then its id, until a call closes it.
    session: Option<String>,
    /// OpenAI mode (`o`): the body is a Chat Completions request, streamed over the OpenAI path.
    openai: bool,
    /// The latest chat call of OpenAI mode.
    chat: Option<chat::ChatView>,
    /// Asynchronous requests sent this session, followed to their end.
    requests: AsyncRequests,
    /// Asynchronous requests sent and not yet accepted or refused (uploading, or queueing).
    pending: Vec<upload::PendingAsync>,
    /// Where bodies too large to send inline are uploaded, per endpoint.
    input_prefixes: upload::InputPrefixes,
    /// OpenAI mode's tools: the connected MCP servers' and the one chosen (`t`).
    tools: tools::ToolChoice,
}

impl InvokePane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Invoke";

    /// The form of the selected endpoint (None when nothing is selected).
    pub fn form(&self) -> Option<&Form> {
        self.form.as_ref()
    }

    /// The field being edited.
    pub fn focus(&self) -> Option<Field> {
        self.focus
    }

    /// Every call, oldest first.
    pub fn history(&self) -> &[Call] {
        &self.history
    }

    /// The call the response panel shows.
    pub fn shown_call(&self) -> Option<&Call> {
        self.shown.and_then(|i| self.history.get(i))
    }

    /// Why the last send was refused.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Whether OpenAI mode is on, and its latest chat call.
    pub fn openai(&self) -> (bool, Option<&ChatView>) {
        (self.openai, self.chat.as_ref())
    }

    /// The asynchronous requests sent this session, oldest first.
    pub fn async_requests(&self) -> &[AsyncRequest] {
        self.requests.all()
    }

    /// The asynchronous requests sent and not yet accepted or refused.
    pub fn pending_async(&self) -> &[PendingAsync] {
        &self.pending
    }

    /// Sets where bodies too large to send inline are uploaded when an endpoint has no
    /// `:input-prefix` of its own (`[invoke] async_input_prefix`).
    pub fn set_input_prefix_default(&mut self, prefix: Option<String>) {
        self.input_prefixes.set_default(prefix);
    }

    /// Whether the history list is open.
    pub fn history_open(&self) -> bool {
        self.history_open
    }

    /// Makes the form follow the selected endpoint (drafts of others are kept); asks for an MME's
    /// catalog once when `out` is given.
    fn sync(&mut self, data: &Data, out: Option<&mut Outbox>) {
        let selected = data.selected_endpoint();
        let current = self.form.as_ref().map(|f| f.endpoint.as_str());
        if selected.map(|e| e.name.as_str()) != current {
            if let Some(old) = self.form.take() {
                self.drafts.insert(old.endpoint.clone(), old);
            }
            self.focus = None;
            self.notice = None;
            self.form = selected.map(|e| {
                self.drafts.remove(&e.name).unwrap_or_else(|| {
                    let first = data.catalogs.get(&e.name).and_then(|c| c.models.first());
                    Form::new(e, first.map(|m| m.key.as_str()))
                })
            });
        }
        // The kind is known once the endpoint is described (the row is listed before).
        if let (Some(f), Some(e)) = (self.form.as_mut(), selected) {
            f.asynchronous = e.kind.is_async();
        }
        // Variants change with weight updates: keep the cycle current.
        if let (Some(f), Some(e)) = (self.form.as_mut(), selected)
            && f.variants.iter().ne(e.variants.iter().map(|v| &v.name))
        {
            f.variants = e.variants.iter().map(|v| v.name.clone()).collect();
            if f.variant.as_ref().is_some_and(|v| !f.variants.contains(v)) {
                f.variant = None;
            }
        }
        if let Some(f) = self.form.as_mut().filter(|f| f.model_pending)
            && let Some(first) = data.catalogs.get(&f.endpoint).and_then(|c| c.models.first())
        {
            f.model = first.key.clone();
            f.model_pending = false;
        }
        let mut out = out;
        self.sync_components(data, out.as_deref_mut());
        if let (Some(e), Some(out)) = (selected, out)
            && let Some(prefix) = e.mme_prefix()
            && !data.catalogs.contains_key(&e.name)
            && self.catalogs_requested.insert(e.name.clone())
        {
            out.job(FleetJob::Catalog {
                endpoint: e.name.clone(),
                prefix: prefix.to_string(),
            });
        }
    }
}

impl Pane for InvokePane {
    fn on_submitted(&mut self, id: u64, job: &Job) {
        if job.kind() == JobKind::Fleet(FleetKind::Invoke) {
            self.take_id(id);
        } else if job.kind() == JobKind::Fleet(FleetKind::Chat) {
            self.chat_submitted(id);
        } else if job.kind() == JobKind::Fleet(FleetKind::InvokeAsync)
            && let Some(p) = self.pending.iter_mut().find(|p| p.job.is_none())
        {
            p.job = Some(id);
        }
    }

    fn on_finished(&mut self, id: u64, _kind: Option<JobKind>, cancelled: bool, _out: &mut Outbox) {
        if cancelled {
            self.cancelled(id);
            self.pending.retain(|p| p.job != Some(id));
        }
    }

    fn on_event(&mut self, ev: &AppEvent, _data: &mut Data, out: &mut Outbox, _visible: bool) {
        if let AppEvent::Invoked { id, result, .. } = ev {
            self.on_result(*id, result.clone(), out);
        }
        if let AppEvent::McpServers { servers, .. } = ev {
            self.tools.update(servers);
        }
        self.on_chat_event(ev, out);
        self.on_async_event(ev, out);
    }

    fn capturing_text(&self) -> bool {
        self.focus.is_some() || self.history_open
    }

    fn commands(&self) -> &'static [PaneCommand] {
        &[
            PaneCommand {
                name: "session",
                takes_arg: true,
                help: "Invoke: send the next calls in a stateful session: new, an id, or off",
            },
            PaneCommand {
                name: "input-prefix",
                takes_arg: true,
                help: "Invoke: upload an async endpoint's larger bodies under s3://BUCKET/PREFIX/ (off clears)",
            },
            PaneCommand {
                name: "body-file",
                takes_arg: true,
                help: "Invoke: load the body from a file",
            },
        ]
    }

    fn command_args(&self, name: &str) -> &'static [&'static str] {
        match name {
            "session" => &["new", "off"],
            "input-prefix" => &["off"],
            _ => &[],
        }
    }

    fn run_command(&mut self, name: &str, arg: Option<&str>, data: &mut Data, out: &mut Outbox) -> bool {
        match name {
            "session" => {
                let (session, text) = session::command(self.session.take(), arg);
                self.session = session;
                out.toast(Level::Info, text);
            }
            "input-prefix" | "body-file" => {
                self.sync(data, None);
                let Some(endpoint) = self.form.as_ref().map(|f| f.endpoint.clone()) else {
                    out.toast(Level::Warn, "select an endpoint first (1 Endpoints)");
                    return true;
                };
                if name == "input-prefix" {
                    let (text, taken) = self.input_prefixes.command(&endpoint, arg);
                    out.toast(if taken { Level::Info } else { Level::Warn }, text);
                } else {
                    self.load_body_file(arg.unwrap_or_default(), out);
                }
            }
            _ => return false,
        }
        true
    }

    fn on_show(&mut self, data: &mut Data, out: &mut Outbox) {
        self.sync(data, Some(out));
    }

    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        self.sync(data, Some(out));
        if ctrl(&key, 's') || key.code == KeyCode::F(5) {
            if self.openai {
                self.send_chat(data, out);
            } else {
                self.send(data, out);
            }
            return true;
        }
        if let Some(field) = self.focus {
            self.field_key(field, key, data);
            return true;
        }
        if self.history_open {
            return self.history_key(key, data, out);
        }
        match key.code {
            KeyCode::Char('i') | KeyCode::Enter => self.focus_field(Field::Body, out),
            KeyCode::Char('c') => self.focus_field(Field::ContentType, out),
            KeyCode::Char('a') => self.focus_field(Field::Accept, out),
            KeyCode::Char('m') => self.focus_field(Field::Model, out),
            KeyCode::Char('n') => self.focus_field(Field::Repeat, out),
            KeyCode::Char('v') | KeyCode::Char('V') => match self.form.as_mut() {
                Some(f) => f.cycle_variant(key.code == KeyCode::Char('V')),
                None => out.toast(Level::Warn, "select an endpoint first (1 Endpoints)"),
            },
            KeyCode::Char('f') => {
                if let Some(f) = self.form.as_mut()
                    && !f.pretty_print()
                {
                    out.toast(Level::Warn, "the body is not valid JSON; nothing to pretty-print");
                }
            }
            KeyCode::Char('b') => {
                if let Some(f) = self.form.as_mut() {
                    f.set_body(f.kind.defaults().2);
                    self.notice = None;
                }
            }
            KeyCode::Char('x') => {
                // Clears the body only: the next key is a command again, not body text (`i` edits).
                if let Some(f) = self.form.as_mut() {
                    f.set_body("");
                    out.toast(Level::Info, "body cleared: i edits it");
                }
            }
            KeyCode::Char('h') => {
                if self.history.is_empty() {
                    out.toast(Level::Info, "no calls yet: Ctrl-S or F5 sends");
                } else {
                    self.history_open = true;
                    self.history_cursor = self.shown.unwrap_or(self.history.len() - 1);
                }
            }
            KeyCode::Char('L') => self.logs_at_error(data, out),
            KeyCode::Char('o') => self.toggle_openai(out),
            KeyCode::Char('t') if self.openai => self.cycle_tools(out),
            _ => return scroll::offset_key(&mut self.scroll, &key, scroll::PAGE as u16),
        }
        true
    }

    fn help(&self) -> Vec<KeyHint> {
        vec![
            KeyHint::new("L", "logs around the shown call's error"),
            KeyHint::new("o", "OpenAI mode: the body is a chat request, the answer streamed"),
            KeyHint::new("t", "OpenAI mode: offer the tools of the next connected MCP server"),
        ]
    }

    fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        self.sync(data, None);
        view::render(self, f, area, data, theme);
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        let send = KeyHint::when("^S/F5", "send", !self.can_send(data));
        if let Some(field) = self.focus {
            let mut keys = vec![
                KeyHint::new("Tab/⇧Tab", "next/prev field"),
                KeyHint::new("Esc", "leave field"),
            ];
            match field {
                Field::Body => keys.push(KeyHint::new("^U/^R", "undo/redo")),
                Field::ContentType | Field::Accept => keys.push(KeyHint::new("↑↓", "common types")),
                Field::Variant => keys.push(KeyHint::new("←→/Space", "cycle")),
                Field::Model => keys.push(KeyHint::new("↑↓ Enter", "pick model")),
                Field::Component => keys.push(KeyHint::new("←→/Space", "cycle")),
                Field::Repeat => keys.push(KeyHint::new("0-9", "count")),
            }
            keys.push(send);
            return keys;
        }
        if self.history_open {
            return vec![
                KeyHint::new("↑↓", "move"),
                KeyHint::when("Enter", "re-run", data.read_only),
                KeyHint::new("l", "load into form"),
                KeyHint::new("Esc/h", "close"),
                KeyHint::new("q", "quit"),
            ];
        }
        let none = self.form.is_none();
        let not_mme = self.form.as_ref().is_none_or(|f| !f.multi_model && !f.hosts_components);
        let ic = self.form.as_ref().is_some_and(|f| f.hosts_components);
        let mut keys = vec![
            send,
            KeyHint::when("o", if self.openai { "raw" } else { "openai" }, none),
            KeyHint::when("i/⏎", "edit", none),
            KeyHint::when("c/a", "type/accept", none),
            KeyHint::when("v", "variant", none),
            KeyHint::when("m", if ic { "component" } else { "model" }, not_mme),
            KeyHint::when("n", "repeat", none),
            KeyHint::when("f", "pretty", none),
            KeyHint::when("b/x", "reset/clear", none),
            KeyHint::when("h", "history", self.history.is_empty()),
            KeyHint::new("↑↓", "scroll"),
        ];
        if self.openai {
            keys.insert(2, KeyHint::when("t", "tools", !self.tools.any()));
        }
        keys
    }
}
