//! A server's `sampling/createMessage` answered by an LLM hosted on SageMaker: an endpoint, or
//! one of its inference components (`--sampling-llm ENDPOINT[/COMPONENT]`, `[mcp] sampling_llm`),
//! called in the agent's request shapes (`messages`, `generate` with a chat template, `openai`)
//! through the fleet layer. Each request is approved first (`auto`, `ask` — the CLI asks on the
//! terminal, the console in a dialog —, `never`), written to the audit log before the model is
//! called (who asked, which endpoint, how many messages and characters, never their text; the
//! result line adds the tokens spent), and counted. A declined request answers the JSON-RPC
//! error the specification gives for a rejected sampling request (code -1); a client without
//! a sampling model declares no sampling capability and answers -32601, saying how to enable it.

#![allow(deprecated)] // sampling is deprecated by SEP-2577, still in 2025-11-25 and served here

pub mod ask;
pub mod request;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ErrorCode, Role, SamplingMessage, SamplingMessageContentBlock,
    ToolUseContent,
};
use serde::Serialize;
use serde_json::{Value, json};

use super::agent::llm::{LlmLink, invoke_whole};
use super::agent::shape::Reply;
use super::agent::{AgentConfig, Shape, Template};
use crate::aws::change::audit::{AuditContext, Mutation};
use crate::aws::change::guard::Audited;
use crate::aws::change::team::{Notify, TeamTrail};
use crate::aws::{AwsOptions, Fleet};
pub use request::{MAX_SAMPLING_TOKENS, SamplingRequest, SamplingTools};

/// The JSON-RPC code of a sampling request the user rejected (MCP 2025-06-18 and later).
pub const REJECTED: ErrorCode = ErrorCode(-1);

/// Who says yes to a sampling request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum SamplingApproval {
    /// Answer every request.
    Auto,
    /// Ask before each one (denied when nobody can be asked).
    Ask,
    /// Decline every request.
    Never,
}

impl SamplingApproval {
    /// A mode by its name in config.toml.
    pub fn named(name: &str) -> Result<SamplingApproval, String> {
        match name {
            "auto" => Ok(SamplingApproval::Auto),
            "ask" => Ok(SamplingApproval::Ask),
            "never" => Ok(SamplingApproval::Never),
            other => Err(format!("approve_sampling `{other}` is not auto, ask or never")),
        }
    }
}

/// Asks the operator about one request: true approves (the CLI reads the terminal, the console
/// waits on its dialog; both block, so it runs on a blocking thread).
pub type SamplingApprover = Arc<dyn Fn(SamplingRequest) -> bool + Send + Sync>;

/// The model that answers: `ENDPOINT` or `ENDPOINT/COMPONENT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplingLlm {
    /// The endpoint.
    pub endpoint: String,
    /// The inference component on it, if any.
    pub component: Option<String>,
}

impl SamplingLlm {
    /// Reads `ENDPOINT[/COMPONENT]`.
    pub fn parse(text: &str) -> Result<SamplingLlm, String> {
        let (endpoint, component) = match text.split_once('/') {
            Some((e, c)) => (e, Some(c)),
            None => (text, None),
        };
        let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !ok(endpoint) || component.is_some_and(|c| !ok(c)) {
            return Err(format!(
                "--sampling-llm `{text}` is not ENDPOINT or ENDPOINT/COMPONENT (letters, digits, hyphens)"
            ));
        }
        Ok(SamplingLlm {
            endpoint: endpoint.to_string(),
            component: component.map(str::to_string),
        })
    }

    /// `ENDPOINT` or `ENDPOINT/COMPONENT`, as shown and returned as the answer's model.
    pub fn name(&self) -> String {
        match &self.component {
            Some(c) => format!("{}/{c}", self.endpoint),
            None => self.endpoint.clone(),
        }
    }
}

/// Requests seen and tokens spent, for the summary a command prints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SamplingTotals {
    /// Requests answered by the model.
    pub answered: u64,
    /// Requests declined (denied, never, failed).
    pub declined: u64,
    /// Input tokens the container reported.
    pub tokens_in: u64,
    /// Output tokens the container reported.
    pub tokens_out: u64,
}

#[derive(Debug, Default)]
struct Counters {
    answered: AtomicU64,
    declined: AtomicU64,
    tokens_in: AtomicU64,
    tokens_out: AtomicU64,
}

/// Where the sampler's fleet comes from: given, or connected at the first request (the console
/// starts before AWS answers, and never waits on it).
enum FleetSource {
    Ready(Fleet),
    Lazy(AwsOptions, tokio::sync::OnceCell<Fleet>),
}

