//! Invoke: test-invoke the selected endpoint. A form (content type, accept, target variant cycled
//! through the endpoint's variants, target model completed from an MME's catalog, repeat N) over
//! a multi-line body editor whose JSON is checked as it is typed; the response pretty-printed (or
//! size and hex preview), invoked variant, latency, attempts, the classified error; a repeat's
//! p50/p95/p99 and variant split; a history of calls to re-run or load back. Sending only queues a
//! [`FleetJob::Invoke`]; read-only mode refuses it.

mod calls;
mod chat;
mod component;
mod form;
mod keys;
mod requests;
mod session;
mod view;

use std::collections::{HashMap, HashSet};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane, PaneCommand, ctrl};
use crate::aws::invoke::call::{InvokeFailure, InvokeResult, InvokeSpec, validate_body};
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, FleetJob, FleetKind, INVOKING, Job, JobKind};
use crate::tui::theme::Theme;
use crate::tui::widgets::toasts::Level;
use crate::tui::widgets::scroll;

pub use calls::{Call, CallState};
pub use chat::ChatView;
pub use requests::{AsyncRequest, AsyncRequestState, AsyncRequests, inline_refusal};
pub use form::{BodyCheck, CONTENT_TYPES, Field, Form, PayloadKind, check_body, reindent};
use keys::model_completions;

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

    /// Whether Ctrl-S would send now (for the footer).
    fn can_send(&self, data: &Data) -> bool {
        !data.read_only
            && self
                .form
                .as_ref()
                .is_some_and(|f| !matches!(f.check, BodyCheck::Invalid { .. } | BodyCheck::Empty))
    }

    /// Sends the form: refused when read-only, or with the reason inline when the form is not
    /// sendable (invalid JSON names the line and column, and the cursor goes there).
    fn send(&mut self, data: &Data, out: &mut Outbox) {
        let Some(form) = self.form.as_mut() else {
            out.toast(Level::Warn, "select an endpoint first (1 Endpoints)");
            return;
        };
        if out.refused(data, INVOKING) {
            return;
        }
        form.recheck();
        if let BodyCheck::Invalid { message, line, column } = form.check.clone() {
            form.jump_to(line, column);
            self.focus = Some(Field::Body);
            out.toast(
                Level::Warn,
                format!("not sent: invalid body at line {line}, column {column}: {message}"),
            );
            self.notice = Some(format!("not sent: fix the body (line {line}, column {column})"));
            return;
        }
        let refusal = if form.check == BodyCheck::Empty {
            Some("not sent: the body is empty".to_string())
        } else if form.content_type.trim().is_empty() {
            Some("not sent: set a content type (c)".to_string())
        } else if form.multi_model && form.model.trim().is_empty() {
            Some("not sent: a multi-model endpoint needs a target model (m)".to_string())
        } else if form.hosts_components && form.component.is_none() {
            Some("not sent: this endpoint hosts inference components: pick one (m)".to_string())
        } else {
            form.repeat_count().err().map(|e| format!("not sent: {e} (n)"))
        };
        if let Some(r) = refusal {
            self.notice = Some(r);
            return;
        }
        let text = form.body_text();
        let body = match form::body_bytes(&text).and_then(|b| validate_body(&form.content_type, &b).map(|_| b)) {
            Ok(b) => b,
            Err(e) => {
                self.notice = Some(format!("not sent: {e}"));
                return;
            }
        };
        let opt = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        let spec = InvokeSpec {
            session_id: self.session.clone(),
            prefix_aware_id: None,
            endpoint: form.endpoint.clone(),
            body,
            content_type: form.content_type.trim().to_string(),
            accept: opt(&form.accept),
            target_variant: form.variant.clone(),
            target_model: if form.multi_model { opt(&form.model) } else { None },
            custom_attributes: None,
            inference_id: None,
            inference_component: form.component.clone().filter(|_| form.hosts_components),
        };
        let repeat = form.repeat_count().unwrap_or(1);
        self.start(spec, text, repeat, out);
    }

    /// Queues a call and shows it.
    fn start(&mut self, spec: InvokeSpec, body_text: String, repeat: u32, out: &mut Outbox) {
        self.calls_made += 1;
        out.job(FleetJob::Invoke {
            spec: spec.clone(),
            repeat,
        });
        self.history.push(Call::new(self.calls_made, spec, body_text, repeat));
        if self.history.len() > HISTORY_LIMIT {
            self.history.remove(0);
        }
        self.shown = Some(self.history.len() - 1);
        self.history_cursor = self.history.len() - 1;
        self.notice = None;
        self.scroll = 0;
    }

    /// Re-runs the call under the history cursor.
    fn rerun(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused(data, INVOKING) {
            return;
        }
        if let Some(c) = self.history.get(self.history_cursor) {
            let (spec, text, repeat) = (c.spec.clone(), c.body_text.clone(), c.repeat);
            self.start(spec, text, repeat, out);
        }
    }

    /// Loads the call under the history cursor back into its endpoint's form.
    fn load(&mut self, data: &mut Data, out: &mut Outbox) {
        let Some(c) = self.history.get(self.history_cursor).cloned() else {
            return;
        };
        if data.endpoint(&c.spec.endpoint).is_none() {
            out.toast(
                Level::Warn,
                format!("{} is no longer in the inventory", c.spec.endpoint),
            );
            return;
        }
        data.selected = Some(c.spec.endpoint.clone());
        self.sync(data, Some(out));
        if let Some(f) = self.form.as_mut() {
            f.content_type = c.spec.content_type.clone();
            f.accept = c.spec.accept.clone().unwrap_or_default();
            f.variant = c.spec.target_variant.clone();
            f.model = c.spec.target_model.clone().unwrap_or_default();
            if c.spec.inference_component.is_some() {
                f.component = c.spec.inference_component.clone();
            }
            f.repeat = c.repeat.to_string();
            f.set_body(&c.body_text);
        }
        self.history_open = false;
        out.toast(Level::Info, format!("loaded call #{} into the form", c.number));
    }

    fn focus_field(&mut self, field: Field, out: &mut Outbox) {
        match &self.form {
            None => out.toast(Level::Warn, "select an endpoint first (1 Endpoints)"),
            Some(f) if field == Field::Model && f.hosts_components => self.focus = Some(Field::Component),
            Some(f) if field == Field::Model && !f.multi_model => {
                out.toast(Level::Info, format!("{} is not a multi-model endpoint", f.endpoint))
            }
            Some(_) => self.focus = Some(field),
        }
    }

    /// An invocation job was submitted: the oldest call without an id gets it.
    fn take_id(&mut self, id: u64) {
        if let Some(c) = self.history.iter_mut().find(|c| c.id.is_none()) {
            c.id = Some(id);
        }
    }

    /// A job was cancelled.
    fn cancelled(&mut self, id: u64) {
        if let Some(c) = self.history.iter_mut().find(|c| c.id == Some(id))
            && c.in_flight()
        {
            c.state = CallState::Cancelled;
        }
    }

    /// An invocation finished: aggregates it into its call; a failed single call or a completed
    /// repeat is also toasted (and so kept in the error log).
    fn on_result(&mut self, id: u64, result: Result<InvokeResult, InvokeFailure>, out: &mut Outbox) {
        let Some(c) = self.history.iter_mut().find(|c| c.id == Some(id)) else {
            return;
        };
        let failure = result.as_ref().err().map(|f| component::error_text(&f.error));
        if let Ok(r) = &result {
            if r.session.opened {
                self.session = r.session.id.clone();
            } else if r.session.closed {
                self.session = None;
            }
        }
        let done = c.record(result);
        if c.repeat == 1 {
            if let Some(e) = failure {
                out.toast(Level::Error, format!("invoke {}: {e}", c.spec.endpoint));
            }
        } else if done {
            let level = if c.failed > 0 { Level::Warn } else { Level::Info };
            out.toast(level, format!("{} ×{}: {}", c.spec.endpoint, c.repeat, c.summary()));
        }
    }
}

