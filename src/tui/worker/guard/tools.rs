//! The audit records of the console's tool calls: the intent before the call is sent, how it
//! ended after.

use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;

use super::reads::send_activity;
use super::{Guard, notice};
use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::Audited;
use crate::aws::{AwsError, Fleet};
use crate::tui::event::AppEvent;

/// A tool call from the console, audited: the intent (server, tool, redacted arguments) is written
/// before the call is sent. With no AWS connection there is no principal to record and the call is
/// not audited (MCP servers do not need AWS); with one, an audit log that cannot be written refuses
/// the call.
pub(in crate::tui::worker) async fn tool_call_intent(
    g: &Guard,
    fleet: &Result<Fleet, AwsError>,
    target: &str,
    arguments: &serde_json::Value,
    repeat: u32,
    reason: Option<String>,
    events: &UnboundedSender<AppEvent>,
) -> Result<Option<(Audited, crate::aws::change::audit::Pending)>, String> {
    let Ok(f) = fleet else {
        return Ok(None);
    };
    let audited = g.audited(f).await?;
    let pending = audited
        .intent(Mutation {
            action: "tool.call".into(),
            target: target.to_string(),
            before: serde_json::Value::Null,
            after: json!({ "arguments": arguments, "repeat": repeat }),
            reason,
        })
        .await
        .map_err(|e| format!("audit log: {e}; the tool call was not sent"))?;
    send_activity(g, events);
    Ok(Some((audited, pending)))
}

/// Records how an audited tool call ended.
pub(in crate::tui::worker) fn tool_call_finish(
    g: &Guard,
    audit: Option<(Audited, crate::aws::change::audit::Pending)>,
    outcome: Result<Option<String>, String>,
    events: &UnboundedSender<AppEvent>,
) {
    if let Some((audited, pending)) = audit {
        if let Err(e) = audited.finish(&pending, outcome) {
            notice(events, true, e.to_string());
        }
        send_activity(g, events);
    }
}
