//! The sandbox's deterministic tool-calling model. Its rules, in order:
//!
//! 1. **After a tool result** (the last turn has role `tool`/`ipython`, or is a user turn that
//!    follows an assistant turn that called a tool): when the result starts with `Error` the model
//!    tries the call again (rule 2 on the question); otherwise it answers in prose built from the
//!    result (`According to TOOL: key: value, ...`).
//! 2. **A question** (the last user turn that is not a tool result; in a Mistral prompt, whose
//!    system text is merged into a user turn, its last paragraph): each tool scores the number of
//!    distinct words of the question (lowercase, 3+ letters, a few stop words left out) that occur
//!    in the tool's name (split on `_`/`-`), its description or its parameters' descriptions. The
//!    best score wins, ties go to the tool listed first; no word in common means no tool (unless
//!    `tool_choice` is `required` or names one).
//! 3. **Arguments**: each required property of the chosen tool's schema is filled from the
//!    question: strings take the next quoted string (`"..."`, `'...'`, `“...”`), else the next
//!    all-capitals word of 2+ letters (a call sign like `WZPZ`), else the text after a colon, else
//!    the whole question; numbers and integers take the next number in the question (else the
//!    schema's minimum, else 1); booleans are false; enums take a value named in the question,
//!    else the first.

use serde_json::{Map, Value, json};

use super::prompt::{ToolDef, Turn, json_objects};

/// What the model decided to say.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Call a tool.
    Call {
        /// Tool name.
        name: String,
        /// Arguments.
        arguments: Map<String, Value>,
    },
    /// Answer in text.
    Answer(String),
}

/// How a client constrained the choice of tool (chat `tool_choice`).
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// The model decides.
    Auto,
    /// Never call a tool.
    Never,
    /// Always call one.
    Required,
    /// Call this one.
    Named(String),
}

const STOP_WORDS: [&str; 14] = [
    "the", "what", "which", "who", "how", "and", "for", "with", "this", "that", "are", "was", "you", "please",
];

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect()
}

fn score(tool: &ToolDef, question: &[String]) -> usize {
    let mut text = format!("{} {}", tool.name.replace(['_', '-'], " "), tool.description);
    if let Some(props) = tool.parameters.get("properties").and_then(Value::as_object) {
        for p in props.values() {
            text.push(' ');
            text.push_str(p.get("description").and_then(Value::as_str).unwrap_or(""));
        }
    }
    let known = words(&text);
    let mut seen: Vec<&String> = question.iter().filter(|w| known.contains(w)).collect();
    seen.sort();
    seen.dedup();
    seen.len()
}

/// The tool rule 2 picks for `question`.
pub fn pick<'a>(tools: &'a [ToolDef], question: &str, choice: &Choice) -> Option<&'a ToolDef> {
    match choice {
        Choice::Never => return None,
        Choice::Named(n) => return tools.iter().find(|t| &t.name == n),
        _ => {}
    }
    let q = words(question);
    let mut best: Option<(&ToolDef, usize)> = None;
    for t in tools {
        let s = score(t, &q);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((t, s));
        }
    }
    best.filter(|(_, s)| *s > 0 || *choice == Choice::Required)
        .map(|(t, _)| t)
}

/// The pieces of a question arguments are filled from, in the order they are used.
struct Cues {
    quoted: Vec<String>,
    capitals: Vec<String>,
    numbers: Vec<f64>,
    after_colon: Option<String>,
    whole: String,
}

fn cues(question: &str) -> Cues {
    let mut quoted = Vec::new();
    for (open, close) in [('"', '"'), ('\'', '\''), ('“', '”')] {
        let mut rest = question;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len_utf8()..];
            let Some(j) = after.find(close) else { break };
            if j > 0 {
                quoted.push(after[..j].to_string());
            }
            rest = &after[j + close.len_utf8()..];
        }
    }
    let tokens: Vec<&str> = question
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-'))
        .collect();
    let capitals = tokens
        .iter()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|t| t.len() >= 2 && t.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
        .filter(|t| t.chars().any(|c| c.is_ascii_uppercase()))
        .map(str::to_string)
        .collect();
    let numbers = tokens
        .iter()
        .map(|t| t.trim_matches(|c: char| c == '.' || c == '-'))
        .filter_map(|t| t.parse::<f64>().ok())
        .collect();
    let after_colon = question
        .split_once(':')
        .map(|(_, a)| a.trim().to_string())
        .filter(|a| !a.is_empty());
    Cues {
        quoted,
        capitals,
        numbers,
        after_colon,
        whole: question.trim().to_string(),
    }
}

