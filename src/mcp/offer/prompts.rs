//! The prompts of `sagedeck mcp serve`: `triage_endpoint`, the first look an on-call engineer
//! asks an agent for — the endpoint's resource embedded (status, kind, variants and weights,
//! described now) and its container's recent error lines from CloudWatch Logs.

use std::sync::atomic::AtomicUsize;

use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::Value;

use super::{ENDPOINT_MIME, Offer, endpoint_uri};
use crate::aws::observe::logs::{LogQuery, log_group};

/// The triage prompt's name.
pub const TRIAGE: &str = "triage_endpoint";
/// How far back the triage prompt reads the container's errors.
pub const ERROR_WINDOW_MS: i64 = 3_600_000;
/// Error lines the triage prompt quotes at most (the newest).
pub const MAX_ERROR_LINES: usize = 20;
/// What counts as an error line (a CloudWatch Logs filter pattern: any of the terms).
const ERROR_PATTERN: &str = "?ERROR ?Error ?error ?Exception ?Traceback";

/// The prompts served.
pub fn prompts() -> Vec<Prompt> {
    let endpoint = PromptArgument::new("endpoint")
        .with_title("Endpoint")
        .with_description("The SageMaker endpoint to triage (any endpoint of the server's region)")
        .with_required(true);
    vec![
        Prompt::new(
            TRIAGE,
            Some("Triage a SageMaker endpoint: its status, variants and weights, and its container's recent errors"),
            Some(vec![endpoint]),
        )
        .with_title("Triage an endpoint"),
    ]
}

/// The messages of prompt `name` with `arguments`.
pub async fn get(offer: &Offer, name: &str, arguments: Option<&JsonObject>) -> Result<GetPromptResult, ErrorData> {
    if name != TRIAGE {
        return Err(ErrorData::invalid_params(
            format!("no prompt named `{name}`; this server has {TRIAGE}"),
            None,
        ));
    }
    let endpoint = match arguments.and_then(|a| a.get("endpoint")).and_then(Value::as_str) {
        Some(e) if !e.trim().is_empty() => e.trim().to_string(),
        _ => {
            return Err(ErrorData::invalid_params(
                format!("{TRIAGE} needs the `endpoint` argument"),
                None,
            ));
        }
    };
    let uri = endpoint_uri(offer.region(), &endpoint);
    super::endpoint_of(&uri, offer.region()).map_err(|e| ErrorData::invalid_params(e, None))?;
    let described = offer.describe(&endpoint).await?;
    let ask = format!(
        "Triage the SageMaker endpoint {endpoint} ({}) for the on-call engineer: is it serving, which variant takes which share of traffic, what its recent errors say, and what to do next. One short line each. Its description and its container's recent errors follow.",
        offer.region()
    );
    let text = serde_json::to_string_pretty(&described).unwrap_or_default();
    let resource = PromptMessage::new_resource(
        Role::User,
        uri,
        Some(ENDPOINT_MIME.into()),
        Some(text),
        None,
        None,
        None,
    );
    let errors = recent_errors(offer, &endpoint).await;
    Ok(GetPromptResult::new(vec![
        PromptMessage::new_text(Role::User, ask),
        resource,
        PromptMessage::new_text(Role::User, errors),
    ])
    .with_description(format!("Triage of {endpoint}")))
}

/// The container's error lines of the last hour (the newest [`MAX_ERROR_LINES`]), or what kept
/// them from being read.
async fn recent_errors(offer: &Offer, endpoint: &str) -> String {
    let group = log_group(endpoint);
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default();
    let query = LogQuery {
        endpoint: endpoint.to_string(),
        variant: None,
        start_ms: Some(now_ms - ERROR_WINDOW_MS),
        filter: Some(ERROR_PATTERN.into()),
    };
    match offer.fleet().log_lines(&query, &AtomicUsize::new(0)).await {
        Err(e) => format!("The recent errors in {group} could not be read: {e}"),
        Ok(read) if read.lines.is_empty() => format!("No error lines in {group} in the last hour."),
        Ok(read) => {
            let skip = read.lines.len().saturating_sub(MAX_ERROR_LINES);
            let lines: Vec<String> = (read.lines.iter().skip(skip))
                .map(|l| format!("{} {} {}", format_ms(l.timestamp_ms), l.stream, l.message))
                .collect();
            format!(
                "Recent error lines in {group} ({} in the last hour, the newest {} here, oldest first):\n{}",
                read.lines.len(),
                lines.len(),
                lines.join("\n")
            )
        }
    }
}

/// Epoch milliseconds as an RFC 3339 time to the second.
fn format_ms(ms: i64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}
