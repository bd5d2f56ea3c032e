//! The Tools pane driven by keys through the App: validation, the raw JSON editor, choices,
//! destructive confirmation, repeats, cancel, remembered arguments, servers and results.

use super::*;

/// Selects classify_intent, and types `input` as its user_input in the form.
pub(crate) fn type_classify(app: &mut App, input: &str) {
    assert!(app.panes.tools.select("sagedeck-demo", "classify_intent"));
    app.on_key(key(KeyCode::Enter));
    press(app, input);
    app.on_key(key(KeyCode::Enter));
}

#[test]
fn typing_validates_inline_and_calls() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    app.on_key(key(KeyCode::Enter)); // servers → tools
    app.on_key(key(KeyCode::Enter)); // tools → form of classify_intent
    assert_eq!(app.panes.tools.focus(), Focus::Form);
    assert_eq!(form(&app).row_errors["$.user_input"], ["required"]);
    // Calling now is refused inline, nothing is queued.
    app.on_key(ctrl('s'));
    assert!(tool_calls(&mut app).is_empty());
    assert!(
        app.panes.tools.notice().unwrap().contains("1 problem"),
        "{:?}",
        app.panes.tools.notice()
    );
    app.on_key(key(KeyCode::Enter));
    assert!(form(&app).editing);
    press(&mut app, "I want my money back");
    app.on_key(key(KeyCode::Enter));
    assert!(form(&app).is_valid(), "{:?}", form(&app).errors);
    // The raw editor followed.
    assert!(
        app.panes
            .tools
            .tool_form()
            .unwrap()
            .raw_text()
            .contains("I want my money back")
    );
    app.on_key(ctrl('s'));
    let calls = tool_calls(&mut app);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1, "classify_intent");
    assert_eq!(
        calls[0].2,
        json!({"user_input": "I want my money back"}).as_object().cloned()
    );
    let id = calls[0].0;
    assert_eq!(app.panes.tools.shown_call().unwrap().state, ToolCallState::Running);
    app.on_event(AppEvent::ToolProgress {
        id,
        progress: Progress {
            progress: 1.0,
            total: Some(4.0),
            message: Some("warming".into()),
            task: None,
        },
    });
    assert!(screen(&mut app).contains("1/4 (25%)"));
    app.on_event(AppEvent::ToolResult {
        id,
        index: 0,
        result: outcome("classify_intent", 12, classified("Canary")),
    });
    let c = app.panes.tools.shown_call().unwrap();
    assert_eq!((c.state, c.ok), (ToolCallState::Done, 1));
    let link = app.panes.tools.endpoint_link().unwrap();
    assert_eq!(link.invoked_variant.as_deref(), Some("Canary"));
    insta::assert_snapshot!("classify_result_with_endpoint_link", screen(&mut app));
    // g jumps to the endpoint on the Variants tab.
    app.data.selected = None;
    press(&mut app, "g");
    assert_eq!(app.tab, Tab::Variants);
    assert_eq!(app.data.selected.as_deref(), Some(EP));
}

#[test]
fn choices_arrays_and_enums_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    assert!(app.panes.tools.select("sagedeck-demo", "notify"));
    // message
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "disk full");
    app.on_key(key(KeyCode::Tab)); // → target (a choice: editing stops)
    assert!(!form(&app).editing);
    assert_eq!(form(&app).rows[form(&app).cursor].path, "$.target");
    app.on_key(key(KeyCode::Char(' '))); // Email → Slack
    assert!(paths(form(&app)).contains(&"$.target.channel".to_string()));
    app.on_key(key(KeyCode::Down)); // channel
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "#oncall");
    app.on_key(key(KeyCode::Enter));
    // attachments: add an object item, fill its name
    goto(&mut app, "$.attachments");
    press(&mut app, "a");
    assert_eq!(form(&app).rows[form(&app).cursor].path, "$.attachments[0]");
    assert!(!form(&app).is_valid(), "the item's name is required");
    assert!(form(&app).row_errors.contains_key("$.attachments[0].name"));
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "df.txt");
    app.on_key(key(KeyCode::Esc));
    // priority: cycle normal → high
    goto(&mut app, "$.priority");
    app.on_key(key(KeyCode::Right));
    // a number that is not one
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "-1");
    app.on_key(key(KeyCode::Enter));
    assert_eq!(form(&app).row_errors["$.ttl_seconds"], ["-1 is below the minimum 0"]);
    insta::assert_snapshot!("notify_form_with_problem", screen(&mut app));
    app.on_key(key(KeyCode::Char('d'))); // clears ttl_seconds
    assert!(form(&app).is_valid(), "{:?}", form(&app).errors);
    assert_eq!(
        form(&app).value(),
        json!({"message": "disk full", "target": {"channel": "#oncall"},
               "attachments": [{"name": "df.txt"}], "priority": "high"})
    );
    // Deleting the array item removes it.
    goto(&mut app, "$.attachments[0]");
    press(&mut app, "d");
    assert_eq!(form(&app).value()["attachments"], json!([]));
}

