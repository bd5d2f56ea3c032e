//! The MCP client: one connection to one configured server over stdio, streamable HTTP or
//! legacy HTTP+SSE, with its log, its tools (re-listed on `tools/list_changed`), and tool calls
//! that time out unless progress keeps them alive, can be cancelled, and report what came back.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use rmcp::model::ProtocolVersion;
use rmcp::model::Tool;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::{StreamableHttpClient, StreamableHttpClientTransportConfig};
use rmcp::{ClientLifecycleMode, ClientServiceExt, Peer, RoleClient};
use serde::Serialize;
use tokio::process::Child;
use tokio::sync::broadcast;

use super::connect::{
    ConnectError, STDERR_LINES_SHOWN, explain_child_failure, explain_handshake_failure, explain_sse_failure,
    http_client,
};
use super::elicit::Elicitor;
use super::events::{LogSource, ServerEvent, ServerLog};
use super::handler::{McpClientHandler, Shared};
use super::registry::{ServerEntry, TransportKind};
use super::sampling::Sampler;
use super::stdio_lines::{CloseReason, LineGuard, MAX_MESSAGE_BYTES};
use super::transport_sse::SseClientTransport;

pub use super::call::{CallError, CallOptions, CallOutcome, DEFAULT_CALL_TIMEOUT};

/// How long to wait for a handshake, unless told otherwise.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a stdio child gets to exit after its stdin closes before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Connection options.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Limit of the whole handshake (spawn or HTTP connect, initialize, first tool list).
    pub timeout: Duration,
    /// Who answers the server's elicitations (None: they are declined, and the log says so).
    pub elicitor: Option<Elicitor>,
    /// Who answers the server's sampling requests (None: sampling is not declared, and a
    /// request is answered -32601 saying how to enable it).
    pub sampling: Option<Arc<Sampler>>,
    /// Declares the tasks extension, so that a server may answer a call with a task, which the
    /// call then follows (false: `--no-task`, every call is answered in the call itself).
    pub tasks: bool,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            timeout: DEFAULT_CONNECT_TIMEOUT,
            elicitor: None,
            sampling: None,
            tasks: true,
        }
    }
}

/// Who the server said it is.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ServerInfo {
    /// Negotiated protocol version.
    pub protocol_version: String,
    /// Server name.
    pub name: String,
    /// Server version.
    pub version: String,
    /// Its instructions, if any.
    pub instructions: Option<String>,
    /// Whether it offers tools.
    pub has_tools: bool,
    /// Whether it offers resources.
    pub has_resources: bool,
    /// Whether its resources can be subscribed to.
    pub resources_subscribe: bool,
    /// Whether it offers prompts.
    pub has_prompts: bool,
}

/// A live connection to one server.
pub struct McpConnection {
    name: String,
    transport: TransportKind,
    pub(super) shared: Arc<Shared>,
    pub(super) peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, McpClientHandler>>>,
    child: tokio::sync::Mutex<Option<Child>>,
    info: ServerInfo,
    connect_time: Duration,
    /// Tools the server said need a 2025-11-25 task (called as tasks from then on).
    pub(super) task_tools: parking_lot::Mutex<std::collections::HashSet<String>>,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("info", &self.info)
            .finish()
    }
}

/// The newest revision rmcp speaks first (`server/discover`), then the newest with an
/// `initialize` handshake for servers that answer the probe as legacy servers do. A client that
/// answers sampling asks for the newest `initialize` revision at once: 2026-07-28 is stateless
/// and has no server-to-client requests, so a server could not ask it for a completion there.
fn lifecycle(handler: &McpClientHandler) -> ClientLifecycleMode {
    if handler.0.sampler.is_some() {
        return ClientLifecycleMode::Initialize;
    }
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::LATEST],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

type Started = (RunningService<RoleClient, McpClientHandler>, Option<Child>);

