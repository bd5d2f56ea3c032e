//! `sagedeck tools list|call`: test-invoke the tools of any MCP server in the registry. Each
//! call is written to the audit log, as in the console (`sagedeck mcp serve` is in `serve.rs`,
//! resources and prompts in `resources.rs`). `tools list --lint` lints every tool's schema.
//!
//! Exit codes of `tools`: 0 ok; 2 usage (unknown server, bad arguments); 3 the server could not
//! be reached, answered a JSON-RPC error or timed out; 4 the tool answered `isError`; 6 the
//! audit log cannot be written (nothing was sent); 8 the lint found something.

use std::time::Instant;

use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};

use super::args::{
    AskingArgs, PromptArgs, ReadArgs, RegistryArgs, ResourcesArgs, connect_exit, entry_of, load_registry, ms, secs,
};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_CHECK_FAILED, EXIT_MODEL, EXIT_OK, Exit};
use crate::cli::output::{print_json, print_table, say, say_err};
use crate::mcp::lint::{Finding, lint};
use crate::mcp::oauth::{AuthState, auth_state};
use crate::mcp::result::{icon_sources, icons_suffix};
use crate::mcp::{CallError, CallOptions, CallOutcome, ConnectError, ConnectOptions, McpConnection, ServerEntry};

/// `sagedeck tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ToolsCommand,
}

/// `sagedeck tools` subcommands.
#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Connect to the configured MCP servers and list their status and tools.
    List(ListArgs),
    /// Call one tool of one server and print what came back.
    Call(CallArgs),
    /// Log in to an HTTP server behind OAuth (the URL printed, opened in a browser if any).
    Login(super::args::LoginArgs),
    /// Forget an HTTP server's OAuth tokens.
    Logout(super::args::LogoutArgs),
    /// List a server's resources and resource templates.
    Resources(ResourcesArgs),
    /// Read one resource (text, or binary as size, MIME type and base64), or a filled template.
    Read(ReadArgs),
    /// List a server's prompts and their arguments.
    Prompts(ResourcesArgs),
    /// Get one prompt with its arguments and print the messages it returns.
    Prompt(PromptArgs),
    /// List a server's tasks (`tasks/list`, where its MCP revision offers one: 2025-11-25).
    Tasks(ResourcesArgs),
}

/// `sagedeck tools list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this server.
    #[arg(long)]
    pub server: Option<String>,
    /// Lint every tool's schema: invalid JSON Schema, required names missing from properties,
    /// missing descriptions, absent annotations (exit 8 on findings).
    #[arg(long)]
    pub lint: bool,
    /// Registry options.
    #[command(flatten)]
    pub registry: RegistryArgs,
}

/// `sagedeck tools call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// Server name in the registry.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// Arguments as one JSON object.
    #[arg(long, value_name = "JSON", conflicts_with = "arg")]
    pub args: Option<String>,
    /// One argument (repeatable); VALUE is JSON when it parses and the schema does not say string.
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
    /// The registry, the timeout and elicitation answers.
    #[command(flatten)]
    pub asking: AskingArgs,
    /// Calls the tool plainly even where the server offers it as a task (the tasks extension
    /// is not declared; the result comes in the call itself).
    #[arg(long)]
    pub no_task: bool,
    /// How the server's sampling requests are answered.
    #[command(flatten)]
    pub sampling: super::sampling::SamplingArgs,
}

fn annotations_text(t: &rmcp::model::Tool) -> String {
    let Some(a) = &t.annotations else {
        return "-".into();
    };
    let mut out = Vec::new();
    if a.read_only_hint == Some(true) {
        out.push("read-only");
    }
    if a.destructive_hint == Some(true) && a.read_only_hint != Some(true) {
        out.push("destructive");
    }
    if a.idempotent_hint == Some(true) {
        out.push("idempotent");
    }
    if a.open_world_hint == Some(true) {
        out.push("open-world");
    }
    if out.is_empty() { "-".into() } else { out.join(",") }
}

