//! The request shapes SageMaker LLM containers accept, and the chat templates a plain generate
//! body needs. `messages`: the chat Messages API of TGI (v2.4.0+ on `/invocations`), LMI and
//! vLLM, optionally with native `tools`. `generate`: `{"inputs": prompt, "parameters": {...}}`
//! with the conversation rendered by a built-in template (ChatML, Llama 3, Mistral, as in
//! `llm-agent.md`) or the model's own Jinja template from its `tokenizer_config.json`, rendered
//! with minijinja as TGI does. Replies are read whole or as server-sent events.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// Its text.
    pub content: String,
    /// A native tool call the assistant made (chat shape with tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Value>,
    /// The id of the native call a `tool` message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A message with text only.
    pub fn new(role: &str, content: impl Into<String>) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
            tool_calls: None,
            tool_call_id: None,
        }
    }
}

/// Which body the endpoint is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// The chat Messages API (`messages`).
    Messages,
    /// Text generation (`inputs` + `parameters`) with a chat template.
    Generate,
    /// SageMaker's OpenAI-compatible Chat Completions API (`…/openai/v1/chat/completions`) with a
    /// bearer token minted from the session's credentials; native `tools`/`tool_calls`.
    Openai,
}

impl Shape {
    /// A shape by the name `[agent] shape` gives it.
    pub fn named(name: &str) -> Result<Shape, String> {
        match name {
            "messages" => Ok(Shape::Messages),
            "generate" => Ok(Shape::Generate),
            "openai" => Ok(Shape::Openai),
            other => Err(format!("shape `{other}` is not messages, generate or openai")),
        }
    }

    /// Whether the tools go in the `tools` field (always on the OpenAI API).
    pub fn always_native(self) -> bool {
        self == Shape::Openai
    }
}

/// A chat template for the generate shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Template {
    /// `<|im_start|>role\n...<|im_end|>` (Qwen, many fine-tunes).
    Chatml,
    /// Llama 3 instruct headers.
    Llama3,
    /// Mistral `[INST]` (v1 spacing; the system text goes before the first user turn).
    Mistral,
    /// A model's own Jinja template (`chat_template` of tokenizer_config.json).
    Jinja {
        /// The template source.
        source: String,
        /// `bos_token`.
        bos: String,
        /// `eos_token`.
        eos: String,
    },
}

impl Template {
    /// A built-in template by name (`chatml`, `llama3`, `mistral`), or a tokenizer_config.json path.
    pub fn named(name: &str) -> Result<Template, String> {
        match name.to_ascii_lowercase().as_str() {
            "chatml" => Ok(Template::Chatml),
            "llama3" | "llama-3" => Ok(Template::Llama3),
            "mistral" => Ok(Template::Mistral),
            _ => Template::from_tokenizer_config(std::path::Path::new(name)),
        }
    }

