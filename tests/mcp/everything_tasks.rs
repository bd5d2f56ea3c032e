//! 2025-11-25's experimental tasks against `@modelcontextprotocol/server-everything`: its
//! `simulate-research-query` (taskSupport "required"), refused when called plainly, is called
//! as a task, polled with
//! `tasks/get` through its stages to the result fetched with `tasks/result`; an ambiguous query
//! waits for input, whose elicitation arrives while `tasks/result` is pending and is answered
//! by the elicitor; a cancelled call sends `tasks/cancel`, which `tasks/list` then shows; an
//! ordinary tool is still called plainly. The CLI: `tools call --json` carries the task,
//! `tools tasks` lists the server's tasks.

use std::time::Duration;

use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::{CallError, ConnectOptions, McpConnection};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::common::{demo_config, poll_until, run_cli, sandbox_with};
use crate::peers::{everything, setup};
use crate::{accepting_elicitor, args, cancel_once_announced, drain, stdio_entry, watched};

const TOOL: &str = "simulate-research-query";

async fn connect(opts: &ConnectOptions) -> McpConnection {
    let entry = setup(everything).await;
    let entry = stdio_entry("everything", "node", &[&entry.to_string_lossy(), "stdio"], &[]);
    let conn = McpConnection::connect(&entry, opts).await.unwrap();
    assert_eq!(conn.info().protocol_version, "2025-11-25");
    assert!(conn.experimental_tasks());
    poll_until("the task tool to be listed", Duration::from_secs(10), || {
        let has = conn.tools().iter().any(|t| t.name == TOOL);
        async move { has.then_some(()) }
    })
    .await;
    conn
}

#[tokio::test]
async fn a_required_task_tool_is_polled_to_its_result_and_a_cancelled_one_is_listed_cancelled() {
    let conn = connect(&ConnectOptions::default()).await;

    let (opts, mut prx) = watched(Duration::from_secs(30), CancellationToken::new());
    let out = conn
        .call_tool(TOOL, args(json!({"topic": "canary rollouts"})), opts)
        .await
        .unwrap();
    let task = out.task.clone().expect("the call went as a task");
    assert_eq!(task.status, "completed", "{task:?}");
    assert!(
        task.polls >= 2 && !task.cancel_sent,
        "polled through its stages: {task:?}"
    );
    let text = out.result.first_text().unwrap_or_default();
    assert!(text.contains("# Research Report: canary rollouts"), "{text}");
    let learned = conn
        .log()
        .tail(200)
        .iter()
        .any(|l| l.text.contains("requires a task (2025-11-25)"));
    assert!(learned, "the log says why the call went as a task");
    let seen = drain(&mut prx);
    let messages: Vec<String> = seen.iter().filter_map(|p| p.message.clone()).collect();
    assert!(messages.iter().any(|m| m.contains("Analyzing content")), "{messages:?}");
    let first = seen.first().and_then(|p| p.task.clone());
    assert_eq!(first, Some(format!("{} working", task.task_id)), "{seen:?}");
    let last = seen.last().and_then(|p| p.task.clone());
    assert_eq!(last, Some(format!("{} completed", task.task_id)), "{seen:?}");

    // Cancelled once announced: tasks/cancel goes out, and tasks/list shows it cancelled.
    let (e, first, rest) = cancel_once_announced(&conn, TOOL, json!({"topic": "cancel me"})).await;
    assert_eq!(e, CallError::Cancelled);
    let id = first.task.expect("a task").trim_end_matches(" working").to_string();
    let said = rest.last().and_then(|p| p.message.clone()).unwrap_or_default();
    assert!(said.contains("cancelled by the user: tasks/cancel sent"), "{rest:?}");
    let listed = conn.list_tasks().await.unwrap();
    let mine = listed.iter().find(|t| t.task_id == id).expect("the task is listed");
    assert_eq!(mine.status, "cancelled", "{listed:?}");
    assert!(listed.iter().any(|t| t.task_id == task.task_id), "{listed:?}");

    // An ordinary tool is called plainly.
    let out = conn
        .call_tool("echo", args(json!({"message": "plain"})), CallOptions::default())
        .await
        .unwrap();
    assert!(out.task.is_none());
    assert_eq!(out.result.first_text().as_deref(), Some("Echo: plain"));
    conn.disconnect().await;
}

#[tokio::test]
async fn a_task_waiting_for_input_gets_its_elicitation_answered() {
    let (elicitor, asked) = accepting_elicitor(json!({"interpretation": "snake"}));
    let opts = ConnectOptions {
        elicitor: Some(elicitor),
        ..Default::default()
    };
    let conn = connect(&opts).await;
    let o = CallOptions {
        timeout: Duration::from_secs(30),
        ..Default::default()
    };
    let out = conn
        .call_tool(TOOL, args(json!({"topic": "python", "ambiguous": true})), o)
        .await
        .unwrap();
    let task = out.task.clone().expect("a task");
    assert_eq!(task.status, "completed", "{task:?}");
    assert_eq!(asked.lock().len(), 1, "one elicitation: {:?}", asked.lock());
    let text = out.result.first_text().unwrap_or_default();
    assert!(text.contains("Clarification**: snake"), "{text}");
    conn.disconnect().await;
}

#[tokio::test]
async fn the_cli_calls_the_task_tool_and_lists_tasks() {
    let sb = sandbox_with(demo_config()).await;
    let node = setup(everything).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let servers = json!({"everything": {"command": "node", "args": [node.to_string_lossy(), "stdio"]}});
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    let cfg = path.to_string_lossy().into_owned();

    let call = |extra: &str| -> Vec<String> {
        let topic = r#"{"topic": "canary rollouts"}"#;
        let a = [
            "tools",
            "call",
            "everything",
            TOOL,
            "--args",
            topic,
            extra,
            "--mcp-config",
            &cfg,
        ];
        a.iter().filter(|s| !s.is_empty()).map(|s| s.to_string()).collect()
    };
    let run = |a: Vec<String>| {
        let sb = &sb;
        async move { run_cli(sb, &a.iter().map(String::as_str).collect::<Vec<_>>()).await }
    };
    let r = run(call("--json")).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(out["task"]["status"], "completed", "{out:#}");
    assert!(out["task"]["polls"].as_u64() >= Some(2), "{out:#}");
    let r = run(call("")).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("# Research Report: canary rollouts"), "{}", r.stdout);
    let working = r
        .stderr
        .lines()
        .any(|l| l.starts_with("sagedeck: task ") && l.contains(" working: "));
    assert!(working, "status lines on stderr: {}", r.stderr);

    let r = run_cli(&sb, &["tools", "tasks", "everything", "--json", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(out["tasks"].is_array(), "a fresh server lists its (no) tasks: {out:#}");
    let r = run_cli(&sb, &["tools", "tasks", "everything", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("TASK") && r.stdout.contains("STATUS"), "{}", r.stdout);
}
