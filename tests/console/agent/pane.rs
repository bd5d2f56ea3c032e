//! The Agent pane without a network: the read-only refusal, and a fixed transcript's
//! conversation, step detail, streamed tokens and approval dialog (snapshots).

use crossterm::event::KeyCode;
use serde_json::json;

use sagedeck::mcp::agent::parse::ParsedCall;
use sagedeck::mcp::agent::trace::ToolTrace;
use sagedeck::mcp::agent::{ApprovalRequest, Decision, End, Event, Header, Message, Step, Stop, Transcript};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{AgentJob, AgentRun};
use sagedeck::tui::event::{AgentUpdate, AppEvent, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;

use crate::common::tui::{context, press, render, tap};

use super::{LLM, QUESTION, settings};

#[test]
fn read_only_refuses_a_run_before_anything_is_sent() {
    let mut app = App::new(Data::default(), Theme::default_theme());
    app.panes.agent.configure(settings(None), None);
    app.switch(Tab::Agent);
    app.data.read_only = true;
    tap(&mut app, KeyCode::Char('a'));
    press(&mut app, QUESTION);
    tap(&mut app, KeyCode::Enter);
    assert!(
        app.take_jobs()
            .iter()
            .all(|(_, j)| !matches!(j, Job::Agent(AgentJob::Run(AgentRun { .. }))))
    );
    assert!(app.panes.agent.runs.is_empty());
    assert!(
        app.toasts
            .log
            .iter()
            .any(|t| t.text.starts_with("read-only: running the agent is disabled"))
    );
}

// ---- snapshots, from a fixed transcript ----

fn fixed_steps() -> Vec<Step> {
    let system = Message::new(
        "system",
        "You are a helpful assistant with access to these tools: classify_intent ...",
    );
    let user = Message::new("user", QUESTION);
    let call = r#"{"tool": "classify_intent", "arguments": {"user_input": "book me a flight to Paris"}}"#;
    let result = r#"{"intent": "book_flight", "confidence": 0.93, "endpoint": "mcp-intent-classifier-prod", "variant": "Stable"}"#;
    let one = Step {
        step: 1,
        messages: vec![system.clone(), user.clone()],
        raw_reply: call.into(),
        parsed: Some(ParsedCall {
            name: "classify_intent".into(),
            arguments: json!({"user_input": "book me a flight to Paris"}),
            source: "text".into(),
        }),
        tool: Some(ToolTrace {
            server: "sagedeck-demo".into(),
            tool: "classify_intent".into(),
            arguments: json!({"user_input": "book me a flight to Paris"}),
            result: result.into(),
            is_error: false,
            ms: 38.0,
        }),
        llm_ms: 412.0,
        llm_attempts: 1,
        tokens_in: Some(182),
        tokens_out: Some(31),
        invoked_variant: Some("AllTraffic".into()),
        own_ms: 0.41,
        audit_ms: 0.2,
        ..Default::default()
    };
    let answer = "According to classify_intent, the intent is book_flight (confidence 0.93).";
    let two = Step {
        step: 2,
        messages: vec![
            system,
            user,
            Message::new("assistant", call),
            Message::new("user", format!("Tool classify_intent returned:\n{result}")),
        ],
        raw_reply: answer.into(),
        llm_ms: 297.0,
        llm_attempts: 1,
        tokens_in: Some(240),
        tokens_out: Some(22),
        invoked_variant: Some("AllTraffic".into()),
        own_ms: 0.12,
        ..Default::default()
    };
    vec![one, two]
}

/// The end of the fixed run: its second step's reply is the final answer.
fn final_answer(steps: &[Step]) -> End {
    End {
        stop: Stop::FinalAnswer,
        answer: Some(steps[1].raw_reply.clone()),
        detail: None,
        steps: 2,
        tokens: 475,
        total_ms: 760.0,
    }
}

fn pane_app() -> (App, u64) {
    let data = Data {
        context: context(),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.panes.agent.configure(settings(None), None);
    app.switch(Tab::Agent);
    let id = app
        .submit(Job::Agent(AgentJob::Run(AgentRun {
            question: QUESTION.into(),
            settings: settings(None),
            rerun: None,
            edited: None,
            transcript_path: None,
            reason: None,
        })))
        .unwrap();
    app.take_jobs();
    (app, id)
}

fn update(app: &mut App, id: u64, update: AgentUpdate) {
    app.on_event(AppEvent::Agent { id, update });
}

pub fn finished_app() -> App {
    let (mut app, id) = pane_app();
    let steps = fixed_steps();
    for s in &steps {
        update(&mut app, id, AgentUpdate::Event(Event::StepStarted(s.step)));
        update(&mut app, id, AgentUpdate::Event(Event::Step(Box::new(s.clone()))));
    }
    let end = final_answer(&steps);
    update(&mut app, id, AgentUpdate::Event(Event::End(end.clone())));
    let header = Header {
        run_id: "run-demo-1".into(),
        question: QUESTION.into(),
        llm: LLM.into(),
        shape: "messages".into(),
        servers: vec!["sagedeck-demo".into()],
        ..Default::default()
    };
    let t = Transcript {
        header,
        steps,
        end: Some(end),
    };
    update(&mut app, id, AgentUpdate::Done(Ok(Box::new(t))));
    app.on_event(AppEvent::Finished { id, cancelled: false });
    app
}

#[test]
fn saved_transcripts_of_earlier_sessions_are_listed_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let steps = fixed_steps();
    let t = Transcript {
        header: Header {
            run_id: "run-earlier".into(),
            question: QUESTION.into(),
            llm: LLM.into(),
            ..Default::default()
        },
        end: Some(final_answer(&steps)),
        steps,
    };
    let lines: Vec<String> = t.records().iter().map(|r| serde_json::to_string(r).unwrap()).collect();
    std::fs::write(dir.path().join("run-1-0.jsonl"), lines.join("\n")).unwrap();
    std::fs::write(dir.path().join("notes.jsonl"), "not a transcript\n").unwrap();
    let mut app = App::new(Data::default(), Theme::default_theme());
    app.panes
        .agent
        .configure(settings(None), Some(dir.path().to_path_buf()));
    app.switch(Tab::Agent);
    tap(&mut app, KeyCode::Char('h'));
    let screen = render(&mut app, 140, 40);
    assert!(
        screen.contains("saved") && screen.contains("answered in 2 steps"),
        "{screen}"
    );
    tap(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 140, 40);
    assert!(screen.contains("run-earlier") && screen.contains("answer: According to classify_intent"));
    // Listing again does not list it twice.
    tap(&mut app, KeyCode::Char('h'));
    assert_eq!(app.panes.agent.runs.len(), 1);
}

#[test]
fn streamed_tokens_show_while_the_step_runs() {
    let (mut app, id) = pane_app();
    update(&mut app, id, AgentUpdate::Event(Event::StepStarted(1)));
    for t in ["{\"tool\": ", "\"classify_intent\""] {
        update(&mut app, id, AgentUpdate::Event(Event::Token(t.into())));
    }
    let screen = render(&mut app, 140, 40);
    assert!(screen.contains("#1  asking the LLM"), "{screen}");
    assert!(screen.contains(r#"{"tool": "classify_intent""#), "{screen}");
    update(
        &mut app,
        id,
        AgentUpdate::Event(Event::Calling {
            step: 1,
            server: "sagedeck-demo".into(),
            tool: "classify_intent".into(),
            arguments: json!({}),
        }),
    );
    assert!(render(&mut app, 140, 40).contains("#1  calling classify_intent"));
}

#[test]
fn snapshots_conversation_with_waterfall_and_step_detail() {
    for (w, h) in [(140, 40), (80, 24)] {
        let mut app = finished_app();
        insta::assert_snapshot!(format!("agent_conversation_{w}x{h}"), render(&mut app, w, h));
        tap(&mut app, KeyCode::Up);
        tap(&mut app, KeyCode::Enter);
        insta::assert_snapshot!(format!("agent_step_detail_{w}x{h}"), render(&mut app, w, h));
    }
}

#[test]
fn snapshots_approval_dialog_and_the_decision_goes_back() {
    for (w, h) in [(140, 40), (80, 24)] {
        let (mut app, id) = pane_app();
        update(&mut app, id, AgentUpdate::Event(Event::StepStarted(1)));
        let (answer, rx) = std::sync::mpsc::channel();
        let request = ApprovalRequest {
            step: 1,
            server: "sagedeck-demo".into(),
            tool: "classify_intent".into(),
            arguments: json!({"user_input": "book me a flight to Paris"}),
            why: "--approve ask".into(),
        };
        update(&mut app, id, AgentUpdate::Ask { request, answer });
        insta::assert_snapshot!(format!("agent_approval_{w}x{h}"), render(&mut app, w, h));
        tap(&mut app, KeyCode::Char('y'));
        assert_eq!(rx.try_recv().unwrap(), Decision::Approve);
        assert!(app.panes.agent.approval.is_none());
    }
}
