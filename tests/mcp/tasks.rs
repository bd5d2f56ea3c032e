//! `sagedeck mcp serve`'s task tools on the sandbox's asynchronous endpoint
//! (`mcp-async-summarizer`, found asynchronous by DescribeEndpoint), with an rmcp client that
//! declares the tasks extension: a call returns a task, `tasks/get` follows it to its output and,
//! on a request the container refuses, to its failure object; `tasks/cancel` stops following.
//! A client without tasks (sagedeck's own, the Python SDK's) gets the result in the call.

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, TaskPayload, TaskStatus,
};
use rmcp::service::{RoleClient, RunningService};
use sagedeck::aws::Fleet;
use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::server::{ToolServer, serve_http};
use sagedeck::mcp::tasks::asynchronous_endpoints;
use sagedeck::mcp::tools_config::ToolsConfig;
use sagedeck::mcp::{ConnectOptions, McpConnection, TransportKind};
use sagedeck::sandbox::SandboxConfig;
use serde_json::{Value, json};

use crate::common::{poll_until, sandbox_with};
use crate::{args, url_entry};

const TOOLS: &str = r#"
[[tools]]
name = "summarize_async"
description = "Summarize on the asynchronous endpoint."
endpoint = "mcp-async-summarizer"
answer = { label = "/0/label", score = "/0/score" }

[[tools]]
name = "summarize_plain"
description = "The same endpoint sent text/plain, which its container refuses (415)."
endpoint = "mcp-async-summarizer"
content_type = "text/plain"
payload = { kind = "arguments" }

[[tools]]
name = "classify_intent"
description = "A real-time endpoint."
endpoint = "mcp-intent-classifier-prod"
"#;

/// The demo fleet with its asynchronous endpoint, and the tool server over it.
pub(crate) async fn served() -> (sagedeck::sandbox::SandboxHandle, ToolServer) {
    let sb = sandbox_with(SandboxConfig {
        demo_fleet: true,
        demo_shapes: true,
        ..SandboxConfig::for_tests()
    })
    .await;
    let fleet = Fleet::for_url(&sb.endpoint_url()).await;
    let endpoints = [
        "mcp-async-summarizer".to_string(),
        "mcp-intent-classifier-prod".to_string(),
    ];
    let (found, warnings) = asynchronous_endpoints(&fleet, &endpoints).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["mcp-async-summarizer"]);
    let config = ToolsConfig::parse(TOOLS).unwrap();
    let server = ToolServer::new(fleet, config).with_async_endpoints(&["mcp-async-summarizer".to_string()].into());
    assert!(server.is_task_tool("summarize_async") && !server.is_task_tool("classify_intent"));
    (sb, server)
}

/// An rmcp client that declares the tasks extension, over a duplex pipe.
async fn task_client(server: ToolServer) -> RunningService<RoleClient, ClientConfig> {
    let (s, c) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(s).await {
            let _ = running.waiting().await;
        }
    });
    let info = ClientConfig::new(
        ClientCapabilities::builder().enable_tasks().build(),
        Implementation::new("tasks-test", "1"),
    );
    info.serve(c).await.expect("handshake")
}

async fn start(client: &RunningService<RoleClient, ClientConfig>, tool: &str, arguments: Value) -> String {
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments.as_object().unwrap().clone());
    match client.call_tool_once(params).await.expect("tools/call") {
        CallToolResponse::Task(t) => {
            assert_eq!(t.task.status, TaskStatus::Working);
            t.task.task_id
        }
        other => panic!("{tool}: expected a task, got {other:?}"),
    }
}

/// Polls `tasks/get` until the task ends; its final state.
async fn ended(client: &RunningService<RoleClient, ClientConfig>, id: &str) -> rmcp::model::DetailedTask {
    poll_until("the task to end", Duration::from_secs(60), || async {
        let t = client.peer().get_task(GetTaskParams::new(id.to_string())).await.ok()?;
        t.task.status().is_terminal().then_some(t.task)
    })
    .await
}

