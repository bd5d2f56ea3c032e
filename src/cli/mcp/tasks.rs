//! `sagedeck tools tasks SERVER`: the server's tasks (`tasks/list`, 2025-11-25's experimental
//! tasks) with their status, message (escaped) and times; said plainly when the server offers no listing
//! (another revision — SEP-2663 has none —, or no `tasks/list`). A read: nothing is audited.

use serde_json::json;

use super::args::{ResourcesArgs, connect_named, secs};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::cli::output::{print_json, print_table, say};
use crate::mcp::call::CallError;
use crate::mcp::tasks::experimental::REVISION;

/// JSON-RPC's "method not found": the server has no `tasks/list`.
const METHOD_NOT_FOUND: i32 = -32601;

/// Runs `tools tasks`.
pub async fn run_tasks(g: &GlobalArgs, args: ResourcesArgs) -> CmdResult {
    let conn = connect_named(&args.registry, &args.server, None).await?;
    let revision = conn.info().protocol_version.clone();
    let listed = match revision == REVISION {
        false => None,
        true => Some(
            match tokio::time::timeout(secs(args.timeout), conn.list_tasks()).await {
                Ok(r) => r,
                Err(_) => Err(CallError::Other(format!("no answer within {} s", args.timeout))),
            },
        ),
    };
    conn.disconnect().await;
    let none = |why: String| -> CmdResult {
        if g.json {
            return print_json(&json!({"server": conn.name(), "tasks": null, "no_listing": why}));
        }
        say(format!("{}: {why}", conn.name()))
    };
    let tasks = match listed {
        None => {
            return none(format!(
                "the server offers no task listing: MCP {revision} has none (tasks/list is {REVISION}'s)"
            ));
        }
        Some(Ok(t)) => t,
        Some(Err(CallError::JsonRpc {
            code: METHOD_NOT_FOUND, ..
        })) => {
            return none("the server offers no task listing (tasks/list: method not found)".into());
        }
        Some(Err(e)) => return Err(Exit::new(EXIT_AWS, format!("{}: tasks/list: {e}", conn.name()))),
    };
    if g.json {
        return print_json(&json!({"server": conn.name(), "tasks": tasks}));
    }
    let rows = tasks
        .iter()
        .map(|t| {
            vec![
                t.task_id.clone(),
                t.status.clone(),
                t.created_at.clone().unwrap_or_else(|| "-".into()),
                t.last_updated_at.clone().unwrap_or_else(|| "-".into()),
                t.status_message.clone().unwrap_or_default(),
            ]
        })
        .collect();
    print_table(&["TASK", "STATUS", "CREATED", "UPDATED", "MESSAGE"], rows)
}