/// Prints a connected server's line and its tools' table (`tools list` without `--json`).
fn print_server(entry: &ServerEntry, conn: &McpConnection) -> CmdResult {
    let (i, tools) = (conn.info(), conn.tools());
    say(format!(
        "== {} ({}): connected to {} {} · protocol {} · {} tools · {:.1} ms · auth: {}",
        entry.name,
        entry.transport,
        i.name,
        i.version,
        i.protocol_version,
        tools.len(),
        ms(conn.connect_time()),
        auth_state(entry).label()
    ))?;
    let rows = tools
        .iter()
        .map(|t| {
            let desc = t.description.as_deref().unwrap_or("").lines().next().unwrap_or("");
            vec![
                t.name.to_string(),
                t.title.clone().unwrap_or_else(|| "-".into()),
                annotations_text(t),
                format!(
                    "{}{}",
                    desc.chars().take(90).collect::<String>(),
                    icons_suffix(&icon_sources(t.icons.as_ref()))
                ),
            ]
        })
        .collect();
    print_table(&["TOOL", "TITLE", "HINTS", "DESCRIPTION"], rows)
}

/// A connected server's report (`tools list --json`), its lint findings when asked for; the
/// table and findings printed first without `--json`.
fn connected_report(
    g: &GlobalArgs,
    entry: &ServerEntry,
    conn: &McpConnection,
    lint_on: bool,
) -> Result<(Value, usize), Exit> {
    for w in conn.refused_tools() {
        say_err(format!("sagedeck: warning: {}: {w}", entry.name));
    }
    let tools = conn.tools();
    let findings = if lint_on { lint(&tools) } else { Vec::new() };
    if !g.json {
        print_server(entry, conn)?;
        if lint_on {
            print_findings(&findings)?;
        }
    }
    let mut report = json!({
        "name": entry.name, "transport": entry.transport, "target": entry.target(),
        "status": "connected", "protocol_version": conn.info().protocol_version,
        "server": conn.info(), "connect_ms": ms(conn.connect_time()), "auth": auth_state(entry),
        "tools": tools,
    });
    if lint_on {
        report["lint"] = json!(findings);
    }
    Ok((report, findings.len()))
}

/// The lint's findings as a table, or one line saying there are none.
fn print_findings(findings: &[Finding]) -> CmdResult {
    if findings.is_empty() {
        return say("lint: no findings");
    }
    let rows = findings
        .iter()
        .map(|f| vec![f.tool.clone(), f.rule.to_string(), f.message.clone()])
        .collect();
    print_table(&["TOOL", "RULE", "FINDING"], rows)
}

/// Runs `tools list`.
pub async fn run_list(g: &GlobalArgs, args: ListArgs) -> CmdResult {
    let reg = load_registry(&args.registry)?;
    let entries: Vec<ServerEntry> = match &args.server {
        Some(name) => vec![entry_of(&reg, name)?],
        None => reg.servers.clone(),
    };
    let opts = ConnectOptions {
        timeout: secs(args.registry.connect_timeout),
        ..Default::default()
    };
    let results = futures_util::future::join_all(entries.iter().map(|e| McpConnection::connect(e, &opts))).await;
    let (mut worst, mut findings) = (EXIT_OK, 0);
    let mut report = Vec::new();
    for (entry, r) in entries.iter().zip(results) {
        match r {
            Ok(conn) => {
                let done = connected_report(g, entry, &conn, args.lint);
                conn.disconnect().await;
                let (r, n) = done?;
                report.push(r);
                findings += n;
            }
            Err(e) => {
                worst = worst.max(connect_exit(&e));
                say_err(format!("sagedeck: {}: {e}", entry.name));
                let auth = failed_auth(entry, &e);
                if !g.json {
                    say(format!(
                        "== {} ({}): FAILED: {e} · auth: {}",
                        entry.name,
                        entry.transport,
                        auth.label()
                    ))?;
                }
                report.push(json!({
                    "name": entry.name, "transport": entry.transport, "target": entry.target(),
                    "status": "failed", "error": {"class": e.class(), "message": e.to_string()},
                    "auth": auth,
                }));
            }
        }
    }
    if g.json {
        print_json(&report)?;
    }
    if worst != EXIT_OK {
        Err(Exit::code(worst))
    } else if findings > 0 {
        Err(Exit::new(
            EXIT_CHECK_FAILED,
            format!(
                "the lint found {findings} problem{}",
                if findings == 1 { "" } else { "s" }
            ),
        ))
    } else {
        Ok(())
    }
}

