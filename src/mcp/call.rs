//! Tool calls on a connection: a timeout that restarts with each progress notification,
//! cancellation with `notifications/cancelled`, progress forwarded as it arrives (late progress
//! tolerated), the rounds of a 2026-07-28 `input_required` answer and a task followed to its end,
//! and the result rendered and checked against the tool's outputSchema.

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest, JsonObject, ProgressToken,
    ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde::Serialize;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::client::McpConnection;
use super::connect::STDERR_LINES_SHOWN;
use super::events::{LogSource, Progress};
use super::handler::Shared;
use super::result::{RenderedResult, render};
use super::tasks::client::Seen as TaskSeen;

/// How long a call may go without an answer or progress, unless told otherwise.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a finished call waits for progress notifications still being handled.
const TRAILING_PROGRESS_WAIT: Duration = Duration::from_millis(50);

/// Options of one tool call.
#[derive(Debug, Clone)]
pub struct CallOptions {
    /// Fails the call after this long without an answer or a progress notification.
    pub timeout: Duration,
    /// Fails the call after this long whatever progress arrives.
    pub max_total: Option<Duration>,
    /// Cancels the call (`notifications/cancelled` is sent) when cancelled.
    pub cancel: CancellationToken,
    /// Receives the call's progress notifications as they arrive.
    pub progress: Option<mpsc::UnboundedSender<Progress>>,
}

impl Default for CallOptions {
    fn default() -> Self {
        CallOptions {
            timeout: DEFAULT_CALL_TIMEOUT,
            max_total: None,
            cancel: CancellationToken::new(),
            progress: None,
        }
    }
}

/// Why a call produced no result.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum CallError {
    /// No answer (nor progress) within the timeout; the call was cancelled.
    #[error("no answer within {:.1} s (after {progress} progress notifications); the call was cancelled", .after.as_secs_f64())]
    Timeout {
        /// The limit.
        #[serde(serialize_with = "crate::aws::invoke::call::ser_ms")]
        after: Duration,
        /// Progress notifications seen.
        progress: usize,
    },
    /// Cancelled by the caller; `notifications/cancelled` was sent.
    #[error("cancelled")]
    Cancelled,
    /// The server answered with a JSON-RPC error.
    #[error("JSON-RPC error {code}: {message}")]
    JsonRpc {
        /// Error code (-32602 invalid params, -32601 method not found, ...).
        code: i32,
        /// Message.
        message: String,
        /// Data.
        data: Option<serde_json::Value>,
    },
    /// The connection is gone.
    #[error("the connection closed: {0}")]
    Disconnected(String),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

impl From<ServiceError> for CallError {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::McpError(d) => CallError::JsonRpc {
                code: d.code.0,
                message: d.message.to_string(),
                data: d.data,
            },
            ServiceError::Timeout { timeout } => CallError::Timeout {
                after: timeout,
                progress: 0,
            },
            ServiceError::Cancelled { .. } => CallError::Cancelled,
            ServiceError::TransportClosed => CallError::Disconnected("transport closed".into()),
            other => match other.auth_challenge() {
                Some(challenge) => CallError::Other(login_hint(challenge)),
                None => CallError::Other(crate::aws::error::chain_text(&other)),
            },
        }
    }
}

/// What to do when the server refuses a request of a live session with an OAuth challenge (a
/// step-up: 403 `insufficient_scope`; or a token it no longer takes).
fn login_hint(challenge: &str) -> String {
    let then = "log in again: `sagedeck tools login SERVER`, or o in the console's Tools tab";
    if challenge.contains("insufficient_scope") {
        format!("HTTP 403: the OAuth token lacks a scope this call needs: {then}")
    } else {
        format!("HTTP 401: the server no longer takes the OAuth token: {then}")
    }
}

