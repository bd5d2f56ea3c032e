//! The Tools tab (MCP) driven by key events and worker events through the real `App`: forms
//! generated from a corpus of real-world input schemas, inline validation, the raw JSON editor
//! kept in sync, destructive confirmation, read-only refusal, repeat statistics, remembered
//! arguments, cancel, the endpoint link; snapshots of the screen (120×30, default theme); and the
//! pane with the real worker against sagedeck's own `mcp serve` over the sandbox.
//!
//! `forms`: forms from the corpus; `keys`: the pane driven by keys; `wire`: the real worker and
//! server; `text`: long descriptions and escaped server text.

mod forms;
mod keys;
pub(crate) use keys::type_classify;
mod text;
mod wire;

use crate::common;
use crate::common::builders::{endpoint, shared, variant};

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
use sagedeck::tui::event::McpJob;
use sagedeck::tui::event::{AppEvent, Job};
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
        inventory: shared(vec![
            endpoint(EP)
                .variants([
                    variant("Stable").weight(0.5).share(0.5),
                    variant("Canary").weight(0.5).share(0.5),
                ])
                .build(),
        ]),
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

/// Calls `search` (query `q`) from the pane, answers it with `r`, and draws the screen at
/// 200×40.
fn searched(app: &mut App, r: RenderedResult) -> String {
    assert!(app.panes.tools.select("sagedeck-demo", "search"));
    app.on_key(key(KeyCode::Enter));
    press(app, "q");
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    let id = tool_calls(app)[0].0;
    app.on_event(AppEvent::ToolResult {
        id,
        index: 0,
        result: outcome("search", 5, r),
    });
    screen_sized(app, 200, 40)
}
