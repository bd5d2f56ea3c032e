//! The two request bodies TGI's `/invocations` accepts (since v2.4.0, tried in this order):
//! `inputs` → generate (`{"inputs", "parameters", "stream"}`), `messages` → chat (the Messages
//! API: `messages`, `tools`, `tool_choice`, `max_tokens`, `stream`, `stream_options`). Invalid
//! bodies answer 422 with TGI's error shapes.

use serde_json::Value;

use super::model::Choice;
use super::prompt::{Template, ToolDef, Turn, template_of, tool_of, tools_in, turns_of};
use crate::sandbox::world::containers::answer::ContainerError;

/// A parsed request.
#[derive(Debug, Clone)]
pub struct Request {
    /// Chat (Messages API) or generate.
    pub chat: bool,
    /// The conversation.
    pub turns: Vec<Turn>,
    /// Tools: the `tools` field, else those the system prompt lists.
    pub tools: Vec<ToolDef>,
    /// Whether `tools` was given (answers use native `tool_calls`).
    pub native_tools: bool,
    /// `tool_choice`.
    pub choice: Choice,
    /// Token limit of the answer.
    pub max_tokens: usize,
    /// `stream: true`.
    pub stream: bool,
    /// Generate: `details: true`.
    pub details: bool,
    /// Generate: `return_full_text` (TGI's default on `/invocations` for text generation: true).
    pub return_full_text: bool,
    /// Chat stream: `stream_options.include_usage`.
    pub include_usage: bool,
    /// The prompt text (generate) or the messages' text (chat), for counting input tokens.
    pub prompt: String,
    /// The template a generate prompt was rendered with.
    pub template: Template,
    /// Sampling seed material (generate without a conversation answers random words).
    pub temperature: f64,
    /// How many random words a plain prompt gets (`max_new_tokens`, else 20).
    pub random_len: usize,
}

fn invalid(message: &str) -> ContainerError {
    ContainerError {
        status: 422,
        message: serde_json::json!({"error": message, "error_type": "validation"}).to_string(),
    }
}

fn chat_invalid(message: &str) -> ContainerError {
    ContainerError {
        status: 422,
        message: serde_json::json!({"error": {"message": message, "http_status_code": 422}}).to_string(),
    }
}

/// Parses a body as TGI does.
pub fn parse(body: &[u8]) -> Result<Request, ContainerError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        invalid(&format!(
            "Failed to deserialize the JSON body into the target type: {e}"
        ))
    })?;
    if v.get("inputs").is_some() {
        generate(&v)
    } else if v.get("messages").is_some() {
        chat(&v)
    } else {
        Err(invalid(
            "Failed to deserialize the JSON body: expected `inputs` (generate) or `messages` (chat)",
        ))
    }
}

fn generate(v: &Value) -> Result<Request, ContainerError> {
    let prompt = v["inputs"]
        .as_str()
        .ok_or_else(|| invalid("`inputs` must be a string"))?
        .to_string();
    let p = v.get("parameters").cloned().unwrap_or(Value::Null);
    let given = p.get("max_new_tokens").and_then(Value::as_u64);
    let max = given.unwrap_or(1024);
    if max == 0 || max > 4096 {
        return Err(invalid(&format!(
            "`max_new_tokens` must be strictly positive and at most 4096 (got {max})"
        )));
    }
    let temperature = p.get("temperature").and_then(Value::as_f64).unwrap_or(1.0);
    if temperature <= 0.0 {
        return Err(invalid("`temperature` must be strictly positive"));
    }
    let template = template_of(&prompt);
    let turns = turns_of(&prompt);
    let tools = tools_in(&prompt);
    Ok(Request {
        chat: false,
        turns,
        tools,
        native_tools: false,
        choice: Choice::Auto,
        max_tokens: max as usize,
        stream: v.get("stream").and_then(Value::as_bool).unwrap_or(false),
        details: p.get("details").and_then(Value::as_bool).unwrap_or(false),
        return_full_text: p.get("return_full_text").and_then(Value::as_bool).unwrap_or(true),
        include_usage: false,
        template,
        temperature,
        random_len: given.unwrap_or(20) as usize,
        prompt,
    })
}

fn content_text(c: &Value) -> String {
    match c {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

fn turn_of(m: &Value) -> Result<Turn, ContainerError> {
    let role = m
        .get("role")
        .and_then(Value::as_str)
        .ok_or_else(|| chat_invalid("messages[]: missing field `role`"))?;
    let mut turn = Turn::new(role, &content_text(m.get("content").unwrap_or(&Value::Null)));
    // Assistant tool calls become JSON text before templating, as TGI does.
    if let Some(call) = m.pointer("/tool_calls/0/function") {
        turn.called = call.get("name").and_then(Value::as_str).map(str::to_string);
        if turn.content.is_empty() {
            turn.content = call.to_string();
        }
    }
    Ok(turn)
}

fn choice_of(v: Option<&Value>) -> Result<Choice, ContainerError> {
    Ok(match v {
        None | Some(Value::Null) => Choice::Auto,
        Some(Value::String(s)) => match s.as_str() {
            "auto" => Choice::Auto,
            "none" => Choice::Never,
            "required" => Choice::Required,
            name => Choice::Named(name.to_string()),
        },
        Some(o) => match o.pointer("/function/name").and_then(Value::as_str) {
            Some(n) => Choice::Named(n.to_string()),
            None => {
                return Err(chat_invalid(
                    "tool_choice: expected a string or {type, function: {name}}",
                ));
            }
        },
    })
}

fn chat(v: &Value) -> Result<Request, ContainerError> {
    let messages = v["messages"]
        .as_array()
        .ok_or_else(|| chat_invalid("`messages` must be an array"))?;
    let turns = messages.iter().map(turn_of).collect::<Result<Vec<_>, _>>()?;
    let declared: Vec<ToolDef> = v
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(tool_of).collect())
        .unwrap_or_default();
    let native_tools = !declared.is_empty();
    let tools = if native_tools {
        declared
    } else {
        let system: String = turns
            .iter()
            .filter(|t| t.role == "system")
            .map(|t| t.content.as_str())
            .collect();
        tools_in(&system)
    };
    let max = v
        .get("max_tokens")
        .or_else(|| v.get("max_completion_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(1024);
    let prompt = turns.iter().map(|t| format!("{}\n{}\n", t.role, t.content)).collect();
    Ok(Request {
        chat: true,
        turns,
        tools,
        native_tools,
        choice: choice_of(v.get("tool_choice"))?,
        max_tokens: max.max(1) as usize,
        stream: v.get("stream").and_then(Value::as_bool).unwrap_or(false),
        details: false,
        return_full_text: false,
        include_usage: v
            .pointer("/stream_options/include_usage")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        template: Template::ChatMl,
        temperature: v.get("temperature").and_then(Value::as_f64).unwrap_or(1.0),
        random_len: 0,
        prompt,
    })
}