/// A completed call.
#[derive(Debug, Clone, Serialize)]
pub struct CallOutcome {
    /// The tool's name.
    pub tool: String,
    /// The rendered result.
    pub result: RenderedResult,
    /// The raw result, as the server sent it.
    pub raw: serde_json::Value,
    /// Wall time from sending to the answer.
    #[serde(rename = "duration_ms", serialize_with = "crate::aws::invoke::call::ser_ms")]
    pub duration: Duration,
    /// Progress notifications received during the call.
    pub progress: usize,
    /// The last of them.
    pub last_progress: Option<Progress>,
    /// The task the server answered with, followed to its end (None: answered in the call).
    pub task: Option<super::tasks::TaskRun>,
    /// How many times the server asked for input (2026-07-28 `input_required`) before answering.
    pub input_rounds: usize,
}

impl McpConnection {
    /// Calls a tool. The timeout restarts with every progress notification; on timeout or
    /// cancellation `notifications/cancelled` is sent. Progress arriving after the answer is
    /// reported as a late event and otherwise ignored. A 2026-07-28 `input_required` answer is
    /// answered and the call sent again (see [`super::input`]); a task is followed to its end
    /// (see [`super::tasks::client`]).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        opts: CallOptions,
    ) -> Result<CallOutcome, CallError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Some(a) = arguments {
            params = params.with_arguments(a);
        }
        let started = Instant::now();
        let mut seen = Seen {
            count: 0,
            last: None,
            forward: opts.progress.clone(),
        };
        let (mut rounds, mut task) = (0, None);
        let mut as_task = self.experimental_tasks() && self.task_tools.lock().contains(name);
        let result = loop {
            let request = match as_task {
                true => super::tasks::experimental::task_call(&params),
                false => ClientRequest::CallToolRequest(CallToolRequest::new(params.clone())),
            };
            let answer = match self.send_call(name, request, &opts, &mut seen).await {
                Err(e) if !as_task && self.experimental_tasks() && super::tasks::experimental::wants_task(&e) => {
                    as_task = self.learn_task_tool(name);
                    continue;
                }
                answer => answer?,
            };
            match answer {
                ServerResult::CallToolResult(r)
                    if !as_task && self.experimental_tasks() && super::tasks::experimental::result_wants_task(&r) =>
                {
                    as_task = self.learn_task_tool(name);
                }
                ServerResult::CallToolResult(r) => break r,
                ServerResult::InputRequiredResult(asked) if rounds < super::input::MAX_INPUT_ROUNDS => {
                    rounds += 1;
                    let (responses, state) = self.answer_input(name, asked).await?;
                    params.input_responses = responses;
                    params.request_state = state;
                }
                ServerResult::InputRequiredResult(_) => {
                    return Err(CallError::Other(format!(
                        "{name}: the server asked for input {rounds} times without answering; given up"
                    )));
                }
                ServerResult::CreateTaskResult(created) => {
                    let seed = TaskSeen::Extension(created.task, None);
                    let (r, run) = self.follow_task(name, seed, &opts).await?;
                    task = Some(run);
                    break r;
                }
                other if as_task => match super::tasks::experimental::created(&other) {
                    Some(view) => {
                        let (r, run) = self.follow_task(name, TaskSeen::Experimental(view), &opts).await?;
                        task = Some(run);
                        break r;
                    }
                    None => break super::tasks::experimental::tool_result(other)?,
                },
                other => {
                    return Err(CallError::Other(format!(
                        "unexpected answer to tools/call: {}",
                        serde_json::to_string(&other).unwrap_or_default()
                    )));
                }
            }
        };
        let duration = started.elapsed();
        let schema = self
            .tool(name)
            .and_then(|t| t.output_schema)
            .map(|s| serde_json::Value::Object((*s).clone()));
        Ok(CallOutcome {
            tool: name.to_string(),
            result: render(&result, schema.as_ref()),
            raw: serde_json::to_value(&result).unwrap_or_default(),
            duration,
            progress: seen.count,
            last_progress: seen.last,
            task,
            input_rounds: rounds,
        })
    }

    /// Sends one `tools/call` and waits for its answer, forwarding its progress, cancelling it
    /// when `opts.cancel` fires.
    async fn send_call(
        &self,
        name: &str,
        request: ClientRequest,
        opts: &CallOptions,
        seen: &mut Seen,
    ) -> Result<ServerResult, CallError> {
        let handle = self
            .peer
            .send_cancellable_request(request, request_options(opts))
            .await?;
        let (id, token) = (handle.id.clone(), handle.progress_token.clone());
        let (ptx, mut prx) = mpsc::unbounded_channel();
        self.shared.routes.lock().insert(token.clone(), ptx);
        let _route = RouteGuard(&self.shared, token);
        let response = handle.await_response();
        tokio::pin!(response);
        let answer = loop {
            tokio::select! {
                r = &mut response => break r,
                Some(p) = prx.recv() => seen.record(p),
                _ = opts.cancel.cancelled() => {
                    let note = CancelledNotificationParam::new(Some(id), Some("cancelled by the user".into()));
                    let _ = self.peer.notify_cancelled(note).await;
                    self.shared.log.push(LogSource::Client, format!("{name}: cancelled after {} progress notifications", seen.count));
                    return Err(CallError::Cancelled);
                }
            }
        };
        collect_trailing_progress(&mut prx, seen).await;
        self.answer_of(answer, seen)
    }

    /// The answer to tools/call, or why there is none (a timeout counts the progress `seen`; a
    /// lost connection carries the server's last stderr lines).
    fn answer_of(&self, answer: Result<ServerResult, ServiceError>, seen: &Seen) -> Result<ServerResult, CallError> {
        match answer {
            Ok(r) => Ok(r),
            Err(ServiceError::Timeout { timeout }) => Err(CallError::Timeout {
                after: timeout,
                progress: seen.count,
            }),
            Err(e) => Err(self.with_stderr(e.into())),
        }
    }

    fn with_stderr(&self, e: CallError) -> CallError {
        match e {
            CallError::Disconnected(m) => {
                let m = match self.shared.closed_why.lock().clone() {
                    Some(why) => format!("{m}: {why}"),
                    None => m,
                };
                let tail = self.shared.log.stderr_tail(STDERR_LINES_SHOWN);
                CallError::Disconnected(format!("{m}{}", super::connect::stderr_suffix(&tail)))
            }
            other => other,
        }
    }
}

