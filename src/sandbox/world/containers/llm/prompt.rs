//! Reading a conversation back out of what a client sent: the turns of a rendered prompt
//! (ChatML, Llama 3, Mistral `[INST]`, or plain text), and the tool definitions a system prompt
//! lists as JSON objects (the seed's format: `{"name", "description", "parameters"}`; the
//! `{"type": "function", "function": {...}}` wrapper and MCP's `inputSchema` are read too).

use serde_json::Value;

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// `system`, `user`, `assistant`, `tool` (or `ipython`).
    pub role: String,
    /// Its text.
    pub content: String,
    /// The tool an assistant turn called natively (chat `tool_calls`), if any.
    pub called: Option<String>,
}

impl Turn {
    /// A turn with text only.
    pub fn new(role: &str, content: &str) -> Turn {
        Turn {
            role: role.to_string(),
            content: content.trim().to_string(),
            called: None,
        }
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// JSON Schema of its arguments.
    pub parameters: Value,
}

/// The chat template a prompt was rendered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// `<|im_start|>role\n...<|im_end|>`.
    ChatMl,
    /// `<|start_header_id|>role<|end_header_id|>\n\n...<|eot_id|>`.
    Llama3,
    /// `<s>[INST] ... [/INST] ...</s>`.
    Mistral,
    /// No template: the whole prompt is one user turn.
    Plain,
}

/// Recognises the template of a rendered prompt.
pub fn template_of(prompt: &str) -> Template {
    if prompt.contains("<|im_start|>") {
        Template::ChatMl
    } else if prompt.contains("<|start_header_id|>") {
        Template::Llama3
    } else if prompt.contains("[INST]") {
        Template::Mistral
    } else {
        Template::Plain
    }
}

/// The turns of a rendered prompt (the open assistant turn at the end is dropped).
pub fn turns_of(prompt: &str) -> Vec<Turn> {
    let turns = match template_of(prompt) {
        Template::ChatMl => split_headed(prompt, "<|im_start|>", "\n", "<|im_end|>"),
        Template::Llama3 => split_headed(prompt, "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
        Template::Mistral => mistral_turns(prompt),
        Template::Plain => vec![Turn::new("user", prompt)],
    };
    turns.into_iter().filter(|t| !t.content.is_empty()).collect()
}

fn split_headed(prompt: &str, open: &str, role_end: &str, close: &str) -> Vec<Turn> {
    prompt
        .split(open)
        .skip(1)
        .filter_map(|segment| {
            let (role, rest) = segment.split_once(role_end)?;
            let content = rest.split(close).next().unwrap_or(rest);
            Some(Turn::new(role.trim(), content))
        })
        .collect()
}

fn mistral_turns(prompt: &str) -> Vec<Turn> {
    let mut turns = Vec::new();
    let text = prompt.replace("<s>", "");
    let mut rest = text.as_str();
    if let Some((_, after)) = rest.split_once("[SYSTEM_PROMPT]") {
        let (system, tail) = after.split_once("[/SYSTEM_PROMPT]").unwrap_or((after, ""));
        turns.push(Turn::new("system", system));
        rest = tail;
    }
    for chunk in rest.split("[INST]").skip(1) {
        let (user, assistant) = chunk.split_once("[/INST]").unwrap_or((chunk, ""));
        turns.push(Turn::new("user", user));
        turns.push(Turn::new("assistant", assistant.split("</s>").next().unwrap_or("")));
    }
    turns
}

/// Every JSON object in `text` at the top level of where it appears (nested objects stay inside
/// the object that holds them).
pub fn json_objects(text: &str) -> Vec<Value> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find('{') {
        let start = at + offset;
        let mut it = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match it.next() {
            Some(Ok(v @ Value::Object(_))) => {
                found.push(v);
                at = start + it.byte_offset();
            }
            _ => at = start + 1,
        }
    }
    found
}

/// A tool definition from a JSON object, in any of the shapes clients send.
pub fn tool_of(v: &Value) -> Option<ToolDef> {
    let f = v.get("function").filter(|f| f.is_object()).unwrap_or(v);
    let name = f.get("name")?.as_str()?.to_string();
    let parameters = ["parameters", "input_schema", "inputSchema"]
        .iter()
        .find_map(|k| f.get(*k).filter(|p| p.is_object()))?
        .clone();
    Some(ToolDef {
        name,
        description: f.get("description").and_then(Value::as_str).unwrap_or("").to_string(),
        parameters,
    })
}

/// The tools a text lists as JSON objects.
pub fn tools_in(text: &str) -> Vec<ToolDef> {
    json_objects(text).iter().filter_map(tool_of).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_read_back_into_turns() {
        let chatml = "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ?<|im_end|>\n<|im_start|>assistant\n";
        assert_eq!(
            turns_of(chatml),
            vec![Turn::new("system", "S"), Turn::new("user", "Q?")]
        );
        let llama = "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nQ?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
        assert_eq!(turns_of(llama), vec![Turn::new("system", "S"), Turn::new("user", "Q?")]);
        let mistral = "<s>[INST] S\n\nQ? [/INST] A</s>[INST] R [/INST]";
        let t = turns_of(mistral);
        assert_eq!(t[0], Turn::new("user", "S\n\nQ?"));
        assert_eq!(t[1], Turn::new("assistant", "A"));
        assert_eq!(t[2], Turn::new("user", "R"));
        assert_eq!(template_of("hello"), Template::Plain);
    }

    #[test]
    fn tools_are_read_from_prose_with_nested_schemas() {
        let text = r#"Tools:
{"name": "top_song", "description": "Get the most popular song", "parameters": {"type": "object", "properties": {"sign": {"type": "string"}}, "required": ["sign"]}}
and {"type": "function", "function": {"name": "f", "parameters": {}}} {broken"#;
        let tools = tools_in(text);
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].name, "top_song");
        assert_eq!(tools[0].parameters["required"][0], "sign");
        assert_eq!(tools[1].name, "f");
    }
}
