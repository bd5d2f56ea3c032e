//! The MCP runner's jobs (`worker/mcp/`): connecting servers, logging in to and out of OAuth
//! servers, calling tools, listing and reading resources and prompts, subscribing to resources.

use super::Effect;

/// What the read-only refusal calls a tool call (the Tools pane asks it before calling).
pub const CALLING_TOOLS: &str = "calling tools";

/// The MCP servers' jobs (the console's own profile and region: they act on no endpoint).
#[derive(Debug, Clone, PartialEq)]
pub enum McpJob {
    /// Connect MCP servers (all of them when `server` is None), reporting
    /// [`crate::tui::event::AppEvent::McpServers`].
    Connect {
        /// One server by name.
        server: Option<String>,
    },
    /// An OAuth login to an HTTP server: the URL reported, then the redirect awaited in the
    /// background ([`crate::tui::event::AppEvent::McpLogin`]); the server reconnects after.
    Login {
        /// Server name.
        server: String,
    },
    /// Forget a server's OAuth tokens (its token cache is deleted), then reconnect it.
    Logout {
        /// Server name.
        server: String,
    },
    /// Call an MCP tool `repeat` times (Esc sends `notifications/cancelled`); audited first.
    ToolCall {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// Arguments.
        arguments: Option<rmcp::model::JsonObject>,
        /// How many times.
        repeat: u32,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// List a server's resources, templates and prompts, reporting
    /// [`crate::tui::event::AppEvent::McpCatalog`].
    Catalog {
        /// Server name.
        server: String,
    },
    /// Read a resource or get a prompt, reporting [`crate::tui::event::AppEvent::McpContent`].
    Read {
        /// Server name.
        server: String,
        /// What to read.
        target: ReadTarget,
    },
    /// Subscribe to a resource's updates (or stop them), reporting
    /// [`crate::tui::event::AppEvent::McpSubscribed`].
    Subscribe {
        /// Server name.
        server: String,
        /// The resource.
        uri: String,
        /// Subscribe (true) or unsubscribe.
        on: bool,
    },
}

/// What a [`McpJob::Read`] reads.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadTarget {
    /// A resource by URI (a template already filled).
    Resource(String),
    /// A prompt with its arguments.
    Prompt {
        /// Its name.
        name: String,
        /// Its arguments (strings).
        arguments: serde_json::Map<String, serde_json::Value>,
    },
}

impl ReadTarget {
    /// `URI` or `prompt NAME`.
    pub fn label(&self) -> String {
        match self {
            ReadTarget::Resource(uri) => uri.clone(),
            ReadTarget::Prompt { name, .. } => format!("prompt {name}"),
        }
    }
}

super::kinds!(McpJob => McpKind { Connect, Login, Logout, ToolCall, Catalog, Read, Subscribe, });

super::effects!(McpJob, |job| match job {
    McpJob::ToolCall { reason, .. } => Effect::Audited(CALLING_TOOLS, reason),
    // A login changes no resource: it keeps a token on this machine, as reading needs.
    McpJob::Connect { .. }
    | McpJob::Login { .. }
    | McpJob::Logout { .. }
    | McpJob::Catalog { .. }
    | McpJob::Read { .. }
    | McpJob::Subscribe { .. } => {
        Effect::Reads
    }
});

impl McpJob {
    /// A short label for the status line.
    pub fn label(&self) -> String {
        match self {
            McpJob::Connect { server: Some(s) } => format!("refreshing MCP server {s}"),
            McpJob::Connect { server: None } => "refreshing MCP servers".into(),
            McpJob::Login { server } => format!("logging in to {server}"),
            McpJob::Logout { server } => format!("logging out of {server}"),
            McpJob::ToolCall { tool, repeat, .. } if *repeat > 1 => format!("calling tool {tool} ×{repeat}"),
            McpJob::ToolCall { tool, .. } => format!("calling tool {tool}"),
            McpJob::Catalog { server } => format!("listing the resources and prompts of {server}"),
            McpJob::Read { target, .. } => format!("reading {}", target.label()),
            McpJob::Subscribe { uri, on: true, .. } => format!("subscribing to {uri}"),
            McpJob::Subscribe { uri, .. } => format!("unsubscribing from {uri}"),
        }
    }
}
