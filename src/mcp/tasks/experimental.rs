//! The 2025-11-25 experimental tasks, the dialect the Python MCP SDK and the TypeScript SDK's
//! servers (`@modelcontextprotocol/server-everything`) speak: a `tools/call` augmented with
//! `task: {ttl}` is answered by a CreateTaskResult (`{task: {taskId, status, pollInterval, …}}`),
//! followed with `tasks/get`, its result fetched with `tasks/result` — which also carries, on
//! the same connection, the server's elicitation and sampling requests while the task waits for
//! input —, cancelled with `tasks/cancel`, listed with `tasks/list`. rmcp 3.11 speaks only
//! SEP-2663, and its typed `Tool` and capabilities drop `execution.taskSupport` and the `tasks`
//! capability, so these requests go as rmcp custom requests and their answers are read from
//! their JSON. sagedeck cannot see which tools are task tools, and a TypeScript SDK server
//! refuses an augmented call of a tool that is not; so on a connection agreed at 2025-11-25 (the
//! one revision with this dialect), unless told `--no-task`, a tool is called plainly until the
//! server answers that it requires a task (which it says before running it), then as a task —
//! at once and from then on, for the connection's life.

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, CustomRequest, ServerResult};
use rmcp::service::ServiceError;
use serde::Serialize;
use serde_json::{Value, json};

use crate::mcp::call::CallError;
use crate::mcp::client::McpConnection;
use crate::mcp::events::LogSource;

/// The protocol revision whose tasks this dialect is.
pub const REVISION: &str = "2025-11-25";
/// How long sagedeck asks the server to keep a task it started (`task.ttl`, milliseconds).
pub const TTL_MS: u64 = 600_000;

/// One view of a 2025-11-25 task (a CreateTaskResult's `task`, a `tasks/get` answer, an entry
/// of `tasks/list`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskView {
    /// The server's task id.
    pub task_id: String,
    /// Its status: `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub status: String,
    /// Its status message, if any.
    pub status_message: Option<String>,
    /// The poll interval the server asks for.
    #[serde(skip)]
    pub poll_interval: Option<Duration>,
    /// When it was created, as the server says.
    pub created_at: Option<String>,
    /// When it last changed, as the server says.
    pub last_updated_at: Option<String>,
}

impl TaskView {
    /// Reads a task object; None when it has no `taskId` or `status`.
    pub fn from_json(v: &Value) -> Option<TaskView> {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Some(TaskView {
            task_id: text("taskId")?,
            status: text("status")?,
            status_message: text("statusMessage"),
            poll_interval: v.get("pollInterval").and_then(Value::as_u64).map(Duration::from_millis),
            created_at: text("createdAt"),
            last_updated_at: text("lastUpdatedAt"),
        })
    }

    /// Whether the task has ended (or waits for input, which `tasks/result` delivers).
    pub fn wants_result(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "input_required")
    }
}

/// The `tools/call` request augmented with `task: {ttl}`.
pub fn task_call(params: &CallToolRequestParams) -> ClientRequest {
    let mut body = serde_json::to_value(params).unwrap_or_else(|_| json!({}));
    if let Some(o) = body.as_object_mut() {
        o.insert("task".into(), json!({ "ttl": TTL_MS }));
    }
    ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(body)))
}

/// What a server that requires a task says to a plain call: the TypeScript SDK "Tool X
/// requires task augmentation (taskSupport: 'required')", the Python SDK "This tool requires
/// task-augmented invocation".
const WANTS_TASK: &str = "requires task";

/// Whether a call's JSON-RPC error says the tool must be called as a task.
pub fn wants_task(e: &CallError) -> bool {
    matches!(e, CallError::JsonRpc { message, .. } if message.contains(WANTS_TASK))
}

/// Whether a call's error result says the tool must be called as a task.
pub fn result_wants_task(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
        && r.content
            .iter()
            .filter_map(|c| c.as_text())
            .any(|t| t.text.contains(WANTS_TASK))
}

/// The task of a CreateTaskResult (`{task: {...}}`), whichever variant rmcp decoded it as.
pub fn created(answer: &ServerResult) -> Option<TaskView> {
    let v = serde_json::to_value(answer).ok()?;
    v.get("task").and_then(TaskView::from_json)
}

