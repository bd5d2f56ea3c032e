//! The MCP runner's jobs (`worker/mcp.rs`): connecting servers, logging in to and out of OAuth
//! servers, and calling tools.

use super::Effect;

/// What the read-only refusal calls a tool call (the Tools pane asks it before calling).
pub const CALLING_TOOLS: &str = "calling tools";

/// The MCP servers' jobs (the console's own profile and region: they act on no endpoint).
#[derive(Debug, Clone)]
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
}

super::kinds!(McpJob => McpKind { Connect, Login, Logout, ToolCall, });

super::effects!(McpJob, |job| match job {
    McpJob::ToolCall { reason, .. } => Effect::Audited(CALLING_TOOLS, reason),
    // A login changes no resource: it keeps a token on this machine, as reading needs.
    McpJob::Connect { .. } | McpJob::Login { .. } | McpJob::Logout { .. } => Effect::Reads,
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
        }
    }
}
