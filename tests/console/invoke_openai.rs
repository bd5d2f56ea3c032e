//! The Invoke pane's OpenAI mode over the wire: `o` turns the body into a Chat Completions
//! request sent over the OpenAI path with a minted bearer token (never on screen); a plain line
//! streams its answer into the response panel; with the tools of a connected MCP server offered
//! (`t`), the model's tool call shows. A snapshot at 80×24.

use std::time::Duration;

use crossterm::event::KeyCode;

use sagedeck::mcp::{ServerStatus, ServerView, TransportKind};
use sagedeck::tui::app::App;
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::panes::Tab;

use crate::common;
use crate::common::tui::{self, ctrl, press, tap};

const LLM: &str = "llm-tgi-chat";

/// A connected MCP server with the Radio Station's `top_song` (as the Tools pane's hub reports it).
fn radio_server() -> ServerView {
    let schema =
        serde_json::json!({"type": "object", "properties": {"sign": {"type": "string"}}, "required": ["sign"]});
    let schema: serde_json::Map<String, serde_json::Value> = serde_json::from_value(schema).unwrap();
    let tool = rmcp::model::Tool::new(
        "top_song",
        "Get the most popular song played on a radio station.",
        std::sync::Arc::new(schema),
    );
    ServerView {
        name: "radio".into(),
        transport: TransportKind::Stdio,
        target: "python radio_station.py".into(),
        status: ServerStatus::Connected {
            protocol_version: "2025-06-18".into(),
            connect_ms: 1.0,
        },
        server: None,
        auth: sagedeck::mcp::oauth::AuthState::None,
        tools: vec![tool],
    }
}

/// Clears the body and types `text` into it, then sends it.
fn send(app: &mut App, text: &str) {
    press(app, "x");
    tap(app, KeyCode::Char('i'));
    press(app, text);
    tap(app, KeyCode::Esc);
    app.on_key(ctrl('s'));
}

fn chat_done(app: &App) -> bool {
    app.panes.invoke.openai().1.is_some_and(|c| c.done) && app.inflight.is_empty()
}

#[tokio::test]
async fn openai_mode_streams_an_answer_and_shows_a_tool_call() {
    let sb = common::sandbox_with(common::demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let (jobs, mut rx) = tui::guarded_worker_on(&sb, dir.path(), None).await;
    let mut app = tui::loaded_app(&jobs, &mut rx).await;
    app.data.selected = Some(LLM.into());
    app.switch(Tab::Invoke);
    press(&mut app, "o");
    assert!(app.panes.invoke.openai().0, "o turns OpenAI mode on");

    send(&mut app, "Say hello to the radio listeners.");
    let what = ("the streamed answer", Duration::from_secs(60));
    tui::pump_until(&mut app, &jobs, &mut rx, what, chat_done, |_| {}).await;
    let chat = app.panes.invoke.openai().1.unwrap().clone();
    assert_eq!(chat.error, None);
    assert!(!chat.text.trim().is_empty(), "{chat:?}");
    assert!(chat.tool_calls.is_empty(), "{chat:?}");
    let screen = tui::render(&mut app, 80, 24);
    assert!(!screen.contains("sagemaker-api-key-"), "{screen}");
    // The token's minting is in the audit log, first and without the token.
    let log = std::fs::read_to_string(&audit).unwrap();
    assert!(log.contains("\"openai.token\"") && log.contains(LLM), "{log}");
    assert!(!log.contains("sagemaker-api-key-"), "{log}");

    // The tools of a connected MCP server, chosen with `t`, go out as the request's `tools`.
    app.on_event(AppEvent::McpServers {
        servers: vec![radio_server()],
        logs: vec![],
    });
    press(&mut app, "t");
    send(
        &mut app,
        r#"[{"role": "user", "content": "What is the most played song on WZPZ?"}]"#,
    );
    let what = ("the tool call", Duration::from_secs(60));
    tui::pump_until(&mut app, &jobs, &mut rx, what, chat_done, |_| {}).await;
    let chat = app.panes.invoke.openai().1.unwrap().clone();
    assert_eq!(chat.error, None);
    assert_eq!(chat.tool_calls.len(), 1, "{chat:?}");
    assert_eq!(chat.tool_calls[0].0, "top_song");
    let args: serde_json::Value = serde_json::from_str(&chat.tool_calls[0].1).unwrap();
    assert_eq!(args, serde_json::json!({"sign": "WZPZ"}));
    app.toasts = Default::default(); // they fade with the wall clock
    let screen = tui::render(&mut app, 80, 24);
    assert!(!screen.contains("sagemaker-api-key-"), "{screen}");
    // Below the context line (its "refreshed Ns ago" follows the wall clock).
    let pane: Vec<&str> = screen.lines().skip(1).collect();
    insta::assert_snapshot!("openai_tool_call_80x24", pane.join("\n"));
}
