//! Sending the Invoke pane's form as InvokeEndpoint calls (an asynchronous endpoint's in
//! `asynchronous.rs`), the history's re-run and load, and the calls' results as they come in.

use super::form::{self, BodyCheck, Field};
use super::{Call, CallState, HISTORY_LIMIT, InvokePane, component};
use crate::aws::invoke::call::{InvokeFailure, InvokeResult, InvokeSpec, validate_body};
use crate::tui::data::Data;
use crate::tui::event::{FleetJob, INVOKING};
use crate::tui::panes::Outbox;
use crate::tui::widgets::toasts::Level;

impl InvokePane {
    /// Whether Ctrl-S would send now (for the footer).
    pub(super) fn can_send(&self, data: &Data) -> bool {
        !data.read_only
            && self
                .form
                .as_ref()
                .is_some_and(|f| !matches!(f.check, BodyCheck::Invalid { .. } | BodyCheck::Empty))
    }

    /// Sends the form: refused when read-only, or with the reason inline when the form is not
    /// sendable (invalid JSON names the line and column, and the cursor goes there).
    pub(super) fn send(&mut self, data: &Data, out: &mut Outbox) {
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
        if form.asynchronous {
            let (endpoint, content_type, accept) = (form.endpoint.clone(), form.content_type.trim().to_string(), opt(&form.accept));
            self.send_async(endpoint, (body, content_type, accept), out);
            return;
        }
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
    pub(super) fn rerun(&mut self, data: &Data, out: &mut Outbox) {
        if out.refused(data, INVOKING) {
            return;
        }
        if let Some(c) = self.history.get(self.history_cursor) {
            let (spec, text, repeat) = (c.spec.clone(), c.body_text.clone(), c.repeat);
            self.start(spec, text, repeat, out);
        }
    }

    /// Loads the call under the history cursor back into its endpoint's form.
    pub(super) fn load(&mut self, data: &mut Data, out: &mut Outbox) {
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

    /// An invocation job was submitted: the oldest call without an id gets it.
    pub(super) fn take_id(&mut self, id: u64) {
        if let Some(c) = self.history.iter_mut().find(|c| c.id.is_none()) {
            c.id = Some(id);
        }
    }

    /// A job was cancelled.
    pub(super) fn cancelled(&mut self, id: u64) {
        if let Some(c) = self.history.iter_mut().find(|c| c.id == Some(id))
            && c.in_flight()
        {
            c.state = CallState::Cancelled;
        }
    }

    /// An invocation finished: aggregates it into its call; a failed single call or a completed
    /// repeat is also toasted (and so kept in the error log).
    pub(super) fn on_result(&mut self, id: u64, result: Result<InvokeResult, InvokeFailure>, out: &mut Outbox) {
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
