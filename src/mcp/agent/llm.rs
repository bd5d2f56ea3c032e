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
use crate::aws::invoke::call::InvokeSpec;
use crate::aws::invoke::openai::{ChatCall, OpenAiClient};
use crate::aws::invoke::session::{NEW_SESSION, SessionInfo};

/// The life of the tokens a run mints (renewed before they end).
const TOKEN_LIFE: Duration = Duration::from_secs(3600);

/// What the LLM calls of one run share.
#[derive(Debug, Default)]
pub(super) struct LlmLink {
    /// The OpenAI client, made at the first call of `--shape openai`.
    openai: Option<OpenAiClient>,
    /// The session the next call is sent with (`NEW_SESSION` until one is opened).
    session: Option<String>,
}

/// The link of a run, shared by its steps.
pub(super) type SharedLink = Arc<tokio::sync::Mutex<LlmLink>>;

/// A new run's link: its session as `--session` asks (`new` or an id).
pub(super) fn link_for(config: &AgentConfig) -> SharedLink {
    let session = config.session.as_deref().map(|s| match s {
        "new" => NEW_SESSION.to_string(),
        id => id.to_string(),
    });
    Arc::new(tokio::sync::Mutex::new(LlmLink { openai: None, session }))
}

/// What one LLM call brought back.
pub(super) struct LlmAnswer {
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
    /// Keeps the session a call opened for the next calls.
    fn learn(&mut self, info: &SessionInfo) -> Option<String> {
        if info.opened {
            self.session = info.id.clone();
        }
        self.session.clone().filter(|s| s != NEW_SESSION)
    }
}

impl Agent {
    /// One LLM call: the reply, the invoked variant, the attempts and the session.
    pub(super) async fn invoke_llm(&self, request: &Value, link: &SharedLink) -> Result<LlmAnswer, String> {
        let mut link = link.lock().await;
        if self.config.shape == Shape::Openai {
            return self.invoke_openai(request, &mut link).await;
        }
        let spec = InvokeSpec {
            endpoint: self.config.llm.clone(),
            body: request.to_string().into_bytes(),
            content_type: "application/json".into(),
            accept: Some("application/json".into()),
            target_variant: self.config.target_variant.clone(),
            target_model: self.config.target_model.clone(),
            inference_component: self.config.inference_component.clone(),
            session_id: link.session.clone(),
            ..Default::default()
        };
        if !self.config.stream {
            return match self.fleet.invoke(&spec, &self.config.retry).await {
                Ok(r) => read_reply(&r.body).map(|reply| LlmAnswer {
                    reply,
                    variant: r.invoked_variant,
                    attempts: r.attempts,
                    session: link.learn(&r.session),
                    instance: r.instance,
                }),
                Err(f) => Err(format!("{} (after {} attempts)", f.error, f.attempts)),
            };
        }
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

    /// One Chat Completions call on the OpenAI-compatible API, streamed when asked.
    async fn invoke_openai(&self, request: &Value, link: &mut LlmLink) -> Result<LlmAnswer, String> {
        if link.openai.is_none() {
            let ic = self.config.inference_component.as_deref();
            let client = OpenAiClient::new(&self.fleet, &self.config.llm, ic, TOKEN_LIFE)
                .await
                .map_err(|e| e.to_string())?;
            // Each mint is recorded in the audit log first: "token minted for LLM until T".
            let gate = self.audited.token_gate(self.config.reason.clone());
            link.openai = Some(client.with_mint_gate(gate));
        }
        let client = link.openai.clone().expect("made above");
        let call = ChatCall {
            body: request.to_string().into_bytes(),
            session_id: link.session.clone(),
            prefix_aware_id: None,
        };
        if !self.config.stream {
            return match client.chat(&call, &self.config.retry).await {
                Ok(out) => read_reply(&out.body).map(|reply| LlmAnswer {
                    reply,
                    variant: out.invoked_variant,
                    attempts: out.attempts,
                    session: link.learn(&out.session),
                    instance: out.instance,
                }),
                Err(f) => Err(format!("{} (after {} attempts)", f.error, f.attempts)),
            };
        }
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
pub(super) fn spec_name(c: &AgentConfig) -> String {
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
