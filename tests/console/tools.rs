//! The Tools tab (MCP) driven by key events and worker events through the real `App`: forms
//! generated from a corpus of real-world input schemas, inline validation, the raw JSON editor
//! kept in sync, destructive confirmation, read-only refusal, repeat statistics, remembered
//! arguments, cancel, the endpoint link; snapshots of the screen (120×30, default theme); and the
//! pane with the real worker against sagedeck's own `mcp serve` over the sandbox.

use crate::common;
use crate::common::builders::{endpoint, variant};

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use sagedeck::aws::observe::metrics::{MetricsSnapshot, VariantMetrics, VariantSummary};
use sagedeck::mcp::events::Progress;
use sagedeck::mcp::oauth::AuthState;
use sagedeck::mcp::result::{Block, RenderedResult};
use sagedeck::mcp::{CallError, CallOutcome, ServerStatus, ServerView, TransportKind};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{AppEvent, Job};
use sagedeck::tui::event::{FleetJob, McpJob};
use sagedeck::tui::panes::tools::{Focus, Panel, ToolCallState};
use sagedeck::tui::panes::{Pane, Tab};
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::Overlay;
use sagedeck::tui::widgets::schema_form::{Kind, SchemaForm};
use sagedeck::tui::widgets::toasts::Toasts;

use crate::common::tui::{self, ctrl, key, press};

const EP: &str = "mcp-intent-classifier-prod";

// ---- the corpus: input schemas as real servers publish them ----

/// sagedeck's own classify_intent.
fn classify_schema() -> Value {
    json!({"type": "object", "required": ["user_input"], "additionalProperties": false, "properties": {
        "user_input": {"type": "string", "minLength": 1, "description": "The user's message"},
        "target_variant": {"type": "string", "description": "Production variant to invoke, bypassing the traffic weights"}}})
}

/// A Pydantic model as FastMCP publishes it: `$defs`, `$ref`, `Optional[...]` as anyOf-with-null,
/// `allOf` around a `$ref`, defaults.
fn pydantic_search_schema() -> Value {
    json!({
        "type": "object", "title": "searchArguments", "required": ["query"],
        "properties": {
            "query": {"type": "string", "title": "Query"},
            "filter": {"allOf": [{"$ref": "#/$defs/Filter"}], "description": "What to keep"},
            "sort": {"anyOf": [{"$ref": "#/$defs/Sort"}, {"type": "null"}], "default": null},
            "limit": {"type": "integer", "default": 10, "minimum": 1, "maximum": 100}
        },
        "$defs": {
            "Filter": {"type": "object", "properties": {
                "status": {"enum": ["open", "closed", "all"], "default": "open"},
                "tags": {"type": "array", "items": {"type": "string"}}}},
            "Sort": {"type": "object", "required": ["field"], "properties": {
                "field": {"type": "string"}, "descending": {"type": "boolean", "default": false}}}
        }
    })
}

