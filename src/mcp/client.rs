//! The MCP client: one connection to one configured server over stdio, streamable HTTP or
//! legacy HTTP+SSE, with its log, its tools (re-listed on `tools/list_changed`), and tool calls
//! that time out unless progress keeps them alive, can be cancelled, and report what came back.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProgressNotificationParam, ProgressToken, Tool};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, Peer, RoleClient, ServiceExt};
use serde::Serialize;
use tokio::process::Child;
use tokio::sync::{broadcast, mpsc};

use crate::format::{escape_line, has_controls};

use super::connect::{
    ConnectError, STDERR_LINES_SHOWN, explain_child_failure, explain_handshake_failure, explain_sse_failure,
    http_client,
};
use super::events::{LogSource, Progress, ServerEvent, ServerLog};
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
    /// Who answers the server's sampling requests (None: sampling is not declared, and a
    /// request is answered -32601 saying how to enable it).
    pub sampling: Option<Arc<Sampler>>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            timeout: DEFAULT_CONNECT_TIMEOUT,
            sampling: None,
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
}

/// State shared by a connection and its notification handler.
pub(super) struct Shared {
    pub(super) log: ServerLog,
    pub(super) events: broadcast::Sender<ServerEvent>,
    /// Progress token of each running call → its progress channel.
    pub(super) routes: Mutex<HashMap<ProgressToken, mpsc::UnboundedSender<Progress>>>,
    pub(super) tools: RwLock<Vec<Tool>>,
    /// Why this side closed the connection (a stdio message over the limit), if it did.
    pub(super) closed_why: CloseReason,
    /// The tools left out of the last listing (their names, escaped), and why.
    pub(super) refused: RwLock<Vec<String>>,
    /// The server's registry name (who asks, in a sampling request).
    pub(super) server: String,
    /// Who answers its sampling requests.
    pub(super) sampler: Option<Arc<Sampler>>,
}

impl Shared {
    /// Keeps `tools` as the listing, leaving out (with a warning in the log) every tool whose
    /// name holds a control character: such a name could rewrite what a terminal shows around
    /// it (an approval question), and nothing could call it by a name a person can type.
    fn keep_tools(&self, tools: Vec<Tool>) -> Vec<Tool> {
        let (kept, refused): (Vec<Tool>, Vec<Tool>) = tools.into_iter().partition(|t| !has_controls(&t.name));
        let warnings: Vec<String> = refused
            .iter()
            .map(|t| {
                format!(
                    "tool `{}` left out: its name holds control characters",
                    escape_line(&t.name)
                )
            })
            .collect();
        for w in &warnings {
            self.log.push(LogSource::Client, w.clone());
        }
        *self.refused.write() = warnings;
        *self.tools.write() = kept.clone();
        kept
    }
}

#[derive(Clone)]
struct Handler(Arc<Shared>);

fn token_text(t: &ProgressToken) -> String {
    serde_json::to_value(&t.0)
        .map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))
        .unwrap_or_default()
}

impl ClientHandler for Handler {
    async fn on_progress(&self, params: ProgressNotificationParam, _ctx: NotificationContext<RoleClient>) {
        let p = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        let routed = match self.0.routes.lock().get(&params.progress_token) {
            Some(tx) => tx.send(p.clone()).is_ok(),
            None => false,
        };
        let _ = self.0.events.send(ServerEvent::Progress {
            token: token_text(&params.progress_token),
            progress: p,
            late: !routed,
        });
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "info".into());
        let text = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.0.log.push(LogSource::Notification(level.clone()), text.clone());
        let _ = self.0.events.send(ServerEvent::Log {
            level,
            logger: params.logger,
            text,
        });
    }

    async fn on_tool_list_changed(&self, ctx: NotificationContext<RoleClient>) {
        let shared = self.0.clone();
        let peer = ctx.peer.clone();
        tokio::spawn(async move {
            match peer.list_all_tools().await {
                Ok(tools) => {
                    let count = shared.keep_tools(tools).len();
                    shared
                        .log
                        .push(LogSource::Client, format!("tools/list_changed: {count} tools now"));
                    let _ = shared.events.send(ServerEvent::ToolsChanged { count });
                }
                Err(e) => shared
                    .log
                    .push(LogSource::Client, format!("tools/list_changed: re-listing failed: {e}")),
            }
        });
    }

    #[allow(deprecated)]
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        let Some(sampler) = &self.0.sampler else {
            self.0.log.push(LogSource::Client, "sampling/createMessage declined: no --sampling-llm");
            return Err(super::sampling::not_enabled());
        };
        let answer = sampler.answer(&self.0.server, &params).await;
        let line = match &answer {
            Ok(_) => format!("sampling/createMessage answered by {}", sampler.llm().name()),
            Err(e) => format!("sampling/createMessage declined ({}): {}", e.code.0, e.message),
        };
        self.0.log.push(LogSource::Client, line);
        answer
    }

    #[allow(deprecated)]
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        if self.0.sampler.is_some() {
            caps.sampling = Some(rmcp::model::SamplingCapability::default());
        }
        ClientConfig::new(caps, Implementation::new("sagedeck", env!("CARGO_PKG_VERSION")))
    }
}

/// A live connection to one server.
pub struct McpConnection {
    name: String,
    transport: TransportKind,
    pub(super) shared: Arc<Shared>,
    pub(super) peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    child: tokio::sync::Mutex<Option<Child>>,
    info: ServerInfo,
    connect_time: Duration,
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

type Started = (RunningService<RoleClient, Handler>, Option<Child>);

async fn start(entry: &ServerEntry, handler: Handler, timeout: Duration) -> Result<Started, ConnectError> {
    let log = handler.0.log.clone();
    match entry.transport {
        TransportKind::Stdio => {
            let mut c = super::connect::spawn_stdio(entry, &log)?;
            let guarded = LineGuard::new(c.stdout, MAX_MESSAGE_BYTES, log.clone(), handler.0.closed_why.clone());
            let transport = AsyncRwTransport::new_client(guarded, c.stdin).with_max_line_length(MAX_MESSAGE_BYTES + 1);
            match tokio::time::timeout(timeout, handler.serve(transport)).await {
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
            let url = entry.url.clone().unwrap_or_default();
            let client = http_client(entry, timeout)?;
            let transport = StreamableHttpClientTransport::with_client(
                client,
                StreamableHttpClientTransportConfig::with_uri(url.clone()),
            );
            match tokio::time::timeout(timeout, handler.serve(transport)).await {
                Ok(Ok(service)) => Ok((service, None)),
                Ok(Err(e)) => Err(explain_handshake_failure(&e, &url, TransportKind::Http).await),
                Err(_) => Err(ConnectError::Timeout {
                    after: timeout,
                    stderr: vec![],
                }),
            }
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
            match tokio::time::timeout(left, handler.serve(transport)).await {
                Ok(Ok(service)) => Ok((service, None)),
                Ok(Err(e)) => Err(explain_handshake_failure(&e, &url, TransportKind::Sse).await),
                Err(_) => Err(ConnectError::Timeout {
                    after: timeout,
                    stderr: vec![],
                }),
            }
        }
    }
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
            sampler: opts.sampling.clone(),
        });
        let (service, child) = start(entry, Handler(shared.clone()), opts.timeout).await?;
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