    /// The template of a Hugging Face `tokenizer_config.json` (`chat_template` as a string, or the
    /// `default` of a list of named templates).
    pub fn from_tokenizer_config(path: &std::path::Path) -> Result<Template, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "template `{}` is neither chatml, llama3 nor mistral, and cannot be read as a tokenizer_config.json: {e}",
                path.display()
            )
        })?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        let source = match &v["chat_template"] {
            Value::String(s) => s.clone(),
            Value::Array(list) => list
                .iter()
                .find(|t| t["name"] == "default")
                .or_else(|| list.first())
                .and_then(|t| t["template"].as_str())
                .unwrap_or_default()
                .to_string(),
            _ => String::new(),
        };
        if source.is_empty() {
            return Err(format!("{}: no chat_template", path.display()));
        }
        let token = |k: &str| match &v[k] {
            Value::String(s) => s.clone(),
            other => other["content"].as_str().unwrap_or("").to_string(),
        };
        Ok(Template::Jinja {
            source,
            bos: token("bos_token"),
            eos: token("eos_token"),
        })
    }

    /// The stop sequence that ends an assistant turn.
    pub fn stop(&self) -> Option<String> {
        match self {
            Template::Chatml => Some("<|im_end|>".into()),
            Template::Llama3 => Some("<|eot_id|>".into()),
            Template::Mistral => Some("</s>".into()),
            Template::Jinja { eos, .. } => (!eos.is_empty()).then(|| eos.clone()),
        }
    }

    /// Renders the conversation, ending with an open assistant turn.
    pub fn render(&self, messages: &[Message]) -> Result<String, String> {
        Ok(match self {
            Template::Chatml => {
                let mut out: String = messages
                    .iter()
                    .map(|m| format!("<|im_start|>{}\n{}<|im_end|>\n", m.role, m.content))
                    .collect();
                out.push_str("<|im_start|>assistant\n");
                out
            }
            Template::Llama3 => {
                let mut out = String::from("<|begin_of_text|>");
                for m in messages {
                    out.push_str(&format!(
                        "<|start_header_id|>{}<|end_header_id|>\n\n{}<|eot_id|>",
                        m.role,
                        m.content.trim()
                    ));
                }
                out.push_str("<|start_header_id|>assistant<|end_header_id|>\n\n");
                out
            }
            Template::Mistral => mistral(messages),
            Template::Jinja { source, bos, eos } => jinja(source, bos, eos, messages)?,
        })
    }
}

fn mistral(messages: &[Message]) -> String {
    let system: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == "system")
        .map(|m| m.content.as_str())
        .collect();
    let mut out = String::from("<s>");
    let mut first_user = true;
    for m in messages.iter().filter(|m| m.role != "system") {
        if m.role == "assistant" {
            out.push_str(&format!(" {}</s>", m.content.trim()));
        } else if first_user && !system.is_empty() {
            out.push_str(&format!(
                "[INST] {}\n\n{} [/INST]",
                system.join("\n\n"),
                m.content.trim()
            ));
            first_user = false;
        } else {
            out.push_str(&format!("[INST] {} [/INST]", m.content.trim()));
            first_user = false;
        }
    }
    out
}

fn jinja(source: &str, bos: &str, eos: &str, messages: &[Message]) -> Result<String, String> {
    let mut env = minijinja::Environment::new();
    minijinja_contrib::add_to_environment(&mut env);
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_function("raise_exception", |msg: String| -> Result<String, minijinja::Error> {
        Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, msg))
    });
    env.add_template("chat", source)
        .map_err(|e| format!("the chat template does not parse: {e}"))?;
    let tmpl = env.get_template("chat").map_err(|e| e.to_string())?;
    let msgs: Vec<Value> = messages
        .iter()
        .map(|m| json!({"role": m.role, "content": m.content}))
        .collect();
    tmpl.render(minijinja::context! {
        messages => msgs,
        add_generation_prompt => true,
        bos_token => bos,
        eos_token => eos,
    })
    .map_err(|e| format!("the chat template failed: {e}"))
}

/// The request body for a conversation.
pub struct BodySpec<'a> {
    /// Shape.
    pub shape: Shape,
    /// Template (generate).
    pub template: &'a Template,
    /// Native tools (`messages` with `tools`), in the OpenAI/TGI form.
    pub tools: Option<&'a Value>,
    /// Token limit of the reply.
    pub max_new_tokens: u32,
    /// Ask for a stream.
    pub stream: bool,
}

