//! How the `tools` commands answer a server's elicitation (`elicitation/create`): from
//! `--elicit FILE.json` (one answer or a list, in order), else by asking on the terminal (each
//! field of the requested schema in turn, checked before it is sent; a URL shown to visit),
//! else — standard input is not a terminal — declined, saying why on stderr.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use serde_json::{Map, Value};

use crate::cli::exit::Exit;
use crate::cli::output::say_err;
use crate::format::escape_line;
use crate::mcp::elicit::{self, ElicitAnswer, ElicitAsk, Elicitation, Elicitor, ScriptedAnswers};

/// Where the answers come from.
enum Source {
    File(String, ScriptedAnswers),
    Terminal,
    Nobody,
}

/// An elicitor answering from `file`, else the terminal, else declining; the task answering it
/// runs until every connection holding it is gone.
pub fn start(file: Option<&Path>) -> Result<Elicitor, Exit> {
    let source = match file {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| Exit::usage(format!("--elicit {}: {e}", path.display())))?;
            let answers =
                ScriptedAnswers::parse(&text).map_err(|e| Exit::usage(format!("--elicit {}: {e}", path.display())))?;
            Source::File(path.display().to_string(), answers)
        }
        None if std::io::stdin().is_terminal() => Source::Terminal,
        None => Source::Nobody,
    };
    let (elicitor, mut rx) = Elicitor::channel();
    tokio::spawn(async move {
        let mut source = source;
        while let Some(ask) = rx.recv().await {
            source = answer(source, ask).await;
        }
    });
    Ok(elicitor)
}

async fn answer(source: Source, ask: ElicitAsk) -> Source {
    let who = ask.server.clone();
    let message = escape_line(ask.request.message()).into_owned();
    match source {
        Source::File(name, mut answers) => {
            let a = match answers.next_answer() {
                None => {
                    say_err(format!(
                        "sagedeck: {who} asked for input (\"{message}\"); declined: {name} has no answer left"
                    ));
                    ElicitAnswer::Decline
                }
                Some(a) => match elicit::problems(&ask.request, &a) {
                    p if p.is_empty() => a,
                    p => {
                        say_err(format!(
                            "sagedeck: {who} asked for input (\"{message}\"); declined: the answer in {name} does not fit its schema: {}",
                            p.join("; ")
                        ));
                        ElicitAnswer::Decline
                    }
                },
            };
            say_err(format!("sagedeck: {who} asked for input (\"{message}\"): {}", a.verb()));
            ask.answer(a);
            Source::File(name, answers)
        }
        Source::Nobody => {
            say_err(format!(
                "sagedeck: {who} asked for input (\"{message}\"); declined: standard input is not a terminal (answer with --elicit FILE.json)"
            ));
            ask.answer(ElicitAnswer::Decline);
            Source::Nobody
        }
        Source::Terminal => {
            let request = ask.request.clone();
            let a = tokio::task::spawn_blocking(move || on_terminal(&who, &request, &mut std::io::stdin().lock()))
                .await
                .unwrap_or(ElicitAnswer::Cancel);
            ask.answer(a);
            Source::Terminal
        }
    }
}

/// One line of `input` (the terminal), trimmed, after `prompt` on stderr (None at its end).
fn read_line(input: &mut dyn BufRead, prompt: &str) -> Option<String> {
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim().to_string()),
    }
}

/// Asks on the terminal (`input`) until the person accepts with valid input, declines or
/// cancels.
fn on_terminal(server: &str, request: &Elicitation, input: &mut dyn BufRead) -> ElicitAnswer {
    say_err(format!(
        "sagedeck: {server} asks for input: {}",
        escape_line(request.message())
    ));
    if let Elicitation::Url { url, .. } = request {
        say_err(format!("  open {}", escape_line(url)));
    }
    loop {
        let choice = read_line(input, "  [a]ccept, [d]ecline, [c]ancel? ");
        match choice.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("c" | "cancel") => return ElicitAnswer::Cancel,
            Some("d" | "decline") => return ElicitAnswer::Decline,
            Some("a" | "accept") => {}
            Some(_) => continue,
        }
        let Elicitation::Form { schema, .. } = request else {
            return ElicitAnswer::Accept { content: None };
        };
        let Some(content) = fill(schema, input) else {
            return ElicitAnswer::Cancel;
        };
        let a = ElicitAnswer::Accept { content: Some(content) };
        let problems = elicit::problems(request, &a);
        if problems.is_empty() {
            return a;
        }
        say_err(format!("  not sent: {}", problems.join("; ")));
    }
}

