//! What the `tools` subcommands share: the registry options, the arguments of `tools
//! resources|read|prompts|prompt`, finding a server and connecting to it, and the exit code of
//! a connection that failed.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde_json::{Map, Value};

use crate::cli::exit::{EXIT_AWS, EXIT_USAGE, Exit};
use crate::mcp::elicit::Elicitor;
use crate::mcp::{ConnectError, ConnectOptions, McpConnection, Registry, ServerEntry};

/// Where the registry is and how long to wait for a server.
#[derive(Debug, Args, Clone)]
pub struct RegistryArgs {
    /// mcpServers JSON file (default: ~/.config/sagedeck/mcp.json).
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,
    /// Seconds to wait for a server's handshake.
    #[arg(long, default_value_t = 30.0, value_name = "S")]
    pub connect_timeout: f64,
}

/// How a command that may be asked for input reaches its server: the registry, how long it
/// waits, and the answers to the server's elicitations.
#[derive(Debug, Args, Clone)]
pub struct AskingArgs {
    /// Seconds to wait for the answer (a tool call: without an answer or progress, or a task
    /// without a change of status; it is then cancelled, a task with `tasks/cancel`).
    #[arg(long, default_value_t = 60.0, value_name = "S")]
    pub timeout: f64,
    /// Answers to the server's elicitations, from a JSON file (else asked on the terminal, or
    /// declined when standard input is not one).
    #[arg(long, value_name = "FILE.json")]
    pub elicit: Option<PathBuf>,
    /// Registry options.
    #[command(flatten)]
    pub registry: RegistryArgs,
}

/// `sagedeck tools resources`.
#[derive(Debug, Args)]
pub struct ResourcesArgs {
    /// Server name in the registry.
    pub server: String,
    /// Seconds to wait for each answer.
    #[arg(long, default_value_t = 60.0, value_name = "S")]
    pub timeout: f64,
    /// Registry options.
    #[command(flatten)]
    pub registry: RegistryArgs,
}

/// `sagedeck tools read`.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Server name in the registry.
    pub server: String,
    /// The resource's URI, or a resource template filled with `--arg`.
    pub uri: String,
    /// A template variable (repeatable).
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
    /// Writes the contents (the first part's bytes) to FILE instead of printing them.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The registry, the timeout and elicitation answers.
    #[command(flatten)]
    pub asking: AskingArgs,
}

/// `sagedeck tools prompt`.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// Server name in the registry.
    pub server: String,
    /// The prompt's name.
    pub name: String,
    /// A prompt argument (repeatable; its value is sent as a string).
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
    /// The registry, the timeout and elicitation answers.
    #[command(flatten)]
    pub asking: AskingArgs,
}

/// A positive duration of `s` seconds (a millisecond for anything else).
pub fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(if s.is_finite() && s > 0.0 { s } else { 0.001 })
}

/// Milliseconds with one decimal.
pub fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e4).round() / 10.0
}

/// The registry, refused when it names no server.
pub fn load_registry(r: &RegistryArgs) -> Result<Registry, Exit> {
    match Registry::load_default(r.mcp_config.as_deref()) {
        Ok(reg) if reg.servers.is_empty() => Err(Exit::usage(
            "no MCP servers configured: pass --mcp-config FILE or create ~/.config/sagedeck/mcp.json (mcpServers format)",
        )),
        Ok(reg) => Ok(reg),
        Err(e) => Err(Exit::usage(e)),
    }
}

/// The entry named `name` (exit 2 naming the others when there is none).
pub fn entry_of(reg: &Registry, name: &str) -> Result<ServerEntry, Exit> {
    reg.get(name).cloned().ok_or_else(|| {
        Exit::usage(format!(
            "no server `{name}` in the registry (have: {})",
            reg.names().join(", ")
        ))
    })
}

/// The exit code of a connection failure: a configuration that cannot be used is invalid input
/// (2), anything else a failure to reach or speak to the server (3).
pub fn connect_exit(e: &ConnectError) -> i32 {
    match e {
        ConnectError::Config(_) => EXIT_USAGE,
        _ => EXIT_AWS,
    }
}

/// Connects to the server named `server`, its elicitations answered by `elicitor`.
pub async fn connect_named(r: &RegistryArgs, server: &str, elicitor: Option<Elicitor>) -> Result<McpConnection, Exit> {
    let entry = entry_of(&load_registry(r)?, server)?;
    let opts = ConnectOptions {
        timeout: secs(r.connect_timeout),
        elicitor,
        ..Default::default()
    };
    McpConnection::connect(&entry, &opts)
        .await
        .map_err(|e| Exit::new(connect_exit(&e), format!("{}: {e}", entry.name)))
}

/// `--arg KEY=VALUE` pairs as a map of strings.
pub fn string_pairs(pairs: &[String]) -> Result<Map<String, Value>, Exit> {
    let mut out = Map::new();
    for p in pairs {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| Exit::usage(format!("--arg `{p}` is not KEY=VALUE")))?;
        out.insert(k.to_string(), Value::String(v.to_string()));
    }
    Ok(out)
}

/// `sagedeck tools login`.
#[derive(Debug, Args)]
pub struct LoginArgs {
    /// Server name in the registry (a streamable HTTP server behind OAuth).
    pub server: String,
    /// Print the authorization URL without opening a browser.
    #[arg(long)]
    pub no_browser: bool,
    /// A scope to ask for besides those the server names (repeatable).
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,
    /// Seconds to wait for the browser's redirect.
    #[arg(long, default_value_t = 300.0, value_name = "S")]
    pub wait: f64,
    /// Registry options.
    #[command(flatten)]
    pub registry: RegistryArgs,
}

/// `sagedeck tools logout`.
#[derive(Debug, Args)]
pub struct LogoutArgs {
    /// Server name in the registry.
    pub server: String,
    /// Registry options.
    #[command(flatten)]
    pub registry: RegistryArgs,
}
