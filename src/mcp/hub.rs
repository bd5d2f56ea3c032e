//! Several servers at once, for the console's Tools tab: each server's status (connecting,
//! connected with its protocol version, failed and why), its tools, calls routed by server name,
//! and the SageMaker endpoint behind a tool when its server names it.

use std::sync::Arc;

use parking_lot::RwLock;
use rmcp::model::{JsonObject, Tool};
use serde::Serialize;
use serde_json::Value;

use super::client::{CallError, CallOptions, CallOutcome, ConnectOptions, McpConnection};
use super::connect::ConnectError;
use super::oauth::{AuthState, auth_state};
use super::registry::{Registry, ServerEntry, TransportKind};

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerStatus {
    /// Not connected yet.
    Idle,
    /// The handshake is running.
    Connecting,
    /// Connected.
    Connected {
        /// Negotiated protocol version.
        protocol_version: String,
        /// Handshake time in milliseconds.
        connect_ms: f64,
    },
    /// The connection failed.
    Failed {
        /// Error class (`command_not_found`, `unauthorized`, ...).
        class: String,
        /// One line: why.
        reason: String,
    },
    /// Disconnected on request.
    Disconnected,
}

/// A server as the console shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ServerView {
    /// Registry name.
    pub name: String,
    /// Transport.
    pub transport: TransportKind,
    /// Command line or URL (no secrets).
    pub target: String,
    /// Status.
    pub status: ServerStatus,
    /// Server name and version as announced.
    pub server: Option<String>,
    /// Its tools.
    pub tools: Vec<Tool>,
    /// How sagedeck authenticates to it (none, static header, OAuth until …, needs login).
    pub auth: AuthState,
}

struct Slot {
    entry: ServerEntry,
    status: ServerStatus,
    conn: Option<Arc<McpConnection>>,
}

/// The servers of a registry and their connections.
#[derive(Clone)]
pub struct McpHub {
    slots: Arc<RwLock<Vec<Slot>>>,
    opts: ConnectOptions,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub")
            .field("servers", &self.slots.read().len())
            .finish()
    }
}

impl McpHub {
    /// A hub over `registry`; nothing is connected yet.
    pub fn new(registry: &Registry, opts: ConnectOptions) -> McpHub {
        let slots = registry
            .servers
            .iter()
            .map(|e| Slot {
                entry: e.clone(),
                status: ServerStatus::Idle,
                conn: None,
            })
            .collect();
        McpHub {
            slots: Arc::new(RwLock::new(slots)),
            opts,
        }
    }

    fn set(&self, name: &str, status: ServerStatus, conn: Option<Arc<McpConnection>>) {
        if let Some(s) = self.slots.write().iter_mut().find(|s| s.entry.name == name) {
            s.status = status;
            s.conn = conn;
        }
    }

    /// Connects (or reconnects) one server, updating its status as it goes.
    pub async fn connect(&self, name: &str) -> Result<Arc<McpConnection>, ConnectError> {
        let entry = self
            .slots
            .read()
            .iter()
            .find(|s| s.entry.name == name)
            .map(|s| s.entry.clone())
            .ok_or_else(|| ConnectError::Config(format!("no server `{name}`")))?;
        if let Some(old) = self.connection(name) {
            old.disconnect().await;
        }
        self.set(name, ServerStatus::Connecting, None);
        match McpConnection::connect(&entry, &self.opts).await {
            Ok(c) => {
                let c = Arc::new(c);
                let status = ServerStatus::Connected {
                    protocol_version: c.info().protocol_version.clone(),
                    connect_ms: (c.connect_time().as_secs_f64() * 1e4).round() / 10.0,
                };
                self.set(name, status, Some(c.clone()));
                Ok(c)
            }
            Err(e) => {
                self.set(
                    name,
                    ServerStatus::Failed {
                        class: e.class().into(),
                        reason: e.to_string(),
                    },
                    None,
                );
                Err(e)
            }
        }
    }

