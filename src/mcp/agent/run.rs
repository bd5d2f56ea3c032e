//! The loop. Each step: check the stops (steps, deadline, cancel), write the LLM call's intent to
//! the audit log, invoke the endpoint through the fleet layer (retry policy, TargetVariant /
//! TargetModel, streamed when asked), find the call, check it (known tool, arguments against its
//! input schema), ask for approval where needed, write the tool call's intent, call it, and feed
//! the result back. Unknown tools, malformed JSON, bad arguments and isError results go back to
//! the model as an `Error: ...` message; more than `max_retries` of them in a row stop the run.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::approval::Approver;
use super::limits::oversized;
use super::llm::spec_name;
use super::parse::{Found, ParsedCall, find_call, native_call};
use super::shape::{Message, Reply, feed_into};
use super::trace::{End, Header, Record, Step, Stop, ToolTrace, Transcript, TranscriptFile};
use super::{AgentConfig, ToolRef};
use crate::aws::Fleet;
use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::Audited;
use crate::mcp::client::CallOptions;
use crate::mcp::hub::McpHub;

/// What the loop reports as it goes.
#[derive(Debug, Clone)]
pub enum Event {
    /// A step starts (its LLM call is about to be sent).
    StepStarted(u32),
    /// A streamed token of the reply.
    Token(String),
    /// A tool call is about to be sent.
    Calling {
        /// Step.
        step: u32,
        /// Server.
        server: String,
        /// Tool.
        tool: String,
        /// Arguments.
        arguments: Value,
    },
    /// A step finished.
    Step(Box<Step>),
    /// The run ended.
    End(End),
}

/// Receives events.
pub type OnEvent = Arc<dyn Fn(&Event) + Send + Sync>;

/// An agent ready to run: the fleet, the servers, the tools it offers and how it is driven.
pub struct Agent {
    /// The fleet layer (the LLM endpoint).
    pub fleet: Fleet,
    /// The MCP servers.
    pub hub: McpHub,
    /// The tools offered.
    pub tools: Vec<ToolRef>,
    /// Configuration.
    pub config: AgentConfig,
    /// The audit log and who is acting.
    pub audited: Audited,
    /// Asks about calls that need it (None: such calls are denied).
    pub approver: Option<Approver>,
    /// Progress.
    pub on_event: OnEvent,
    /// Cancels the run.
    pub cancel: CancellationToken,
    /// Where records go as they happen.
    pub transcript_file: Option<TranscriptFile>,
}

/// A new run id.
pub fn run_id() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    format!("run-{ms:x}-{}", std::process::id())
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// What the loop carries from step to step.
struct State {
    transcript: Transcript,
    messages: Vec<Message>,
    started: Instant,
    tokens: u64,
    bad: u32,
    /// Time spent writing (and fsyncing) audit lines in the current step.
    audit: Duration,
    /// The OpenAI client and the session the run's LLM calls share.
    link: super::llm::SharedLink,
}

/// How one step ended.
enum Outcome {
    Continue,
    Stop(Stop, Option<String>, Option<String>),
}

impl Agent {
    /// The system prompt this agent sends.
    pub fn system_prompt(&self) -> String {
        super::prompt::system_prompt(self.config.system_prompt.as_deref(), &self.tools)
    }

    fn header(&self, question: &str, system_prompt: &str, rerun_of: Option<(String, u32)>) -> Header {
        Header {
            run_id: run_id(),
            question: question.to_string(),
            llm: self.config.llm.clone(),
            shape: format!("{:?}", self.config.shape).to_lowercase(),
            template: matches!(self.config.shape, super::Shape::Generate)
                .then(|| super::llm::template_name(&self.config.template)),
            servers: {
                let mut s: Vec<String> = self.tools.iter().map(|t| t.server.clone()).collect();
                s.dedup();
                s
            },
            system_prompt: system_prompt.to_string(),
            started: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or_default(),
            rerun_of,
        }
    }

    /// Runs a question to its end.
    pub async fn run(&mut self, question: &str) -> Transcript {
        let system = self.system_prompt();
        let header = self.header(question, &system, None);
        let messages = vec![Message::new("system", system), Message::new("user", question)];
        self.run_from(header, messages, 1).await
    }