async fn start(entry: &ServerEntry, handler: McpClientHandler, timeout: Duration) -> Result<Started, ConnectError> {
    let log = handler.0.log.clone();
    match entry.transport {
        TransportKind::Stdio => {
            let mut c = super::connect::spawn_stdio(entry, &log)?;
            let guarded = LineGuard::new(c.stdout, MAX_MESSAGE_BYTES, log.clone(), handler.0.closed_why.clone());
            let transport = AsyncRwTransport::new_client(guarded, c.stdin).with_max_line_length(MAX_MESSAGE_BYTES + 1);
            let mode = lifecycle(&handler);
            match tokio::time::timeout(timeout, handler.serve_with_lifecycle(transport, mode)).await {
                Ok(Ok(service)) => Ok((service, Some(c.child))),
                failed => {
                    let grace = Duration::from_millis(if failed.is_ok() { 1500 } else { 200 });
                    if let Some(e) = explain_child_failure(&mut c.child, &mut c.stderr_task, &log, grace).await {
                        return Err(e);
                    }
                    let _ = c.child.start_kill();
                    let _ = tokio::time::timeout(EXIT_GRACE, c.child.wait()).await;
                    Err(match failed {
                        Err(_) => ConnectError::Timeout {
                            after: timeout,
                            stderr: log.stderr_tail(STDERR_LINES_SHOWN),
                        },
                        Ok(Err(e)) => ConnectError::Protocol(crate::aws::error::chain_text(&e)),
                        Ok(Ok(_)) => ConnectError::Protocol("unreachable".into()),
                    })
                }
            }
        }
        TransportKind::Http => {
            let client = http_client(entry, timeout)?;
            let deadline = Instant::now() + timeout;
            let authorized = tokio::time::timeout(timeout, super::oauth::authorized(entry, client.clone()))
                .await
                .map_err(|_| no_handshake(timeout))??;
            let left = deadline.saturating_duration_since(Instant::now());
            let started = match authorized {
                Some(auth) => serve_http(entry, handler, auth, left).await,
                None => serve_http(entry, handler, client, left).await,
            };
            // A Bearer challenge asks for a login, unless the registry's own header was refused.
            started.map_err(|e| match e {
                ConnectError::LoginRequired { status, .. } if super::oauth::has_static_authorization(entry) => {
                    ConnectError::Unauthorized { status }
                }
                ConnectError::LoginRequired { status, scope, .. } => ConnectError::LoginRequired {
                    server: entry.name.clone(),
                    status,
                    scope,
                },
                other => other,
            })
        }
        TransportKind::Sse => {
            let url = entry.url.clone().unwrap_or_default();
            let client = http_client(entry, timeout)?;
            let deadline = Instant::now() + timeout;
            let transport = match SseClientTransport::connect(client, &url, timeout).await {
                Ok(t) => t,
                Err(e) => return Err(explain_sse_failure(&e, &url).await),
            };
            let left = deadline.saturating_duration_since(Instant::now());
            let mode = lifecycle(&handler);
            match tokio::time::timeout(left, handler.serve_with_lifecycle(transport, mode)).await {
                Ok(Ok(service)) => Ok((service, None)),
                Ok(Err(e)) => Err(explain_handshake_failure(&e, &url, TransportKind::Sse).await),
                Err(_) => Err(no_handshake(timeout)),
            }
        }
    }
}

/// The handshake over streamable HTTP through `client` (plain, or with OAuth).
async fn serve_http<C>(
    entry: &ServerEntry,
    handler: McpClientHandler,
    client: C,
    timeout: Duration,
) -> Result<Started, ConnectError>
where
    C: StreamableHttpClient<Error = reqwest::Error> + Send + Sync + 'static,
{
    let url = entry.url.clone().unwrap_or_default();
    let transport =
        StreamableHttpClientTransport::with_client(client, StreamableHttpClientTransportConfig::with_uri(url.clone()));
    let mode = lifecycle(&handler);
    match tokio::time::timeout(timeout, handler.serve_with_lifecycle(transport, mode)).await {
        Ok(Ok(service)) => Ok((service, None)),
        Ok(Err(e)) => Err(explain_handshake_failure(&e, &url, TransportKind::Http).await),
        Err(_) => Err(no_handshake(timeout)),
    }
}

/// An HTTP handshake that did not finish within `after`.
fn no_handshake(after: Duration) -> ConnectError {
    ConnectError::Timeout { after, stderr: vec![] }
}

