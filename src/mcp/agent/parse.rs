//! Finding the tool call in a model's reply. Models hosted on SageMaker rarely call tools natively,
//! so the call is looked for in the text, as the seed does, but at ANY nesting depth: a
//! balanced-brace scanner (aware of JSON strings and escapes) finds every top-level `{...}` span
//! in the text — in prose, in ``` fences, after a preamble — and each that parses is searched for a
//! call object: `{"tool": NAME, "arguments": {...}}`, `{"name": NAME, "arguments"|"parameters":
//! {...}}` or `{"function": {"name", "arguments"}}`, wherever it sits inside. `arguments` may be an
//! object or a JSON-encoded string (TGI since v3.2, vLLM). Native `tool_calls` are read from a
//! chat completion. A reply that plainly tried to call a tool but whose JSON is broken or cut short
//! is reported as malformed, so the loop can tell the model.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A tool call found in a reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParsedCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments (an object; a string that does not parse is reported as malformed).
    pub arguments: Value,
    /// Where it came from: `text` or `native`.
    pub source: String,
}

/// What a reply holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A tool call.
    Call(ParsedCall),
    /// An attempt at a tool call that does not parse: why.
    Malformed(String),
    /// No tool call: the reply is an answer.
    Answer,
}

/// The byte ranges of every top-level balanced `{...}` in `text`, and where an unclosed one
/// starts (a reply cut short).
pub fn brace_spans(text: &str) -> (Vec<(usize, usize)>, Option<usize>) {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if depth > 0 && in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' if depth > 0 => in_string = true,
            b'{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    spans.push((start, i + 1));
                }
            }
            _ => {}
        }
    }
    (spans, (depth > 0).then_some(start))
}

fn arguments_of(v: &Value) -> Result<Value, String> {
    match v {
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(s) if s.trim().is_empty() => Ok(Value::Object(Map::new())),
        Value::String(s) => {
            serde_json::from_str::<Value>(s).map_err(|e| format!("the arguments string is not valid JSON: {e}"))
        }
        other => Ok(other.clone()),
    }
}

/// The call object inside `v`, searched depth first.
fn call_in(v: &Value, depth: usize) -> Option<Result<ParsedCall, String>> {
    if depth > 64 {
        return None;
    }
    match v {
        Value::Object(m) => {
            let f = m.get("function").filter(|f| f.is_object());
            let holder = f.and_then(Value::as_object).unwrap_or(m);
            let name = holder
                .get("tool")
                .or_else(|| {
                    holder
                        .get("name")
                        .filter(|_| holder.contains_key("arguments") || holder.contains_key("parameters"))
                })
                .and_then(Value::as_str);
            if let Some(name) = name {
                let raw = holder
                    .get("arguments")
                    .or_else(|| holder.get("parameters"))
                    .unwrap_or(&Value::Null);
                return Some(arguments_of(raw).map(|arguments| ParsedCall {
                    name: name.to_string(),
                    arguments,
                    source: "text".into(),
                }));
            }
            m.values().find_map(|x| call_in(x, depth + 1))
        }
        Value::Array(items) => items.iter().find_map(|x| call_in(x, depth + 1)),
        _ => None,
    }
}

fn looks_like_call(fragment: &str) -> bool {
    fragment.contains("\"tool\"") || fragment.contains("\"arguments\"")
}

/// Finds the tool call in a reply's text.
pub fn find_call(text: &str) -> Found {
    let (spans, unclosed) = brace_spans(text);
    let mut malformed = None;
    for (start, end) in spans {
        let span = &text[start..end];
        match serde_json::from_str::<Value>(span) {
            Ok(v) => match call_in(&v, 0) {
                Some(Ok(call)) => return Found::Call(call),
                Some(Err(why)) => malformed = malformed.or(Some(why)),
                None => {}
            },
            Err(e) if looks_like_call(span) => {
                malformed = malformed.or_else(|| Some(format!("the tool call is not valid JSON: {e}")));
            }
            Err(_) => {
                // Prose braces around a call: look inside.
                if let Found::Call(c) = find_call(&span[1..span.len() - 1]) {
                    return Found::Call(c);
                }
            }
        }
    }
    if let Some(m) = malformed {
        return Found::Malformed(m);
    }
    match unclosed {
        Some(start) if looks_like_call(&text[start..]) => {
            if let Found::Call(c) = find_call(&text[start + 1..]) {
                return Found::Call(c);
            }
            Found::Malformed("the tool call's JSON is cut short (unbalanced braces)".into())
        }
        _ => Found::Answer,
    }
}

/// The native tool call of a chat completion message (`tool_calls[0].function`).
pub fn native_call(message: &Value) -> Option<Result<ParsedCall, String>> {
    let f = message.pointer("/tool_calls/0/function")?;
    let name = match f.get("name").and_then(Value::as_str) {
        Some(n) => n.to_string(),
        None => return Some(Err("the native tool call has no function name".into())),
    };
    Some(
        arguments_of(f.get("arguments").unwrap_or(&Value::Null)).map(|arguments| ParsedCall {
            name,
            arguments,
            source: "native".into(),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(text: &str) -> ParsedCall {
        match find_call(text) {
            Found::Call(c) => c,
            other => panic!("{other:?} in {text}"),
        }
    }

    #[test]
    fn finds_calls_in_prose_fences_and_nested_objects() {
        let c = call(r#"Sure! {"tool": "top_song", "arguments": {"sign": "WZPZ"}} there."#);
        assert_eq!((c.name.as_str(), &c.arguments), ("top_song", &json!({"sign": "WZPZ"})));
        let c = call("```json\n{\"tool\": \"t\", \"arguments\": {\"a\": {\"b\": {\"c\": [1, {\"d\": 2}]}}}}\n```");
        assert_eq!(c.arguments["a"]["b"]["c"][1]["d"], 2);
        let c = call(r#"{"response": {"action": {"tool": "deep", "arguments": {}}}}"#);
        assert_eq!(c.name, "deep");
        let c = call(r#"I think {so} {"name": "n", "arguments": "{\"x\": 1}"}"#);
        assert_eq!(c.arguments, json!({"x": 1}));
        let c = call(r#"text with "quotes" and a brace in a string: {"tool": "t", "arguments": {"s": "}{"}}"#);
        assert_eq!(c.arguments["s"], "}{");
    }

    #[test]
    fn answers_and_broken_calls_are_told_apart() {
        assert_eq!(find_call("The song is In the end."), Found::Answer);
        assert_eq!(find_call("a set {1, 2} in prose"), Found::Answer);
        assert!(matches!(
            find_call(r#"{"tool": "t", "arguments": {"a": 1"#),
            Found::Malformed(_)
        ));
        assert!(matches!(
            find_call(r#"{"tool": "t", "arguments": {a: 1}}"#),
            Found::Malformed(_)
        ));
        assert!(matches!(
            find_call(r#"{"tool": "t", "arguments": "{bad"}"#),
            Found::Malformed(_)
        ));
    }

    #[test]
    fn native_calls_take_string_or_object_arguments() {
        let m = json!({"tool_calls": [{"function": {"name": "f", "arguments": "{\"a\":1}"}}]});
        assert_eq!(native_call(&m).unwrap().unwrap().arguments, json!({"a": 1}));
        let m = json!({"tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]});
        assert_eq!(native_call(&m).unwrap().unwrap().arguments, json!({"a": 1}));
        assert!(native_call(&json!({"content": "x"})).is_none());
    }
}
