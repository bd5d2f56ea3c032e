//! TGI's answers (router/src/lib.rs, server.rs, chat.rs as of v3.3): `[{"generated_text",
//! "details"?}]` for generate, `chat.completion` for chat (a tool call is a message without
//! `content` holding one call, `arguments` a JSON string, `finish_reason` `stop`), and their
//! server-sent events (`data: ` + JSON + blank line; the chat stream ends `data: [DONE]`, the
//! generate stream's last event carries the whole `generated_text`).

use serde_json::{Value, json};

use super::output::{Output, tokens};
use super::request::Request;
use crate::sandbox::world::clock::now_epoch;

/// The model name TGI reports.
const MODEL: &str = "tgi";
/// TGI's `system_fingerprint` (version and build).
const FINGERPRINT: &str = "2.4.0-sha-sandbox";

fn usage(out: &Output) -> Value {
    json!({
        "prompt_tokens": out.prompt_tokens,
        "completion_tokens": out.completion_tokens,
        "total_tokens": out.prompt_tokens + out.completion_tokens,
    })
}

fn finish_reason(out: &Output, chat: bool) -> &'static str {
    match (out.truncated, chat) {
        (true, _) => "length",
        (false, true) => "stop",
        (false, false) => "eos_token",
    }
}

fn token_json(i: usize, text: &str) -> Value {
    json!({"id": 1000 + i, "text": text, "logprob": -0.25, "special": false})
}

/// The generate answer: `[{"generated_text", "details"?}]`.
pub fn generated(req: &Request, out: &Output) -> Vec<u8> {
    let text = if req.return_full_text {
        format!("{}{}", req.prompt, out.text)
    } else {
        out.text.clone()
    };
    let mut item = json!({ "generated_text": text });
    if req.details {
        let toks: Vec<Value> = tokens(&out.text)
            .iter()
            .enumerate()
            .map(|(i, t)| token_json(i, t))
            .collect();
        item["details"] = json!({
            "finish_reason": finish_reason(out, false),
            "generated_tokens": out.completion_tokens,
            "seed": null,
            "prefill": [],
            "tokens": toks,
        });
    }
    serde_json::to_vec(&json!([item])).unwrap_or_default()
}

fn message(out: &Output) -> Value {
    match &out.call {
        Some((name, arguments)) => json!({
            "role": "assistant",
            "tool_calls": [{
                "id": "0",
                "type": "function",
                "function": {"description": null, "name": name, "arguments": arguments},
            }],
        }),
        None => json!({"role": "assistant", "content": out.text}),
    }
}

/// The chat answer: `chat.completion` with `usage`.
pub fn chat_completion(out: &Output) -> Vec<u8> {
    let v = json!({
        "object": "chat.completion",
        "id": "",
        "created": now_epoch() as u64,
        "model": MODEL,
        "system_fingerprint": FINGERPRINT,
        "choices": [{
            "index": 0,
            "message": message(out),
            "logprobs": null,
            "finish_reason": finish_reason(out, true),
        }],
        "usage": usage(out),
    });
    serde_json::to_vec(&v).unwrap_or_default()
}

fn event(v: &Value) -> Vec<u8> {
    format!("data: {v}\n\n").into_bytes()
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "object": "chat.completion.chunk",
        "id": "",
        "created": now_epoch() as u64,
        "model": MODEL,
        "system_fingerprint": FINGERPRINT,
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        "usage": null,
    })
}

/// The answer as server-sent events, one per token.
pub fn stream_events(req: &Request, out: &Output) -> Vec<Vec<u8>> {
    if req.chat {
        chat_events(req, out)
    } else {
        generate_events(req, out)
    }
}

fn generate_events(req: &Request, out: &Output) -> Vec<Vec<u8>> {
    let toks = tokens(&out.text);
    let last = toks.len().saturating_sub(1);
    toks.iter()
        .enumerate()
        .map(|(i, t)| {
            let mut ev = json!({"index": i, "token": token_json(i, t), "generated_text": null, "details": null});
            if i == last {
                let full = if req.return_full_text {
                    format!("{}{}", req.prompt, out.text)
                } else {
                    out.text.clone()
                };
                ev["generated_text"] = json!(full);
                if req.details {
                    ev["details"] = json!({
                        "finish_reason": finish_reason(out, false),
                        "generated_tokens": out.completion_tokens,
                        "seed": null,
                        "input_length": out.prompt_tokens,
                    });
                }
            }
            event(&ev)
        })
        .collect()
}

fn chat_events(req: &Request, out: &Output) -> Vec<Vec<u8>> {
    let finish = finish_reason(out, true);
    let mut deltas: Vec<Value> = Vec::new();
    match &out.call {
        Some((name, arguments)) => {
            let call = |name: Value, frag: &str| {
                json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "0", "type": "function",
                    "function": {"name": name, "arguments": frag}}]})
            };
            deltas.push(call(json!(name), "{"));
            let rest = arguments.strip_prefix('{').unwrap_or(arguments);
            deltas.extend(tokens(rest).iter().map(|frag| call(Value::Null, frag)));
        }
        None => deltas.extend(
            tokens(&out.text)
                .iter()
                .map(|t| json!({"role": "assistant", "content": t})),
        ),
    }
    let n = deltas.len();
    let mut events: Vec<Vec<u8>> = deltas
        .into_iter()
        .enumerate()
        .map(|(i, d)| event(&chunk(d, (i + 1 == n).then_some(finish))))
        .collect();
    if req.include_usage {
        let mut last = chunk(Value::Null, None);
        last["choices"] = json!([]);
        last["usage"] = usage(out);
        events.push(event(&last));
    }
    events.push(b"data: [DONE]\n\n".to_vec());
    events
}