    /// Re-runs a transcript from step `from` with this agent's endpoint: the conversation that
    /// step sent (or `edited`, a conversation of the operator's), with this agent's system prompt
    /// when it has one of its own.
    pub async fn rerun(
        &mut self,
        old: &Transcript,
        from: u32,
        edited: Option<Vec<Message>>,
    ) -> Result<Transcript, String> {
        let step = old
            .steps
            .iter()
            .find(|s| s.step == from)
            .ok_or_else(|| format!("the transcript has no step {from} (it has {})", old.steps.len()))?;
        let mut messages = edited.unwrap_or_else(|| step.messages.clone());
        if self.config.system_prompt.is_some()
            && let Some(m) = messages.iter_mut().find(|m| m.role == "system")
        {
            m.content = self.system_prompt();
        }
        let system = messages.iter().find(|m| m.role == "system").map(|m| m.content.clone());
        let header = self.header(
            &old.header.question,
            &system.unwrap_or_default(),
            Some((old.header.run_id.clone(), from)),
        );
        Ok(self.run_from(header, messages, from).await)
    }

    fn emit(&mut self, event: Event) {
        (self.on_event)(&event);
        let record = match event {
            Event::Step(s) => Record::Step(s),
            Event::End(e) => Record::End(e),
            _ => return,
        };
        if let Some(f) = self.transcript_file.as_mut()
            && let Err(e) = f.write(&record)
        {
            tracing::warn!("{e}");
        }
    }

    async fn run_from(&mut self, header: Header, messages: Vec<Message>, first: u32) -> Transcript {
        let unwritable = match self.transcript_file.as_mut() {
            Some(f) => f.write(&Record::Run(header.clone())).err(),
            None => None,
        };
        let mut st = State {
            transcript: Transcript {
                header,
                ..Default::default()
            },
            messages,
            started: Instant::now(),
            tokens: 0,
            bad: 0,
            audit: Duration::ZERO,
            link: super::llm::link_for(&self.config, self.audited.token_gate(self.config.reason.clone())),
        };
        let mut n = first;
        let (stop, answer, detail) = loop {
            if let Some(e) = &unwritable {
                break (Stop::Refused, None, Some(format!("{e}; nothing was sent")));
            }
            if let Some(s) = self.pre_stop(&st, n) {
                break (s, None, None);
            }
            match self.step(&mut st, n).await {
                Outcome::Continue => n += 1,
                Outcome::Stop(s, a, d) => break (s, a, d),
            }
        };
        let end = End {
            stop,
            answer,
            detail,
            steps: st.transcript.steps.len() as u32,
            tokens: st.tokens,
            total_ms: ms(st.started.elapsed()),
        };
        st.transcript.end = Some(end.clone());
        self.emit(Event::End(end));
        st.transcript
    }

    fn pre_stop(&self, st: &State, n: u32) -> Option<Stop> {
        if self.cancel.is_cancelled() {
            Some(Stop::Cancelled)
        } else if n > self.config.max_steps {
            Some(Stop::MaxSteps)
        } else if self.config.deadline.is_some_and(|d| st.started.elapsed() >= d) {
            Some(Stop::Deadline)
        } else {
            None
        }
    }

    fn remaining(&self, st: &State) -> Duration {
        self.config
            .deadline
            .map(|d| d.saturating_sub(st.started.elapsed()))
            .unwrap_or(Duration::from_secs(24 * 3600))
    }

    async fn audit_intent(
        &self,
        st: &mut State,
        action: &str,
        target: &str,
        after: Value,
    ) -> Result<crate::aws::change::audit::Pending, String> {
        let t = Instant::now();
        let r = self
            .audited
            .intent(Mutation {
                action: action.into(),
                target: target.into(),
                before: Value::Null,
                after,
                reason: self.config.reason.clone(),
            })
            .await
            .map_err(|e| e.to_string());
        st.audit += t.elapsed();
        r
    }

    /// The result line; the call has happened, so a log that fails now is only logged.
    fn audit_finish(&self, st: &mut State, pending: &crate::aws::change::audit::Pending, outcome: Result<(), String>) {
        let t = Instant::now();
        if let Err(e) = self.audited.finish(pending, outcome.map(|()| None)) {
            tracing::warn!("{e}");
        }
        st.audit += t.elapsed();
    }

