//! The Invoke pane on an asynchronous endpoint: Ctrl-S queues the body with InvokeEndpointAsync
//! (inline; a body over the inline limit uploaded first under the endpoint's input prefix, in
//! the same background call as `invoke-async --input-prefix` makes — `upload.rs`), then
//! each accepted request is followed in the background until its output or failure object
//! appears — the fleet layer's `wait_async`, as `sagedeck invoke-async --wait` follows one — or
//! until SageMaker's default time to live and invocation timeout have both passed (expired).
//! The response panel lists the session's requests with their state, location and result.

use ratatui::text::{Line, Span};

use super::upload::{self, PendingAsync};
use super::{AsyncRequestState, InvokePane, component};
use crate::aws::invoke::asynchronous::MAX_INLINE_BODY;
use crate::aws::invoke::asynchronous::{AsyncInput, AsyncOutcome, AsyncSpec};
use crate::format::{escape_line, now_epoch, time_text};
use crate::tui::event::{AppEvent, FleetJob};
use crate::tui::panes::Outbox;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::toasts::Level;

/// SageMaker's default RequestTTLSeconds (6 hours) plus its default InvocationTimeoutSeconds
/// (15 minutes): a request with neither object by then is taken as expired.
pub const FOLLOW_FOR_SECS: f64 = 21_600.0 + 900.0;

/// Lines of a result shown under its request.
const RESULT_LINES: usize = 4;

impl InvokePane {
    /// Queues the body on the asynchronous endpoint (read-only refusal and the form's checks
    /// were made by the caller).
    pub(super) fn send_async(
        &mut self,
        endpoint: String,
        (body, content_type, accept): (Vec<u8>, String, Option<String>),
        out: &mut Outbox,
    ) {
        let prefix = self.input_prefixes.for_endpoint(&endpoint).map(str::to_string);
        if let Some(why) = upload::refusal(body.len(), prefix.as_deref()) {
            self.notice = Some(format!("not sent: {why}"));
            return;
        }
        // A body that fits goes inline; only a larger one is uploaded.
        let upload_prefix = prefix.filter(|_| body.len() > MAX_INLINE_BODY);
        self.pending.push(PendingAsync {
            job: None,
            endpoint: endpoint.clone(),
            bytes: body.len(),
            upload_to: upload_prefix.clone(),
        });
        out.job(FleetJob::InvokeAsync {
            spec: AsyncSpec {
                endpoint,
                input: AsyncInput::Body { body, upload_prefix },
                content_type,
                accept,
                inference_id: None,
                request_ttl_s: None,
                invocation_timeout_s: None,
            },
        });
        self.notice = None;
        self.scroll = 0;
    }

    /// `:body-file PATH`: the form's body from a file (one line on failure).
    pub(super) fn load_body_file(&mut self, path: &str, out: &mut Outbox) {
        match (upload::read_body_file(path), self.form.as_mut()) {
            (Ok(text), Some(form)) => {
                form.set_body(&text);
                self.notice = None;
                out.toast(
                    Level::Info,
                    format!("body loaded: {} bytes from {}", text.len(), escape_line(path.trim())),
                );
            }
            (Err(e), _) => out.toast(Level::Warn, escape_line(&e).into_owned()),
            (Ok(_), None) => out.toast(Level::Warn, "select an endpoint first (1 Endpoints)"),
        }
    }

