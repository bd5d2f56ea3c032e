//! The Agent pane: a whole run against the sandbox's LLM and the demo MCP server over the wire
//! (question → tool call → final answer, the audit log, the saved transcript, `g`, a re-run),
//! approval (approve, deny, edit), cancel with Esc, the read-only refusal, snapshots of the
//! conversation with its waterfall, a step's detail and the approval dialog, and the real
//! binary in tmux (`sagedeck demo`, ask, wait for the answer).

use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;

use sagedeck::mcp::agent::parse::ParsedCall;
use sagedeck::mcp::agent::trace::ToolTrace;
use sagedeck::mcp::agent::{ApprovalRequest, Decision, End, Event, Header, Message, Step, Stop, Transcript};
use sagedeck::mcp::registry::demo_entry;
use sagedeck::mcp::{ConnectOptions, McpHub, Registry, ServerStatus};
use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::tui::app::App;
use sagedeck::tui::config::AgentDefaults;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{AgentJob, AgentRun, FleetJob};
use sagedeck::tui::event::{AgentUpdate, AppEvent, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::agent::Run;
use sagedeck::tui::theme::Theme;

use crate::common;
use crate::common::tmux::Tmux;
use crate::common::tui::{context, ctrl, key, press, render, tap};

const QUESTION: &str = "Classify the intent of this message: 'book me a flight to Paris'";
const LLM: &str = "llm-tgi-chat";
const TOOL_EP: &str = "mcp-intent-classifier-prod";

fn settings(approve: Option<&str>) -> AgentDefaults {
    AgentDefaults {
        llm: Some(LLM.into()),
        servers: vec!["sagedeck-demo".into()],
        approve: approve.map(str::to_string),
        ..Default::default()
    }
}

/// A console on the sandbox with the demo MCP server, its worker and its audit log.
struct Wire {
    sb: SandboxHandle,
    app: App,
    jobs: sagedeck::tui::worker::Jobs,
    rx: tokio::sync::mpsc::UnboundedReceiver<AppEvent>,
    dir: tempfile::TempDir,
    hub: McpHub,
}

impl Wire {
    async fn start(approve: Option<&str>) -> Wire {
        let sb = common::sandbox_with(common::demo_config()).await;
        let exe = std::path::Path::new(env!("CARGO_BIN_EXE_sagedeck"));
        let registry = Registry {
            servers: vec![demo_entry(exe, &sb.endpoint_url())],
            source: None,
        };
        let hub = McpHub::new(&registry, ConnectOptions::default());
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let dir = tempfile::tempdir().unwrap();
        let jobs = sagedeck::tui::worker::spawn_guarded(
            Default::default(),
            Some(common::fleet(&sb).await),
            Default::default(),
            tx,
            Some(hub.clone()),
            sagedeck::tui::worker::GuardOptions {
                audit_path: Some(dir.path().join("audit.jsonl")),
                plan_dir: Some(dir.path().join("plans")),
                ..Default::default()
            },
        );
        let data = Data {
            context: context(),
            ..Default::default()
        };
        let mut app = App::new(data, Theme::default_theme());
        app.panes
            .agent
            .configure(settings(approve), Some(dir.path().join("agent")));
        sagedeck::tui::attach_mcp(&mut app, &hub);
        app.submit(Job::Fleet(FleetJob::Inventory { selected: None }));
        app.switch(Tab::Agent);
        let mut w = Wire {
            sb,
            app,
            jobs,
            rx,
            dir,
            hub,
        };
        w.pump("the inventory and the demo server", |a| {
            a.data.loaded && matches!(a.panes.tools.servers()[0].status, ServerStatus::Connected { .. })
        })
        .await;
        w
    }

    /// Drives the app (jobs to the worker, events back) until `done` holds.
    async fn pump(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let deadline = Duration::from_secs(90);
        common::tui::pump_until(&mut self.app, &self.jobs, &mut self.rx, (what, deadline), done, |_| {}).await
    }

    fn ask(&mut self, question: &str) {
        tap(&mut self.app, KeyCode::Char('a'));
        press(&mut self.app, question);
        tap(&mut self.app, KeyCode::Enter);
    }

    async fn finish(&mut self) -> Run {
        self.pump("the run to end", |a| {
            a.panes.agent.shown_run().is_some_and(|r| !r.running && r.end.is_some())
        })
        .await;
        self.app.panes.agent.shown_run().unwrap().clone()
    }

    async fn wait_approval(&mut self) {
        self.pump("the approval dialog", |a| a.panes.agent.approval.is_some())
            .await;
    }
}

fn stop(run: &Run) -> Stop {
    run.end.as_ref().unwrap().stop
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_goes_to_a_tool_call_and_a_final_answer_over_the_wire() {
    let mut w = Wire::start(None).await;
    // Streamed replies (the demo's default), tokens shown as they arrive.
    w.app.panes.agent.settings.stream = Some(true);
    tap(&mut w.app, KeyCode::Char('a'));
    assert!(render(&mut w.app, 140, 40).contains("capturing text"));
    press(&mut w.app, QUESTION);
    tap(&mut w.app, KeyCode::Enter);
    assert!(w.app.panes.agent.shown_run().unwrap().running);
    let run = w.finish().await;
    assert_eq!(stop(&run), Stop::FinalAnswer, "{run:#?}");
    let tool = run.steps[0].tool.as_ref().unwrap();
    assert_eq!(tool.tool, "classify_intent");
    assert_eq!(tool.arguments, json!({"user_input": "book me a flight to Paris"}));
    let answer = run.end.as_ref().unwrap().answer.clone().unwrap();
    assert!(answer.contains("According to classify_intent"), "{answer}");
    let screen = render(&mut w.app, 140, 40);
    assert!(screen.contains("answer: According to classify_intent"), "{screen}");
    assert!(screen.contains("tool") && screen.contains("#1"), "{screen}");

    // Every LLM call and the tool call are in the audit log with the run id and step.
    let run_id = run.header.as_ref().unwrap().run_id.clone();
    let audit = std::fs::read_to_string(w.dir.path().join("audit.jsonl")).unwrap();
    let lines: Vec<&str> = audit.lines().filter(|l| l.contains(&run_id)).collect();
    assert!(lines.iter().any(|l| l.contains("agent.llm")), "{audit}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("agent.tool") && l.contains("classify_intent")),
        "{audit}"
    );

    // The transcript is saved under the runs directory.
    let saved = sagedeck::tui::panes::agent::saved_runs(&w.dir.path().join("agent"));
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].header.as_ref().unwrap().run_id, run_id);

    // Step 1's detail: the prompt sent, the reply, the call, the result, scrolled to.
    tap(&mut w.app, KeyCode::Up);
    tap(&mut w.app, KeyCode::Enter);
    let screen = render(&mut w.app, 140, 40);
    assert!(screen.contains("── prompt sent ──"), "{screen}");
    let mut found = false;
    for _ in 0..30 {
        if render(&mut w.app, 140, 40).contains("── tool result ──") {
            found = true;
            break;
        }
        tap(&mut w.app, KeyCode::PageDown);
    }
    assert!(found, "the detail scrolls to the tool result");
    tap(&mut w.app, KeyCode::Esc);

    // `g` on the tool step goes to the tool's endpoint.
    tap(&mut w.app, KeyCode::Char('g'));
    assert_eq!(w.app.tab, Tab::Variants);
    assert_eq!(w.app.data.selected.as_deref(), Some(TOOL_EP));
    w.app.switch(Tab::Agent);
    // On the answer step (no tool), `G` goes to the LLM endpoint on Endpoints.
    tap(&mut w.app, KeyCode::Down);
    tap(&mut w.app, KeyCode::Char('G'));
    assert_eq!(w.app.tab, Tab::Endpoints);
    assert_eq!(w.app.data.selected.as_deref(), Some(LLM));
    w.app.switch(Tab::Agent);

    // The runs list has it; a re-run from step 1 ends with an answer too.
    tap(&mut w.app, KeyCode::Char('h'));
    assert!(render(&mut w.app, 140, 40).contains("answered in 2 steps"));
    tap(&mut w.app, KeyCode::Enter);
    press(&mut w.app, ":agent-llm llm-tgi-chat");
    tap(&mut w.app, KeyCode::Enter);
    assert_eq!(w.app.panes.agent.settings.llm.as_deref(), Some(LLM));
    tap(&mut w.app, KeyCode::Up);
    tap(&mut w.app, KeyCode::Char('R'));
    let rerun = w.finish().await;
    assert_eq!(rerun.rerun_of, Some((run_id.clone(), 1)));
    assert_eq!(stop(&rerun), Stop::FinalAnswer);
    assert_eq!(rerun.header.as_ref().unwrap().rerun_of, Some((run_id, 1)));

    // `E` edits step 1's question, and the re-run from step 1 sends the edited one.
    tap(&mut w.app, KeyCode::Up);
    tap(&mut w.app, KeyCode::Char('E'));
    assert!(render(&mut w.app, 140, 40).contains("Step 1's last user message"));
    w.app.on_key(ctrl('u'));
    press(&mut w.app, "Classify the intent of this message: 'cancel my order'");
    tap(&mut w.app, KeyCode::Enter);
    let edited = w.finish().await;
    assert_eq!(stop(&edited), Stop::FinalAnswer);
    let tool = edited.steps[0].tool.as_ref().unwrap();
    assert_eq!(tool.arguments, json!({"user_input": "cancel my order"}));
    w.hub.shutdown().await;
    w.sb.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_mode_approves_denies_and_edits_each_call() {
    let mut w = Wire::start(Some("ask")).await;
    w.ask(QUESTION);
    w.wait_approval().await;
    let screen = render(&mut w.app, 140, 40);
    assert!(screen.contains("Approve tool call?") && screen.contains("sagedeck-demo/classify_intent"));
    tap(&mut w.app, KeyCode::Char('y'));
    let run = w.finish().await;
    assert_eq!(stop(&run), Stop::FinalAnswer);
    assert!(run.steps[0].approval.as_deref().unwrap().contains("approved"));

    w.ask(QUESTION);
    w.wait_approval().await;
    tap(&mut w.app, KeyCode::Char('n'));
    let run = w.finish().await;
    assert_eq!(stop(&run), Stop::Denied);
    assert!(run.steps[0].tool.is_none(), "a denied call is not sent");

    w.ask(QUESTION);
    w.wait_approval().await;
    tap(&mut w.app, KeyCode::Char('e'));
    w.app.on_key(ctrl('u'));
    press(&mut w.app, r#"{"user_input": "cancel my order"}"#);
    tap(&mut w.app, KeyCode::Enter);
    let run = w.finish().await;
    assert_eq!(stop(&run), Stop::FinalAnswer);
    let tool = run.steps[0].tool.as_ref().unwrap();
    assert_eq!(tool.arguments, json!({"user_input": "cancel my order"}));
    assert!(run.steps[0].approval.as_deref().unwrap().contains("edited"));
    w.hub.shutdown().await;
    w.sb.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_cancels_a_running_run() {
    let mut w = Wire::start(None).await;
    let slow = FaultSpec::parse_short(&format!("kind=slow,ms=60000,count=1,endpoint={LLM}")).unwrap();
    w.sb.sandbox.faults.add(slow);
    w.ask(QUESTION);
    w.pump("the first step to start", |a| {
        a.panes.agent.shown_run().is_some_and(|r| r.live.is_some())
    })
    .await;
    w.app.on_key(key(KeyCode::Esc));
    let run = w.finish().await;
    assert_eq!(stop(&run), Stop::Cancelled);
    assert!(render(&mut w.app, 140, 40).contains("stopped: cancelled"));
    w.hub.shutdown().await;
    w.sb.shutdown().await;
}

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
    let end = End {
        stop: Stop::FinalAnswer,
        answer: Some(steps[1].raw_reply.clone()),
        detail: None,
        steps: 2,
        tokens: 475,
        total_ms: 760.0,
    };
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
        end: Some(End {
            stop: Stop::FinalAnswer,
            answer: Some(steps[1].raw_reply.clone()),
            detail: None,
            steps: 2,
            tokens: 475,
            total_ms: 760.0,
        }),
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

#[test]
fn sagedeck_demo_asks_the_agent_and_shows_the_final_answer() {
    let t = Tmux::start_sized("agent", "demo --fast --no-traffic --backfill-hours 1", "", 140, 40);
    t.wait_for("the fleet", Duration::from_secs(60), |s| s.contains(TOOL_EP));
    t.keys(&[":", "agent", "Enter"]);
    t.wait_for("the Agent pane, ready to ask", Duration::from_secs(10), |s| {
        s.contains("a: ask") && s.contains("LLM llm-tgi-chat") && s.contains("sagedeck-demo")
    });
    t.keys(&["a", QUESTION, "Enter"]);
    let screen = t.wait_for("the final answer", Duration::from_secs(90), |s| {
        s.contains("answer: According to classify_intent")
    });
    assert!(screen.contains("classify_intent"), "{screen}");
    t.keys(&["q"]);
}
