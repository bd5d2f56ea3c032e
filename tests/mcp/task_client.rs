//! The client side of tasks, against sagedeck's own `mcp serve` on the sandbox's asynchronous
//! endpoint: a call answered with a task is followed with `tasks/get` to its result, its status
//! reported as it goes; a cancelled call sends `tasks/cancel`, which the server's `tasks/get`
//! then shows; `tasks: false` (`--no-task`) gets the result in the call. The CLI: `tools call
//! --json` carries the task, `--no-task` calls plainly, Ctrl-C cancels the task and says so;
//! `tools tasks` says the server (2026-07-28) offers no task listing.

use std::time::Duration;

use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::server::serve_http;
use sagedeck::mcp::{CallError, ConnectOptions, McpConnection, TransportKind};
use sagedeck::sandbox::SandboxConfig;
use serde_json::json;
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::common::{cli_command, run_cli, sandbox_with};
use crate::{args, cancel_once_announced, drain, url_entry, watched};

#[tokio::test]
async fn a_call_answered_with_a_task_is_polled_to_its_result_or_cancelled() {
    let (_sb, server) = crate::tasks::served().await;
    let http = serve_http(server, "127.0.0.1:0".parse().unwrap(), None).await.unwrap();
    let entry = url_entry("serve", TransportKind::Http, &http.url(), &[]);
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .unwrap();

    let (opts, mut prx) = watched(Duration::from_secs(30), CancellationToken::new());
    let out = conn
        .call_tool("summarize_async", args(json!({"inputs": "the canary is slow"})), opts)
        .await
        .unwrap();
    let task = out.task.clone().expect("the server answered with a task");
    assert_eq!(task.status, "completed", "{task:?}");
    assert!(task.polls >= 1 && !task.cancel_sent, "{task:?}");
    let s = out.result.structured.clone().unwrap();
    assert!(s["label"].is_string(), "{s:#}");
    let output = s["sagemaker"]["output_location"].as_str().unwrap();
    assert_eq!(task.status_message, Some(format!("output at {output}")));
    let seen = drain(&mut prx);
    let states: Vec<String> = seen.iter().filter_map(|p| p.task.clone()).collect();
    assert_eq!(states.first(), Some(&format!("{} working", task.task_id)), "{seen:?}");
    assert_eq!(states.last(), Some(&format!("{} completed", task.task_id)), "{seen:?}");

    // Cancelled once the task is announced: tasks/cancel goes out, and the server has it.
    let (e, first, said) = cancel_once_announced(&conn, "summarize_async", json!({"inputs": "cancel me"})).await;
    assert_eq!(e, CallError::Cancelled);
    let announced = first.task.expect("a task's status");
    let id = announced
        .strip_suffix(" working")
        .expect("working at first")
        .to_string();
    let last = said.last().and_then(|p| p.message.clone()).unwrap_or_default();
    assert_eq!(last, "cancelled by the user: tasks/cancel sent", "{said:?}");
    let state = conn.task_state(&id).await.unwrap();
    assert_eq!(state.status, "cancelled", "the server saw the cancel: {state:?}");

    // A task whose status does not change within the timeout (the server asks for polls 2 s
    // apart) is cancelled the same way.
    let (opts, mut prx) = watched(Duration::from_millis(300), CancellationToken::new());
    let r = conn
        .call_tool("summarize_async", args(json!({"inputs": "too slow"})), opts)
        .await;
    assert!(matches!(r, Err(CallError::Timeout { .. })), "{r:?}");
    let said = drain(&mut prx);
    let id = said[0]
        .task
        .as_deref()
        .and_then(|t| t.strip_suffix(" working"))
        .unwrap()
        .to_string();
    let last = said.last().and_then(|p| p.message.clone()).unwrap_or_default();
    assert_eq!(last, "no change within 0.3 s: tasks/cancel sent", "{said:?}");
    assert_eq!(conn.task_state(&id).await.unwrap().status, "cancelled");
    conn.disconnect().await;

    // Without the tasks extension the same tool answers in the call.
    let plain = ConnectOptions {
        tasks: false,
        ..Default::default()
    };
    let conn = McpConnection::connect(&entry, &plain).await.unwrap();
    let opts = CallOptions {
        timeout: Duration::from_secs(30),
        ..Default::default()
    };
    let out = conn
        .call_tool("summarize_async", args(json!({"inputs": "plainly"})), opts)
        .await
        .unwrap();
    assert!(out.task.is_none() && out.result.structured.unwrap()["label"].is_string());
    let e = conn.list_tasks().await.unwrap_err();
    assert!(e.to_string().contains("whose tasks have no listing"), "{e}");
    conn.disconnect().await;
    http.shutdown().await;
}

