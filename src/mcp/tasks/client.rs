//! The client side of tasks: a call that a server answers with a task (`resultType: "task"`,
//! possible because sagedeck declares the tasks extension unless told `--no-task`) is followed
//! with `tasks/get` — after the server's poll interval when it gives one, else with a backoff
//! from [`FIRST_POLL`] to [`MAX_POLL`] — each change of status reported as the call's progress
//! (`task ID working: …`), its input requests answered with `tasks/update`, until it ends: the
//! completed task's result is the call's result, a failed task's error the call's error. A
//! cancelled call, or one whose task has not changed within the call's timeout (or outlives its
//! total limit), sends `tasks/cancel` and says so. The same follower speaks 2025-11-25's
//! experimental tasks ([`Dialect::Experimental`], see [`super::experimental`]): there a task
//! that ended or waits for input has its result fetched with `tasks/result`.

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolResult, CancelTaskParams, DetailedTask, GetTaskParams, Task, TaskPayload, TaskStatus, UpdateTaskParams,
};
use serde::Serialize;

use crate::mcp::call::{CallError, CallOptions};
use crate::mcp::client::McpConnection;
use crate::mcp::events::{LogSource, Progress};

use super::experimental::TaskView;

/// The first pause before `tasks/get` when the server gives no poll interval.
pub const FIRST_POLL: Duration = Duration::from_millis(200);
/// The longest pause between two polls when the server gives no poll interval.
pub const MAX_POLL: Duration = Duration::from_secs(5);
/// Failed polls in a row (other than an error the server answered) before the call gives up.
const POLL_FAILURES: u32 = 3;
/// How long `tasks/cancel` may take to be acknowledged.
const CANCEL_WAIT: Duration = Duration::from_secs(5);

/// A task a call was answered with, as it ended (or was left).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskRun {
    /// The server's task id.
    pub task_id: String,
    /// Its last status: `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub status: String,
    /// Its last status message.
    pub status_message: Option<String>,
    /// `tasks/get` calls made.
    pub polls: u32,
    /// Whether sagedeck sent `tasks/cancel`.
    pub cancel_sent: bool,
}

/// The wire name of a status.
pub fn status_name(s: TaskStatus) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{s:?}"))
}

/// The pause before the next poll: the server's interval when it gives one, else `backoff`.
fn pause(task: &Task, backoff: Duration) -> Duration {
    task.poll_interval_ms.map(Duration::from_millis).unwrap_or(backoff)
}

/// The task wire a server answered a call with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// The `io.modelcontextprotocol/tasks` extension (SEP-2663), as rmcp 3.11 has it.
    Extension,
    /// 2025-11-25's experimental tasks (`tasks/result`, `tasks/list`).
    Experimental,
}

/// One answer about a task, in either dialect.
#[derive(Debug, Clone)]
pub enum Seen {
    /// SEP-2663: the task, and its payload once polled.
    Extension(Task, Option<DetailedTask>),
    /// 2025-11-25.
    Experimental(TaskView),
}

impl Seen {
    fn id(&self) -> &str {
        match self {
            Seen::Extension(t, _) => &t.task_id,
            Seen::Experimental(v) => &v.task_id,
        }
    }

    fn status(&self) -> String {
        match self {
            Seen::Extension(t, _) => status_name(t.status),
            Seen::Experimental(v) => v.status.clone(),
        }
    }

    fn message(&self) -> Option<String> {
        match self {
            Seen::Extension(t, _) => t.status_message.clone(),
            Seen::Experimental(v) => v.status_message.clone(),
        }
    }

    fn pause(&self, backoff: Duration) -> Duration {
        match self {
            Seen::Extension(t, _) => pause(t, backoff),
            Seen::Experimental(v) => v.poll_interval.unwrap_or(backoff),
        }
    }

    fn dialect(&self) -> Dialect {
        match self {
            Seen::Extension(..) => Dialect::Extension,
            Seen::Experimental(_) => Dialect::Experimental,
        }
    }
}

/// What the user's side ended the wait with.
enum Stop {
    Cancelled,
    Timeout(Duration),
}

