//! The Agent pane over the wire: the sandbox's LLM and the demo MCP server, approval, cancel.

use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;

use sagedeck::mcp::agent::Stop;
use sagedeck::mcp::registry::demo_entry;
use sagedeck::mcp::{ConnectOptions, McpHub, Registry, ServerStatus};
use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::tui::app::App;
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::agent::Run;

use crate::common;
use crate::common::tui::{ctrl, key, press, render, tap};

use super::{LLM, QUESTION, TOOL_EP, settings};

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
        let dir = tempfile::tempdir().unwrap();
        let (jobs, mut rx) = common::tui::guarded_worker_on(&sb, dir.path(), Some(hub.clone())).await;
        let mut app = common::tui::loaded_app(&jobs, &mut rx).await;
        app.panes
            .agent
            .configure(settings(approve), Some(dir.path().join("agent")));
        sagedeck::tui::attach_mcp(&mut app, &hub);
        app.switch(Tab::Agent);
        let mut w = Wire {
            sb,
            app,
            jobs,
            rx,
            dir,
            hub,
        };
        w.pump("the demo server", |a| {
            matches!(a.panes.tools.servers()[0].status, ServerStatus::Connected { .. })
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
