//! The pane with the real worker against sagedeck's own `mcp serve` over the sandbox.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_calls_classify_intent_on_the_real_server() {
    use sagedeck::mcp::registry::demo_entry;
    use sagedeck::mcp::{ConnectOptions, McpHub, Registry};

    let sb = common::sandbox_with(common::demo_config()).await;
    let registry = Registry {
        servers: vec![demo_entry(
            std::path::Path::new(env!("CARGO_BIN_EXE_sagedeck")),
            &sb.endpoint_url(),
        )],
        source: None,
    };
    let hub = McpHub::new(&registry, ConnectOptions::default());
    let dir = tempfile::tempdir().unwrap();
    let audit_path = dir.path().join("audit.jsonl");
    let (jobs, mut rx) = crate::common::tui::guarded_worker_on(&sb, dir.path(), Some(hub.clone())).await;
    let mut app = crate::common::tui::loaded_app(&jobs, &mut rx).await;
    app.panes.tools.set_args_path(Some(dir.path().join("tool_args.json")));
    app.tab = Tab::Tools;
    sagedeck::tui::attach_mcp(&mut app, &hub);
    assert_eq!(app.panes.tools.servers()[0].status, ServerStatus::Connecting);

    // Drives the app: jobs to the worker, events back, until `done` holds.
    async fn pump(
        app: &mut App,
        jobs: &sagedeck::tui::worker::Jobs,
        rx: &mut tokio::sync::mpsc::UnboundedReceiver<AppEvent>,
        what: &str,
        done: impl Fn(&App) -> bool,
    ) {
        let deadline = Duration::from_secs(60);
        crate::common::tui::pump_until(app, jobs, rx, (what, deadline), done, |_| {}).await
    }

    pump(&mut app, &jobs, &mut rx, "the server to connect", |a| {
        matches!(a.panes.tools.servers()[0].status, ServerStatus::Connected { .. })
    })
    .await;
    let names: Vec<String> = app.panes.tools.servers()[0]
        .tools
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, crate::common::DEMO_TOOL_NAMES);
    // Before any call the link comes from the tool's metadata.
    app.on_key(key(KeyCode::Enter));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.panes.tools.endpoint_link().unwrap().endpoint, EP);
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "I want my money back");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    pump(&mut app, &jobs, &mut rx, "the classify_intent result", |a| {
        a.panes.tools.shown_call().is_some_and(|c| !c.in_flight())
    })
    .await;
    let c = app.panes.tools.shown_call().unwrap();
    let out = match &c.last {
        Some(Ok(o)) => o.clone(),
        other => panic!("{other:?}"),
    };
    assert!(!out.result.is_error, "{:?}", out.result);
    let s = out.result.structured.clone().unwrap();
    assert!(s["intent"].is_string() && s["score"].as_f64().unwrap() > 0.0, "{s}");
    let link = app.panes.tools.endpoint_link().unwrap();
    assert_eq!(link.endpoint, EP);
    assert!(["Stable", "Canary"].contains(&link.invoked_variant.as_deref().unwrap()));
    assert_eq!(link.attempts, Some(1));
    let text = screen(&mut app);
    assert!(
        text.contains("⇄ endpoint mcp-intent-classifier-prod · InService"),
        "{text}"
    );
    assert!(text.contains("✓ ok"), "{text}");
    // The call was audited: its intent before it was sent, its result after.
    let start = Instant::now();
    let calls = loop {
        let audit = std::fs::read_to_string(&audit_path).unwrap_or_default();
        let calls: Vec<serde_json::Value> = audit
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|l| l["action"] == "tool.call")
            .collect();
        if calls.len() >= 2 {
            break calls;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no audited result:\n{audit}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(calls[0]["target"], "sagedeck-demo/classify_intent");
    assert_eq!(calls[0]["after"]["arguments"]["user_input"], "I want my money back");
    assert_eq!(calls[1]["result"], "ok", "{calls:?}");
    // The server's log shows the connection.
    press(&mut app, "L");
    assert!(screen(&mut app).contains("connected in"));
    press(&mut app, "L");

    // Repeat 1000, Esc after a few answers: the worker cancels the token, the client sends
    // notifications/cancelled, the repeat stops.
    press(&mut app, "n");
    press(&mut app, "1000");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    pump(&mut app, &jobs, &mut rx, "a few answers of the repeat", |a| {
        a.panes.tools.shown_call().is_some_and(|c| c.done >= 3) && !a.inflight.is_empty()
    })
    .await;
    app.on_key(key(KeyCode::Esc));
    pump(&mut app, &jobs, &mut rx, "the repeat to stop", |a| {
        a.panes.tools.shown_call().is_some_and(|c| !c.in_flight()) && a.inflight.is_empty()
    })
    .await;
    let c = app.panes.tools.shown_call().unwrap();
    assert_eq!(c.state, ToolCallState::Cancelled);
    assert!(c.done < 1000 && c.ok >= 3, "{} answers", c.done);
    // The connection survives a cancel: the next call answers.
    press(&mut app, "n");
    app.on_key(key(KeyCode::Backspace));
    app.on_key(key(KeyCode::Backspace));
    app.on_key(key(KeyCode::Backspace));
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    pump(&mut app, &jobs, &mut rx, "a call after the cancel", |a| {
        a.panes
            .tools
            .shown_call()
            .is_some_and(|c| c.repeat == 1 && !c.in_flight())
    })
    .await;
    assert_eq!(app.panes.tools.shown_call().unwrap().ok, 1);
    hub.shutdown().await;
    sb.shutdown().await;
}