#[test]
fn raw_json_editor_and_form_stay_in_sync() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    assert!(app.panes.tools.select("sagedeck-demo", "classify_intent"));
    press(&mut app, "J");
    assert_eq!(app.panes.tools.focus(), Focus::Raw);
    assert!(app.panes.tools.capturing_text());
    assert_eq!(app.panes.tools.tool_form().unwrap().raw_text(), "{}");
    app.on_key(key(KeyCode::Right));
    press(&mut app, "\"user_input\": \"hello q\"");
    assert_eq!(form(&app).value(), json!({"user_input": "hello q"}));
    assert!(form(&app).is_valid());
    // Break the JSON: the form keeps the last good arguments, calling is refused.
    app.on_key(key(KeyCode::End));
    press(&mut app, ",");
    assert!(app.panes.tools.tool_form().unwrap().raw_error.is_some());
    insta::assert_snapshot!("raw_editor_invalid", screen(&mut app));
    app.on_key(ctrl('s'));
    assert!(tool_calls(&mut app).is_empty());
    assert!(app.panes.tools.notice().unwrap().contains("raw JSON is invalid"));
    app.on_key(key(KeyCode::Backspace));
    assert!(app.panes.tools.tool_form().unwrap().raw_error.is_none());
    // An unknown key is kept through the form (additionalProperties false flags it).
    app.on_key(key(KeyCode::Home));
    app.on_key(key(KeyCode::Right));
    press(&mut app, "\"x\": 1, ");
    assert_eq!(form(&app).value(), json!({"user_input": "hello q", "x": 1}));
    assert!(form(&app).errors.iter().any(|e| e.contains("unexpected property `x`")));
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.panes.tools.focus(), Focus::Form);
    assert!(app.panes.tools.tool_form().unwrap().raw_text().contains("\"x\": 1"));
}

#[test]
fn destructive_tools_are_confirmed_and_read_only_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    assert!(app.panes.tools.select("sagedeck-demo", "delete_endpoint"));
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "old-canary");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    assert!(
        tool_calls(&mut app).is_empty(),
        "nothing is sent before the confirmation"
    );
    match &app.overlay {
        Some(Overlay::Confirm(c)) => {
            assert!(c.danger && c.lines[0].contains("destructive"), "{:?}", c.lines);
            assert!(c.lines[1].contains("old-canary"));
        }
        other => panic!("{other:?}"),
    }
    insta::assert_snapshot!("destructive_confirm", screen(&mut app));
    press(&mut app, "n");
    assert!(app.overlay.is_none() && tool_calls(&mut app).is_empty());
    app.on_key(ctrl('s'));
    press(&mut app, "y");
    let calls = tool_calls(&mut app);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1, "delete_endpoint");
    assert_eq!(app.panes.tools.history().len(), 1);

    let mut ro = app_in(dir.path(), true);
    assert!(ro.panes.tools.select("sagedeck-demo", "classify_intent"));
    ro.on_key(ctrl('s'));
    assert!(tool_calls(&mut ro).is_empty());
    assert!(
        toast_texts(&ro)
            .iter()
            .any(|t| t.contains("read-only: calling tools is disabled"))
    );
}

#[test]
fn repeat_gives_percentiles_and_history_reruns() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    type_classify(&mut app, "hi");
    press(&mut app, "n");
    assert_eq!(app.panes.tools.focus(), Focus::Repeat);
    press(&mut app, "0");
    app.on_key(key(KeyCode::Backspace));
    press(&mut app, "20");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    let calls = tool_calls(&mut app);
    assert_eq!(calls[0].3, 20);
    let id = calls[0].0;
    for i in 0..20u32 {
        let result = if i == 7 {
            Err(CallError::JsonRpc {
                code: -32603,
                message: "internal".into(),
                data: None,
            })
        } else if i == 9 {
            outcome(
                "classify_intent",
                30,
                RenderedResult {
                    is_error: true,
                    blocks: vec![Block::Text {
                        text: "Model returned error 400: bad input".into(),
                    }],
                    structured: None,
                    schema_errors: None,
                },
            )
        } else {
            outcome("classify_intent", 10 + u64::from(i), classified("Stable"))
        };
        app.on_event(AppEvent::ToolResult { id, index: i, result });
    }
    let c = app.panes.tools.shown_call().unwrap();
    assert_eq!((c.done, c.ok, c.tool_errors, c.failed), (20, 18, 1, 1));
    let p = c.stats.percentiles().unwrap();
    assert_eq!(p.count, 19);
    assert!((p.p50_ms - 21.0).abs() < 0.5, "{p:?}");
    assert!((p.p99_ms - 30.0).abs() < 0.5, "{p:?}");
    assert!(toast_texts(&app).iter().any(|t| t.contains("×20: 18/20 ok")));
    insta::assert_snapshot!("repeat_statistics", screen(&mut app));
    // History: re-run the call.
    press(&mut app, "h");
    assert_eq!(
        (app.panes.tools.focus(), app.panes.tools.panel()),
        (Focus::History, Panel::History)
    );
    app.on_key(key(KeyCode::Enter));
    let again = tool_calls(&mut app);
    assert_eq!(again.len(), 1);
    assert_eq!((again[0].2.clone(), again[0].3), (calls[0].2.clone(), 20));
    assert_eq!(app.panes.tools.tool_calls().len(), 2);
}