/// Rule 3: the required arguments of `tool`, filled from `question`.
pub fn fill_arguments(tool: &ToolDef, question: &str) -> Map<String, Value> {
    let mut c = cues(question);
    let mut out = Map::new();
    let required: Vec<String> = tool
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let props = tool.parameters.get("properties").cloned().unwrap_or_default();
    let lower = question.to_lowercase();
    for name in required {
        let p = &props[&name];
        let value = if let Some(options) = p.get("enum").and_then(Value::as_array) {
            let named = options
                .iter()
                .find(|o| o.as_str().is_some_and(|s| lower.contains(&s.to_lowercase())));
            named.or(options.first()).cloned().unwrap_or(Value::Null)
        } else {
            match p.get("type").and_then(Value::as_str).unwrap_or("string") {
                "integer" | "number" => {
                    let n = if c.numbers.is_empty() {
                        p.get("minimum").and_then(Value::as_f64).unwrap_or(1.0)
                    } else {
                        c.numbers.remove(0)
                    };
                    if p["type"] == "integer" {
                        json!(n as i64)
                    } else {
                        json!(n)
                    }
                }
                "boolean" => json!(false),
                "array" => json!([]),
                "object" => json!({}),
                _ => json!(next_string(&mut c)),
            }
        };
        out.insert(name, value);
    }
    out
}

fn next_string(c: &mut Cues) -> String {
    if !c.quoted.is_empty() {
        return c.quoted.remove(0);
    }
    if !c.capitals.is_empty() {
        return c.capitals.remove(0);
    }
    c.after_colon.take().unwrap_or_else(|| c.whole.clone())
}