/// A TypeScript (zod) server's tool: oneOf with titled options, an enum with a default, an
/// array of objects, a number with bounds.
fn notify_schema() -> Value {
    json!({
        "type": "object", "required": ["target", "message"],
        "properties": {
            "target": {"oneOf": [
                {"title": "Email", "type": "object", "required": ["email"], "properties": {"email": {"type": "string"}}},
                {"title": "Slack", "type": "object", "required": ["channel"],
                 "properties": {"channel": {"type": "string"}, "thread_ts": {"type": "string"}}}
            ]},
            "message": {"type": "string"},
            "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"},
            "attachments": {"type": "array", "items": {"type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}, "url": {"type": "string"}}}},
            "ttl_seconds": {"type": "number", "minimum": 0}
        }
    })
}

/// The GitHub MCP server's create_issue shape, annotated destructive for the test.
fn delete_schema() -> Value {
    json!({"type": "object", "required": ["endpoint_name"], "properties": {
        "endpoint_name": {"type": "string"}, "force": {"type": "boolean"}}})
}

fn tool(name: &str, schema: Value, annotations: ToolAnnotations) -> Tool {
    let schema: JsonObject = schema.as_object().cloned().unwrap();
    Tool::new(name.to_string(), format!("the {name} tool"), Arc::new(schema)).with_annotations(annotations)
}

fn classify_tool() -> Tool {
    let mut meta = rmcp::model::MetaObject::new();
    meta.insert(
        "sagedeck/endpoint".into(),
        json!({"endpoint": EP, "target_model": null, "target_variant": null}),
    );
    tool(
        "classify_intent",
        classify_schema(),
        ToolAnnotations::new().read_only(true).destructive(false),
    )
    .with_title("Classify intent")
    .with_meta(meta)
}

fn servers() -> Vec<ServerView> {
    vec![
        ServerView {
            name: "sagedeck-demo".into(),
            transport: TransportKind::Stdio,
            target: "sagedeck mcp serve --demo-tools".into(),
            status: ServerStatus::Connected {
                protocol_version: "2025-11-25".into(),
                connect_ms: 6.2,
            },
            server: Some("sagedeck-demo 0.1.0".into()),
            tools: vec![
                classify_tool(),
                tool(
                    "search",
                    pydantic_search_schema(),
                    ToolAnnotations::new().read_only(true),
                ),
                tool("notify", notify_schema(), ToolAnnotations::new()),
                tool(
                    "delete_endpoint",
                    delete_schema(),
                    ToolAnnotations::new().read_only(false).destructive(true),
                ),
            ],
            auth: AuthState::None,
        },
        ServerView {
            name: "radio-station".into(),
            transport: TransportKind::Sse,
            target: "http://127.0.0.1:8000/sse".into(),
            status: ServerStatus::Failed {
                class: "not_found".into(),
                reason: "HTTP 404 at http://127.0.0.1:8000/sse: wrong transport? try http".into(),
            },
            server: None,
            tools: vec![],
            auth: AuthState::None,
        },
        ServerView {
            name: "everything".into(),
            transport: TransportKind::Stdio,
            target: "node dist/index.js stdio".into(),
            status: ServerStatus::Connecting,
            server: None,
            tools: vec![],
            auth: AuthState::None,
        },
    ]
}

fn metrics() -> MetricsSnapshot {
    let vm = |v: &str, p99: f64| VariantMetrics {
        endpoint: EP.into(),
        variant: v.into(),
        multi_model: false,
        summary: VariantSummary {
            model_latency_p99_ms: Some(p99),
            ..Default::default()
        },
        series: BTreeMap::new(),
    };
    MetricsSnapshot {
        start: 0.0,
        end: 900.0,
        period: 60,
        variants: vec![vm("Stable", 38.5), vm("Canary", 41.2)],
        components: Vec::new(),
        queries: 2,
        calls: 1,
        warnings: vec![],
    }
}

pub(crate) fn app_in(dir: &std::path::Path, read_only: bool) -> App {
    let data = Data {
        context: tui::context(),
        inventory: vec![
            endpoint(EP)
                .variants([
                    variant("Stable").weight(0.5).share(0.5),
                    variant("Canary").weight(0.5).share(0.5),
                ])
                .build(),
        ],
        loaded: true,
        read_only,
        fleet_metrics: Some(metrics()),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.panes
        .tools
        .set_args_path(Some(dir.join("state").join("tool_args.json")));
    app.panes.tools.set_servers(servers());
    app.tab = Tab::Tools;
    app
}

pub(crate) fn tool_calls(app: &mut App) -> Vec<(u64, String, Option<JsonObject>, u32)> {
    app.take_jobs()
        .into_iter()
        .filter_map(|(id, j)| match j {
            Job::Mcp(McpJob::ToolCall {
                tool,
                arguments,
                repeat,
                ..
            }) => Some((id, tool, arguments, repeat)),
            _ => None,
        })
        .collect()
}

pub(crate) fn outcome(tool: &str, ms: u64, result: RenderedResult) -> Result<CallOutcome, CallError> {
    Ok(CallOutcome {
        tool: tool.into(),
        result,
        raw: Value::Null,
        duration: Duration::from_millis(ms),
        progress: 0,
        last_progress: None,
        task: None,
        input_rounds: 0,
    })
}

pub(crate) fn classified(variant: &str) -> RenderedResult {
    let s = json!({"intent": "refund", "score": 0.91,
        "sagemaker": {"endpoint": EP, "invoked_variant": variant, "attempts": 1, "latency_ms": 12.3}});
    RenderedResult {
        is_error: false,
        blocks: vec![Block::Json { value: s.clone() }],
        structured: Some(s),
        schema_errors: Some(vec![]),
    }
}

pub(crate) fn screen(app: &mut App) -> String {
    screen_sized(app, 120, 30)
}

fn screen_sized(app: &mut App, w: u16, h: u16) -> String {
    app.toasts = Toasts::default();
    tui::render(app, w, h)
}

fn toast_texts(app: &App) -> Vec<String> {
    app.toasts.log.iter().map(|e| e.text.clone()).collect()
}

fn form(app: &App) -> &SchemaForm {
    &app.panes.tools.tool_form().expect("a form").form
}

/// Moves the form's cursor to the row of `path` with arrow keys.
fn goto(app: &mut App, path: &str) {
    for _ in 0..2 {
        for _ in 0..40 {
            if form(app).rows[form(app).cursor].path == path {
                return;
            }
            app.on_key(key(KeyCode::Down));
        }
        for _ in 0..40 {
            app.on_key(key(KeyCode::Up));
        }
    }
    panic!("no row {path} in {:?}", paths(form(app)));
}

fn paths(f: &SchemaForm) -> Vec<String> {
    f.rows.iter().map(|r| r.path.clone()).collect()
}

// ---- forms from the corpus ----

/// Selects classify_intent, and types `input` as its user_input in the form.
pub(crate) fn type_classify(app: &mut App, input: &str) {
    assert!(app.panes.tools.select("sagedeck-demo", "classify_intent"));
    app.on_key(key(KeyCode::Enter));
    press(app, input);
    app.on_key(key(KeyCode::Enter));
}

#[test]
fn forms_follow_refs_defaults_optional_and_choices() {
    let f = SchemaForm::new(&pydantic_search_schema());
    assert_eq!(
        paths(&f),
        [
            "$.query",
            "$.filter",
            "$.filter.status",
            "$.filter.tags",
            "$.limit",
            "$.sort",
            "$.sort.field",
            "$.sort.descending"
        ]
    );
    // allOf[$ref] and anyOf[$ref, null] are the referenced objects, not choices.
    assert_eq!(f.node_at(1).unwrap().kind, Kind::Object);
    assert_eq!(f.node_at(1).unwrap().description.as_deref(), Some("What to keep"));
    assert_eq!(f.node_at(5).unwrap().kind, Kind::Object);
    assert!(matches!(&f.node_at(2).unwrap().kind, Kind::Enum(v) if v.len() == 3));
    // Defaults are shown (limit 10, filter.status "open", sort.descending false); optional
    // objects holding only defaults are left out, so sort is not sent half-filled.
    assert_eq!(f.node_at(4).unwrap().text, "10");
    assert_eq!(f.node_at(2).unwrap().pick, Some(0));
    assert_eq!(f.node_at(7).unwrap().flag, Some(false));
    assert_eq!(f.value(), json!({"limit": 10}));
    // query is required and empty: its row carries the problem.
    assert!(!f.is_valid());
    assert_eq!(f.row_errors["$.query"], ["required"]);
    let mut g = f.clone();
    g.set_value(&json!({"query": "x", "sort": {"descending": true}}));
    // The anyOf wrapper reports on the field itself, naming what is missing inside.
    assert!(
        g.row_errors["$.sort"][0].contains("missing required property `field`"),
        "{:?}",
        g.row_errors
    );

    let n = SchemaForm::new(&notify_schema());
    assert_eq!(
        paths(&n),
        [
            "$.message",
            "$.target",
            "$.target.email",
            "$.attachments",
            "$.priority",
            "$.ttl_seconds"
        ]
    );
    assert_eq!(n.node_at(1).unwrap().kind, Kind::Choice);
    assert_eq!(n.value()["priority"], json!("normal"));
    // Filling from a value picks the oneOf option it fits.
    let mut n2 = n.clone();
    n2.set_value(&json!({"message": "hi", "target": {"channel": "#oncall"}, "attachments": [{"name": "a.log"}]}));
    assert_eq!(
        paths(&n2),
        [
            "$.message",
            "$.target",
            "$.target.channel",
            "$.target.thread_ts",
            "$.attachments",
            "$.attachments[0]",
            "$.attachments[0].name",
            "$.attachments[0].url",
            "$.priority",
            "$.ttl_seconds"
        ]
    );
    assert!(n2.is_valid(), "{:?}", n2.errors);
    assert_eq!(
        n2.value(),
        json!({"message": "hi", "target": {"channel": "#oncall"}, "attachments": [{"name": "a.log"}]}),
        "a key absent from the value is absent from the form (the raw editor deleted it)"
    );
}

#[test]
fn recursive_refs_stop_and_unknown_shapes_are_raw_json() {
    let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}, "blob": {}},
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}}});
    let f = SchemaForm::new(&tree);
    assert!(f.rows.len() < 20, "{}", f.rows.len());
    let blob = f.rows.iter().position(|r| r.path == "$.blob").unwrap();
    assert_eq!(f.node_at(blob).unwrap().kind, Kind::Json);
}