    /// Connects every server concurrently; returns when all have connected or failed.
    pub async fn connect_all(&self) {
        let names: Vec<String> = self.slots.read().iter().map(|s| s.entry.name.clone()).collect();
        futures_util::future::join_all(names.iter().map(|n| self.connect(n))).await;
    }

    /// Every server with its status, tools and auth state (its token cache is read: call this
    /// off the render path).
    pub fn servers(&self) -> Vec<ServerView> {
        let mut views: Vec<ServerView> = self
            .slots
            .read()
            .iter()
            .map(|s| ServerView {
                name: s.entry.name.clone(),
                transport: s.entry.transport,
                target: s.entry.target(),
                status: match (&s.status, &s.conn) {
                    (ServerStatus::Connected { .. }, Some(c)) if c.is_closed() => ServerStatus::Failed {
                        class: "disconnected".into(),
                        reason: "the connection closed".into(),
                    },
                    (st, _) => st.clone(),
                },
                server: s
                    .conn
                    .as_ref()
                    .map(|c| format!("{} {}", c.info().name, c.info().version)),
                tools: s.conn.as_ref().map(|c| c.tools()).unwrap_or_default(),
                auth: AuthState::None,
            })
            .collect();
        for v in &mut views {
            v.auth = match (&v.status, self.entry(&v.name)) {
                (ServerStatus::Failed { class, .. }, _) if class == "login_required" => AuthState::NeedsLogin {
                    why: "the server asks for one".into(),
                },
                (_, Some(e)) => auth_state(&e),
                (_, None) => AuthState::None,
            };
        }
        views
    }

    /// The registry entry of a server.
    pub fn entry(&self, name: &str) -> Option<ServerEntry> {
        self.slots
            .read()
            .iter()
            .find(|s| s.entry.name == name)
            .map(|s| s.entry.clone())
    }

    /// The live connection of a server.
    pub fn connection(&self, name: &str) -> Option<Arc<McpConnection>> {
        self.slots
            .read()
            .iter()
            .find(|s| s.entry.name == name)
            .and_then(|s| s.conn.clone())
    }

    /// Calls a tool of a connected server.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<JsonObject>,
        opts: CallOptions,
    ) -> Result<CallOutcome, CallError> {
        let conn = self
            .connection(server)
            .ok_or_else(|| CallError::Disconnected(format!("server `{server}` is not connected")))?;
        conn.call_tool(tool, arguments, opts).await
    }

    /// Disconnects every server (stdio children are reaped).
    pub async fn shutdown(&self) {
        let conns: Vec<(String, Arc<McpConnection>)> = self
            .slots
            .read()
            .iter()
            .filter_map(|s| s.conn.clone().map(|c| (s.entry.name.clone(), c)))
            .collect();
        futures_util::future::join_all(conns.iter().map(|(_, c)| c.disconnect())).await;
        for (name, _) in conns {
            self.set(&name, ServerStatus::Disconnected, None);
        }
    }
}

/// The SageMaker endpoint behind a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndpointLink {
    /// Endpoint name.
    pub endpoint: String,
    /// The variant that answered (from a result).
    pub invoked_variant: Option<String>,
    /// MME target model.
    pub target_model: Option<String>,
    /// Forced variant.
    pub target_variant: Option<String>,
    /// Attempts (from a result).
    pub attempts: Option<u64>,
}

fn link_from(v: &Value) -> Option<EndpointLink> {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Some(EndpointLink {
        endpoint: s("endpoint")?,
        invoked_variant: s("invoked_variant"),
        target_model: s("target_model"),
        target_variant: s("target_variant"),
        attempts: v.get("attempts").and_then(Value::as_u64),
    })
}

/// The endpoint behind a tool: from a result's structured `sagemaker` block when given, else
/// from the tool's `_meta["sagedeck/endpoint"]` (sagedeck's own server sets both).
pub fn endpoint_link(tool: Option<&Tool>, structured: Option<&Value>) -> Option<EndpointLink> {
    structured
        .and_then(|s| s.get("sagemaker"))
        .and_then(link_from)
        .or_else(|| {
            let meta = tool?.meta.as_ref()?;
            link_from(meta.get("sagedeck/endpoint")?)
        })
}