/// The auth state of a server whose connection failed: a login it asks for is `needs login`.
fn failed_auth(entry: &ServerEntry, e: &ConnectError) -> AuthState {
    match e {
        ConnectError::LoginRequired { status: 403, .. } => AuthState::NeedsLogin {
            why: "a scope is missing".into(),
        },
        ConnectError::LoginRequired { .. } => AuthState::NeedsLogin {
            why: "the server asks for one".into(),
        },
        _ => auth_state(entry),
    }
}

/// Builds the arguments object from `--args JSON` or `--arg k=v` (typed by the tool's schema).
pub fn build_arguments(
    args_json: Option<&str>,
    pairs: &[String],
    input_schema: Option<&Map<String, Value>>,
) -> Result<Map<String, Value>, String> {
    if let Some(text) = args_json {
        return match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err("--args must be a JSON object".into()),
            Err(e) => Err(format!("--args is not valid JSON: {e}")),
        };
    }
    let mut out = Map::new();
    for p in pairs {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| format!("--arg `{p}` is not KEY=VALUE"))?;
        let declared = input_schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(k))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str);
        let value = match declared {
            Some("string") => Value::String(v.to_string()),
            _ => serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string())),
        };
        out.insert(k.to_string(), value);
    }
    Ok(out)
}

/// Runs `tools call`.
pub async fn run_call(g: &GlobalArgs, args: CallArgs) -> CmdResult {
    let entry = entry_of(&load_registry(&args.asking.registry)?, &args.server)?;
    if args.args.is_some() {
        // Fail on bad JSON before starting anything.
        build_arguments(args.args.as_deref(), &[], None).map_err(Exit::usage)?;
    }
    let sampler = super::sampling::sampler(g, &args.sampling).await?;
    let opts = ConnectOptions {
        timeout: secs(args.asking.registry.connect_timeout),
        sampling: sampler.clone(),
        elicitor: Some(super::elicit::start(args.asking.elicit.as_deref())?),
        tasks: !args.no_task,
    };
    // Who is calling (for the audit log) is looked up while the server connects.
    let (caller, conn) = tokio::join!(super::audit::context(g), McpConnection::connect(&entry, &opts));
    let conn = conn.map_err(|e| Exit::new(connect_exit(&e), format!("{}: {e}", entry.name)))?;
    let result = call_on(g, &conn, &args, caller).await;
    conn.disconnect().await;
    if let Some(line) = sampler.as_deref().and_then(super::sampling::summary) {
        say_err(line);
    }
    result
}

async fn call_on(g: &GlobalArgs, conn: &McpConnection, args: &CallArgs, caller: super::audit::Caller) -> CmdResult {
    let tool = conn.tool(&args.tool);
    let schema = tool.as_ref().map(|t| (*t.input_schema).clone());
    let arguments = build_arguments(args.args.as_deref(), &args.arg, schema.as_ref()).map_err(Exit::usage)?;
    let logged = Value::Object(arguments.clone());
    let audit = super::audit::intent(g, caller, conn.name(), &args.tool, &logged).await?;
    let (ptx, prx) = tokio::sync::mpsc::unbounded_channel::<crate::mcp::events::Progress>();
    let printer = tokio::spawn(print_progress(prx, !g.json));
    let cancel = tokio_util::sync::CancellationToken::new();
    let call_opts = CallOptions {
        timeout: secs(args.asking.timeout),
        max_total: None,
        cancel: cancel.clone(),
        progress: Some(ptx),
    };
    let started = Instant::now();
    let call = conn.call_tool(&args.tool, Some(arguments), call_opts);
    tokio::pin!(call);
    let outcome = tokio::select! {
        r = &mut call => r,
        _ = tokio::signal::ctrl_c() => {
            cancel.cancel();
            call.await
        }
    };
    // The finished call has dropped its progress sender: the printer ends once it has printed
    // everything (aborting it could lose the last lines).
    let _ = printer.await;
    audit.finish(match &outcome {
        Ok(o) if o.result.is_error => Err(format!(
            "the tool answered isError: {}",
            o.result.first_text().unwrap_or_else(|| "no message".into())
        )),
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    });
    // Named when the server does not list the tool that was called.
    let not_listed = tool.is_none().then(|| {
        let known = conn.tools().iter().map(|t| t.name.to_string()).collect::<Vec<_>>();
        format!(
            " (the server lists no tool `{}`; it has: {})",
            args.tool,
            known.join(", ")
        )
    });
    match outcome {
        Ok(o) => answered(g, conn, &o, not_listed),
        Err(e) => {
            let hint = match (&e, not_listed) {
                (CallError::JsonRpc { .. }, Some(hint)) => hint,
                _ => String::new(),
            };
            if g.json {
                print_json(
                    &json!({"server": conn.name(), "tool": args.tool, "error": e, "elapsed_ms": ms(started.elapsed())}),
                )?;
            }
            let code = if e == CallError::Cancelled { 130 } else { EXIT_AWS };
            Err(Exit::new(code, format!("{}/{}: {e}{hint}", conn.name(), args.tool)))
        }
    }
}