// ---- keys through the App ----

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
    assert!(app.panes.tools.select("sagedeck-demo", "search"));
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "q");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    let id = tool_calls(&mut app)[0].0;
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
    app.on_event(AppEvent::ToolResult {
        id,
        index: 0,
        result: outcome("search", 5, r),
    });
    let s = screen_sized(&mut app, 200, 40);
    for want in [
        "the tool reported an error (isError)",
        "[image image/png, 2.0 KiB]",
        "[resource link app.log: file:///var/log/app.log (text/plain)]",
    ] {
        assert!(s.contains(want), "{want} not in\n{s}");
    }
}

// ---- against sagedeck's own server, over the wire ----

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
    let fleet = common::fleet(&sb).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let dir = tempfile::tempdir().unwrap();
    let audit_path = dir.path().join("audit.jsonl");
    let jobs = sagedeck::tui::worker::spawn_guarded(
        Default::default(),
        Some(fleet),
        Default::default(),
        tx,
        Some(hub.clone()),
        sagedeck::tui::worker::GuardOptions {
            audit_path: Some(audit_path.clone()),
            plan_dir: Some(dir.path().join("plans")),
            ..Default::default()
        },
    );
    let mut app = App::new(Data::default(), Theme::default_theme());
    app.panes.tools.set_args_path(Some(dir.path().join("tool_args.json")));
    app.tab = Tab::Tools;
    sagedeck::tui::attach_mcp(&mut app, &hub);
    assert_eq!(app.panes.tools.servers()[0].status, ServerStatus::Connecting);
    app.submit(Job::Fleet(FleetJob::Inventory { selected: None }));

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

    pump(
        &mut app,
        &jobs,
        &mut rx,
        "the server to connect and the inventory",
        |a| a.data.loaded && matches!(a.panes.tools.servers()[0].status, ServerStatus::Connected { .. }),
    )
    .await;
    let names: Vec<String> = app.panes.tools.servers()[0]
        .tools
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "classify_intent",
            "generate_text",
            "score_churn",
            "tenant_classify",
            "explain_intent",
            "summarize_async",
            "classify_on_variant"
        ]
    );
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