impl McpConnection {
    /// Follows `task`, which the server answered the call of `tool` with, to its end.
    pub(crate) async fn follow_task(
        &self,
        tool: &str,
        task: Seen,
        opts: &CallOptions,
    ) -> Result<(CallToolResult, TaskRun), CallError> {
        let started = Instant::now();
        let dialect = task.dialect();
        let mut run = TaskRun {
            task_id: task.id().to_string(),
            status: task.status(),
            status_message: task.message(),
            polls: 0,
            cancel_sent: false,
        };
        self.task_news(tool, &run, opts);
        let (mut last, mut changed, mut backoff, mut failures) = (task, Instant::now(), FIRST_POLL, 0u32);
        loop {
            let ready = matches!(&last, Seen::Experimental(v) if v.wants_result());
            let wait = if ready { Duration::ZERO } else { last.pause(backoff) };
            backoff = (backoff * 2).min(MAX_POLL);
            let (stop_in, after) = stop_after(opts, started, changed);
            let polled = tokio::select! {
                _ = opts.cancel.cancelled() => Err(Stop::Cancelled),
                _ = tokio::time::sleep(stop_in), if !ready => Err(Stop::Timeout(after)),
                r = async {
                    tokio::time::sleep(wait).await;
                    self.poll_task(dialect, &run.task_id, ready).await
                } => Ok(r),
            };
            let got = match polled {
                Ok(got) => got,
                Err(stop) => return Err(self.stop_task(tool, &mut run, stop, dialect, opts).await),
            };
            run.polls += u32::from(!ready);
            let seen = match got {
                Ok(Polled::Result(r)) => {
                    if run.status != "failed" {
                        run.status = "completed".into();
                    }
                    self.task_news(tool, &run, opts);
                    return Ok((r, run));
                }
                Ok(Polled::Task(seen)) => {
                    failures = 0;
                    seen
                }
                Err(e) => {
                    failures += 1;
                    if matches!(e, CallError::JsonRpc { .. } | CallError::Disconnected(_)) || failures >= POLL_FAILURES
                    {
                        return Err(e);
                    }
                    continue;
                }
            };
            let news = seen.status() != run.status || seen.message() != run.status_message;
            run.status = seen.status();
            run.status_message = seen.message();
            if news {
                changed = Instant::now();
                self.task_news(tool, &run, opts);
            }
            if let Seen::Extension(_, Some(detailed)) = &seen
                && let Some(end) = self.task_step(tool, &run, detailed.clone()).await?
            {
                return Ok((end, run));
            }
            if let Seen::Experimental(v) = &seen
                && v.status == "cancelled"
            {
                return Err(cancelled_by_server(&run));
            }
            last = seen;
        }
    }

    /// One poll: `tasks/get`, or (2025-11-25, `ready`) `tasks/result`.
    async fn poll_task(&self, dialect: Dialect, task_id: &str, ready: bool) -> Result<Polled, CallError> {
        match dialect {
            Dialect::Extension => {
                let got = self.peer.get_task(GetTaskParams::new(task_id.to_string())).await?;
                Ok(Polled::Task(Seen::Extension(got.task.task.clone(), Some(got.task))))
            }
            Dialect::Experimental if ready => Ok(Polled::Result(self.experimental_result(task_id).await?)),
            Dialect::Experimental => Ok(Polled::Task(Seen::Experimental(self.experimental_get(task_id).await?))),
        }
    }

