//! The TGI-style container's model: a deterministic tool-calling "LLM" that speaks both request
//! shapes SageMaker's TGI container accepts on `/invocations` (the chat Messages API and the
//! generate body, see [`request`]), reads a conversation back out of a ChatML, Llama 3 or Mistral
//! prompt ([`prompt`]), picks a tool and fills its arguments by the rules in [`model`], and answers
//! as TGI does ([`reply`]): `chat.completion` with `usage` and native `tool_calls` (arguments as a
//! JSON string) when `tools` is given, the seed's `{"tool", "arguments"}` JSON as text otherwise,
//! `[{"generated_text"}]` for generate, and server-sent events when `stream` is true.
//!
//! A plain generate prompt (no template, no tools) answers deterministic random words, as the
//! container always did.

pub mod model;
pub mod output;
pub mod prompt;
pub mod reply;
pub mod request;

use std::hash::{Hash, Hasher};

use serde_json::Value;

use crate::sandbox::world::containers::answer::ContainerError;
use model::Decision;
use output::{Output, tokens};
use prompt::Template;
use request::Request;

/// A fault that corrupts the model's tool call (injected with `kind=malformed_tool_call` or
/// `kind=unknown_tool`); answers without a tool call are unaffected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmFault {
    /// The call's JSON is cut short (its closing braces are missing).
    MalformedToolCall,
    /// The call names a tool that was not offered (`<name>_v2`).
    UnknownTool,
}

const WORDS: [&str; 24] = [
    "the",
    "endpoint",
    "model",
    "responds",
    "quickly",
    "and",
    "traffic",
    "shifts",
    "to",
    "canary",
    "while",
    "latency",
    "stays",
    "within",
    "budget",
    "so",
    "operators",
    "can",
    "sleep",
    "tonight",
    "because",
    "tools",
    "answer",
    "well",
];

fn random_words(prompt: &str, temperature: f64, count: usize) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    prompt.hash(&mut h);
    let mut seed = h.finish() ^ temperature.to_bits();
    (0..count.min(512))
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            format!(" {}", WORDS[(seed % WORDS.len() as u64) as usize])
        })
        .collect()
}

/// The seed's tool-call format, laid out as its system prompt shows it.
fn text_call(name: &str, arguments: &serde_json::Map<String, Value>) -> String {
    let arguments = serde_json::to_string_pretty(arguments).unwrap_or_default();
    format!(
        "{{\n  \"tool\": {},\n  \"arguments\": {}\n}}",
        Value::String(name.to_string()),
        arguments.replace('\n', "\n  ")
    )
}

fn corrupt(name: &mut String, arguments: &mut String, fault: Option<LlmFault>) {
    match fault {
        Some(LlmFault::MalformedToolCall) => {
            let keep = arguments
                .trim_end_matches(|c: char| c == '}' || c.is_whitespace())
                .len();
            arguments.truncate(keep);
        }
        Some(LlmFault::UnknownTool) => name.push_str("_v2"),
        None => {}
    }
}

/// Runs the model over a parsed request.
pub fn run(req: &Request, fault: Option<LlmFault>) -> Output {
    let prompt_tokens = tokens(&req.prompt).len()
        + req
            .tools
            .iter()
            .map(|t| tokens(&t.parameters.to_string()).len() + 2)
            .sum::<usize>()
            * usize::from(req.native_tools);
    let plain = !req.chat && req.template == Template::Plain && req.tools.is_empty();
    let merged_system = req.template == Template::Mistral || req.template == Template::Plain;
    let decision = if plain {
        Decision::Answer(random_words(&req.prompt, req.temperature, req.random_len))
    } else {
        model::decide(&req.turns, &req.tools, &req.choice, merged_system)
    };
    let (mut text, call) = match decision {
        Decision::Answer(t) => (t, None),
        Decision::Call { mut name, arguments } if req.native_tools => {
            let mut args = Value::Object(arguments).to_string();
            corrupt(&mut name, &mut args, fault);
            (String::new(), Some((name, args)))
        }
        Decision::Call { mut name, arguments } => {
            let mut whole = text_call(&name, &arguments);
            if fault == Some(LlmFault::UnknownTool) {
                name.push_str("_v2");
                whole = text_call(&name, &arguments);
            } else {
                corrupt(&mut name, &mut whole, fault);
            }
            (whole, None)
        }
    };
    let mut truncated = false;
    let pieces = tokens(&text);
    if pieces.len() > req.max_tokens {
        truncated = true;
        text = pieces[..req.max_tokens].concat();
    }
    let completion_tokens = match &call {
        Some((n, a)) => tokens(n).len() + tokens(a).len(),
        None => tokens(&text).len(),
    };
    Output {
        text,
        call,
        truncated,
        prompt_tokens,
        completion_tokens,
    }
}

/// One request, answered as a whole: the body and the work it was (scales latency: about half a
/// typical request per generated token).
pub fn invoke(body: &[u8], fault: Option<LlmFault>) -> Result<(Vec<u8>, f64), ContainerError> {
    let req = request::parse(body)?;
    let out = run(&req, fault);
    let work = 1.0 + out.completion_tokens as f64 * 0.5 + out.prompt_tokens as f64 * 0.002;
    let body = if req.stream {
        reply::stream_events(&req, &out).concat()
    } else if req.chat {
        reply::chat_completion(&out)
    } else {
        reply::generated(&req, &out)
    };
    Ok((body, work))
}

/// One request, answered as server-sent events, one per token (each a payload part).
pub fn invoke_stream(body: &[u8], fault: Option<LlmFault>) -> Result<Vec<Vec<u8>>, ContainerError> {
    let req = request::parse(body)?;
    let out = run(&req, fault);
    Ok(reply::stream_events(&req, &out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_add_up_to_the_text() {
        let t = "  hello  big world\n";
        assert_eq!(tokens(t).concat(), t);
        assert_eq!(tokens("a b c").len(), 3);
    }

    #[test]
    fn faults_corrupt_the_call() {
        let body = serde_json::json!({"inputs": "<|im_start|>system\n{\"name\": \"top_song\", \"description\": \"most played song\", \"parameters\": {\"properties\": {\"sign\": {\"type\": \"string\"}}, \"required\": [\"sign\"]}}<|im_end|>\n<|im_start|>user\nWhat is the most played song on WZPZ?<|im_end|>\n<|im_start|>assistant\n", "parameters": {"return_full_text": false}});
        let req = request::parse(body.to_string().as_bytes()).unwrap();
        let ok = run(&req, None);
        let call: Value = serde_json::from_str(&ok.text).unwrap();
        assert_eq!(
            call,
            serde_json::json!({"tool": "top_song", "arguments": {"sign": "WZPZ"}})
        );
        let bad = run(&req, Some(LlmFault::MalformedToolCall));
        assert!(serde_json::from_str::<Value>(&bad.text).is_err(), "{}", bad.text);
        let unknown = run(&req, Some(LlmFault::UnknownTool));
        assert!(unknown.text.contains("top_song_v2"));
    }
}