/// The request options of a call: its timeout, restarted by each progress notification, and its
/// total limit if any.
fn request_options(opts: &CallOptions) -> PeerRequestOptions {
    let mut ropts = PeerRequestOptions::with_timeout(opts.timeout).reset_timeout_on_progress();
    if let Some(m) = opts.max_total {
        ropts = ropts.with_max_total_timeout(m);
    }
    ropts
}

/// Collects progress sent before the answer that is still on its way: rmcp handles each
/// notification on a task of its own, so some may arrive after the answer. Waits briefly only
/// while the last one is short of its total.
async fn collect_trailing_progress(prx: &mut mpsc::UnboundedReceiver<Progress>, seen: &mut Seen) {
    tokio::task::yield_now().await;
    while let Ok(p) = prx.try_recv() {
        seen.record(p);
    }
    let until = tokio::time::Instant::now() + TRAILING_PROGRESS_WAIT;
    while seen.short_of_total() {
        match tokio::time::timeout_at(until, prx.recv()).await {
            Ok(Some(p)) => seen.record(p),
            _ => break,
        }
    }
}

/// The progress of one call so far.
struct Seen {
    count: usize,
    last: Option<Progress>,
    forward: Option<mpsc::UnboundedSender<Progress>>,
}

impl Seen {
    fn record(&mut self, p: Progress) {
        self.count += 1;
        if let Some(tx) = &self.forward {
            let _ = tx.send(p.clone());
        }
        self.last = Some(p);
    }

    fn short_of_total(&self) -> bool {
        self.last
            .as_ref()
            .is_some_and(|p| p.total.is_some_and(|t| p.progress < t))
    }
}

struct RouteGuard<'a>(&'a Shared, ProgressToken);

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        self.0.routes.lock().remove(&self.1);
    }
}
