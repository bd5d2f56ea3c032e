//! The agent's limits that are not stops of their own: SageMaker's request cap (a body over it is
//! never sent; a tool result that would push the next body over it is shortened, saying so), and
//! the token budget, checked before a step's tool is called.

use serde_json::Value;

use super::run::Agent;
use super::shape::{BodySpec, Message, body};

/// The largest request body InvokeEndpoint takes: 6 MB (6,291,456 bytes).
pub const MAX_REQUEST_BYTES: usize = 6 * 1024 * 1024;

/// Room kept free below [`MAX_REQUEST_BYTES`] for the next step's own growth (the model's reply
/// going back into the conversation, the template's markers).
const HEADROOM: usize = 16 * 1024;

/// Megabytes, for messages.
fn mb(bytes: usize) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

/// Why a body of `bytes` cannot be sent, if it cannot.
pub fn oversized(bytes: usize) -> Option<String> {
    (bytes > MAX_REQUEST_BYTES).then(|| {
        format!(
            "the request body is {} ({bytes} bytes); SageMaker takes at most {} ({MAX_REQUEST_BYTES} bytes)",
            mb(bytes),
            mb(MAX_REQUEST_BYTES)
        )
    })
}

/// Bytes `c` takes inside a JSON string.
fn json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// `text` less characters at its end that take at least `drop` bytes in JSON.
fn cut(text: &str, drop: usize) -> &str {
    let mut dropped = 0;
    for (i, c) in text.char_indices().rev() {
        if dropped >= drop {
            return &text[..i + c.len_utf8()];
        }
        dropped += json_len(c);
    }
    ""
}

impl Agent {
    /// The body the next LLM call would send for `messages`.
    pub(super) fn body_for(&self, messages: &[Message]) -> Result<Value, String> {
        let native = (self.config.native_tools || self.config.shape.always_native())
            .then(|| super::prompt::native_tools(&self.tools));
        let spec = BodySpec {
            shape: self.config.shape,
            template: &self.config.template,
            tools: native.as_ref(),
            max_new_tokens: self.config.max_new_tokens,
            stream: self.config.stream,
        };
        let mut b = body(&spec, messages)?;
        if self.config.shape == super::Shape::Openai {
            // OpenAI clients must name a model; the endpoint (or component) is the one served.
            let model = self.config.inference_component.as_deref().unwrap_or(&self.config.llm);
            b["model"] = serde_json::json!(model);
        }
        Ok(b)
    }

    /// `result` as it can go back to the model: whole when the next body (`feed` applied to the
    /// conversation) stays under the cap, else shortened to fit, with a note saying so (the note
    /// is also returned, for the step's record).
    pub(super) fn fit_result(
        &self,
        messages: &[Message],
        result: &str,
        feed: impl Fn(&mut Vec<Message>, String),
    ) -> (String, Option<String>) {
        let bytes_with = |text: &str| {
            let mut trial = messages.to_vec();
            feed(&mut trial, text.to_string());
            self.body_for(&trial).map(|b| b.to_string().len()).unwrap_or(0)
        };
        let whole = bytes_with(result);
        if whole + HEADROOM <= MAX_REQUEST_BYTES {
            return (result.to_string(), None);
        }
        let mut kept = result;
        let mut text = String::new();
        for _ in 0..3 {
            let note = format!(
                "\n[sagedeck: the result was {} and was shortened to {} to keep the request under SageMaker's {} limit]",
                mb(result.len()),
                mb(kept.len()),
                mb(MAX_REQUEST_BYTES)
            );
            text = format!("{kept}{note}");
            let size = bytes_with(&text);
            if size + HEADROOM <= MAX_REQUEST_BYTES || kept.is_empty() {
                break;
            }
            kept = cut(kept, size + HEADROOM - MAX_REQUEST_BYTES);
        }
        let why = if kept.is_empty() {
            format!(
                "the tool's result ({}) was left out: the conversation leaves no room for it under SageMaker's {} limit",
                mb(result.len()),
                mb(MAX_REQUEST_BYTES)
            )
        } else {
            format!(
                "the tool's result ({}) was shortened to {} to keep the request under SageMaker's {} limit",
                mb(result.len()),
                mb(kept.len()),
                mb(MAX_REQUEST_BYTES)
            )
        };
        (text, Some(why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_count_json_escapes() {
        assert_eq!(cut("abcdef", 2), "abcd");
        assert_eq!(cut("ab\n\n", 3), "ab");
        assert_eq!(cut("abc", 10), "");
        assert!(oversized(MAX_REQUEST_BYTES).is_none());
        assert!(oversized(MAX_REQUEST_BYTES + 1).unwrap().contains("6.29 MB"));
    }
}
