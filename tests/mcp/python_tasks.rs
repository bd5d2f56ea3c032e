//! 2025-11-25's experimental tasks against the Python MCP SDK (`tests/mcp_peers/task_server.py`,
//! the SDK's experimental tasks API, started from the test venv): `brew` (taskSupport
//! "required"), refused plainly, goes as a task, is polled through its steps to its result, and
//! `tasks/list` shows it completed; `echo` is called plainly.

use std::time::Duration;

use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::{ConnectOptions, McpConnection};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::peers::{python, setup, task_script};
use crate::{args, drain, stdio_entry, watched};

#[tokio::test]
async fn a_python_sdk_task_tool_is_polled_to_its_result_and_listed() {
    let py = setup(python).await;
    let entry = stdio_entry(
        "brewer",
        &py.to_string_lossy(),
        &[&task_script()],
        &[("PYTHONNOUSERSITE", "1")],
    );
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .unwrap();
    assert_eq!(conn.info().protocol_version, "2025-11-25");

    let (opts, mut prx) = watched(Duration::from_secs(30), CancellationToken::new());
    let out = conn
        .call_tool("brew", args(json!({"kind": "green"})), opts)
        .await
        .unwrap();
    assert_eq!(out.result.first_text().as_deref(), Some("brewed green"));
    let task = out.task.clone().expect("the call went as a task");
    assert_eq!(task.status, "completed", "{task:?}");
    assert!(task.polls >= 2, "{task:?}");
    let messages: Vec<String> = drain(&mut prx).into_iter().filter_map(|p| p.message).collect();
    assert!(messages.iter().any(|m| m.starts_with("steeping ")), "{messages:?}");

    let listed = conn.list_tasks().await.unwrap();
    let mine = listed.iter().find(|t| t.task_id == task.task_id).expect("listed");
    assert_eq!(mine.status, "completed", "{listed:?}");

    let out = conn
        .call_tool("echo", args(json!({"text": "plain"})), CallOptions::default())
        .await
        .unwrap();
    assert!(out.task.is_none());
    assert_eq!(out.result.first_text().as_deref(), Some("plain"));
    conn.disconnect().await;
}