/// Prints each progress notification on stderr (when `show`) until the call drops its sender.
async fn print_progress(mut rx: tokio::sync::mpsc::UnboundedReceiver<crate::mcp::events::Progress>, show: bool) {
    while let Some(p) = rx.recv().await {
        if show {
            let total = p.total.map(|t| format!("/{t}")).unwrap_or_default();
            match (p.task, p.message) {
                (Some(task), Some(m)) => say_err(format!("sagedeck: task {task}: {m}")),
                (Some(task), None) => say_err(format!("sagedeck: task {task}")),
                (None, m) => say_err(format!(
                    "sagedeck: progress {}{total}{}",
                    p.progress,
                    m.map(|m| format!(" {m}")).unwrap_or_default()
                )),
            }
        }
    }
}

/// Prints a tool's answer (the result on stdout, timing and the SageMaker link on stderr) and
/// returns the exit code: 4 when the tool answered isError.
fn answered(g: &GlobalArgs, conn: &McpConnection, o: &CallOutcome, not_listed: Option<String>) -> CmdResult {
    if g.json {
        print_json(&json!({
            "server": conn.name(), "tool": o.tool, "is_error": o.result.is_error,
            "duration_ms": ms(o.duration), "connect_ms": ms(conn.connect_time()),
            "progress": o.progress, "task": o.task, "input_rounds": o.input_rounds,
            "result": o.result, "raw": o.raw,
        }))?;
    } else {
        say(o.result.to_text())?;
        let mut line = format!(
            "sagedeck: {}/{} answered in {:.1} ms (connect {:.1} ms)",
            conn.name(),
            o.tool,
            ms(o.duration),
            ms(conn.connect_time())
        );
        if let Some(sm) = o.result.structured.as_ref().and_then(|s| s.get("sagemaker")) {
            line.push_str(&format!(
                " · endpoint {} · variant {} · {} attempt(s)",
                sm["endpoint"].as_str().unwrap_or("?"),
                sm["invoked_variant"].as_str().unwrap_or("-"),
                sm["attempts"]
            ));
        }
        if let Some(t) = &o.task {
            line.push_str(&format!(" · task {} {} after {} poll(s)", t.task_id, t.status, t.polls));
        }
        if o.input_rounds > 0 {
            line.push_str(&format!(" · asked for input {} time(s)", o.input_rounds));
        }
        say_err(line);
    }
    if o.result.is_error {
        let why = o.result.first_text().unwrap_or_else(|| "no message".into());
        return Err(Exit::new(
            EXIT_MODEL,
            format!("{} reported an error: {why}{}", o.tool, not_listed.unwrap_or_default()),
        ));
    }
    if let Some(errs) = o.result.schema_errors.as_ref().filter(|e| !e.is_empty()) {
        say_err(format!(
            "sagedeck: warning: structured content violates the outputSchema: {}",
            errs.join("; ")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_follow_the_schema() {
        let schema = json!({"properties": {"sign": {"type": "string"}, "n": {"type": "integer"}}});
        let m = build_arguments(
            None,
            &["sign=1234".into(), "n=3".into(), "x=hello".into(), "o={\"a\":1}".into()],
            schema.as_object(),
        )
        .unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"sign": "1234", "n": 3, "x": "hello", "o": {"a": 1}})
        );
        assert!(build_arguments(Some("[1]"), &[], None).is_err());
        assert!(build_arguments(None, &["novalue".into()], None).is_err());
    }
}