/// Answers the sampling requests of the servers a command or the console connects to.
pub struct Sampler {
    fleet: FleetSource,
    llm: SamplingLlm,
    config: AgentConfig,
    approval: SamplingApproval,
    approver: Option<SamplingApprover>,
    audited: Option<Audited>,
    team: Option<(String, Notify)>,
    teamed: tokio::sync::OnceCell<Audited>,
    reason: Option<String>,
    counters: Counters,
    /// The OpenAI client the requests share (its token minted once, through the audit log's
    /// gate when there is one, and renewed before it ends).
    link: tokio::sync::Mutex<LlmLink>,
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampler")
            .field("llm", &self.llm)
            .field("shape", &self.config.shape)
            .field("approval", &self.approval)
            .finish()
    }
}

/// The error a declined request answers.
fn rejected(why: &str) -> ErrorData {
    ErrorData::new(
        REJECTED,
        "User rejected sampling request",
        Some(json!({ "reason": why })),
    )
}

impl Sampler {
    /// A sampler answering with `llm` in `shape` (and `template`, generate) over `fleet`,
    /// approving by `approval` (asking `approver` in `ask` mode).
    pub fn new(
        fleet: Fleet,
        llm: SamplingLlm,
        shape: Shape,
        template: Template,
        approval: SamplingApproval,
    ) -> Sampler {
        Sampler::with_source(FleetSource::Ready(fleet), llm, (shape, template), approval)
    }

    /// A sampler whose fleet is connected with `aws` at its first request.
    pub fn connecting(
        aws: AwsOptions,
        llm: SamplingLlm,
        shape: Shape,
        template: Template,
        approval: SamplingApproval,
    ) -> Sampler {
        let source = FleetSource::Lazy(aws, tokio::sync::OnceCell::new());
        Sampler::with_source(source, llm, (shape, template), approval)
    }

    fn with_source(
        fleet: FleetSource,
        llm: SamplingLlm,
        (shape, template): (Shape, Template),
        approval: SamplingApproval,
    ) -> Sampler {
        let config = AgentConfig {
            llm: llm.endpoint.clone(),
            inference_component: llm.component.clone(),
            shape,
            template,
            ..AgentConfig::default()
        };
        Sampler {
            fleet,
            llm,
            config,
            approval,
            approver: None,
            audited: None,
            team: None,
            teamed: tokio::sync::OnceCell::new(),
            reason: None,
            counters: Counters::default(),
            link: tokio::sync::Mutex::default(),
        }
    }

    async fn fleet(&self) -> Result<&Fleet, String> {
        match &self.fleet {
            FleetSource::Ready(f) => Ok(f),
            FleetSource::Lazy(aws, cell) => cell
                .get_or_try_init(|| Fleet::connect(aws))
                .await
                .map_err(|e| format!("cannot reach AWS for the sampling model: {e}")),
        }
    }

    /// Who is asked in `ask` mode.
    pub fn with_approver(mut self, approver: SamplingApprover) -> Sampler {
        self.approver = Some(approver);
        self
    }

    /// Writes every request to `audited` (with the operator's `reason`) before it is answered,
    /// and every bearer token minted for the `openai` shape (`openai.token`) before it is minted;
    /// a log that cannot be written declines the request.
    pub fn with_audit(mut self, audited: Audited, reason: Option<String>) -> Sampler {
        self.link = tokio::sync::Mutex::new(LlmLink::gated(audited.token_gate(reason.clone())));
        self.audited = Some(audited);
        self.reason = reason;
        self
    }

    /// Also writes the audit lines to the team's trail in `group` (CloudWatch Logs), attached
    /// with the sampler's fleet at the first request (the console's sampler starts before AWS
    /// answers); `notify` is told, once, when the trail cannot be written.
    pub fn with_team(mut self, group: String, notify: Notify) -> Sampler {
        self.team = Some((group, notify));
        self
    }

    /// The audit handle as it is now: with the team's trail once attached.
    fn current_audit(&self) -> Option<&Audited> {
        self.teamed.get().or(self.audited.as_ref())
    }

    /// The audit handle, attaching the team's trail (and naming the principal, STS) the first
    /// time when one is configured; without a fleet, the file alone (said once).
    async fn audit(&self) -> Option<&Audited> {
        let base = self.audited.as_ref()?;
        let Some((group, notify)) = &self.team else {
            return Some(base);
        };
        let attach = async {
            match self.fleet().await {
                Ok(fleet) => {
                    let ctx = match base.ctx.principal {
                        Some(_) => base.ctx.clone(),
                        None => AuditContext::from_fleet(fleet).await,
                    };
                    let trail = TeamTrail::new(fleet, group, ctx.principal.as_deref(), notify.clone());
                    base.audit.attach_team(trail);
                    Audited {
                        audit: base.audit.clone(),
                        ctx,
                    }
                }
                Err(e) => {
                    notify(format!(
                        "the team's audit trail {group} was not written ({e}); the audit file still guards every change"
                    ));
                    base.clone()
                }
            }
        };
        Some(self.teamed.get_or_init(|| attach).await)
    }