/// Builds the JSON body.
pub fn body(spec: &BodySpec<'_>, messages: &[Message]) -> Result<Value, String> {
    match spec.shape {
        Shape::Messages | Shape::Openai => {
            let msgs: Vec<Value> = messages
                .iter()
                .map(|m| match (&m.tool_calls, &m.tool_call_id) {
                    (Some(calls), _) => json!({"role": m.role, "tool_calls": calls}),
                    (None, Some(id)) => json!({"role": m.role, "content": m.content, "tool_call_id": id}),
                    (None, None) => json!({"role": m.role, "content": m.content}),
                })
                .collect();
            let mut b = json!({"messages": msgs, "max_tokens": spec.max_new_tokens});
            if let Some(tools) = spec.tools {
                b["tools"] = tools.clone();
                b["tool_choice"] = json!("auto");
            }
            if spec.stream {
                b["stream"] = json!(true);
                b["stream_options"] = json!({"include_usage": true});
            }
            Ok(b)
        }
        Shape::Generate => {
            let prompt = spec.template.render(messages)?;
            let mut parameters =
                json!({"max_new_tokens": spec.max_new_tokens, "return_full_text": false, "details": true});
            if let Some(stop) = spec.template.stop() {
                parameters["stop"] = json!([stop]);
            }
            let mut b = json!({"inputs": prompt, "parameters": parameters});
            if spec.stream {
                b["stream"] = json!(true);
            }
            Ok(b)
        }
    }
}

/// A reply, whatever shape it came in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The text.
    pub text: String,
    /// The chat message (for native tool calls).
    pub message: Option<Value>,
    /// Input tokens, where reported.
    pub tokens_in: Option<u64>,
    /// Output tokens, where reported.
    pub tokens_out: Option<u64>,
}

/// Reads a whole reply: `chat.completion`, TGI's `[{"generated_text"}]`, LMI's
/// `{"generated_text"}`, or a body of server-sent events.
pub fn read_reply(body: &[u8]) -> Result<Reply, String> {
    let text = String::from_utf8_lossy(body);
    if text.trim_start().starts_with("data:") {
        let mut s = StreamReader::default();
        s.push(body);
        return Ok(s.finish());
    }
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("the endpoint's reply is not JSON: {e}"))?;
    if let Some(message) = v.pointer("/choices/0/message") {
        return Ok(Reply {
            text: message["content"].as_str().unwrap_or("").to_string(),
            message: Some(message.clone()),
            tokens_in: v.pointer("/usage/prompt_tokens").and_then(Value::as_u64),
            tokens_out: v.pointer("/usage/completion_tokens").and_then(Value::as_u64),
        });
    }
    let item = if v.is_array() { &v[0] } else { &v };
    match item.get("generated_text").and_then(Value::as_str) {
        Some(t) => Ok(Reply {
            text: t.to_string(),
            message: None,
            tokens_in: None,
            tokens_out: item.pointer("/details/generated_tokens").and_then(Value::as_u64),
        }),
        None => Err(format!(
            "the endpoint's reply has neither choices[0].message nor generated_text: {}",
            text.chars().take(200).collect::<String>()
        )),
    }
}

/// Reads server-sent events as their parts arrive (parts split lines anywhere): text tokens,
/// tool-call fragments (joined), usage and the generate stream's final `generated_text`.
#[derive(Debug, Default)]
pub struct StreamReader {
    buffer: Vec<u8>,
    reply: Reply,
    call_name: Option<String>,
    call_args: String,
    final_text: Option<String>,
}