impl McpConnection {
    /// Connects to `entry`: starts or reaches the server, runs the handshake and lists its tools,
    /// all within `opts.timeout`. Failures are explained in one line.
    pub async fn connect(entry: &ServerEntry, opts: &ConnectOptions) -> Result<McpConnection, ConnectError> {
        let started = Instant::now();
        let (events, _) = broadcast::channel(512);
        let shared = Arc::new(Shared {
            log: ServerLog::default(),
            events,
            routes: Mutex::new(HashMap::new()),
            tools: RwLock::new(Vec::new()),
            closed_why: CloseReason::default(),
            refused: RwLock::new(Vec::new()),
            server: entry.name.clone(),
            elicitor: opts.elicitor.clone(),
            sampler: opts.sampling.clone(),
            tasks: opts.tasks,
        });
        let (service, child) = start(entry, McpClientHandler(shared.clone()), opts.timeout).await?;
        let peer = service.peer().clone();
        let info = peer
            .peer_info()
            .map(|i| ServerInfo {
                protocol_version: serde_json::to_value(&i.protocol_version)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                name: i.server_info.as_ref().map(|s| s.name.clone()).unwrap_or_default(),
                version: i.server_info.as_ref().map(|s| s.version.clone()).unwrap_or_default(),
                instructions: i.instructions.clone(),
                has_tools: i.capabilities.tools.is_some(),
                has_resources: i.capabilities.resources.is_some(),
                resources_subscribe: i
                    .capabilities
                    .resources
                    .as_ref()
                    .is_some_and(|r| r.subscribe == Some(true)),
                has_prompts: i.capabilities.prompts.is_some(),
            })
            .unwrap_or_default();
        let conn = McpConnection {
            name: entry.name.clone(),
            transport: entry.transport,
            shared,
            peer,
            service: tokio::sync::Mutex::new(Some(service)),
            child: tokio::sync::Mutex::new(child),
            info,
            connect_time: Duration::ZERO,
            task_tools: Default::default(),
        };
        if conn.info.has_tools {
            let left = opts
                .timeout
                .saturating_sub(started.elapsed())
                .max(Duration::from_secs(1));
            match tokio::time::timeout(left, conn.list_tools()).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => conn
                    .shared
                    .log
                    .push(LogSource::Client, format!("tools/list failed: {e}")),
                Err(_) => {
                    conn.disconnect().await;
                    return Err(ConnectError::Timeout {
                        after: opts.timeout,
                        stderr: vec![],
                    });
                }
            }
        }
        let connect_time = started.elapsed();
        conn.shared.log.push(
            LogSource::Client,
            format!(
                "connected in {:.1} ms: {} {} (protocol {})",
                connect_time.as_secs_f64() * 1e3,
                conn.info.name,
                conn.info.version,
                conn.info.protocol_version
            ),
        );
        Ok(McpConnection { connect_time, ..conn })
    }

    /// The server's name in the registry.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the server said about itself.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// Handshake time, first tool list included.
    pub fn connect_time(&self) -> Duration {
        self.connect_time
    }

    /// Its log (stderr, log notifications, connection events).
    pub fn log(&self) -> ServerLog {
        self.shared.log.clone()
    }

    /// Progress, log and tool-list events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.shared.events.subscribe()
    }

    /// The tools as last listed.
    pub fn tools(&self) -> Vec<Tool> {
        self.shared.tools.read().clone()
    }

    /// The tool named `name`, as last listed.
    pub fn tool(&self, name: &str) -> Option<Tool> {
        self.shared.tools.read().iter().find(|t| t.name == name).cloned()
    }

    /// Lists every tool (following `nextCursor`) and keeps the list, less the tools whose names
    /// hold control characters (see [`McpConnection::refused_tools`]).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, CallError> {
        let tools = self.peer.list_all_tools().await?;
        Ok(self.shared.keep_tools(tools))
    }

    /// Why tools of the last listing were left out (one warning each, the name escaped).
    pub fn refused_tools(&self) -> Vec<String> {
        self.shared.refused.read().clone()
    }

    /// Whether the connection has ended.
    pub fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    /// Ends the connection: closes the session, then lets a stdio child exit (killing it after a
    /// grace period) and reaps it.
    pub async fn disconnect(&self) {
        if let Some(mut s) = self.service.lock().await.take() {
            let _ = s.close_with_timeout(EXIT_GRACE).await;
        }
        let child = self.child.lock().await.take();
        if let Some(mut child) = child
            && tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_err()
        {
            let _ = child.start_kill();
            let _ = tokio::time::timeout(EXIT_GRACE, child.wait()).await;
        }
        let _ = self.shared.events.send(ServerEvent::Disconnected {
            reason: "disconnected".into(),
        });
        self.shared.log.push(LogSource::Client, "disconnected");
    }

    /// The process id of a stdio server's child, while it runs.
    pub async fn child_pid(&self) -> Option<u32> {
        self.child.lock().await.as_ref().and_then(Child::id)
    }
}
