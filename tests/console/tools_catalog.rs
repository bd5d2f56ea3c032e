//! The Tools tab's Resources and Prompts views and its elicitation dialog, driven by keys and
//! worker events through the real `App`: `v` switches views, Enter reads a resource, a template
//! and a prompt take their arguments in the schema form, `s` subscribes and updates are counted
//! (and the shown resource read again), the protocol agreed in the header; a server's form and
//! URL elicitation answered accept, decline and cancel; and the demo server's own resources
//! (`sagedeck mcp serve --demo-tools`, the real binary) in the Resources view. Snapshots at
//! 120×30.

use crossterm::event::KeyCode;
use rmcp::model::{Prompt, PromptArgument, Resource, ResourceTemplate};
use serde_json::json;

use sagedeck::mcp::elicit::{ElicitAnswer, Elicitation, Elicitor};
use sagedeck::mcp::resources::Catalog;
use sagedeck::mcp::{ServerStatus, ServerView, TransportKind};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{AppEvent, ElicitSlot, Job, McpJob, ReadTarget};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::tools::catalog::View;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::toasts::Toasts;

use crate::common::tui::{self, ctrl, key, press, tap};

fn app() -> App {
    let data = Data {
        context: tui::context(),
        loaded: true,
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.panes.tools.set_args_path(None);
    app.panes.tools.set_servers(vec![ServerView {
        name: "library".into(),
        transport: TransportKind::Stdio,
        target: "python library_server.py stdio".into(),
        status: ServerStatus::Connected {
            protocol_version: "2025-11-25".into(),
            connect_ms: 912.0,
        },
        server: Some("Library Server 1.30.0".into()),
        auth: sagedeck::mcp::oauth::AuthState::None,
        tools: vec![],
    }]);
    app.tab = Tab::Tools;
    app
}

fn catalog() -> Catalog {
    let mut catalog_res = Resource::new("library://catalog", "catalog");
    catalog_res.title = Some("Library catalog".into());
    catalog_res.mime_type = Some("application/json".into());
    catalog_res.description = Some("Every book on the shelves".into());
    let mut cover = Resource::new("library://cover.png", "cover");
    cover.mime_type = Some("image/png".into());
    let template = ResourceTemplate::new("library://books/{isbn}", "book");
    let arg = PromptArgument::new("author").with_required(true);
    let prompt = Prompt::new("interview", Some("An interview with an author"), Some(vec![arg]));
    Catalog {
        resources: vec![catalog_res, cover],
        templates: vec![template],
        prompts: vec![prompt],
    }
}

fn screen(app: &mut App) -> String {
    app.toasts = Toasts::default();
    tui::render(app, 120, 30)
}

fn reads(app: &mut App) -> Vec<McpJob> {
    app.take_jobs()
        .into_iter()
        .filter_map(|(_, j)| match j {
            Job::Mcp(j @ (McpJob::Read { .. } | McpJob::Subscribe { .. })) => Some(j),
            _ => None,
        })
        .collect()
}

fn read_of(uri: &str) -> McpJob {
    McpJob::Read {
        server: "library".into(),
        target: ReadTarget::Resource(uri.into()),
    }
}

/// Types `text` into the form field under the cursor (Enter edits, Enter ends).
fn type_field(app: &mut App, text: &str) {
    tap(app, KeyCode::Enter);
    press(app, text);
    tap(app, KeyCode::Enter);
}

#[test]
fn resources_view_reads_templates_and_subscribes() {
    let mut app = app();
    app.on_event(AppEvent::McpCatalog {
        server: "library".into(),
        catalog: Ok(catalog()),
    });
    press(&mut app, "v");
    assert_eq!(app.panes.tools.catalog().view, View::Resources);
    tap(&mut app, KeyCode::Enter); // servers → rows
    tap(&mut app, KeyCode::Enter); // read the catalog
    assert_eq!(reads(&mut app), vec![read_of("library://catalog")]);
    app.on_event(AppEvent::McpContent {
        server: "library".into(),
        what: "library://catalog".into(),
        lines: Ok(vec![
            "library://catalog (application/json)".into(),
            "{\"books\": [\"978-0\"]}".into(),
        ]),
    });
    press(&mut app, "s");
    let sub = reads(&mut app);
    assert!(
        matches!(&sub[..], [McpJob::Subscribe { on: true, uri, .. }] if uri == "library://catalog"),
        "{sub:?}"
    );
    app.on_event(AppEvent::McpSubscribed {
        server: "library".into(),
        uri: "library://catalog".into(),
        on: true,
        result: Ok(()),
    });
    // An update of the shown resource is counted and reads it again.
    app.on_event(AppEvent::McpUpdated {
        server: "library".into(),
        uri: "library://catalog".into(),
    });
    assert_eq!(reads(&mut app), vec![read_of("library://catalog")]);
    let s = screen(&mut app);
    assert!(s.contains("Library catalog (catalog) ◉ 1"), "{s}");
    assert!(s.contains("protocol 2025-11-25"), "{s}");
    insta::assert_snapshot!("tools_resources_view", s);

    // The template takes its variable in the form; an empty required one is not sent.
    tap(&mut app, KeyCode::Down);
    tap(&mut app, KeyCode::Down);
    tap(&mut app, KeyCode::Enter);
    app.on_key(ctrl('s'));
    assert!(reads(&mut app).is_empty(), "the required isbn is missing");
    type_field(&mut app, "42");
    app.on_key(ctrl('s'));
    assert_eq!(reads(&mut app), vec![read_of("library://books/42")]);
}

#[test]
fn prompts_view_gets_a_prompt_with_its_arguments() {
    let mut app = app();
    app.on_event(AppEvent::McpCatalog {
        server: "library".into(),
        catalog: Ok(catalog()),
    });
    press(&mut app, "vv");
    assert_eq!(app.panes.tools.catalog().view, View::Prompts);
    tap(&mut app, KeyCode::Enter);
    tap(&mut app, KeyCode::Enter); // the form of interview
    type_field(&mut app, "Le Guin");
    app.on_key(ctrl('s'));
    let jobs = reads(&mut app);
    let want = McpJob::Read {
        server: "library".into(),
        target: ReadTarget::Prompt {
            name: "interview".into(),
            arguments: json!({"author": "Le Guin"}).as_object().cloned().unwrap(),
        },
    };
    assert_eq!(jobs, vec![want]);
    app.on_event(AppEvent::McpContent {
        server: "library".into(),
        what: "prompt interview".into(),
        lines: Ok(vec![
            "[user]".into(),
            "Interview Le Guin.".into(),
            "[assistant]".into(),
            "Hello.".into(),
        ]),
    });
    insta::assert_snapshot!("tools_prompts_view", screen(&mut app));
    press(&mut app, "v");
    assert_eq!(app.panes.tools.catalog().view, View::Tools, "v comes back to the tools");
}

/// Asks through a real elicitor, hands the request to the app, and returns the pending answer.
async fn ask(app: &mut App, request: Elicitation) -> tokio::task::JoinHandle<ElicitAnswer> {
    let (elicitor, mut rx) = Elicitor::channel();
    let answer = tokio::spawn(async move { elicitor.ask("library", request).await });
    let asked = rx.recv().await.expect("the request");
    app.on_event(AppEvent::McpElicit(ElicitSlot::new(asked)));
    answer
}

#[tokio::test]
async fn elicitation_dialog_accepts_declines_and_cancels() {
    let mut app = app();
    app.tab = Tab::Endpoints;
    let form = Elicitation::Form {
        message: "Reserve Dune: for how long?".into(),
        schema: json!({"type": "object", "required": ["days"], "properties": {
            "days": {"type": "integer", "description": "How many days", "minimum": 1},
            "pickup": {"type": "boolean", "default": false}}}),
    };
    let answer = ask(&mut app, form.clone()).await;
    assert_eq!(app.tab, Tab::Tools, "the request brings the Tools tab forward");
    insta::assert_snapshot!("tools_elicitation_form", screen(&mut app));
    app.on_key(ctrl('s'));
    assert!(!answer.is_finished(), "days is required: nothing sent");
    assert!(screen(&mut app).contains("not sent"));
    type_field(&mut app, "3");
    app.on_key(ctrl('s'));
    assert_eq!(
        answer.await.unwrap(),
        ElicitAnswer::Accept {
            content: Some(json!({"days": 3, "pickup": false}))
        }
    );

    let answer = ask(&mut app, form).await;
    app.on_key(ctrl('d'));
    assert_eq!(answer.await.unwrap(), ElicitAnswer::Decline);

    let url = Elicitation::Url {
        message: "Verify your library card".into(),
        url: "https://library.example/verify?c=1".into(),
        id: "card-1".into(),
    };
    let answer = ask(&mut app, url.clone()).await;
    insta::assert_snapshot!("tools_elicitation_url", screen(&mut app));
    app.on_key(key(KeyCode::Esc));
    assert_eq!(answer.await.unwrap(), ElicitAnswer::Cancel);
    let answer = ask(&mut app, url).await;
    tap(&mut app, KeyCode::Enter);
    assert_eq!(answer.await.unwrap(), ElicitAnswer::Accept { content: None });
    assert!(!app.panes.tools.catalog().eliciting.active());
}

// ---- the demo server's own resources, over the wire ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_servers_endpoints_show_in_the_resources_view() {
    use sagedeck::mcp::registry::demo_entry;
    use sagedeck::mcp::{ConnectOptions, McpHub, Registry};

    let sb = crate::common::sandbox_with(crate::common::demo_config()).await;
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_sagedeck"));
    let registry = Registry {
        servers: vec![demo_entry(exe, &sb.endpoint_url())],
        source: None,
    };
    let hub = McpHub::new(&registry, ConnectOptions::default());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let fleet = Some(crate::common::fleet(&sb).await);
    let guard = sagedeck::tui::worker::GuardOptions::default();
    let jobs = sagedeck::tui::worker::spawn_guarded(
        Default::default(),
        fleet,
        Default::default(),
        tx,
        Some(hub.clone()),
        guard,
    );
    let mut app = tui::new_app();
    app.panes.tools.set_args_path(None);
    app.tab = Tab::Tools;
    sagedeck::tui::attach_mcp(&mut app, &hub);
    let listed = |a: &App| {
        a.inflight.is_empty()
            && a.panes
                .tools
                .catalog()
                .catalogs
                .get("sagedeck-demo")
                .is_some_and(|c| c.is_ok())
    };
    let deadline = std::time::Duration::from_secs(60);
    tui::pump_until(
        &mut app,
        &jobs,
        &mut rx,
        ("the demo server's catalog", deadline),
        listed,
        |_| {},
    )
    .await;
    // The time the connection took is the one thing that differs between runs.
    let mut views = app.panes.tools.servers().to_vec();
    if let ServerStatus::Connected { connect_ms, .. } = &mut views[0].status {
        *connect_ms = 250.0;
    }
    app.panes.tools.set_servers(views);
    press(&mut app, "v");
    tap(&mut app, KeyCode::Enter); // servers → rows
    let s = screen(&mut app);
    insta::assert_snapshot!("tools_resources_demo_server", s);
    // Enter reads the endpoint through the fleet layer, behind the server.
    tap(&mut app, KeyCode::Enter);
    let read = |a: &App| a.panes.tools.catalog().content.is_some();
    tui::pump_until(
        &mut app,
        &jobs,
        &mut rx,
        ("the endpoint's resource", deadline),
        read,
        |_| {},
    )
    .await;
    let s = screen(&mut app);
    assert!(s.contains("\"status\": \"InService\""), "{s}");
    hub.shutdown().await;
}