/// Reads every property of a flat form schema (None at end of input).
fn fill(schema: &Value, input: &mut dyn BufRead) -> Option<Value> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    let Some(props) = schema["properties"].as_object() else {
        return Some(Value::Object(out));
    };
    for (name, p) in props {
        let line = read_line(input, &field_prompt(name, p, required.contains(&name.as_str())))?;
        if line.is_empty() {
            if let Some(d) = p.get("default") {
                out.insert(name.clone(), d.clone());
            }
            continue;
        }
        out.insert(name.clone(), typed(p, &line));
    }
    Some(Value::Object(out))
}

fn field_prompt(name: &str, p: &Value, required: bool) -> String {
    let label = p["title"].as_str().unwrap_or(name);
    let kind = p["type"].as_str().unwrap_or("string");
    let choices = p["enum"]
        .as_array()
        .map(|e| {
            format!(
                " one of {}",
                e.iter().map(Value::to_string).collect::<Vec<_>>().join("|")
            )
        })
        .unwrap_or_default();
    let default = p.get("default").map(|d| format!(" [{d}]")).unwrap_or_default();
    let desc = p["description"]
        .as_str()
        .map(|d| format!(" — {}", escape_line(d)))
        .unwrap_or_default();
    format!(
        "  {}{} ({kind}{choices}){desc}{default}: ",
        escape_line(label),
        if required { "*" } else { "" }
    )
}

/// The line as the property's type wants it (left a string when it does not parse: the schema
/// check then says what is wrong).
fn typed(p: &Value, line: &str) -> Value {
    match p["type"].as_str() {
        Some("boolean") => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Value::Bool(true),
            "n" | "no" | "false" => Value::Bool(false),
            _ => Value::String(line.into()),
        },
        Some("integer" | "number") => serde_json::from_str::<Value>(line)
            .ok()
            .filter(Value::is_number)
            .unwrap_or_else(|| Value::String(line.into())),
        _ => Value::String(line.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answered(request: &Elicitation, typed_in: &str) -> ElicitAnswer {
        on_terminal(
            "library",
            request,
            &mut std::io::Cursor::new(typed_in.as_bytes().to_vec()),
        )
    }

    #[test]
    fn the_terminal_answers_accept_decline_and_cancel() {
        let form = Elicitation::Form {
            message: "Reserve: for how long?".into(),
            schema: json!({"type": "object", "required": ["a_days"], "properties": {
                "a_days": {"type": "integer", "minimum": 1}, "b_pickup": {"type": "boolean", "default": false}}}),
        };
        assert_eq!(answered(&form, "d\n"), ElicitAnswer::Decline);
        assert_eq!(answered(&form, "c\n"), ElicitAnswer::Cancel);
        assert_eq!(answered(&form, ""), ElicitAnswer::Cancel, "end of input cancels");
        // An answer that does not fit is asked again; an empty field takes its default.
        let accepted = ElicitAnswer::Accept {
            content: Some(json!({"a_days": 3, "b_pickup": false})),
        };
        assert_eq!(answered(&form, "maybe\na\n0\n\na\n3\n\n"), accepted);
        let url = Elicitation::Url {
            message: "Verify".into(),
            url: "https://library.example/v".into(),
            id: "1".into(),
        };
        assert_eq!(answered(&url, "a\n"), ElicitAnswer::Accept { content: None });
    }

    #[test]
    fn lines_take_the_property_type() {
        assert_eq!(typed(&json!({"type": "boolean"}), "Yes"), json!(true));
        assert_eq!(typed(&json!({"type": "integer"}), "42"), json!(42));
        assert_eq!(typed(&json!({"type": "integer"}), "many"), json!("many"));
        assert_eq!(typed(&json!({"type": "string"}), "42"), json!("42"));
        let p = field_prompt("n", &json!({"type": "integer", "default": 2, "title": "Guests"}), true);
        assert_eq!(p, "  Guests* (integer) [2]: ");
    }
}
