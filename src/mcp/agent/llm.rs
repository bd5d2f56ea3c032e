//! The LLM call of a step, through the fleet layer: InvokeEndpoint under the retry policy, or the
//! response stream (tokens reported as they arrive, an attempt retried only as a whole), or —
//! `--shape openai` — Chat Completions on the endpoint's OpenAI-compatible API with a bearer token
//! the fleet layer mints and renews (never seen here but as an opaque header value). A run's calls
//! share one [`LlmLink`]: the OpenAI client and the stateful session (`--session`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::run::{Agent, Event};
use super::shape::{Reply, StreamReader, read_reply};
use super::{AgentConfig, Shape, Template};
use crate::aws::Fleet;
use crate::aws::invoke::call::InvokeSpec;
use crate::aws::invoke::openai::{ChatCall, MintGate, OpenAiClient};
use crate::aws::invoke::session::{NEW_SESSION, SessionInfo};

/// The life of the tokens a run mints (renewed before they end).
const TOKEN_LIFE: Duration = Duration::from_secs(3600);

/// What the LLM calls of one run share.
#[derive(Default, Clone)]
pub(crate) struct LlmLink {
    /// The OpenAI client, made at the first call of `--shape openai`.
    openai: Option<OpenAiClient>,
    /// The session the next call is sent with (`NEW_SESSION` until one is opened).
    session: Option<String>,
    /// What records each token mint before it is made (the agent's audit log), if anything.
    mint_gate: Option<MintGate>,
}

/// The link of a run, shared by its steps.
pub(super) type SharedLink = Arc<tokio::sync::Mutex<LlmLink>>;

/// A new run's link: its session as `--session` asks (`new` or an id); each token it mints is
/// recorded by `mint_gate` first.
pub(super) fn link_for(config: &AgentConfig, mint_gate: MintGate) -> SharedLink {
    let session = config.session.as_deref().map(|s| match s {
        "new" => NEW_SESSION.to_string(),
        id => id.to_string(),
    });
    Arc::new(tokio::sync::Mutex::new(LlmLink {
        openai: None,
        session,
        mint_gate: Some(mint_gate),
    }))
}

/// What one LLM call brought back.
pub(crate) struct LlmAnswer {
    /// The reply.
    pub reply: Reply,
    /// The variant that answered.
    pub variant: Option<String>,
    /// Attempts made.
    pub attempts: u32,
    /// The session the call was kept in.
    pub session: Option<String>,
    /// The instance that answered, where the runtime names it.
    pub instance: Option<String>,
}

impl LlmLink {
    /// A link without a session whose token mints are each recorded by `mint_gate` first.
    pub(crate) fn gated(mint_gate: MintGate) -> LlmLink {
        LlmLink {
            mint_gate: Some(mint_gate),
            ..LlmLink::default()
        }
    }

    /// Keeps the OpenAI client `used` made (a link copied for one call), so the next calls
    /// use its token instead of minting another.
    pub(crate) fn keep_client(&mut self, used: &LlmLink) {
        if self.openai.is_none() {
            self.openai = used.openai.clone();
        }
    }

    /// Keeps the session a call opened for the next calls.
    fn learn(&mut self, info: &SessionInfo) -> Option<String> {
        if info.opened {
            self.session = info.id.clone();
        }
        self.session.clone().filter(|s| s != NEW_SESSION)
    }
}

impl LlmLink {
    /// The run's OpenAI client, made at its first call.
    async fn openai_client(&mut self, fleet: &Fleet, config: &AgentConfig) -> Result<OpenAiClient, String> {
        if let Some(c) = &self.openai {
            return Ok(c.clone());
        }
        let ic = config.inference_component.as_deref();
        let mut client = OpenAiClient::new(fleet, &config.llm, ic, TOKEN_LIFE)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(gate) = &self.mint_gate {
            // Each mint is recorded in the audit log first: "token minted for LLM until T".
            client = client.with_mint_gate(gate.clone());
        }
        self.openai = Some(client.clone());
        Ok(client)
    }

    /// The Chat Completions call of `request` in this link's session.
    fn chat_call(&self, request: &Value) -> ChatCall {
        ChatCall {
            body: request.to_string().into_bytes(),
            session_id: self.session.clone(),
            prefix_aware_id: None,
        }
    }
}