#[test]
fn a_long_tool_description_shows_whole_or_says_where_to_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    let mut servers = servers();
    let long = "Classifies the intent of a customer's message with the SageMaker endpoint behind it and \
                returns the intent with its score; call it before routing the conversation to an agent \
                or a queue (lastword)";
    servers[0].tools[0].description = Some(long.to_string().into());
    app.panes.tools.set_servers(servers);
    assert!(app.panes.tools.select("sagedeck-demo", "classify_intent"));
    // The Tool box's rows (the right column's first box), borders and padding removed, joined.
    let tool_box = |s: &str| -> String {
        s.lines()
            .skip(3)
            .take_while(|l| !l.contains("Arguments"))
            .filter_map(|l| l.split('│').nth(3))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
    };
    // At 140x40 the box has room: the description is whole, the form keeps its place.
    let s = screen_sized(&mut app, 140, 40);
    insta::assert_snapshot!("tools_long_description_140x40", s);
    assert!(
        tool_box(&s).contains("call it before routing the conversation to an agent or a queue (lastword)"),
        "{s}"
    );
    assert!(s.contains("Arguments"), "{s}");
    // At 80x24 it is cut where it says how to read it whole; `d` shows the whole tool.
    let s = screen_sized(&mut app, 80, 24);
    insta::assert_snapshot!("tools_long_description_80x24", s);
    let shown = tool_box(&s);
    assert!(
        shown.contains("Classifies the intent") && shown.contains("… d: the whole tool"),
        "{s}"
    );
    assert!(s.contains("Arguments"), "{s}");
    for _ in 0..3 {
        if app.panes.tools.focus() != Focus::Tools {
            app.on_key(key(KeyCode::Esc));
        }
    }
    assert_eq!(app.panes.tools.focus(), Focus::Tools);
    press(&mut app, "d");
    assert!(matches!(app.overlay, Some(Overlay::Describe(_))));
    let s = screen_sized(&mut app, 80, 24);
    assert!(s.contains("(lastword)"), "the describe overlay wraps it whole:\n{s}");
}

#[test]
fn server_text_is_drawn_with_its_escape_sequences_written_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    let mut now = servers();
    now[0].tools[1] = tool(
        "search",
        pydantic_search_schema(),
        ToolAnnotations::new().read_only(true),
    )
    .with_title("Search\x1b]0;pwned\x07");
    app.on_event(AppEvent::McpServers {
        servers: now,
        logs: vec![],
    });
    assert!(app.panes.tools.select("sagedeck-demo", "search"));
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "q");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    let id = tool_calls(&mut app)[0].0;
    let r = RenderedResult {
        is_error: false,
        blocks: vec![Block::Text {
            text: "notes\x1b]52;c;ZWNobw==\x07 clear\x1b[2J\x1b[H c1\u{9b}31m".into(),
        }],
        structured: None,
        schema_errors: None,
    };
    app.on_event(AppEvent::ToolResult {
        id,
        index: 0,
        result: outcome("search", 5, r),
    });
    let s = screen_sized(&mut app, 200, 40);
    for want in [
        "Search\\x1b]0;pwned\\x07",
        "notes\\x1b]52;c;ZWNobw==\\x07 clear\\x1b[2J\\x1b[H c1\\u{9b}31m",
    ] {
        assert!(s.contains(want), "{want} not in\n{s}");
    }
}
