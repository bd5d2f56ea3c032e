//! `sagedeck tools resources|read|prompts|prompt`: a server's resources and resource templates,
//! one resource read (text printed; binary named by size and MIME type, its base64 in `--json`,
//! its bytes written with `--out FILE`; a template filled with `--arg`), its prompts and one
//! prompt's messages. Reads: nothing is audited. Exit codes as `tools` (`tools.rs`).

use serde_json::json;

use super::args::{AskingArgs, PromptArgs, ReadArgs, ResourcesArgs, connect_named, ms, secs, string_pairs};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_USAGE, Exit};
use crate::cli::output::{print_json, print_table, say, say_err};
use crate::format::escape_line;
use crate::mcp::McpConnection;
use crate::mcp::call::CallError;
use crate::mcp::resources::{PromptLine, ReadPart, fill_template, prompt_lines, template_variables};
use crate::mcp::result::{RenderedResult, icon_sources, icons_suffix};

/// Connects to `server` with its elicitations answered as `asking` says.
async fn connect_asking(asking: &AskingArgs, server: &str) -> Result<McpConnection, Exit> {
    let elicitor = super::elicit::start(asking.elicit.as_deref())?;
    connect_named(&asking.registry, server, Some(elicitor)).await
}

fn failed(conn: &McpConnection, what: &str, e: CallError) -> Exit {
    Exit::new(EXIT_AWS, format!("{}: {what}: {e}", conn.name()))
}

/// A title beside its name (`Title (name)`), or the name.
fn titled(name: &str, title: Option<&str>) -> String {
    match title {
        Some(t) if t != name => format!("{t} ({name})"),
        _ => name.to_string(),
    }
}

fn first_line(text: Option<&str>) -> String {
    text.unwrap_or("")
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(80)
        .collect()
}

/// Runs `tools resources`.
pub async fn run_resources(g: &GlobalArgs, args: ResourcesArgs) -> CmdResult {
    let conn = connect_named(&args.registry, &args.server, None).await?;
    let limit = secs(args.timeout);
    let listed = async {
        let resources = conn
            .list_resources(limit)
            .await
            .map_err(|e| failed(&conn, "resources/list", e))?;
        let templates = conn
            .list_resource_templates(limit)
            .await
            .map_err(|e| failed(&conn, "resources/templates/list", e))?;
        Ok::<_, Exit>((resources, templates))
    }
    .await;
    conn.disconnect().await;
    let (resources, templates) = listed?;
    if g.json {
        return print_json(&json!({
            "server": conn.name(), "protocol_version": conn.info().protocol_version,
            "subscribe": conn.info().resources_subscribe,
            "resources": resources, "templates": templates,
        }));
    }
    let rows = resources
        .iter()
        .map(|r| {
            vec![
                r.uri.clone(),
                titled(&r.name, r.title.as_deref()),
                r.mime_type.clone().unwrap_or_else(|| "-".into()),
                r.size.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
                format!(
                    "{}{}",
                    first_line(r.description.as_deref()),
                    icons_suffix(&icon_sources(r.icons.as_ref()))
                ),
            ]
        })
        .collect();
    print_table(&["URI", "NAME", "MIME", "SIZE", "DESCRIPTION"], rows)?;
    let rows = templates
        .iter()
        .map(|t| {
            vec![
                t.uri_template.clone(),
                titled(&t.name, t.title.as_deref()),
                template_variables(&t.uri_template).join(","),
                first_line(t.description.as_deref()),
            ]
        })
        .collect();
    print_table(&["TEMPLATE", "NAME", "ARGS (--arg)", "DESCRIPTION"], rows)
}

