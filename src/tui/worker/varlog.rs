//! The console's side of the variant log (`aws::invoke::log`): a line for every invocation
//! of the Invoke dialog and every tool call of the Tools tab. A failed write is said once, as a
//! notice; the call itself is never held up nor failed by it.

use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use crate::aws::invoke::log::{InvocationRecord, Status};
use crate::mcp::{CallError, CallOutcome};
use crate::tui::event::AppEvent;

/// Appends `record` (its input `input`) to the guard's variant log, when there is one.
pub(super) fn append(
    g: &super::guard::Guard,
    record: InvocationRecord,
    input: &[u8],
    events: &UnboundedSender<AppEvent>,
) {
    if let Ok(Some(log)) = g.invocations.as_ref()
        && let Some(warning) = log.append(record, input)
    {
        let _ = events.send(AppEvent::Notice {
            error: true,
            text: warning,
        });
    }
}

/// The record of one tool call of the Tools tab (`server/tool`), and its input (the arguments
/// as JSON). A sagedeck tool server's `sagemaker` block names the endpoint, the variant that
/// answered and the endpoint's latency; other servers' calls carry the call's own duration.
pub(super) fn tool_record(
    target: &str,
    arguments: &Option<rmcp::model::JsonObject>,
    result: &Result<CallOutcome, CallError>,
) -> (InvocationRecord, Vec<u8>) {
    let input = serde_json::to_vec(&arguments.clone().unwrap_or_default()).unwrap_or_default();
    let mut r = InvocationRecord::new("console-tool", &input);
    r.tool = Some(target.to_string());
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            r.status = Status::Error;
            r.error_class = Some(call_error_class(e).into());
            if let CallError::Timeout { after, .. } = e {
                r.latency_ms = after.as_secs_f64() * 1e3;
            }
            return (r, input);
        }
    };
    r.latency_ms = (outcome.duration.as_secs_f64() * 1e6).round() / 1e3;
    r.response_bytes = serde_json::to_vec(&outcome.raw).map_or(0, |b| b.len());
    let structured = &outcome.raw["structuredContent"];
    let sm = &structured["sagemaker"];
    let text = |v: &Value| v.as_str().map(str::to_string);
    r.endpoint = text(&sm["endpoint"]);
    r.target_variant = text(&sm["target_variant"]);
    r.target_model = text(&sm["target_model"]);
    r.variant = text(&sm["invoked_variant"]).or_else(|| r.target_variant.clone());
    if let Some(ms) = sm["latency_ms"].as_f64() {
        r.latency_ms = ms;
    }
    if let Some(n) = sm["attempts"].as_u64() {
        r.attempts = u32::try_from(n).unwrap_or(u32::MAX);
    }
    if outcome.result.is_error {
        r.status = Status::Error;
        r.error_class = Some(text(&structured["error"]["class"]).unwrap_or_else(|| "tool_error".into()));
        if let Some(ms) = sm["total_ms"].as_f64() {
            r.latency_ms = ms;
        }
    }
    (r, input)
}

/// The error class of a failed MCP call.
fn call_error_class(e: &CallError) -> &'static str {
    match e {
        CallError::Timeout { .. } => "mcp_timeout",
        CallError::Cancelled => "mcp_cancelled",
        CallError::JsonRpc { .. } => "mcp_jsonrpc",
        CallError::Disconnected(_) => "mcp_disconnected",
        CallError::Other(_) => "mcp_other",
    }
}