fn own_server_config(dir: &tempfile::TempDir, endpoint_url: &str) -> String {
    let path = dir.path().join("mcp.json");
    let server = json!({
        "command": env!("CARGO_BIN_EXE_sagedeck"),
        "args": ["mcp", "serve", "--demo-tools", "--endpoint-url", endpoint_url],
        "env": {"AWS_ACCESS_KEY_ID": "AKIDSANDBOX", "AWS_SECRET_ACCESS_KEY": "sandbox-secret", "AWS_REGION": "us-east-1"}
    });
    std::fs::write(&path, json!({"mcpServers": {"demo": server}}).to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

#[tokio::test]
async fn tools_call_follows_a_task_and_ctrl_c_cancels_it() {
    let sb = sandbox_with(SandboxConfig {
        demo_fleet: true,
        demo_shapes: true,
        ..SandboxConfig::for_tests()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = own_server_config(&dir, &sb.endpoint_url());
    let call = [
        "tools",
        "call",
        "demo",
        "summarize_async",
        "--arg",
        "document=slow canary",
    ];

    let r = run_cli(&sb, &[&call[..], &["--json", "--mcp-config", &cfg]].concat()).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["task"]["status"], "completed", "{v:#}");
    assert!(!v["task"]["task_id"].as_str().unwrap().is_empty(), "{v:#}");
    assert!(v["result"]["structured"]["label"].is_string(), "{v:#}");

    let r = run_cli(&sb, &[&call[..], &["--mcp-config", &cfg]].concat()).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("sagedeck: task ") && r.stderr.contains(" working"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains(" completed after "), "{}", r.stderr);

    let r = run_cli(&sb, &["tools", "tasks", "demo", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("demo: the server offers no task listing: MCP 2026-07-28 has none"),
        "{}",
        r.stdout
    );
    let r = run_cli(&sb, &["tools", "tasks", "demo", "--json", "--mcp-config", &cfg]).await;
    assert!(
        r.json()["tasks"].is_null() && r.json()["no_listing"].is_string(),
        "{}",
        r.stdout
    );

    let r = run_cli(
        &sb,
        &[&call[..], &["--no-task", "--json", "--mcp-config", &cfg]].concat(),
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert!(v["task"].is_null(), "{v:#}");
    assert!(v["result"]["structured"]["label"].is_string(), "{v:#}");

    // Ctrl-C once the task is announced: tasks/cancel is sent and said.
    let home = tempfile::tempdir().unwrap();
    let mut cmd = cli_command(&sb, home.path(), &[&call[..], &["--mcp-config", &cfg]].concat(), &[]);
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    let announced = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            said.push(line.clone());
            if line.starts_with("sagedeck: task ") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(announced, Ok(true), "{said:?}");
    let pid = child.id().unwrap().to_string();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(kill.success());
    let rest = tokio::time::timeout(Duration::from_secs(30), async {
        let mut rest = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            rest.push(line);
        }
        rest
    })
    .await
    .expect("sagedeck ends after Ctrl-C");
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), Some(130), "{rest:?}");
    let rest = rest.join("\n");
    assert!(rest.contains("cancelled by the user: tasks/cancel sent"), "{rest}");
}