    /// The model that answers.
    pub fn llm(&self) -> &SamplingLlm {
        &self.llm
    }

    /// Requests and tokens so far.
    pub fn totals(&self) -> SamplingTotals {
        let c = &self.counters;
        SamplingTotals {
            answered: c.answered.load(Ordering::Relaxed),
            declined: c.declined.load(Ordering::Relaxed),
            tokens_in: c.tokens_in.load(Ordering::Relaxed),
            tokens_out: c.tokens_out.load(Ordering::Relaxed),
        }
    }

    fn decline(&self, why: &str, error: ErrorData) -> ErrorData {
        self.counters.declined.fetch_add(1, Ordering::Relaxed);
        if let Some(a) = self.current_audit() {
            a.refused("mcp.sampling", &self.target(), why, self.reason.clone());
        }
        error
    }

    fn target(&self) -> String {
        self.llm.name()
    }

    /// Whether the operator approves `req`, and if not why.
    async fn approve(&self, req: &SamplingRequest) -> Result<&'static str, String> {
        match (self.approval, &self.approver) {
            (SamplingApproval::Auto, _) => Ok("auto"),
            (SamplingApproval::Never, _) => Err("--approve-sampling never".into()),
            (SamplingApproval::Ask, None) => Err("nobody to ask (--approve-sampling ask without a terminal)".into()),
            (SamplingApproval::Ask, Some(ask)) => {
                let (ask, shown) = (ask.clone(), req.clone());
                match tokio::task::spawn_blocking(move || ask(shown)).await {
                    Ok(true) => Ok("approved"),
                    _ => Err("denied by the operator".into()),
                }
            }
        }
    }

    /// Answers `params` from `server`: approval, the audit line, the model, the counts.
    pub async fn answer(
        &self,
        server: &str,
        params: &CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ErrorData> {
        let req = match SamplingRequest::read(server, &self.llm.name(), params) {
            Ok(r) => r,
            Err(e) => return Err(self.decline(&e, ErrorData::invalid_params(e.clone(), None))),
        };
        // A request this shape cannot send (tools in generate) is declined before anyone is asked.
        let tools = request::tools_of(params);
        let body = (req.body(self.config.shape, &self.config.template, tools.as_ref()))
            .map_err(|e| self.decline(&e, ErrorData::invalid_params(e.clone(), None)))?;
        let approval = match self.approve(&req).await {
            Ok(how) => how,
            Err(why) => return Err(self.decline(&format!("{server}: {why}"), rejected(&why))),
        };
        let audited = self.audit().await;
        let pending = match audited {
            None => None,
            Some(a) => Some(
                a.intent(self.mutation(&req, approval, tools.as_ref()))
                    .await
                    .map_err(|e| {
                        self.counters.declined.fetch_add(1, Ordering::Relaxed);
                        ErrorData::internal_error(e.to_string(), None)
                    })?,
            ),
        };
        // A copy of the shared link per call: requests run side by side, and the first OpenAI
        // client made is kept for the next ones.
        let mut link = self.link.lock().await.clone();
        let outcome = match self.fleet().await {
            Ok(fleet) => invoke_whole(fleet, &self.config, &body, &mut link).await,
            Err(e) => Err(e),
        };
        self.link.lock().await.keep_client(&link);
        // The model's tool calls are checked before the result line is written.
        let outcome = outcome.and_then(|a| reply_content(&a.reply, tools.as_ref()).map(|blocks| (a, blocks)));
        let figures = match &outcome {
            // Token counts under `usage` (the log redacts values under names holding "token").
            Ok((a, _)) => json!({"usage": {"in": a.reply.tokens_in, "out": a.reply.tokens_out},
                            "invoked_variant": a.variant, "attempts": a.attempts}),
            Err(_) => Value::Null,
        };
        if let (Some(a), Some(p)) = (audited, &pending) {
            let result = outcome.as_ref().map(|_| None).map_err(Clone::clone);
            if let Err(e) = a.finish_with(p, result, figures) {
                tracing::warn!("sampling audit result line: {e}");
            }
        }
        let (answer, (blocks, used_tools)) = outcome.map_err(|e| {
            self.counters.declined.fetch_add(1, Ordering::Relaxed);
            ErrorData::internal_error(format!("the sampling model {} failed: {e}", self.llm.name()), None)
        })?;
        let c = &self.counters;
        c.answered.fetch_add(1, Ordering::Relaxed);
        c.tokens_in
            .fetch_add(answer.reply.tokens_in.unwrap_or(0), Ordering::Relaxed);
        c.tokens_out
            .fetch_add(answer.reply.tokens_out.unwrap_or(0), Ordering::Relaxed);
        let full = answer.reply.tokens_out.is_some_and(|n| n >= u64::from(req.max_tokens));
        let stop = match (used_tools, full) {
            (true, _) => CreateMessageResult::STOP_REASON_TOOL_USE,
            (false, true) => CreateMessageResult::STOP_REASON_END_MAX_TOKEN,
            (false, false) => CreateMessageResult::STOP_REASON_END_TURN,
        };
        let message = match <[_; 1]>::try_from(blocks) {
            Ok([one]) => SamplingMessage::new(Role::Assistant, one),
            Err(many) => SamplingMessage::new_multiple(Role::Assistant, many),
        };
        Ok(CreateMessageResult::new(message, self.llm.name()).with_stop_reason(stop))
    }

    /// Whether its shape offers a server's tools to the model (the chat shapes do).
    pub fn answers_tools(&self) -> bool {
        self.config.shape != Shape::Generate
    }

    /// The intent line: who asked, which model, how much, the tools offered — never the
    /// messages' text.
    fn mutation(&self, req: &SamplingRequest, approval: &str, tools: Option<&SamplingTools>) -> Mutation {
        Mutation {
            action: "mcp.sampling".into(),
            target: self.target(),
            before: Value::Null,
            after: json!({
                "server": req.server, "endpoint": self.llm.endpoint, "inference_component": self.llm.component,
                "shape": super::agent::llm::spec_name(&self.config), "messages": req.messages.len(),
                "chars": req.chars(), "max_tokens": req.max_tokens, "model_preferences": req.preferences,
                "approval": approval, "tools": tools.map(|t| &t.names),
                "tool_choice": tools.map(|t| t.choice),
            }),
            reason: self.reason.clone(),
        }
    }
}

