//! `sagedeck mcp serve`: SageMaker endpoints served as MCP tools, on stdio or streamable HTTP.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::aws::invoke::log::InvocationLog;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::mcp::server::{HttpAccess, ToolServer, check_origin, serve_http_with, serve_stdio};
use crate::mcp::tasks::asynchronous_endpoints;
use crate::mcp::tools_config::ToolsConfig;

/// `sagedeck mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: McpCommand,
}

/// `sagedeck mcp` subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Serve SageMaker endpoints as MCP tools (stdio by default).
    Serve(ServeArgs),
}

/// `sagedeck mcp serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Tools file (TOML): each tool names an endpoint, payload and answer.
    #[arg(long, value_name = "FILE.toml", conflicts_with = "demo_tools")]
    pub tools: Option<PathBuf>,
    /// Serve the built-in demo tools over the demo fleet.
    #[arg(long)]
    pub demo_tools: bool,
    /// Serve streamable HTTP at /mcp on ADDR (`PORT` alone = 127.0.0.1:PORT) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Require `Authorization: Bearer TOKEN` on HTTP (default: SAGEDECK_MCP_TOKEN).
    #[arg(long, env = "SAGEDECK_MCP_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Also accept requests from this browser origin (`https://HOST[:PORT]`, repeatable); other
    /// origins than the server's own are refused with 403.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Append one JSON line per invocation to FILE (the variant log: tool, endpoint, invoked
    /// variant, latency, status, sizes, SHA-256 of the input); `sagedeck variants-report FILE`
    /// compares the variants over it.
    #[arg(long, value_name = "FILE")]
    pub invocation_log: Option<PathBuf>,
    /// Also write each input itself into the variant log (default: only its hash).
    #[arg(long, requires = "invocation_log")]
    pub log_inputs: bool,
}

/// `PORT` → 127.0.0.1:PORT; `HOST:PORT` as given.
pub fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    s.parse::<SocketAddr>()
        .map_err(|_| format!("--http `{s}` is not PORT or HOST:PORT (e.g. 127.0.0.1:8765)"))
}

/// Runs `mcp serve`.
pub async fn run_mcp(g: &GlobalArgs, args: McpArgs) -> CmdResult {
    let McpCommand::Serve(args) = args.command;
    let config = match (&args.tools, args.demo_tools) {
        (Some(p), _) => ToolsConfig::load(p).map_err(Exit::usage)?,
        (None, true) => ToolsConfig::demo(),
        (None, false) => return Err(Exit::usage("give --tools FILE.toml or --demo-tools")),
    };
    let listen = args
        .http
        .as_deref()
        .map(parse_listen)
        .transpose()
        .map_err(Exit::usage)?;
    (args.allow_origin.iter().try_for_each(|o| check_origin(o))).map_err(Exit::usage)?;
    let fleet = g.connect().await?;
    let n = config.tools.len();
    // Tools on asynchronous endpoints are served as task tools (unless the file says).
    let undecided: Vec<String> = (config.tools.iter())
        .filter(|t| t.asynchronous.is_none())
        .map(|t| t.endpoint.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let (asynchronous, warnings) = asynchronous_endpoints(&fleet, &undecided).await;
    for w in warnings {
        eprintln!("sagedeck: warning: {w}");
    }
    let mut server = ToolServer::new(fleet, config).with_async_endpoints(&asynchronous);
    let tasks: Vec<&str> = (server.tools().iter())
        .map(|t| t.name.as_ref())
        .filter(|t| server.is_task_tool(t))
        .collect();
    if !tasks.is_empty() {
        eprintln!("sagedeck: task tools (asynchronous endpoints): {}", tasks.join(", "));
    }
    if let Some(path) = &args.invocation_log {
        let log = InvocationLog::open(path, args.log_inputs).map_err(Exit::usage)?;
        server = server.with_invocation_log(std::sync::Arc::new(log));
    }
    let Some(addr) = listen else {
        if args.token.is_some() {
            eprintln!("sagedeck: --token applies to --http only; stdio has no authentication");
        }
        eprintln!("sagedeck: serving {n} tools on stdio");
        return serve_stdio(server).await.map_err(|e| Exit::new(EXIT_AWS, e));
    };
    if !addr.ip().is_loopback() && args.token.is_none() {
        eprintln!(
            "sagedeck: warning: serving on {addr} (not loopback) without --token: anyone who reaches it can invoke your endpoints"
        );
    }
    let token_note = if args.token.is_some() {
        " (bearer token required)"
    } else {
        ""
    };
    let access = HttpAccess {
        token: args.token.clone(),
        allow_origins: args.allow_origin.clone(),
    };
    let handle = (serve_http_with(server, addr, access).await)
        .map_err(|e| Exit::new(EXIT_AWS, format!("cannot listen on {addr}: {e}")))?;
    eprintln!(
        "sagedeck: serving {n} tools over streamable HTTP at {}{token_note}",
        handle.url()
    );
    let _ = tokio::signal::ctrl_c().await;
    handle.shutdown().await;
    Ok(())
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(parse_listen("8765").unwrap().to_string(), "127.0.0.1:8765");
        assert!(parse_listen("0.0.0.0:1").is_ok() && parse_listen("x").is_err());
    }
}