fn completed(t: &rmcp::model::DetailedTask) -> CallToolResult {
    match &t.payload {
        TaskPayload::Completed { result } => serde_json::from_value(Value::Object(result.clone())).unwrap(),
        other => panic!("expected a completed task, got {other:?}"),
    }
}

#[tokio::test]
async fn a_task_tool_is_followed_to_its_output_and_to_its_failure() {
    let (_sb, server) = served().await;
    let client = task_client(server).await;
    let caps = client.peer().peer_info().unwrap().capabilities.clone();
    assert!(caps.supports_tasks(), "the server declares the tasks extension");

    let id = start(&client, "summarize_async", json!({"inputs": "the canary is slow"})).await;
    let first = client.peer().get_task(GetTaskParams::new(id.clone())).await.unwrap();
    assert!(!first.task.status().is_terminal(), "{first:?}");
    let done = ended(&client, &id).await;
    let result = completed(&done);
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let s = result.structured_content.unwrap();
    assert!(s["label"].is_string() && s["score"].is_number(), "{s:#}");
    let output = s["sagemaker"]["output_location"].as_str().unwrap();
    assert!(
        output.starts_with("s3://sagedeck-demo-async/summaries/output/"),
        "{s:#}"
    );
    assert!(!s["sagemaker"]["inference_id"].as_str().unwrap().is_empty());
    assert_eq!(
        done.task.status_message.as_deref(),
        Some(format!("output at {output}").as_str())
    );

    let id = start(&client, "summarize_plain", json!({"inputs": "plain text"})).await;
    let failed = completed(&ended(&client, &id).await);
    assert_eq!(failed.is_error, Some(true), "{failed:?}");
    let s = failed.structured_content.unwrap();
    assert_eq!(s["error"]["class"], "async_failure", "{s:#}");
    assert!(s["error"]["message"].as_str().unwrap().contains("415"), "{s:#}");
    assert!(
        s["error"]["location"].as_str().unwrap().contains("/summaries/failure/"),
        "{s:#}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn cancelling_a_task_stops_following_it() {
    let (_sb, server) = served().await;
    let client = task_client(server).await;
    let id = start(&client, "summarize_async", json!({"inputs": "cancel me"})).await;
    client
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    let t = ended(&client, &id).await;
    assert_eq!(t.status(), TaskStatus::Cancelled, "{t:?}");
    let unknown = client.peer().get_task(GetTaskParams::new("no-such-task")).await;
    assert!(unknown.is_err(), "{unknown:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_tasks_gets_the_result_in_the_call() {
    let (_sb, server) = served().await;
    let http = serve_http(server, "127.0.0.1:0".parse().unwrap(), None).await.unwrap();
    let entry = url_entry("serve", TransportKind::Http, &http.url(), &[]);
    let no_tasks = ConnectOptions {
        tasks: false,
        ..Default::default()
    };
    let conn = McpConnection::connect(&entry, &no_tasks).await.unwrap();
    let opts = CallOptions {
        timeout: Duration::from_secs(30),
        ..Default::default()
    };
    let out = conn
        .call_tool("summarize_async", args(json!({"inputs": "no tasks here"})), opts)
        .await
        .unwrap();
    assert!(!out.result.is_error, "{}", out.result.to_text());
    let s = out.result.structured.unwrap();
    assert!(s["label"].is_string(), "{s:#}");
    assert!(s["sagemaker"]["output_location"].is_string(), "{s:#}");
    assert!(out.task.is_none(), "{:?}", out.task);
    conn.disconnect().await;
    http.shutdown().await;
}

#[tokio::test]
async fn the_python_sdk_client_gets_a_task_tools_result_in_the_call() {
    let (_sb, server) = served().await;
    let http = serve_http(server, "127.0.0.1:0".parse().unwrap(), None).await.unwrap();
    let arguments = r#"{"inputs": "from python"}"#;
    let v = crate::peers::python_client("call_tool.py", &[http.url().as_str(), "summarize_async", arguments]).await;
    assert_eq!(v["isError"], false, "{v:#}");
    assert!(v["structured"]["label"].is_string(), "{v:#}");
    assert!(v["structured"]["sagemaker"]["inference_id"].is_string(), "{v:#}");
    http.shutdown().await;
}