/// A tool result, whichever variant rmcp decoded it as.
pub fn tool_result(answer: ServerResult) -> Result<CallToolResult, CallError> {
    match answer {
        ServerResult::CallToolResult(r) => Ok(r),
        other => {
            let v = serde_json::to_value(&other).unwrap_or_default();
            serde_json::from_value(v.clone())
                .map_err(|e| CallError::Other(format!("the answer is not a tool result ({e}): {}", short(&v))))
        }
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

impl McpConnection {
    /// Whether calls on this connection go as 2025-11-25 tasks.
    pub fn experimental_tasks(&self) -> bool {
        self.shared.tasks && self.info().protocol_version == REVISION
    }

    /// Notes that the server requires `tool` to be called as a task, and says so in its log.
    pub(crate) fn learn_task_tool(&self, tool: &str) -> bool {
        self.task_tools.lock().insert(tool.to_string());
        self.shared.log.push(
            LogSource::Client,
            format!("{tool}: the server requires a task (2025-11-25); calling it as one"),
        );
        true
    }

    async fn task_request(&self, method: &str, params: Value) -> Result<ServerResult, ServiceError> {
        let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
        self.peer.send_request(request).await
    }

    /// `tasks/get`.
    pub(crate) async fn experimental_get(&self, task_id: &str) -> Result<TaskView, CallError> {
        let answer = self.task_request("tasks/get", json!({ "taskId": task_id })).await?;
        let v = serde_json::to_value(&answer).unwrap_or_default();
        TaskView::from_json(&v).ok_or_else(|| CallError::Other(format!("tasks/get: not a task: {}", short(&v))))
    }

    /// `tasks/result`: waits for the task's end (answering its input requests meanwhile, as
    /// ordinary server requests) and returns its tool result.
    pub(crate) async fn experimental_result(&self, task_id: &str) -> Result<CallToolResult, CallError> {
        let answer = self.task_request("tasks/result", json!({ "taskId": task_id })).await?;
        tool_result(answer)
    }

    /// `tasks/cancel`.
    pub(crate) async fn experimental_cancel(&self, task_id: &str) -> Result<(), CallError> {
        self.task_request("tasks/cancel", json!({ "taskId": task_id })).await?;
        Ok(())
    }

    /// `tasks/list`, all pages: the server's tasks. An error when the connection has no
    /// task listing (it did not agree on 2025-11-25; SEP-2663 has none).
    pub async fn list_tasks(&self) -> Result<Vec<TaskView>, CallError> {
        if self.info().protocol_version != REVISION {
            return Err(CallError::Other(format!(
                "{} agreed on MCP {}, whose tasks have no listing (tasks/list is 2025-11-25's)",
                self.name(),
                self.info().protocol_version
            )));
        }
        let (mut tasks, mut cursor) = (Vec::new(), None::<String>);
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let v = serde_json::to_value(self.task_request("tasks/list", params).await?).unwrap_or_default();
            let page = v
                .get("tasks")
                .and_then(Value::as_array)
                .ok_or_else(|| CallError::Other(format!("tasks/list: the answer has no tasks: {}", short(&v))))?;
            tasks.extend(page.iter().filter_map(TaskView::from_json));
            cursor = v.get("nextCursor").and_then(Value::as_str).map(str::to_string);
            if cursor.is_none() {
                return Ok(tasks);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_create_task_result_is_read_from_whatever_rmcp_decoded() {
        let wire = json!({"task": {"taskId": "t1", "status": "working", "ttl": 60000,
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "pollInterval": 1000}});
        let answer: ServerResult = serde_json::from_value(wire).unwrap();
        let task = created(&answer).expect("a task");
        assert_eq!(task.task_id, "t1");
        assert_eq!(task.status, "working");
        assert_eq!(task.poll_interval, Some(Duration::from_millis(1000)));
        assert!(!task.wants_result());
    }

    #[test]
    fn a_refusal_for_want_of_a_task_is_recognised_from_either_sdk() {
        let typescript = "Tool brew requires task augmentation (taskSupport: 'required')";
        let python = "This tool requires task-augmented invocation";
        for text in [typescript, python] {
            assert!(result_wants_task(&CallToolResult::error(vec![
                rmcp::model::ContentBlock::text(text)
            ])));
            let e = CallError::JsonRpc {
                code: -32601,
                message: text.into(),
                data: None,
            };
            assert!(wants_task(&e));
        }
        let other = CallToolResult::error(vec![rmcp::model::ContentBlock::text("the kettle is empty")]);
        assert!(!result_wants_task(&other));
        assert!(!result_wants_task(&CallToolResult::success(vec![
            rmcp::model::ContentBlock::text(python)
        ])));
    }

    #[test]
    fn a_task_listing_entry_needs_an_id_and_a_status() {
        assert!(TaskView::from_json(&json!({"taskId": "t"})).is_none());
        let v = TaskView::from_json(&json!({"taskId": "t", "status": "input_required"})).unwrap();
        assert!(v.wants_result());
    }

    #[test]
    fn the_call_carries_the_task_ttl() {
        let request = task_call(&CallToolRequestParams::new("slow"));
        let v = serde_json::to_value(&request).unwrap();
        assert_eq!(v["method"], "tools/call");
        assert_eq!(v["params"]["name"], "slow");
        assert_eq!(v["params"]["task"]["ttl"], TTL_MS);
    }
}
