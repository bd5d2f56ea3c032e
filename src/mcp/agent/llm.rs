//! The LLM call of a step, through the fleet layer: InvokeEndpoint under the retry policy, or the
//! response stream (tokens reported as they arrive, an attempt retried only as a whole).

use serde_json::Value;

use super::run::{Agent, Event};
use super::shape::{Reply, StreamReader, read_reply};
use super::{AgentConfig, Shape, Template};
use crate::aws::invoke::call::InvokeSpec;

impl Agent {
    /// One LLM call through the fleet layer: the reply, the invoked variant, the attempts.
    pub(super) async fn invoke_llm(&self, request: &Value) -> Result<(Reply, Option<String>, u32), String> {
        let spec = InvokeSpec {
            endpoint: self.config.llm.clone(),
            body: request.to_string().into_bytes(),
            content_type: "application/json".into(),
            accept: Some("application/json".into()),
            target_variant: self.config.target_variant.clone(),
            target_model: self.config.target_model.clone(),
            inference_component: self.config.inference_component.clone(),
            ..Default::default()
        };
        if !self.config.stream {
            return match self.fleet.invoke(&spec, &self.config.retry).await {
                Ok(r) => read_reply(&r.body).map(|reply| (reply, r.invoked_variant, r.attempts)),
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
                    Ok((reader.finish(), summary.invoked_variant))
                }
            })
            .await;
        match run.result {
            Ok((reply, variant)) => Ok((reply, variant, run.attempts)),
            Err(e) => Err(format!("{e} (after {} attempts)", run.attempts)),
        }
    }
}

/// The request shape as recorded in the audit log.
pub(super) fn spec_name(c: &AgentConfig) -> String {
    match c.shape {
        Shape::Messages => "messages".into(),
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
