//! A server's `sampling/createMessage` read into what sagedeck shows and sends: the conversation
//! (text, the model's earlier tool uses and their results; images and audio are refused by
//! name), the system prompt, the model preferences in one line, the token limit, the tools the
//! server offers the model with its `toolChoice` (2025-11-25), and the request body in the
//! endpoint's shape with the temperature and stop sequences the server asked for. Tools go in
//! the chat shapes' native `tools`; the `generate` shape has no tool format, and says so.

#![allow(deprecated)] // sampling is deprecated by SEP-2577, still in 2025-11-25 and served here

use rmcp::model::{
    ContentBlock, CreateMessageRequestParams, ModelPreferences, Role, SamplingMessageContentBlock, ToolChoiceMode,
};
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
    /// The tools the server offers the model, with the choice (`restart_endpoint, page_oncall
    /// (auto)`), or empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tools: String,
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
            messages.extend(read_message(i, role, m.content.clone().into_vec())?);
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
            tools: tools_of(params)
                .map(|t| format!("{} ({})", t.names.join(", "), t.choice))
                .unwrap_or_default(),
        })
    }

    /// Characters of message text (what the audit log records instead of the text).
    pub fn chars(&self) -> usize {
        self.messages.iter().map(|m| m.content.chars().count()).sum()
    }

    /// The body for `shape` (and `template`, generate): the agent's, with the server's
    /// temperature and stop sequences, and its `tools` offered natively (refused in the
    /// `generate` shape, which has no tool format).
    pub fn body(&self, shape: Shape, template: &Template, tools: Option<&SamplingTools>) -> Result<Value, String> {
        if tools.is_some() && shape == Shape::Generate {
            return Err(
                "the server offers tools, and the generate shape has no tool format: answer with the messages or openai shape (--sampling-shape)".into(),
            );
        }
        let spec = BodySpec {
            shape,
            template,
            tools: tools.map(|t| &t.defs),
            max_new_tokens: self.max_tokens,
            stream: false,
        };
        let mut b = body(&spec, &self.messages)?;
        if let Some(t) = tools {
            b["tool_choice"] = json!(t.choice);
        }
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

/// The tools a request offers the model: in the chat shapes' native form, with the choice.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingTools {
    /// `[{"type": "function", "function": {"name", "description", "parameters"}}]`.
    pub defs: Value,
    /// `auto`, `required` or `none`.
    pub choice: &'static str,
    /// The tools' names, as shown and audited.
    pub names: Vec<String>,
}

/// The tools `params` offers, if any.
pub fn tools_of(params: &CreateMessageRequestParams) -> Option<SamplingTools> {
    let tools = params.tools.as_ref().filter(|t| !t.is_empty())?;
    let defs = (tools.iter())
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.name, "description": t.description.as_deref().unwrap_or(""),
                "parameters": t.input_schema.as_ref(),
            }})
        })
        .collect();
    let choice = match params.tool_choice.as_ref().and_then(|c| c.mode.clone()) {
        Some(ToolChoiceMode::Required) => "required",
        Some(ToolChoiceMode::None) => "none",
        _ => "auto",
    };
    let names = tools.iter().map(|t| t.name.to_string()).collect();
    Some(SamplingTools {
        defs: Value::Array(defs),
        choice,
        names,
    })
}