/// The answer's content: its text, then a `tool_use` block per native tool call (and whether
/// there was one); a call of a tool the server did not offer, or whose arguments are not a JSON
/// object, fails the answer.
fn reply_content(
    reply: &Reply,
    tools: Option<&SamplingTools>,
) -> Result<(Vec<SamplingMessageContentBlock>, bool), String> {
    let calls = (reply.message.as_ref())
        .and_then(|m| m.get("tool_calls"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut blocks = Vec::new();
    if !reply.text.is_empty() || calls.is_empty() {
        blocks.push(SamplingMessageContentBlock::text(reply.text.clone()));
    }
    for (i, call) in calls.iter().enumerate() {
        let f = &call["function"];
        let name = f["name"].as_str().unwrap_or_default();
        if !tools.is_some_and(|t| t.names.iter().any(|n| n == name)) {
            return Err(format!("the model called `{name}`, which the server did not offer"));
        }
        let input = match &f["arguments"] {
            Value::String(s) => serde_json::from_str(s).map_err(|e| format!("{name}'s arguments are not JSON: {e}"))?,
            Value::Null => json!({}),
            other => other.clone(),
        };
        let Value::Object(input) = input else {
            return Err(format!("{name}'s arguments are not a JSON object"));
        };
        let id = call["id"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("call_{i}"));
        blocks.push(SamplingMessageContentBlock::ToolUse(ToolUseContent::new(
            id, name, input,
        )));
    }
    Ok((blocks, !calls.is_empty()))
}

/// What a client without a sampling model answers: -32601, saying how to enable sampling.
pub fn not_enabled() -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        "sampling is not enabled in sagedeck: give --sampling-llm ENDPOINT[/COMPONENT] (or [mcp] sampling_llm in config.toml) to answer it with a SageMaker model",
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llm_names_parse() {
        let l = SamplingLlm::parse("llm-tgi-chat/qwen-ic").unwrap();
        assert_eq!(
            (l.endpoint.as_str(), l.component.as_deref()),
            ("llm-tgi-chat", Some("qwen-ic"))
        );
        assert_eq!(l.name(), "llm-tgi-chat/qwen-ic");
        assert_eq!(SamplingLlm::parse("e").unwrap().component, None);
        for bad in ["", "a/", "/b", "a/b/c", "a b"] {
            assert!(SamplingLlm::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(SamplingApproval::named("ask"), Ok(SamplingApproval::Ask));
        assert!(SamplingApproval::named("yes").is_err());
    }
}
