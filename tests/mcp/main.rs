//! MCP client and server tests: sagedeck's own `mcp serve` (stdio through the real binary,
//! streamable HTTP with and without a token, every fault class through the sandbox), a Python
//! `mcp` server (the seed's Radio Station) over stdio, streamable HTTP and legacy SSE, and the
//! npm `@modelcontextprotocol/server-everything` (progress, ignored cancel, list_changed, image
//! and structured content), a hostile Python server (escape sequences, secrets, big results), and
//! an OAuth-protected Python server with its own authorization server (login, refresh, step-up).
//! Peers are installed by the setup under the target directory; the
//! tests fail, never skip, when they cannot be.

#[path = "../common/mod.rs"]
mod common;

mod agent;
mod agent_cli;
mod agent_limits;
mod agent_openai;
mod agent_parse;
mod cli;
mod cli_resources;
mod demo_oauth;
mod everything;
mod everything_resources;
mod everything_tasks;
mod faults;
mod hostile;
mod hub;
mod input_required;
mod library;
mod oauth;
mod own_offer;
mod own_server;
mod peers;
mod python;
mod python_tasks;
mod registry_input;
mod sampling;
mod sampling_tools;
mod schema_keywords;
mod serve_guard;
mod sse_origin;
mod sse_props;
mod task_client;
mod tasks;

use std::collections::BTreeMap;
use std::time::Duration;

use sagedeck::mcp::registry::Secret;
use sagedeck::mcp::{ServerEntry, TransportKind};
use serde_json::Value;

/// The progress a call has sent so far.
pub fn drain(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<sagedeck::mcp::events::Progress>,
) -> Vec<sagedeck::mcp::events::Progress> {
    let mut seen = Vec::new();
    while let Ok(p) = rx.try_recv() {
        seen.push(p);
    }
    seen
}

/// Call options with `timeout` and `cancel` whose progress comes to the receiver returned.
pub fn watched(
    timeout: Duration,
    cancel: tokio_util::sync::CancellationToken,
) -> (
    sagedeck::mcp::client::CallOptions,
    tokio::sync::mpsc::UnboundedReceiver<sagedeck::mcp::events::Progress>,
) {
    let (ptx, prx) = tokio::sync::mpsc::unbounded_channel();
    let opts = sagedeck::mcp::client::CallOptions {
        timeout,
        cancel,
        progress: Some(ptx),
        ..Default::default()
    };
    (opts, prx)
}

/// Calls `tool` with `arguments` and cancels the call once its task is announced: the call's
/// error, the first progress (the task announced) and the progress after it.
pub async fn cancel_once_announced(
    conn: &sagedeck::mcp::McpConnection,
    tool: &str,
    arguments: Value,
) -> (
    sagedeck::mcp::CallError,
    sagedeck::mcp::events::Progress,
    Vec<sagedeck::mcp::events::Progress>,
) {
    let cancel = tokio_util::sync::CancellationToken::new();
    let (opts, mut prx) = watched(Duration::from_secs(30), cancel.clone());
    let call = conn.call_tool(tool, args(arguments), opts);
    let watch = async {
        let first = prx.recv().await.expect("the task is announced");
        cancel.cancel();
        first
    };
    let (r, first) = tokio::join!(call, watch);
    (r.expect_err("the call was cancelled"), first, drain(&mut prx))
}

/// An elicitor that accepts every form with `content`, and the requests it was asked.
pub fn accepting_elicitor(
    content: Value,
) -> (
    sagedeck::mcp::elicit::Elicitor,
    std::sync::Arc<parking_lot::Mutex<Vec<sagedeck::mcp::elicit::Elicitation>>>,
) {
    use sagedeck::mcp::elicit::{ElicitAnswer, Elicitor};
    let (elicitor, mut asks) = Elicitor::channel();
    let asked = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
    let kept = asked.clone();
    tokio::spawn(async move {
        while let Some(ask) = asks.recv().await {
            kept.lock().push(ask.request.clone());
            ask.answer(ElicitAnswer::Accept {
                content: Some(content.clone()),
            });
        }
    });
    (elicitor, asked)
}

/// Tool-call arguments from a JSON object.
pub fn args(v: Value) -> Option<serde_json::Map<String, Value>> {
    v.as_object().cloned()
}

/// A stdio registry entry.
pub fn stdio_entry(name: &str, command: &str, args: &[&str], env: &[(&str, &str)]) -> ServerEntry {
    ServerEntry {
        name: name.into(),
        transport: TransportKind::Stdio,
        command: Some(command.into()),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), Secret::new(*v)))
            .collect::<BTreeMap<_, _>>(),
        cwd: None,
        url: None,
        headers: BTreeMap::new(),
        oauth: Default::default(),
    }
}

/// An HTTP or SSE registry entry.
pub fn url_entry(name: &str, transport: TransportKind, url: &str, headers: &[(&str, &str)]) -> ServerEntry {
    ServerEntry {
        name: name.into(),
        transport,
        command: None,
        args: vec![],
        env: BTreeMap::new(),
        cwd: None,
        url: Some(url.into()),
        headers: headers.iter().map(|(k, v)| (k.to_string(), Secret::new(*v))).collect(),
        oauth: Default::default(),
    }
}

/// Whether a process id still exists (not yet reaped).
pub fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Polls until `pid` is gone (reaped), or fails after `deadline`.
pub async fn wait_gone(pid: u32, deadline: Duration) {
    common::poll_until(&format!("process {pid} to be reaped"), deadline, || async move {
        (!process_exists(pid)).then_some(())
    })
    .await;
}

/// Serves an rmcp server over streamable HTTP on loopback at `/mcp`: its URL and the serving
/// task.
pub async fn serve_rmcp<S>(server: S) -> (String, tokio::task::JoinHandle<()>)
where
    S: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let service: StreamableHttpService<S, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(server.clone()),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/mcp"), task)
}

/// Prints a measured time so that runs with `--nocapture` show them.
pub fn timing(what: &str, d: Duration) {
    eprintln!("timing: {what}: {:.1} ms", d.as_secs_f64() * 1e3);
}