#[test]
fn esc_cancels_the_call_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    type_classify(&mut app, "x");
    app.on_key(ctrl('s'));
    let id = tool_calls(&mut app)[0].0;
    app.on_event(AppEvent::Started {
        id,
        kind: sagedeck::tui::event::JobKind::Mcp(sagedeck::tui::event::McpKind::ToolCall),
        label: "calling tool classify_intent".into(),
    });
    app.on_key(key(KeyCode::Esc));
    let jobs = app.take_jobs();
    assert!(
        matches!(jobs.as_slice(), [(_, Job::Cancel(target))] if *target == id),
        "{jobs:?}"
    );
    app.on_event(AppEvent::Finished { id, cancelled: true });
    assert_eq!(app.panes.tools.shown_call().unwrap().state, ToolCallState::Cancelled);
    // Without a call in flight, Esc goes back from the form to the tool list.
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.panes.tools.focus(), Focus::Tools);
}

#[test]
fn a_repeated_call_the_worker_ends_early_does_not_stay_running() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    type_classify(&mut app, "hi");
    press(&mut app, "n");
    app.on_key(key(KeyCode::Backspace));
    press(&mut app, "5");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    let calls = tool_calls(&mut app);
    assert_eq!(calls[0].3, 5);
    let id = calls[0].0;
    // The audit log refused the call: one answer, then the worker is done with the job.
    app.on_event(AppEvent::ToolResult {
        id,
        index: 0,
        result: Err(CallError::Other(
            "cannot write the audit log x: denied; nothing was sent".into(),
        )),
    });
    assert_eq!(app.panes.tools.shown_call().unwrap().state, ToolCallState::Running);
    app.on_event(AppEvent::Finished { id, cancelled: false });
    let c = app.panes.tools.shown_call().unwrap();
    assert_eq!(c.state, ToolCallState::Done, "not running 1/5 for ever");
    assert!(
        toast_texts(&app)
            .iter()
            .any(|t| t.contains("classify_intent ×5: 0/5 ok")),
        "{:?}",
        toast_texts(&app)
    );
    // A call that got all its answers is not touched (and not toasted twice).
    let before = toast_texts(&app).len();
    app.on_event(AppEvent::Finished { id, cancelled: false });
    assert_eq!(toast_texts(&app).len(), before);
}

#[test]
fn last_arguments_are_remembered_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    assert!(app.panes.tools.select("sagedeck-demo", "search"));
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "latency spikes");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    assert_eq!(tool_calls(&mut app).len(), 1);
    let file = dir.path().join("state").join("tool_args.json");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["sagedeck-demo/search"]["query"], json!("latency spikes"));
    // A new console with the same state directory starts from those arguments.
    let mut again = app_in(dir.path(), false);
    assert!(again.panes.tools.select("sagedeck-demo", "search"));
    assert_eq!(form(&again).value()["query"], json!("latency spikes"));
    assert_eq!(form(&again).value()["limit"], json!(10));
    // Another tool has none.
    assert!(again.panes.tools.select("sagedeck-demo", "classify_intent"));
    assert_eq!(form(&again).value(), json!({}));
}

#[test]
fn servers_show_status_and_results_render_every_block() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    app.on_key(key(KeyCode::Down));
    assert_eq!(app.panes.tools.selected_server().unwrap().name, "radio-station");
    insta::assert_snapshot!("failed_server", screen(&mut app));
    // A connection job marks servers connecting; a snapshot from the worker replaces them.
    app.submit(Job::Mcp(McpJob::Connect {
        server: Some("radio-station".into()),
    }));
    assert_eq!(app.panes.tools.servers()[1].status, ServerStatus::Connecting);
    let mut now = servers();
    now[1].status = ServerStatus::Failed {
        class: "unauthorized".into(),
        reason: "HTTP 401: the server wants a token".into(),
    };
    app.on_event(AppEvent::McpServers {
        servers: now,
        logs: vec![],
    });
    assert!(toast_texts(&app).iter().any(|t| t.contains("HTTP 401")));
    // Images, resource links and isError.
    let r = RenderedResult {
        is_error: true,
        blocks: vec![
            Block::Text {
                text: "partial failure".into(),
            },
            Block::Image {
                mime_type: "image/png".into(),
                bytes: Some(2048),
            },
            Block::ResourceLink {
                uri: "file:///var/log/app.log".into(),
                name: "app.log".into(),
                title: None,
                mime_type: Some("text/plain".into()),
                description: None,
                icons: vec![],
            },
        ],
        structured: None,
        schema_errors: None,
    };
    let s = searched(&mut app, r);
    for want in [
        "the tool reported an error (isError)",
        "[image image/png, 2.0 KiB]",
        "[resource link app.log: file:///var/log/app.log (text/plain)]",
    ] {
        assert!(s.contains(want), "{want} not in\n{s}");
    }
}