    /// A request accepted (then followed) or refused, or a followed request's end.
    pub(super) fn on_async_event(&mut self, ev: &AppEvent, out: &mut Outbox) {
        match ev {
            AppEvent::AsyncAccepted { id, result } => {
                self.pending.retain(|p| p.job != Some(*id));
                match result {
                    Ok(a) => {
                        let now = now_epoch();
                        self.requests.accepted(a.clone(), now);
                        out.job(FleetJob::AsyncFollow {
                            accepted: a.clone(),
                            deadline: now + FOLLOW_FOR_SECS,
                        });
                    }
                    Err(e) => {
                        let text = component::error_text(e);
                        out.toast(Level::Error, format!("invoke-async: {text}"));
                        self.notice = Some(format!("not queued: {text}"));
                    }
                }
            }
            AppEvent::AsyncSettled { inference_id, result } => {
                let id = escape_line(inference_id).into_owned();
                match result {
                    Ok(Some(outcome @ AsyncOutcome::Succeeded { .. })) => {
                        self.requests.settled(inference_id, outcome);
                        out.toast(Level::Info, format!("request {id} succeeded"));
                    }
                    Ok(Some(outcome @ AsyncOutcome::Expired { .. })) => {
                        self.requests.settled(inference_id, outcome);
                        out.toast(
                            Level::Warn,
                            format!("request {id} expired in the queue, never run: send it again once the endpoint has capacity"),
                        );
                    }
                    Ok(Some(outcome)) => {
                        self.requests.settled(inference_id, outcome);
                        out.toast(
                            Level::Warn,
                            format!("request {id} failed: its failure object is in the Invoke tab"),
                        );
                    }
                    Ok(None) => {
                        self.requests.expired(inference_id);
                        out.toast(
                            Level::Warn,
                            format!("request {id} expired: no output or failure object appeared"),
                        );
                    }
                    Err(e) => {
                        let text = component::error_text(e);
                        self.requests.unfollowed(inference_id, &text);
                        out.toast(Level::Error, format!("request {id} could not be followed: {text}"));
                    }
                }
            }
            _ => {}
        }
    }

    /// The response panel on an asynchronous endpoint: the session's requests, newest first.
    pub(super) fn async_lines(&self, endpoint: &str, theme: &Theme) -> Vec<Line<'static>> {
        let muted = theme.fg(Role::Muted);
        let all = self.requests.all().iter().filter(|r| r.accepted.endpoint == endpoint);
        let mut lines = vec![Line::from(Span::styled(
            format!("{endpoint} is asynchronous: ^S queues the body (InvokeEndpointAsync)"),
            muted,
        ))];
        for p in self.pending.iter().filter(|p| p.endpoint == endpoint) {
            let text = match &p.upload_to {
                Some(prefix) => format!("{:<10}{} bytes → {}", "uploading", p.bytes, escape_line(prefix)),
                None => format!("{:<10}{} bytes inline", "queueing", p.bytes),
            };
            lines.push(Line::from(Span::styled(text, theme.fg(Role::Accent))));
        }
        for r in all.rev() {
            let role = match r.state {
                AsyncRequestState::Queued => Role::StatusWarn,
                AsyncRequestState::Succeeded => Role::StatusOk,
                AsyncRequestState::Failed | AsyncRequestState::Expired => Role::StatusError,
            };
            lines.push(Line::default());
            lines.push(Line::from(vec![
                Span::styled(format!("{:<10}", r.state.label()), theme.fg(role)),
                Span::raw(escape_line(&r.accepted.inference_id).into_owned()),
                Span::styled(format!("  sent {}", time_text(r.sent_at)), muted),
            ]));
            if let Some(input) = &r.accepted.uploaded_input {
                lines.push(Line::from(Span::styled(format!("  ← {}", escape_line(input)), muted)));
            }
            let location = r.location().map(|l| escape_line(l).into_owned());
            lines.push(Line::from(Span::styled(
                format!("  → {}", location.unwrap_or_else(|| "-".into())),
                muted,
            )));
            for l in r.result_text.iter().flat_map(|t| t.lines()).take(RESULT_LINES) {
                lines.push(Line::from(format!("  {l}")));
            }
        }
        let pending = self.pending.iter().any(|p| p.endpoint == endpoint);
        if self.requests.all().iter().all(|r| r.accepted.endpoint != endpoint) && !pending {
            lines.push(Line::from(Span::styled(
                "no requests yet: each is followed until its output or failure object appears",
                muted,
            )));
        }
        lines
    }
}
