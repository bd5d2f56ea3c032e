//! A server's `sampling/createMessage` read into what sagedeck shows and sends: the conversation
//! (text only; images and audio are refused by name), the system prompt, the model preferences
//! in one line, the token limit, and the request body in the endpoint's shape with the
//! temperature and stop sequences the server asked for.

#![allow(deprecated)] // sampling is deprecated by SEP-2577, still in 2025-11-25 and served here

use rmcp::model::{CreateMessageRequestParams, ModelPreferences, Role, SamplingMessageContentBlock};
use serde::Serialize;
use serde_json::{Value, json};

use crate::mcp::agent::shape::{BodySpec, Message, body};
use crate::mcp::agent::{Shape, Template};

/// The most tokens a sampling answer may ask for, whatever the server says.
pub const MAX_SAMPLING_TOKENS: u32 = 4096;

/// What a server asked for, as the operator is shown it before anything is sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SamplingRequest {
    /// The server that asked (its registry name).
    pub server: String,
    /// The endpoint (and component) that would answer.
    pub model: String,
    /// The conversation, system prompt first when there is one.
    pub messages: Vec<Message>,
    /// The model preferences in one line (`hints claude, gpt · intelligence 0.8`), or `-`.
    pub preferences: String,
    /// Tokens the answer may take (the server's, capped at [`MAX_SAMPLING_TOKENS`]).
    pub max_tokens: u32,
    /// The temperature asked for.
    pub temperature: Option<f32>,
    /// The stop sequences asked for.
    pub stop: Vec<String>,
}

impl SamplingRequest {
    /// Reads `params` from `server` for `model`; a message that is not text is refused, naming
    /// its number and kind.
    pub fn read(server: &str, model: &str, params: &CreateMessageRequestParams) -> Result<SamplingRequest, String> {
        let mut messages = Vec::new();
        if let Some(system) = params.system_prompt.as_deref().filter(|s| !s.is_empty()) {
            messages.push(Message::new("system", system));
        }
        for (i, m) in params.messages.iter().enumerate() {
            let role = if m.role == Role::Assistant { "assistant" } else { "user" };
            let mut text = Vec::new();
            for block in m.content.clone().into_vec() {
                match block {
                    SamplingMessageContentBlock::Text(t) => text.push(t.text),
                    other => {
                        let kind = serde_json::to_value(&other)
                            .ok()
                            .and_then(|v| v["type"].as_str().map(str::to_string))
                            .unwrap_or_else(|| "non-text".into());
                        return Err(format!(
                            "message {} holds {kind} content; sagedeck answers text sampling only",
                            i + 1
                        ));
                    }
                }
            }
            messages.push(Message::new(role, text.join("\n")));
        }
        if !messages.iter().any(|m| m.role != "system") {
            return Err("the request holds no message".into());
        }
        Ok(SamplingRequest {
            server: server.to_string(),
            model: model.to_string(),
            messages,
            preferences: preferences_text(params.model_preferences.as_ref()),
            max_tokens: params.max_tokens.clamp(1, MAX_SAMPLING_TOKENS),
            temperature: params.temperature,
            stop: params.stop_sequences.clone().unwrap_or_default(),
        })
    }

    /// Characters of message text (what the audit log records instead of the text).
    pub fn chars(&self) -> usize {
        self.messages.iter().map(|m| m.content.chars().count()).sum()
    }

    /// The body for `shape` (and `template`, generate): the agent's, with the server's
    /// temperature and stop sequences.
    pub fn body(&self, shape: Shape, template: &Template) -> Result<Value, String> {
        let spec = BodySpec {
            shape,
            template,
            tools: None,
            max_new_tokens: self.max_tokens,
            stream: false,
        };
        let mut b = body(&spec, &self.messages)?;
        let t = self.temperature.map(f64::from);
        match shape {
            Shape::Messages | Shape::Openai => {
                if let Some(t) = t {
                    b["temperature"] = json!(t);
                }
                if !self.stop.is_empty() {
                    b["stop"] = json!(self.stop);
                }
            }
            Shape::Generate => {
                // TGI refuses a temperature of 0: greedy decoding is no sampling instead.
                if let Some(t) = t.filter(|t| *t > 0.0) {
                    b["parameters"]["temperature"] = json!(t);
                    b["parameters"]["do_sample"] = json!(true);
                }
                if let Some(Value::Array(stops)) = b["parameters"].get_mut("stop") {
                    stops.extend(self.stop.iter().map(|s| json!(s)));
                } else if !self.stop.is_empty() {
                    b["parameters"]["stop"] = json!(self.stop);
                }
            }
        }
        Ok(b)
    }
}

/// The model preferences in one line: hints, then the priorities given.
pub fn preferences_text(p: Option<&ModelPreferences>) -> String {
    let Some(p) = p else { return "-".into() };
    let mut parts = Vec::new();
    let hints: Vec<String> = (p.hints.iter().flatten()).filter_map(|h| h.name.clone()).collect();
    if !hints.is_empty() {
        parts.push(format!("hints {}", hints.join(", ")));
    }
    for (name, v) in [
        ("cost", p.cost_priority),
        ("speed", p.speed_priority),
        ("intelligence", p.intelligence_priority),
    ] {
        if let Some(v) = v {
            parts.push(format!("{name} {v:.2}"));
        }
    }
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ModelHint, SamplingMessage};

    use super::*;

    fn params() -> CreateMessageRequestParams {
        let mut p = CreateMessageRequestParams::new(
            vec![SamplingMessage::new(
                Role::User,
                SamplingMessageContentBlock::text("Why?"),
            )],
            99_999,
        );
        p.system_prompt = Some("Be brief.".into());
        p.temperature = Some(0.0);
        p.stop_sequences = Some(vec!["END".into()]);
        p.with_model_preferences(
            ModelPreferences::new()
                .with_hints(vec![ModelHint::new("claude")])
                .with_intelligence_priority(0.8),
        )
    }

    #[test]
    fn a_request_becomes_the_shapes_bodies() {
        let r = SamplingRequest::read("radio", "llm", &params()).unwrap();
        assert_eq!(r.max_tokens, MAX_SAMPLING_TOKENS);
        assert_eq!(r.preferences, "hints claude · intelligence 0.80");
        assert_eq!(r.messages[0], Message::new("system", "Be brief."));
        let chat = r.body(Shape::Messages, &Template::Chatml).unwrap();
        assert_eq!(chat["messages"][1], json!({"role": "user", "content": "Why?"}));
        assert_eq!(
            (chat["temperature"].clone(), chat["stop"].clone()),
            (json!(0.0), json!(["END"]))
        );
        let generated = r.body(Shape::Generate, &Template::Chatml).unwrap();
        assert_eq!(generated["parameters"]["stop"], json!(["<|im_end|>", "END"]));
        assert!(generated["parameters"].get("temperature").is_none(), "{generated}");
    }

    #[test]
    fn content_that_is_not_text_is_refused_by_number() {
        let mut p = params();
        p.messages.push(SamplingMessage::new(
            Role::User,
            SamplingMessageContentBlock::Image(rmcp::model::ImageContent::new("AAAA", "image/png")),
        ));
        let e = SamplingRequest::read("s", "m", &p).unwrap_err();
        assert!(e.contains("message 2 holds image"), "{e}");
    }
}
