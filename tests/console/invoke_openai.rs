//! The Invoke pane's OpenAI mode over the wire: `o` turns the body into a Chat Completions
//! request sent over the OpenAI path with a minted bearer token (never on screen); a plain line
//! streams its answer into the response panel, a request with tools shows the model's tool
//! call. A snapshot at 80×24.

use std::time::Duration;

use crossterm::event::KeyCode;

use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{FleetJob, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;

use crate::common;
use crate::common::tui::{self, ctrl, press, tap};

const LLM: &str = "llm-tgi-chat";

const WITH_TOOLS: &str = r#"{"messages": [{"role": "user", "content": "What is the most played song on WZPZ?"}], "tools": [{"type": "function", "function": {"name": "top_song", "description": "Get the most popular song played on a radio station.", "parameters": {"type": "object", "properties": {"sign": {"type": "string"}}, "required": ["sign"]}}}]}"#;

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
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let jobs = sagedeck::tui::worker::spawn(
        Default::default(),
        Some(common::fleet(&sb).await),
        Default::default(),
        tx,
    );
    let data = Data {
        context: tui::context(),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.submit(Job::Fleet(FleetJob::Inventory { selected: None }));
    let deadline = ("the inventory", Duration::from_secs(60));
    tui::pump_until(&mut app, &jobs, &mut rx, deadline, |a| a.data.loaded, |_| {}).await;
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

    send(&mut app, WITH_TOOLS);
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