/// The tool an assistant turn called: natively, or as the seed's JSON in its text.
fn called(turn: &Turn) -> Option<String> {
    if turn.role != "assistant" {
        return None;
    }
    turn.called.clone().or_else(|| {
        json_objects(&turn.content).iter().find_map(|v| {
            v.get("tool")
                .or_else(|| v.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    })
}

/// Whether turn `i` carries a tool's result; the tool's name when it is known.
fn tool_result_at(turns: &[Turn], i: usize) -> Option<Option<String>> {
    let turn = &turns[i];
    let previous = i.checked_sub(1).and_then(|p| called(&turns[p]));
    match turn.role.as_str() {
        "tool" | "ipython" | "function" => Some(previous),
        "user" if previous.is_some() => Some(previous),
        _ => None,
    }
}

/// The question: the last user turn that is not a tool result (its last paragraph when the
/// system text was merged into it).
pub fn question_of(turns: &[Turn], merged_system: bool) -> String {
    let found = (0..turns.len())
        .rev()
        .find(|&i| turns[i].role == "user" && tool_result_at(turns, i).is_none());
    let text = found.map(|i| turns[i].content.as_str()).unwrap_or("");
    if merged_system {
        text.rsplit("\n\n").next().unwrap_or(text).trim().to_string()
    } else {
        text.to_string()
    }
}

/// Rules 1 to 3 over a conversation.
pub fn decide(turns: &[Turn], tools: &[ToolDef], choice: &Choice, merged_system: bool) -> Decision {
    let last = turns.len().checked_sub(1);
    if let Some(Some(tool)) = last.map(|i| tool_result_at(turns, i)) {
        let result = turns[turns.len() - 1].content.trim();
        if !result.to_ascii_lowercase().starts_with("error") {
            return Decision::Answer(final_answer(tool.as_deref().unwrap_or("the tool"), result));
        }
    }
    let question = question_of(turns, merged_system);
    match pick(tools, &question, choice) {
        Some(t) => Decision::Call {
            name: t.name.clone(),
            arguments: fill_arguments(t, &question),
        },
        None if question.is_empty() => Decision::Answer("How can I help?".into()),
        // Asked without tools (a completion, such as an MCP server's sampling request): it
        // answers with what it read, so a caller sees its own words came through.
        None if tools.is_empty() => Decision::Answer(format!(
            "Sandbox model, asked: {}",
            question.chars().take(400).collect::<String>()
        )),
        None => Decision::Answer(format!(
            "I have no tool for that. You asked: {}",
            question.chars().take(200).collect::<String>()
        )),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Prose from a tool's result: its first JSON object as `key: value` pairs, else its text.
pub fn final_answer(tool: &str, result: &str) -> String {
    let facts = match json_objects(result).into_iter().next() {
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| format!("{k}: {}", scalar(v)))
            .collect::<Vec<_>>()
            .join(", "),
        _ => result.chars().take(400).collect(),
    };
    format!("According to {tool}, {facts}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn radio() -> Vec<ToolDef> {
        let t = |name: &str, description: &str, parameters: Value| ToolDef {
            name: name.into(),
            description: description.into(),
            parameters,
        };
        vec![
            t(
                "count_slowly",
                "Count to `steps`, reporting progress after each step.",
                json!({"properties": {"steps": {"type": "integer"}}, "required": ["steps"]}),
            ),
            t(
                "top_song",
                "Get the most popular song played on a radio station",
                json!({"properties": {"sign": {"type": "string"}}, "required": ["sign"]}),
            ),
        ]
    }

    #[test]
    fn the_seed_question_calls_top_song_with_the_call_sign() {
        let turns = vec![Turn::new("user", "What is the most played song on WZPZ?")];
        let d = decide(&turns, &radio(), &Choice::Auto, false);
        assert_eq!(
            d,
            Decision::Call {
                name: "top_song".into(),
                arguments: json!({"sign": "WZPZ"}).as_object().unwrap().clone()
            }
        );
        let d = decide(
            &[Turn::new("user", "count to 7 please")],
            &radio(),
            &Choice::Auto,
            false,
        );
        assert!(
            matches!(d, Decision::Call { ref arguments, .. } if arguments["steps"] == 7),
            "{d:?}"
        );
        let d = decide(&turns, &radio(), &Choice::Never, false);
        assert!(matches!(d, Decision::Answer(_)));
    }

    #[test]
    fn asked_without_tools_it_answers_with_what_it_read() {
        let turns = vec![
            Turn::new("system", "Be terse."),
            Turn::new("user", "Summarize: disk full"),
        ];
        let d = decide(&turns, &[], &Choice::Auto, false);
        assert_eq!(d, Decision::Answer("Sandbox model, asked: Summarize: disk full".into()));
        let d = decide(&[Turn::new("user", "Play jazz")], &radio(), &Choice::Auto, false);
        assert!(
            matches!(d, Decision::Answer(ref t) if t.starts_with("I have no tool")),
            "{d:?}"
        );
    }

    #[test]
    fn after_a_result_it_answers_and_after_an_error_it_retries() {
        let mut turns = vec![
            Turn::new("user", "What is the most played song on WZPZ?"),
            Turn::new("assistant", r#"{"tool": "top_song", "arguments": {"sign": "WZPZ"}}"#),
            Turn::new(
                "user",
                r#"Tool top_song returned: {"song": "In the end", "author": "Linkin Park"}"#,
            ),
        ];
        let d = decide(&turns, &radio(), &Choice::Auto, false);
        assert_eq!(
            d,
            Decision::Answer("According to top_song, author: Linkin Park, song: In the end.".into())
        );
        turns[2] = Turn::new("user", "Error: unknown tool `top_songs`");
        assert!(matches!(
            decide(&turns, &radio(), &Choice::Auto, false),
            Decision::Call { .. }
        ));
    }
}