/// One LLM call answered whole (not streamed) on `config`'s endpoint in its shape, through the
/// fleet layer's retry policy: InvokeEndpoint, or Chat Completions on the OpenAI-compatible API.
/// The agent's steps and the answers to a server's sampling requests both go this way.
pub(crate) async fn invoke_whole(
    fleet: &Fleet,
    config: &AgentConfig,
    request: &Value,
    link: &mut LlmLink,
) -> Result<LlmAnswer, String> {
    if config.shape == Shape::Openai {
        let client = link.openai_client(fleet, config).await?;
        return match client.chat(&link.chat_call(request), &config.retry).await {
            Ok(o) => answered(link, &o.body, (o.invoked_variant, o.attempts), &o.session, o.instance),
            Err(f) => Err(format!("{} (after {} attempts)", f.error, f.attempts)),
        };
    }
    match fleet.invoke(&invoke_spec(config, link, request), &config.retry).await {
        Ok(r) => answered(link, &r.body, (r.invoked_variant, r.attempts), &r.session, r.instance),
        Err(f) => Err(format!("{} (after {} attempts)", f.error, f.attempts)),
    }
}

/// A whole reply read into the call's answer; its session kept for the next calls.
fn answered(
    link: &mut LlmLink,
    body: &[u8],
    (variant, attempts): (Option<String>, u32),
    session: &SessionInfo,
    instance: Option<String>,
) -> Result<LlmAnswer, String> {
    read_reply(body).map(|reply| LlmAnswer {
        reply,
        variant,
        attempts,
        session: link.learn(session),
        instance,
    })
}

/// The InvokeEndpoint request of one LLM call.
fn invoke_spec(config: &AgentConfig, link: &LlmLink, request: &Value) -> InvokeSpec {
    InvokeSpec {
        endpoint: config.llm.clone(),
        body: request.to_string().into_bytes(),
        content_type: "application/json".into(),
        accept: Some("application/json".into()),
        target_variant: config.target_variant.clone(),
        target_model: config.target_model.clone(),
        inference_component: config.inference_component.clone(),
        session_id: link.session.clone(),
        ..Default::default()
    }
}

impl Agent {
    /// One LLM call: the reply, the invoked variant, the attempts and the session.
    pub(super) async fn invoke_llm(&self, request: &Value, link: &SharedLink) -> Result<LlmAnswer, String> {
        let mut link = link.lock().await;
        if !self.config.stream {
            return invoke_whole(&self.fleet, &self.config, request, &mut link).await;
        }
        if self.config.shape == Shape::Openai {
            return self.stream_openai(request, &mut link).await;
        }
        let spec = invoke_spec(&self.config, &link, request);
        let on = self.on_event.clone();
        let run = self
            .config
            .retry
            .run(|_| {
                let (spec, on) = (&spec, on.clone());
                async move {
                    let mut reader = StreamReader::default();
                    let summary = self
                        .fleet
                        .invoke_stream(spec, |p| {
                            for t in reader.push(p) {
                                on(&Event::Token(t));
                            }
                        })
                        .await?;
                    Ok((reader.finish(), summary.invoked_variant, summary.instance))
                }
            })
            .await;
        match run.result {
            Ok((reply, variant, instance)) => Ok(LlmAnswer {
                reply,
                variant,
                attempts: run.attempts,
                session: link.session.clone().filter(|s| s != NEW_SESSION),
                instance,
            }),
            Err(e) => Err(format!("{e} (after {} attempts)", run.attempts)),
        }
    }

    /// One streamed Chat Completions call on the OpenAI-compatible API.
    async fn stream_openai(&self, request: &Value, link: &mut LlmLink) -> Result<LlmAnswer, String> {
        let client = link.openai_client(&self.fleet, &self.config).await?;
        let call = link.chat_call(request);
        let on = self.on_event.clone();
        let run = self
            .config
            .retry
            .run(|_| {
                let (call, on, client) = (&call, on.clone(), &client);
                async move {
                    let mut reader = StreamReader::default();
                    let (summary, session) = client
                        .chat_stream(call, |p| {
                            for t in reader.push(p) {
                                on(&Event::Token(t));
                            }
                        })
                        .await?;
                    Ok((reader.finish(), summary, session))
                }
            })
            .await;
        match run.result {
            Ok((reply, summary, session)) => Ok(LlmAnswer {
                reply,
                variant: summary.invoked_variant,
                attempts: run.attempts,
                session: link.learn(&session),
                instance: summary.instance,
            }),
            Err(e) => Err(format!("{e} (after {} attempts)", run.attempts)),
        }
    }
}

/// The request shape as recorded in the audit log.
pub(crate) fn spec_name(c: &AgentConfig) -> String {
    match c.shape {
        Shape::Messages => "messages".into(),
        Shape::Openai => "openai".into(),
        Shape::Generate => format!("generate/{}", template_name(&c.template)),
    }
}

/// A template's name as shown and recorded.
pub fn template_name(t: &Template) -> String {
    match t {
        Template::Chatml => "chatml".into(),
        Template::Llama3 => "llama3".into(),
        Template::Mistral => "mistral".into(),
        Template::Jinja { .. } => "jinja".into(),
    }
}
