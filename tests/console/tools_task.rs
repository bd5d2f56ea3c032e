//! A tool call answered with a task in the console: the call's row and panel read `task ID
//! working` with the status message while the worker polls, then `task ID completed`; Esc
//! cancels it (the worker's call sends `tasks/cancel`). Over the wire, the console's hub — with
//! the sampler the demo gives it, so on the `initialize` handshake — gets the demo server's
//! `summarize_async` as a task and follows it to its result.

use std::time::Duration;

use crossterm::event::KeyCode;
use sagedeck::mcp::events::Progress;
use sagedeck::mcp::tasks::TaskRun;
use sagedeck::tui::event::{AppEvent, Job, JobKind, McpKind};
use sagedeck::tui::panes::tools::ToolCallState;

use crate::common::tui::{ctrl, key};
use crate::tools::{app_in, classified, outcome, screen, tool_calls, type_classify};

fn task_news(id: u64, polls: f64, task: &str, message: &str) -> AppEvent {
    AppEvent::ToolProgress {
        id,
        progress: Progress {
            progress: polls,
            total: None,
            message: Some(message.into()),
            task: Some(task.into()),
        },
    }
}

#[test]
fn a_task_call_shows_its_status_until_it_completes_and_esc_cancels_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    type_classify(&mut app, "x");
    app.on_key(ctrl('s'));
    let id = tool_calls(&mut app)[0].0;
    app.on_event(task_news(id, 0.0, "t-7 working", "queued as inf-1"));
    app.on_event(task_news(id, 2.0, "t-7 working", "queued as inf-1"));
    let call = app.panes.tools.shown_call().unwrap();
    assert_eq!(call.summary(), "task t-7 working");
    let running = screen(&mut app);
    assert!(running.contains("task t-7 working · 2 poll(s)"), "{running}");
    assert!(running.contains("queued as inf-1"), "{running}");
    insta::assert_snapshot!("tool_call_task_working", running);

    let mut done = outcome("classify_intent", 2400, classified("Canary")).unwrap();
    done.task = Some(TaskRun {
        task_id: "t-7".into(),
        status: "completed".into(),
        status_message: Some("output at s3://out/inf-1.out".into()),
        polls: 3,
        cancel_sent: false,
    });
    app.on_event(AppEvent::ToolResult {
        id,
        index: 0,
        result: Ok(done),
    });
    let call = app.panes.tools.shown_call().unwrap();
    assert_eq!(call.state, ToolCallState::Done);
    assert_eq!(call.summary(), "ok · 2400.0 ms · task t-7 completed");
    let done = screen(&mut app);
    assert!(done.contains("task t-7 completed"), "{done}");

    // A second call: Esc while its task works cancels the job (its call sends tasks/cancel).
    app.on_key(ctrl('s'));
    let id = tool_calls(&mut app)[0].0;
    app.on_event(AppEvent::Started {
        id,
        kind: JobKind::Mcp(McpKind::ToolCall),
        label: "calling tool classify_intent".into(),
    });
    app.on_event(task_news(id, 0.0, "t-8 working", "sending"));
    app.on_key(key(KeyCode::Esc));
    let jobs = app.take_jobs();
    assert!(
        matches!(jobs.as_slice(), [(_, Job::Cancel(target))] if *target == id),
        "{jobs:?}"
    );
}

/// The console's hub with a sampler (as `sagedeck demo` has it) calls the demo server's
/// `summarize_async`, which the server offers as a task: followed to its output object.
#[tokio::test]
async fn the_console_hub_follows_the_demo_servers_task_tool() {
    use sagedeck::mcp::client::CallOptions;

    let sb = crate::common::sandbox_with(sagedeck::sandbox::SandboxConfig {
        demo_fleet: true,
        demo_shapes: true,
        ..sagedeck::sandbox::SandboxConfig::for_tests()
    })
    .await;
    let (hub, _dialogs) = crate::sampling_dialog::demo_hub(&sb, (None, None)).await;
    let (ptx, mut prx) = tokio::sync::mpsc::unbounded_channel();
    let opts = CallOptions {
        timeout: Duration::from_secs(30),
        progress: Some(ptx),
        ..Default::default()
    };
    let arguments = serde_json::json!({"document": "the canary is slow"})
        .as_object()
        .cloned();
    let out = hub
        .call("sagedeck-demo", "summarize_async", arguments, opts)
        .await
        .expect("summarize_async answers");
    let task = out.task.expect("answered with a task");
    assert_eq!(task.status, "completed", "{task:?}");
    assert!(out.result.structured.unwrap()["label"].is_string());
    let first = prx.try_recv().expect("the task was announced");
    assert_eq!(first.task, Some(format!("{} working", task.task_id)));
    hub.shutdown().await;
}