    /// One step; its record is emitted before it returns.
    async fn step(&mut self, st: &mut State, n: u32) -> Outcome {
        let t0 = Instant::now();
        st.audit = Duration::ZERO;
        self.emit(Event::StepStarted(n));
        let mut rec = Step {
            step: n,
            messages: st.messages.clone(),
            ..Default::default()
        };
        let request = match self.body_for(&st.messages) {
            Ok(b) => b,
            Err(e) => return self.finish_step(st, rec, Outcome::Stop(Stop::LlmError, None, Some(e))),
        };
        let bytes = request.to_string().len();
        if let Some(why) = oversized(bytes) {
            return self.finish_step(st, rec, Outcome::Stop(Stop::TooLarge, None, Some(why)));
        }
        rec.request = request.clone();
        let run_id = st.transcript.header.run_id.clone();
        let after = json!({"run_id": run_id, "step": n, "shape": spec_name(&self.config), "request_bytes": bytes});
        let pending = match self
            .audit_intent(st, "agent.llm", &self.config.llm.clone(), after)
            .await
        {
            Ok(p) => p,
            Err(e) => return self.finish_step(st, rec, Outcome::Stop(Stop::Refused, None, Some(e))),
        };
        let t_llm = Instant::now();
        let cancel = self.cancel.clone();
        let link = st.link.clone();
        let called = tokio::select! {
            r = tokio::time::timeout(self.remaining(st), self.invoke_llm(&request, &link)) => r,
            _ = cancel.cancelled() => {
                self.audit_finish(st, &pending, Err("cancelled".into()));
                return self.finish_step(st, rec, Outcome::Stop(Stop::Cancelled, None, None));
            }
        };
        rec.llm_ms = ms(t_llm.elapsed());
        let answer = match called {
            Err(_) => {
                self.audit_finish(st, &pending, Err("deadline".into()));
                return self.finish_step(st, rec, Outcome::Stop(Stop::Deadline, None, None));
            }
            Ok(Err(e)) => {
                self.audit_finish(st, &pending, Err(e.clone()));
                return self.finish_step(st, rec, Outcome::Stop(Stop::LlmError, None, Some(e)));
            }
            Ok(Ok(r)) => r,
        };
        self.audit_finish(st, &pending, Ok(()));
        let reply = answer.reply;
        rec.invoked_variant = answer.variant;
        rec.llm_attempts = answer.attempts;
        rec.session = answer.session;
        rec.instance = answer.instance;
        rec.tokens_in = reply.tokens_in;
        rec.tokens_out = reply.tokens_out;
        st.tokens += reply.tokens_in.unwrap_or(0) + reply.tokens_out.unwrap_or(0);
        rec.raw_reply = match &reply.message {
            Some(m) if m.get("tool_calls").is_some() => m.to_string(),
            _ => reply.text.clone(),
        };
        let mut outside = rec.llm_ms;
        let outcome = self.act(st, &mut rec, &reply, &mut outside).await;
        rec.own_ms = ms(t0.elapsed()) - outside;
        rec.audit_ms = ms(st.audit);
        self.finish_step(st, rec, outcome)
    }

    fn finish_step(&mut self, st: &mut State, rec: Step, outcome: Outcome) -> Outcome {
        st.transcript.steps.push(rec.clone());
        self.emit(Event::Step(Box::new(rec)));
        if matches!(outcome, Outcome::Continue) {
            if st.bad > self.config.max_retries {
                let last = st.transcript.steps.last().and_then(|s| s.problem.clone());
                return Outcome::Stop(Stop::Retries, None, last);
            }
            if self.config.token_budget.is_some_and(|b| st.tokens >= b) {
                return Outcome::Stop(Stop::TokenBudget, None, Some(format!("{} tokens used", st.tokens)));
            }
        }
        outcome
    }

