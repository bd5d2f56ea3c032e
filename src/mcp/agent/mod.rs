//! The agent loop: an LLM hosted on a SageMaker endpoint driving the tools of MCP servers, as the
//! seed describes it — list the tools, build a system prompt from their schemas, ask the LLM,
//! find the tool call in its reply, check it, call the tool, feed the result back, and loop until
//! the model answers without a tool call — with bounded retries, stops (max steps, token budget,
//! deadline), approval, the audit log before every call, and a trace of every step.
//!
//! [`parse`] finds calls, [`shape`] speaks the containers' request shapes and chat templates,
//! [`prompt`] writes the system prompt, [`approval`] decides who must say yes, [`trace`] records
//! and replays, [`run`] is the loop.

pub mod approval;
pub mod limits;
pub(crate) mod llm;
pub mod parse;
pub mod prompt;
pub mod run;
pub mod shape;
pub mod trace;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::hub::McpHub;
use crate::aws::RetryPolicy;
pub use approval::{ApprovalMode, ApprovalRequest, Approver, Decision};
pub use run::{Agent, Event};
pub use shape::{Message, Shape, Template};
pub use trace::{End, Header, Step, Stop, Transcript};

/// A tool the model may call, and where it lives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRef {
    /// Server (registry name).
    pub server: String,
    /// Tool name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Input schema.
    pub input_schema: Value,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
}

/// Allow and deny lists of tools: patterns `tool` or `server/tool`, `*` matching any run of
/// characters. A tool is offered when it matches an allow pattern (or there are none) and no deny
/// pattern.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolFilter {
    /// Allow patterns.
    pub allow: Vec<String>,
    /// Deny patterns.
    pub deny: Vec<String>,
}

/// Whether `text` matches `pattern` (`*` = any run of characters).
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

impl ToolFilter {
    /// Whether `server/tool` is offered.
    pub fn admits(&self, server: &str, tool: &str) -> bool {
        let full = format!("{server}/{tool}");
        let hit = |p: &String| glob(p, tool) || glob(p, &full);
        (self.allow.is_empty() || self.allow.iter().any(hit)) && !self.deny.iter().any(hit)
    }
}

/// Connects `servers` of the hub and lists their tools through `filter`. The first server
/// offering a name keeps it. Fails with one line naming the server that could not be reached.
pub async fn gather_tools(hub: &McpHub, servers: &[String], filter: &ToolFilter) -> Result<Vec<ToolRef>, String> {
    let mut tools: Vec<ToolRef> = Vec::new();
    for server in servers {
        let conn = match hub.connection(server) {
            Some(c) if !c.is_closed() => c,
            _ => hub
                .connect(server)
                .await
                .map_err(|e| format!("MCP server `{server}`: {e}"))?,
        };
        for t in conn.tools() {
            if !filter.admits(server, &t.name) || tools.iter().any(|x| x.name == t.name) {
                continue;
            }
            tools.push(ToolRef {
                server: server.clone(),
                name: t.name.to_string(),
                description: t.description.as_deref().unwrap_or("").to_string(),
                input_schema: Value::Object((*t.input_schema).clone()),
                read_only: t.annotations.as_ref().and_then(|a| a.read_only_hint),
                destructive: t.annotations.as_ref().and_then(|a| a.destructive_hint),
            });
        }
    }
    Ok(tools)
}

/// What the operator should hear about the tools of `servers` (connected by [`gather_tools`]):
/// tools the servers listed but that were left out (names holding control characters), and
/// every `--allow` or `--deny` pattern that matches none of their tools (a typo offers more, or
/// fewer, tools than meant).
pub fn tool_warnings(hub: &McpHub, servers: &[String], filter: &ToolFilter) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut names: Vec<(String, String)> = Vec::new();
    for server in servers {
        let Some(conn) = hub.connection(server) else { continue };
        warnings.extend(conn.refused_tools().into_iter().map(|w| format!("{server}: {w}")));
        names.extend(conn.tools().iter().map(|t| (server.clone(), t.name.to_string())));
    }
    let patterns = filter
        .allow
        .iter()
        .map(|p| ("--allow", p))
        .chain(filter.deny.iter().map(|p| ("--deny", p)));
    for (flag, pattern) in patterns {
        if !names
            .iter()
            .any(|(s, t)| glob(pattern, t) || glob(pattern, &format!("{s}/{t}")))
        {
            warnings.push(format!("{flag} `{pattern}` matches no tool of {}", servers.join(", ")));
        }
    }
    warnings
}

/// How a run is driven.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The LLM endpoint.
    pub llm: String,
    /// TargetVariant for the LLM calls.
    pub target_variant: Option<String>,
    /// TargetModel for the LLM calls (multi-model endpoints).
    pub target_model: Option<String>,
    /// The inference component serving the LLM, on an endpoint that hosts components.
    pub inference_component: Option<String>,
    /// Request shape.
    pub shape: Shape,
    /// Chat template (generate shape).
    pub template: Template,
    /// Send the tools in the `tools` field and read native `tool_calls` (messages shape only).
    pub native_tools: bool,
    /// Use InvokeEndpointWithResponseStream (server-sent events on the OpenAI shape).
    pub stream: bool,
    /// A stateful session kept for the whole run: `new` opens one at the first call, an id
    /// joins one (None: no session).
    pub session: Option<String>,
    /// A system prompt template with `{tools}` (None: the seed's).
    pub system_prompt: Option<String>,
    /// LLM calls at most.
    pub max_steps: u32,
    /// Reported tokens (in + out) at most.
    pub token_budget: Option<u64>,
    /// Wall-clock limit of the run.
    pub deadline: Option<Duration>,
    /// Token limit of each reply.
    pub max_new_tokens: u32,
    /// Consecutive bad steps tolerated (each goes back to the model) before the run stops.
    pub max_retries: u32,
    /// Approval mode (None: by annotations).
    pub approval: Option<ApprovalMode>,
    /// The fleet layer's retry policy for the LLM calls.
    pub retry: RetryPolicy,
    /// Tool call timeout (restarts on progress).
    pub tool_timeout: Duration,
    /// The operator's reason (written to the audit log).
    pub reason: Option<String>,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            llm: String::new(),
            target_variant: None,
            target_model: None,
            inference_component: None,
            shape: Shape::Messages,
            template: Template::Chatml,
            native_tools: false,
            stream: false,
            session: None,
            system_prompt: None,
            max_steps: 8,
            token_budget: None,
            deadline: None,
            max_new_tokens: 512,
            max_retries: 3,
            approval: None,
            retry: RetryPolicy::default(),
            tool_timeout: Duration::from_secs(60),
            reason: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_by_tool_or_server_and_glob() {
        let f = ToolFilter {
            allow: vec!["radio/*".into(), "classify_*".into()],
            deny: vec!["*/fail".into()],
        };
        assert!(f.admits("radio", "top_song"));
        assert!(!f.admits("radio", "fail"));
        assert!(f.admits("demo", "classify_intent"));
        assert!(!f.admits("demo", "score_churn"));
        assert!(ToolFilter::default().admits("a", "b"));
        assert!(glob("a*b*c", "axxbyyc") && !glob("a*b*c", "axxc") && !glob("ab*ba", "aba"));
    }
}