    /// Acts on one `tasks/get` answer: the result of a completed task, the error of a failed or
    /// cancelled one, or None (working; input requests answered with `tasks/update`).
    async fn task_step(&self, tool: &str, run: &TaskRun, t: DetailedTask) -> Result<Option<CallToolResult>, CallError> {
        match t.payload {
            TaskPayload::Completed { result } => serde_json::from_value(serde_json::Value::Object(result))
                .map(Some)
                .map_err(|e| CallError::Other(format!("task {}: its result is not a tool result: {e}", run.task_id))),
            TaskPayload::Failed { error } => Err(CallError::JsonRpc {
                code: error.get("code").and_then(|c| c.as_i64()).unwrap_or(-32603) as i32,
                message: format!(
                    "task {} failed: {}",
                    run.task_id,
                    error.get("message").and_then(|m| m.as_str()).unwrap_or("no message")
                ),
                data: error.get("data").cloned(),
            }),
            TaskPayload::Cancelled => Err(cancelled_by_server(run)),
            TaskPayload::InputRequired { input_requests } => {
                self.shared.log.push(
                    LogSource::Client,
                    format!(
                        "{tool}: task {} asks for input; answering with tasks/update",
                        run.task_id
                    ),
                );
                let responses = self.answer_requests(input_requests).await?;
                let update = UpdateTaskParams::new(run.task_id.clone(), responses);
                self.peer.update_task(update).await?;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// Sends `tasks/cancel` for a call the user cancelled or that timed out, and says so.
    async fn stop_task(
        &self,
        tool: &str,
        run: &mut TaskRun,
        stop: Stop,
        dialect: Dialect,
        opts: &CallOptions,
    ) -> CallError {
        let cancel = async {
            match dialect {
                Dialect::Extension => Ok(self
                    .peer
                    .cancel_task(CancelTaskParams::new(run.task_id.clone()))
                    .await?),
                Dialect::Experimental => self.experimental_cancel(&run.task_id).await,
            }
        };
        let sent = tokio::time::timeout(CANCEL_WAIT, cancel).await;
        run.cancel_sent = matches!(sent, Ok(Ok(())));
        let how = match &sent {
            Ok(Ok(())) => "tasks/cancel sent".to_string(),
            Ok(Err(e)) => format!("tasks/cancel failed: {e}"),
            Err(_) => format!("tasks/cancel unanswered after {} s", CANCEL_WAIT.as_secs()),
        };
        let (why, error) = match stop {
            Stop::Cancelled => ("cancelled by the user".to_string(), CallError::Cancelled),
            Stop::Timeout(after) => (
                format!("no change within {:.1} s", after.as_secs_f64()),
                CallError::Timeout {
                    after,
                    progress: run.polls as usize,
                },
            ),
        };
        let line = format!("task {} {why}: {how}", run.task_id);
        self.shared.log.push(LogSource::Client, format!("{tool}: {line}"));
        send_news(run, format!("{why}: {how}"), opts);
        error
    }

    /// Reports the task's status as the call's progress, and in the server's log.
    fn task_news(&self, tool: &str, run: &TaskRun, opts: &CallOptions) {
        let message = run
            .status_message
            .as_deref()
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        let line = format!("task {} {}{message}", run.task_id, run.status);
        self.shared.log.push(LogSource::Client, format!("{tool}: {line}"));
        send_news(run, run.status_message.clone().unwrap_or_default(), opts);
    }
}

/// How long the wait may still last, and the limit it runs into: the quiet time left (no change
/// within the call's timeout) or the total left, whichever ends first.
fn stop_after(opts: &CallOptions, started: Instant, changed: Instant) -> (Duration, Duration) {
    let quiet = opts.timeout.saturating_sub(changed.elapsed());
    match opts.max_total {
        Some(m) if m.saturating_sub(started.elapsed()) < quiet => (m.saturating_sub(started.elapsed()), m),
        _ => (quiet, opts.timeout),
    }
}

/// What one poll brought: the task's state, or (2025-11-25 `tasks/result`) its result.
pub(crate) enum Polled {
    Task(Seen),
    Result(CallToolResult),
}

/// The error of a task the server cancelled.
fn cancelled_by_server(run: &TaskRun) -> CallError {
    CallError::Other(format!(
        "task {} was cancelled by the server{}",
        run.task_id,
        run.status_message
            .as_deref()
            .map(|m| format!(": {m}"))
            .unwrap_or_default()
    ))
}

/// Sends the task's state as the call's progress (the poll count, the task and `message`).
fn send_news(run: &TaskRun, message: String, opts: &CallOptions) {
    if let Some(tx) = &opts.progress {
        let _ = tx.send(Progress {
            progress: f64::from(run.polls),
            total: None,
            message: (!message.is_empty()).then_some(message),
            task: Some(format!("{} {}", run.task_id, run.status)),
        });
    }
}

impl McpConnection {
    /// Asks the server for a task's state (`tasks/get`).
    pub async fn task_state(&self, task_id: &str) -> Result<TaskRun, CallError> {
        let got = self.peer.get_task(GetTaskParams::new(task_id.to_string())).await?;
        Ok(TaskRun {
            task_id: got.task.task.task_id.clone(),
            status: status_name(got.task.status()),
            status_message: got.task.task.status_message.clone(),
            polls: 1,
            cancel_sent: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_poll_interval_wins_over_the_backoff() {
        let task = Task::new("t", TaskStatus::Working, "2026-07-28T00:00:00Z", "2026-07-28T00:00:00Z");
        assert_eq!(pause(&task, FIRST_POLL), FIRST_POLL);
        let hinted = task.with_poll_interval_ms(1500);
        assert_eq!(pause(&hinted, FIRST_POLL), Duration::from_millis(1500));
    }

    #[test]
    fn statuses_are_named_as_on_the_wire() {
        assert_eq!(status_name(TaskStatus::InputRequired), "input_required");
        assert_eq!(status_name(TaskStatus::Completed), "completed");
    }
}