/// Runs `tools read`.
pub async fn run_read(g: &GlobalArgs, args: ReadArgs) -> CmdResult {
    let pairs = string_pairs(&args.arg)?;
    let uri = if pairs.is_empty() && !args.uri.contains('{') {
        args.uri.clone()
    } else {
        fill_template(&args.uri, &pairs).map_err(Exit::usage)?
    };
    let conn = connect_asking(&args.asking, &args.server).await?;
    let read = conn.read_resource(&uri, secs(args.asking.timeout)).await;
    conn.disconnect().await;
    let parts = read.map_err(|e| failed(&conn, &format!("resources/read {uri}"), e))?;
    if let Some(path) = &args.out {
        let first = parts
            .first()
            .ok_or_else(|| Exit::new(EXIT_AWS, format!("{}: {uri} has no contents", conn.name())))?;
        let bytes = first.bytes().ok_or_else(|| {
            Exit::new(
                EXIT_AWS,
                format!("{}: {uri}: the blob is not valid base64", conn.name()),
            )
        })?;
        std::fs::write(path, &bytes).map_err(|e| Exit::new(EXIT_USAGE, format!("--out {}: {e}", path.display())))?;
        say_err(format!(
            "sagedeck: wrote {} bytes of {uri} to {}",
            bytes.len(),
            path.display()
        ));
    }
    if g.json {
        return print_json(&json!({"server": conn.name(), "uri": uri, "contents": parts}));
    }
    for p in &parts {
        print_part(p, args.out.is_some())?;
    }
    Ok(())
}

/// A part: its text, or one line naming a binary (the text too with `--out`, not repeated).
fn print_part(p: &ReadPart, written: bool) -> CmdResult {
    let mime = p.mime_type.as_deref().unwrap_or("-");
    match (p.binary_line(), &p.text) {
        (Some(line), _) => say(format!("{}: {line}", p.uri)),
        (None, Some(_)) if written => say(format!("{}: text ({mime}) written", p.uri)),
        (None, Some(t)) => say(t),
        (None, None) => Ok(()),
    }
}

/// Runs `tools prompts`.
pub async fn run_prompts(g: &GlobalArgs, args: ResourcesArgs) -> CmdResult {
    let conn = connect_named(&args.registry, &args.server, None).await?;
    let listed = conn.list_prompts(secs(args.timeout)).await;
    conn.disconnect().await;
    let prompts = listed.map_err(|e| failed(&conn, "prompts/list", e))?;
    if g.json {
        return print_json(&json!({"server": conn.name(), "prompts": prompts}));
    }
    let rows = prompts
        .iter()
        .map(|p| {
            let args = p
                .arguments
                .iter()
                .flatten()
                .map(|a| format!("{}{}", a.name, if a.required == Some(true) { "*" } else { "" }))
                .collect::<Vec<_>>()
                .join(",");
            vec![
                titled(&p.name, p.title.as_deref()),
                if args.is_empty() { "-".into() } else { args },
                format!(
                    "{}{}",
                    first_line(p.description.as_deref()),
                    icons_suffix(&icon_sources(p.icons.as_ref()))
                ),
            ]
        })
        .collect();
    print_table(&["PROMPT", "ARGS (* required)", "DESCRIPTION"], rows)
}

/// Runs `tools prompt`.
pub async fn run_prompt(g: &GlobalArgs, args: PromptArgs) -> CmdResult {
    let pairs = string_pairs(&args.arg)?;
    let conn = connect_asking(&args.asking, &args.server).await?;
    let started = std::time::Instant::now();
    let got = conn.get_prompt(&args.name, pairs, secs(args.asking.timeout)).await;
    conn.disconnect().await;
    let r = got.map_err(|e| failed(&conn, &format!("prompts/get {}", args.name), e))?;
    let lines = prompt_lines(&r);
    if g.json {
        return print_json(&json!({
            "server": conn.name(), "prompt": args.name, "description": r.description,
            "messages": lines, "duration_ms": ms(started.elapsed()),
        }));
    }
    if let Some(d) = &r.description {
        say_err(format!("sagedeck: {}: {}", args.name, escape_line(d)));
    }
    for l in &lines {
        say(format!("[{}]\n{}", l.role, block_text(l)))?;
    }
    Ok(())
}

/// A message's content as the result of a tool call shows it.
fn block_text(l: &PromptLine) -> String {
    RenderedResult {
        is_error: false,
        blocks: vec![l.content.clone()],
        structured: None,
        schema_errors: None,
    }
    .to_text()
}
