//! What `sagedeck agent` prints: each step in a line or two as it finishes, the final answer or why
//! the run stopped, a replayed transcript, and the approval question asked on the terminal.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use crate::cli::exit::CmdResult;
use crate::cli::output::{out, outln, say, say_err};
use crate::format::escape_line;
use crate::mcp::agent::run::{Event, OnEvent};
use crate::mcp::agent::{ApprovalRequest, Decision, Step, Stop, Transcript};

/// Asks on the terminal: y approves, e edits the arguments (a JSON line), anything else denies.
pub fn ask_terminal(req: ApprovalRequest) -> Decision {
    let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
        say_err(format!(
            "sagedeck: step {}: {} needs approval ({}) and there is no terminal to ask: denied (use --approve auto to allow)",
            req.step, req.tool, req.why
        ));
        return Decision::Deny;
    };
    let mut out = &tty;
    let mut lines = std::io::BufReader::new(&tty).lines();
    // The names and arguments come from a server and a model: written out, they cannot rewrite
    // the question (a name holding `\x1b[2K\r` would clear the line and print another).
    let question = format!(
        "step {}: call {}/{} {} ? ({})",
        req.step, req.server, req.tool, req.arguments, req.why
    );
    let _ = write!(out, "{} [y]es / [n]o / [e]dit: ", escape_line(&question));
    let _ = out.flush();
    match lines.next().and_then(Result::ok).as_deref().map(str::trim) {
        Some("y") | Some("yes") => Decision::Approve,
        Some("e") | Some("edit") => {
            let _ = write!(out, "arguments (one JSON object): ");
            let _ = out.flush();
            match lines
                .next()
                .and_then(Result::ok)
                .map(|l| serde_json::from_str::<Value>(&l))
            {
                Some(Ok(v)) if v.is_object() => Decision::Edit(v),
                _ => {
                    let _ = writeln!(out, "not a JSON object: denied");
                    Decision::Deny
                }
            }
        }
        _ => Decision::Deny,
    }
}

/// One step in one or two lines.
pub fn step_text(s: &Step) -> String {
    let mut out = format!("step {}  llm {:.1} ms", s.step, s.llm_ms);
    if let Some(v) = &s.invoked_variant {
        out.push_str(&format!(" ({v})"));
    }
    if let (Some(i), Some(o)) = (s.tokens_in, s.tokens_out) {
        out.push_str(&format!("  tokens {i}→{o}"));
    } else if let Some(o) = s.tokens_out {
        out.push_str(&format!("  tokens →{o}"));
    }
    out.push_str(&format!("  own {:.2} ms", s.own_ms));
    if let Some(t) = &s.tool {
        let result: String = t.result.chars().take(160).collect();
        let mark = if t.is_error { "isError " } else { "" };
        out.push_str(&format!(
            "\n  call {}/{} {}  tool {:.1} ms → {mark}{}",
            t.server,
            t.tool,
            t.arguments,
            t.ms,
            result.replace('\n', " ")
        ));
    }
    if let Some(a) = &s.approval {
        out.push_str(&format!("\n  approval: {a}"));
    }
    if let Some(p) = &s.problem {
        out.push_str(&format!("\n  ! {p} (sent back to the model)"));
    }
    out
}

/// Prints one event; `streaming` says whether a line of streamed tokens is open. The model's
/// and the servers' text is written out (no escape sequence of theirs reaches the terminal).
fn print_event(e: &Event, streaming: &AtomicBool) -> CmdResult {
    if !matches!(e, Event::Token(_)) && streaming.swap(false, Ordering::Relaxed) {
        outln!()?;
    }
    match e {
        Event::Token(t) => {
            if !streaming.swap(true, Ordering::Relaxed) {
                out!("  … ")?;
            }
            out!("{}", escape_line(&t.replace('\n', " ")))
        }
        Event::Step(s) => say(step_text(s)),
        Event::Calling { step, server, tool, .. } => {
            say_err(format!("sagedeck: step {step}: calling {server}/{tool}"));
            Ok(())
        }
        Event::End(end) => match (&end.answer, end.stop) {
            (Some(a), Stop::FinalAnswer) => say(format!("answer: {a}")),
            _ => say(format!(
                "{}{}",
                end.stop.describe(),
                end.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default()
            )),
        },
        Event::StepStarted(_) => Ok(()),
    }
}

/// Prints events as they happen (nothing with `--json`); streamed tokens as they arrive, on a
/// line before the step's summary. Once the output is closed nothing more is printed, and the
/// dispatch ends the command quietly when the run is over.
pub fn printer(json: bool) -> OnEvent {
    let streaming = Arc::new(AtomicBool::new(false));
    Arc::new(move |e: &Event| {
        if !json {
            let _ = print_event(e, &streaming);
        }
    })
}

/// Prints a saved run.
pub fn show(t: &Transcript) -> CmdResult {
    say(format!(
        "run {} on {} ({}{}), servers {}",
        t.header.run_id,
        t.header.llm,
        t.header.shape,
        t.header.template.as_ref().map(|x| format!("/{x}")).unwrap_or_default(),
        t.header.servers.join(", ")
    ))?;
    say(format!("question: {}", t.header.question))?;
    let streaming = AtomicBool::new(false);
    for s in &t.steps {
        print_event(&Event::Step(Box::new(s.clone())), &streaming)?;
    }
    match &t.end {
        Some(e) => print_event(&Event::End(e.clone()), &streaming),
        None => Ok(()),
    }
}