impl Pane for InvokePane {
    fn on_submitted(&mut self, id: u64, job: &Job) {
        if job.kind() == JobKind::Fleet(FleetKind::Invoke) {
            self.take_id(id);
        } else if job.kind() == JobKind::Fleet(FleetKind::Chat) {
            self.chat_submitted(id);
        }
    }

    fn on_finished(&mut self, id: u64, _kind: Option<JobKind>, cancelled: bool, _out: &mut Outbox) {
        if cancelled {
            self.cancelled(id);
        }
    }

    fn on_event(&mut self, ev: &AppEvent, _data: &mut Data, out: &mut Outbox, _visible: bool) {
        if let AppEvent::Invoked { id, result, .. } = ev {
            self.on_result(*id, result.clone(), out);
        }
        self.on_chat_event(ev, out);
    }

    fn capturing_text(&self) -> bool {
        self.focus.is_some() || self.history_open
    }

    fn commands(&self) -> &'static [PaneCommand] {
        &[PaneCommand {
            name: "session",
            takes_arg: true,
            help: "Invoke: send the next calls in a stateful session: new, an id, or off",
        }]
    }

    fn command_args(&self, name: &str) -> &'static [&'static str] {
        if name == "session" { &["new", "off"] } else { &[] }
    }

    fn run_command(&mut self, name: &str, arg: Option<&str>, _data: &mut Data, out: &mut Outbox) -> bool {
        if name != "session" {
            return false;
        }
        let (session, text) = session::command(self.session.take(), arg);
        self.session = session;
        out.toast(Level::Info, text);
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
            _ => return scroll::offset_key(&mut self.scroll, &key, scroll::PAGE as u16),
        }
        true
    }

    fn help(&self) -> Vec<KeyHint> {
        vec![
            KeyHint::new("L", "logs around the shown call's error"),
            KeyHint::new("o", "OpenAI mode: the body is a chat request, the answer streamed"),
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
        vec![
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
        ]
    }
}