/// The messages of request message `i` (its text; an assistant's tool uses as native
/// `tool_calls`; a user's tool results as `tool` messages).
fn read_message(i: usize, role: &str, blocks: Vec<SamplingMessageContentBlock>) -> Result<Vec<Message>, String> {
    let (mut text, mut calls, mut results) = (Vec::new(), Vec::new(), Vec::new());
    for block in blocks {
        match block {
            SamplingMessageContentBlock::Text(t) => text.push(t.text),
            SamplingMessageContentBlock::ToolUse(u) => calls.push(json!({
                "id": u.id, "type": "function",
                "function": {"name": u.name, "arguments": Value::Object(u.input).to_string()},
            })),
            SamplingMessageContentBlock::ToolResult(r) => {
                let mut m = Message::new("tool", result_text(&r.content, r.structured_content.as_ref()));
                m.tool_call_id = Some(r.tool_use_id);
                results.push(m);
            }
            other => {
                let kind = serde_json::to_value(&other)
                    .ok()
                    .and_then(|v| v["type"].as_str().map(str::to_string))
                    .unwrap_or_else(|| "non-text".into());
                return Err(format!(
                    "message {} holds {kind} content; sagedeck answers text and tool sampling only",
                    i + 1
                ));
            }
        }
    }
    let mut out = results;
    if !calls.is_empty() {
        let mut m = Message::new("assistant", text.join("\n"));
        m.tool_calls = Some(Value::Array(calls));
        out.push(m);
    } else if !text.is_empty() || out.is_empty() {
        out.push(Message::new(role, text.join("\n")));
    }
    Ok(out)
}

/// A tool result as the model reads it: its text blocks, else its structured content.
fn result_text(content: &[ContentBlock], structured: Option<&Value>) -> String {
    let text: Vec<String> = (content.iter())
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    match (text.is_empty(), structured) {
        (true, Some(v)) => v.to_string(),
        _ => text.join("\n"),
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
        let chat = r.body(Shape::Messages, &Template::Chatml, None).unwrap();
        assert_eq!(chat["messages"][1], json!({"role": "user", "content": "Why?"}));
        assert_eq!(
            (chat["temperature"].clone(), chat["stop"].clone()),
            (json!(0.0), json!(["END"]))
        );
        let generated = r.body(Shape::Generate, &Template::Chatml, None).unwrap();
        assert_eq!(generated["parameters"]["stop"], json!(["<|im_end|>", "END"]));
        assert!(generated["parameters"].get("temperature").is_none(), "{generated}");
    }

    #[test]
    fn tools_and_tool_turns_go_to_the_chat_shapes_natively() {
        let mut p = params();
        let schema = json!({"type": "object", "properties": {"endpoint": {"type": "string"}}});
        let tool = rmcp::model::Tool::new(
            "restart",
            "Restart it",
            std::sync::Arc::new(schema.as_object().unwrap().clone()),
        );
        p.tools = Some(vec![tool]);
        p.tool_choice = Some(rmcp::model::ToolChoice::required());
        let input = json!({"endpoint": "e"}).as_object().unwrap().clone();
        let used = rmcp::model::ToolUseContent::new("c1", "restart", input);
        p.messages.push(SamplingMessage::new(
            Role::Assistant,
            SamplingMessageContentBlock::ToolUse(used),
        ));
        let result = rmcp::model::ToolResultContent::new("c1", vec![ContentBlock::text("done")]);
        p.messages.push(SamplingMessage::new(
            Role::User,
            SamplingMessageContentBlock::ToolResult(result),
        ));
        let r = SamplingRequest::read("s", "m", &p).unwrap();
        assert_eq!(r.tools, "restart (required)");
        let tools = tools_of(&p).unwrap();
        let b = r.body(Shape::Messages, &Template::Chatml, Some(&tools)).unwrap();
        assert_eq!(b["tools"][0]["function"]["parameters"], schema);
        assert_eq!(b["tool_choice"], "required");
        let calls = &b["messages"][2]["tool_calls"][0];
        assert_eq!(
            (calls["id"].as_str(), calls["function"]["arguments"].as_str()),
            (Some("c1"), Some(r#"{"endpoint":"e"}"#))
        );
        assert_eq!(
            b["messages"][3],
            json!({"role": "tool", "content": "done", "tool_call_id": "c1"})
        );
        let e = r.body(Shape::Generate, &Template::Chatml, Some(&tools)).unwrap_err();
        assert!(e.contains("generate shape has no tool format"), "{e}");
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