impl StreamReader {
    /// Feeds a payload part; returns the text tokens it completed.
    pub fn push(&mut self, part: &[u8]) -> Vec<String> {
        self.buffer.extend_from_slice(part);
        let mut tokens = Vec::new();
        while let Some(i) = self.buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=i).collect();
            let line = String::from_utf8_lossy(&line);
            let Some(data) = line.trim_end().strip_prefix("data:") else {
                continue;
            };
            let data = data.trim_start();
            if data == "[DONE]" {
                continue;
            }
            if let Ok(v) = serde_json::from_str::<Value>(data) {
                tokens.extend(self.event(&v));
            }
        }
        tokens
    }

    fn event(&mut self, v: &Value) -> Option<String> {
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.reply.tokens_in = u["prompt_tokens"].as_u64();
            self.reply.tokens_out = u["completion_tokens"].as_u64();
        }
        if let Some(d) = v.pointer("/choices/0/delta") {
            if let Some(f) = d.pointer("/tool_calls/0/function") {
                if let Some(n) = f["name"].as_str() {
                    self.call_name = Some(n.to_string());
                }
                self.call_args.push_str(f["arguments"].as_str().unwrap_or(""));
                return None;
            }
            let t = d["content"].as_str()?.to_string();
            self.reply.text.push_str(&t);
            return Some(t);
        }
        if let Some(t) = v.pointer("/token/text").and_then(Value::as_str) {
            if let Some(full) = v["generated_text"].as_str() {
                self.final_text = Some(full.to_string());
            }
            if let Some(n) = v.pointer("/details/generated_tokens").and_then(Value::as_u64) {
                self.reply.tokens_out = Some(n);
                self.reply.tokens_in = v.pointer("/details/input_length").and_then(Value::as_u64);
            }
            if v.pointer("/token/special") == Some(&Value::Bool(true)) {
                return None;
            }
            self.reply.text.push_str(t);
            return Some(t.to_string());
        }
        None
    }

    /// The whole reply.
    pub fn finish(mut self) -> Reply {
        if let Some(full) = self.final_text.take() {
            self.reply.text = full;
        }
        if let Some(name) = self.call_name.take() {
            self.reply.message = Some(
                json!({"role": "assistant", "tool_calls": [{"id": "0", "type": "function",
                "function": {"name": name, "arguments": self.call_args}}]}),
            );
        }
        self.reply
    }
}

/// Appends the assistant's reply and what comes back to it (a `tool` message after a native
/// call, a `user` message otherwise, as the seed does).
pub(super) fn feed_into(
    messages: &mut Vec<Message>,
    reply: &Reply,
    call: Option<&super::parse::ParsedCall>,
    text: String,
) {
    let native = call.is_some_and(|c| c.source == "native");
    match (&reply.message, native) {
        (Some(m), true) => {
            // The loop answers the first call only, so the assistant turn keeps that one.
            let first = m.pointer("/tool_calls/0").cloned();
            let id = first.as_ref().and_then(|c| c["id"].as_str()).map(str::to_string);
            messages.push(Message {
                role: "assistant".into(),
                content: String::new(),
                tool_calls: first.map(|c| Value::Array(vec![c])),
                tool_call_id: None,
            });
            messages.push(Message {
                tool_call_id: id,
                ..Message::new("tool", text)
            });
        }
        _ => {
            messages.push(Message::new("assistant", reply.text.clone()));
            messages.push(Message::new("user", text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convo() -> Vec<Message> {
        vec![Message::new("system", "S"), Message::new("user", "Q?")]
    }

    #[test]
    fn built_in_templates_render_as_documented() {
        assert_eq!(
            Template::Chatml.render(&convo()).unwrap(),
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ?<|im_end|>\n<|im_start|>assistant\n"
        );
        assert_eq!(
            Template::Llama3.render(&convo()).unwrap(),
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nQ?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
        );
        let mut c = convo();
        c.push(Message::new("assistant", "A"));
        c.push(Message::new("user", "R"));
        assert_eq!(
            Template::Mistral.render(&c).unwrap(),
            "<s>[INST] S\n\nQ? [/INST] A</s>[INST] R [/INST]"
        );
    }

    #[test]
    fn a_jinja_template_renders_with_python_methods() {
        let t = Template::Jinja {
            source: "{{ bos_token }}{% for m in messages %}<{{ m['role'] }}>{{ m['content'].strip() }}{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}".into(),
            bos: "<s>".into(),
            eos: "</s>".into(),
        };
        assert_eq!(t.render(&convo()).unwrap(), "<s><system>S<user>Q?<assistant>");
    }

    #[test]
    fn streams_are_read_across_arbitrary_part_boundaries() {
        let events = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":null,\"arguments\":\"\\\"a\\\":1}\"}}]}}]}\n\ndata: [DONE]\n\n";
        let mut r = StreamReader::default();
        for chunk in events.as_bytes().chunks(7) {
            r.push(chunk);
        }
        let reply = r.finish();
        let m = reply.message.unwrap();
        assert_eq!(m.pointer("/tool_calls/0/function/arguments").unwrap(), "{\"a\":1}");
    }
}