    /// Acts on a reply: the answer, or the call (checked, approved, sent), or the problem.
    async fn act(&mut self, st: &mut State, rec: &mut Step, reply: &Reply, outside: &mut f64) -> Outcome {
        let found = match reply.message.as_ref().and_then(native_call) {
            Some(Ok(c)) => Found::Call(c),
            Some(Err(why)) => Found::Malformed(why),
            None => find_call(&reply.text),
        };
        let call = match found {
            Found::Answer => return Outcome::Stop(Stop::FinalAnswer, Some(reply.text.trim().to_string()), None),
            Found::Malformed(why) => return self.problem(st, rec, reply, None, why),
            Found::Call(c) => c,
        };
        rec.parsed = Some(call.clone());
        if let Some(budget) = self.config.token_budget.filter(|b| st.tokens >= *b) {
            let why = format!(
                "{} tokens used (budget {budget}); the call of `{}` was not made",
                st.tokens, call.name
            );
            return Outcome::Stop(Stop::TokenBudget, None, Some(why));
        }
        let Some(tool) = self.tools.iter().find(|t| t.name == call.name).cloned() else {
            let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
            let why = format!("unknown tool `{}` (the tools are: {})", call.name, names.join(", "));
            return self.problem(st, rec, reply, Some(&call), why);
        };
        let violations = if call.arguments.is_object() {
            crate::mcp::schema::validate(&tool.input_schema, &call.arguments)
        } else {
            vec!["$: the arguments must be a JSON object".to_string()]
        };
        if !violations.is_empty() {
            let why = format!("bad arguments for `{}`: {}", tool.name, violations.join("; "));
            return self.problem(st, rec, reply, Some(&call), why);
        }
        let t_ask = Instant::now();
        let arguments = match self.approve(rec, &tool, &call).await {
            Some(a) => a,
            None => return Outcome::Stop(Stop::Denied, None, rec.approval.clone()),
        };
        *outside += ms(t_ask.elapsed());
        self.call_tool(st, rec, reply, &tool, &call, arguments, outside).await
    }

    #[allow(clippy::too_many_arguments)]
    async fn call_tool(
        &mut self,
        st: &mut State,
        rec: &mut Step,
        reply: &Reply,
        tool: &ToolRef,
        call: &ParsedCall,
        arguments: Value,
        outside: &mut f64,
    ) -> Outcome {
        let target = format!("{}/{}", tool.server, tool.name);
        let after = json!({"run_id": st.transcript.header.run_id, "step": rec.step, "arguments": arguments});
        let pending = match self.audit_intent(st, "agent.tool", &target, after).await {
            Ok(p) => p,
            Err(e) => return Outcome::Stop(Stop::Refused, None, Some(e)),
        };
        self.emit(Event::Calling {
            step: rec.step,
            server: tool.server.clone(),
            tool: tool.name.clone(),
            arguments: arguments.clone(),
        });
        let opts = CallOptions {
            timeout: self
                .config
                .tool_timeout
                .min(self.remaining(st).max(Duration::from_millis(1))),
            cancel: self.cancel.child_token(),
            ..Default::default()
        };
        let t = Instant::now();
        let res = self
            .hub
            .call(&tool.server, &tool.name, arguments.as_object().cloned(), opts)
            .await;
        let took = ms(t.elapsed());
        *outside += took;
        let (text, is_error) = match res {
            Ok(out) => (out.result.to_text(), out.result.is_error),
            Err(e) => (format!("the call failed: {e}"), true),
        };
        self.audit_finish(st, &pending, if is_error { Err(text.clone()) } else { Ok(()) });
        rec.tool = Some(ToolTrace {
            server: tool.server.clone(),
            tool: tool.name.clone(),
            arguments,
            result: text.clone(),
            is_error,
            ms: took,
        });
        if is_error {
            let why = format!("the tool `{}` answered an error: {text}", tool.name);
            return self.problem(st, rec, reply, Some(call), why);
        }
        st.bad = 0;
        let feed = |messages: &mut Vec<Message>, text: String| {
            feed_into(
                messages,
                reply,
                Some(call),
                format!("Tool {} returned:\n{text}", tool.name),
            );
        };
        let (fitted, note) = self.fit_result(&st.messages, &text, feed);
        rec.problem = note;
        feed(&mut st.messages, fitted);
        Outcome::Continue
    }

    /// Sends a problem back to the model and counts it.
    fn problem(
        &self,
        st: &mut State,
        rec: &mut Step,
        reply: &Reply,
        call: Option<&ParsedCall>,
        why: String,
    ) -> Outcome {
        let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
        let text = format!(
            "Error: {why}. Reply with only a JSON object {{\"tool\": \"tool-name\", \"arguments\": {{...}}}} naming one of: {}; or answer directly.",
            names.join(", ")
        );
        rec.problem = Some(why);
        st.bad += 1;
        self.feed_back(st, reply, call, text);
        Outcome::Continue
    }

    /// Appends the assistant's reply and what comes back to it (see [`feed_into`]).
    fn feed_back(&self, st: &mut State, reply: &Reply, call: Option<&ParsedCall>, text: String) {
        feed_into(&mut st.messages, reply, call, text);
    }
}
