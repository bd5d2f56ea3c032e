//! The Invoke pane driven by key events and worker events through the real `App`, with snapshots
//! of the screen (120×30, default theme). Fixtures are built by hand: no network, no clock.

use std::time::Duration;

use crossterm::event::KeyCode;

use sagedeck::aws::AwsError;
use sagedeck::aws::endpoints::catalog::{Catalog, CatalogEntry};
use sagedeck::aws::invoke::call::{InvokeFailure, InvokeResult, InvokeSpec};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::FleetJob;
use sagedeck::tui::event::{AppEvent, Job};
use sagedeck::tui::panes::invoke::{BodyCheck, CallState, Field};
use sagedeck::tui::panes::{Pane, Tab};
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::toasts::Toasts;

use crate::common::builders::{endpoint, shared, variant};
use crate::common::tui::{self, ctrl, key, press};

const EP: &str = "mcp-intent-classifier-prod";
const MME: &str = "mcp-tenant-models";
const HF: &str = "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.1.0-transformers4.37.0-cpu-py310-ubuntu22.04";

fn catalog() -> Catalog {
    let entry = |key: &str| CatalogEntry {
        key: key.into(),
        size: 1000,
        last_modified: None,
        etag: None,
    };
    Catalog {
        bucket: "sagedeck-demo-models".into(),
        prefix: "tenants/".into(),
        models: vec![
            entry("tenant-acme-v1.tar.gz"),
            entry("tenant-acme-v2.tar.gz"),
            entry("tenant-globex.tar.gz"),
        ],
        pages: 1,
    }
}

fn app_with(read_only: bool) -> App {
    let mut data = Data {
        context: tui::context(),
        inventory: shared(vec![
            endpoint(EP)
                .variants([
                    variant("Stable").image(HF).weight(0.9).share(0.9),
                    variant("Canary").image(HF).weight(0.1).share(0.1),
                ])
                .build(),
            endpoint(MME)
                .variants([variant("AllTraffic")
                    .image(HF)
                    .mme("s3://sagedeck-demo-models/tenants/")])
                .build(),
            endpoint("xgboost-churn")
                .variants([
                    variant("AllTraffic").image("683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1")
                ])
                .build(),
        ]),
        loaded: true,
        selected: Some(EP.into()),
        read_only,
        ..Default::default()
    };
    data.catalogs.insert(MME.into(), catalog());
    let mut app = App::new(data, Theme::default_theme());
    app.tab = Tab::Invoke;
    app
}

fn app() -> App {
    app_with(false)
}

/// The Invoke jobs queued since the last call (other jobs dropped).
fn invokes(app: &mut App) -> Vec<(u64, InvokeSpec, u32)> {
    app.take_jobs()
        .into_iter()
        .filter_map(|(id, j)| match j {
            Job::Fleet(FleetJob::Invoke { spec, repeat }) => Some((id, spec, repeat)),
            _ => None,
        })
        .collect()
}

fn ok(variant: &str, ms: u64, body: &str) -> Result<InvokeResult, InvokeFailure> {
    Ok(InvokeResult {
        body: body.as_bytes().to_vec(),
        content_type: Some("application/json".into()),
        invoked_variant: Some(variant.into()),
        custom_attributes: None,
        latency: Duration::from_micros(ms * 1000 + 400),
        total: Duration::from_millis(ms + 1),
        attempts: 1,
        retried: vec![],
        session: Default::default(),
        instance: None,
    })
}

fn model_error() -> Result<InvokeResult, InvokeFailure> {
    Err(InvokeFailure {
        error: AwsError::ModelError {
            original_status: Some(400),
            original_message: Some(
                r#"{"code": 400, "type": "InternalServerException", "message": "\"inputs\" key is required in the request body"}"#
                    .into(),
            ),
            message: "Received client error (400) from primary with message \"...\"".into(),
            log_stream_arn: Some(
                "arn:aws:logs:us-east-1:123456789012:log-group:/aws/sagemaker/Endpoints/mcp-intent-classifier-prod".into(),
            ),
        },
        attempts: 1,
        total: Duration::from_micros(31_200),
    })
}

fn feed(app: &mut App, id: u64, index: u32, result: Result<InvokeResult, InvokeFailure>) {
    app.on_event(AppEvent::Invoked { id, index, result });
}

fn screen(app: &mut App) -> String {
    app.toasts = Toasts::default();
    tui::render(app, 120, 30)
}

fn toast_texts(app: &App) -> Vec<String> {
    app.toasts.log.iter().map(|e| e.text.clone()).collect()
}

#[test]
fn typing_goes_into_the_editor_and_is_sent() {
    let mut app = app();
    // `x` clears the body and stays in command mode: the next key is a command, not body text.
    press(&mut app, "x");
    assert_eq!(app.panes.invoke.focus(), None);
    assert!(!app.panes.invoke.capturing_text());
    assert_eq!(app.panes.invoke.form().unwrap().body_text(), "");
    press(&mut app, "j");
    assert_eq!(
        app.panes.invoke.form().unwrap().body_text(),
        "",
        "j scrolled, typed nothing"
    );
    // `i` focuses the editor; global letters (q, r, 1) are typed, not obeyed.
    press(&mut app, "i");
    assert_eq!(app.panes.invoke.focus(), Some(Field::Body));
    assert!(app.panes.invoke.capturing_text());
    press(&mut app, r#"{"inputs": "q r 1"}"#);
    assert!(!app.quit);
    assert_eq!(app.tab, Tab::Invoke);
    let form = app.panes.invoke.form().unwrap();
    assert_eq!(form.body_text(), r#"{"inputs": "q r 1"}"#);
    assert_eq!(form.check, BodyCheck::Json);
    // Enter is a newline in the editor; Esc leaves the field first.
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.panes.invoke.form().unwrap().body.lines().len(), 2);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.panes.invoke.focus(), None);
    assert!(!app.panes.invoke.capturing_text());
    app.on_key(ctrl('s'));
    let jobs = invokes(&mut app);
    assert_eq!(jobs.len(), 1);
    let (_, spec, repeat) = &jobs[0];
    assert_eq!(spec.endpoint, EP);
    assert_eq!(spec.body, b"{\"inputs\": \"q r 1\"}\n");
    assert_eq!(repeat, &1);
    assert_eq!(app.panes.invoke.history().len(), 1);
}

#[test]
fn invalid_json_blocks_sending_with_line_and_column() {
    let mut app = app();
    press(&mut app, "xi");
    press(&mut app, r#"{"inputs": }"#);
    let BodyCheck::Invalid { line, column, .. } = app.panes.invoke.form().unwrap().check.clone() else {
        panic!("the body should be invalid");
    };
    assert_eq!((line, column), (1, 12));
    app.on_key(key(KeyCode::Esc));
    app.on_key(key(KeyCode::F(5)));
    assert!(invokes(&mut app).is_empty(), "invalid JSON must not be sent");
    let notice = app.panes.invoke.notice().unwrap();
    assert!(notice.contains("line 1, column 12"), "{notice}");
    assert!(toast_texts(&app).iter().any(|t| t.contains("not sent")));
    // The editor has focus again with the cursor at the error.
    assert_eq!(app.panes.invoke.focus(), Some(Field::Body));
    assert!(app.panes.invoke.form().unwrap().body.cursor() == (0, 11));
    assert!(
        app.panes
            .invoke
            .keys(&app.data)
            .iter()
            .any(|k| k.action == "send" && k.disabled)
    );
    // Fixing it (`f` would refuse; Backspace and a value) makes it sendable.
    app.on_key(key(KeyCode::End));
    app.on_key(key(KeyCode::Backspace));
    press(&mut app, "1}");
    app.on_key(ctrl('s'));
    assert_eq!(invokes(&mut app).len(), 1);
    assert_eq!(app.panes.invoke.notice(), None);
}

#[test]
fn the_form_builds_the_spec() {
    let mut app = app();
    // Variant cycles: by weight → Stable → Canary.
    press(&mut app, "vv");
    // Repeat 3 through the field; Tab moves on to the body, Esc leaves.
    press(&mut app, "n");
    assert_eq!(app.panes.invoke.focus(), Some(Field::Repeat));
    app.on_key(key(KeyCode::Backspace));
    press(&mut app, "3x");
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.panes.invoke.focus(), Some(Field::Body));
    app.on_key(key(KeyCode::BackTab));
    assert_eq!(app.panes.invoke.focus(), Some(Field::Repeat));
    app.on_key(key(KeyCode::Esc));
    // Accept: cleared with Ctrl-U, then a common type chosen with ↓.
    press(&mut app, "a");
    app.on_key(ctrl('u'));
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.panes.invoke.focus(), None);
    app.on_key(ctrl('s'));
    let jobs = invokes(&mut app);
    let (_, spec, repeat) = &jobs[0];
    assert_eq!(*repeat, 3);
    assert_eq!(spec.target_variant.as_deref(), Some("Canary"));
    assert_eq!(spec.content_type, "application/json");
    assert_eq!(spec.accept.as_deref(), Some("application/json"));
    assert_eq!(spec.target_model, None);
    let body: serde_json::Value = serde_json::from_slice(&spec.body).unwrap();
    assert_eq!(body["parameters"]["max_length"], 128);
    assert_eq!(body["parameters"]["return_all_scores"], true);
    // Tab with no field focused is the global tab switch.
    app.on_key(key(KeyCode::Tab));
    assert_eq!(app.tab, Tab::Tools);
}

#[test]
fn defaults_follow_the_container_and_pretty_print_keeps_order() {
    let mut app = app();
    app.data.selected = Some("xgboost-churn".into());
    press(&mut app, "g");
    let form = app.panes.invoke.form().unwrap();
    assert_eq!(form.content_type, "text/csv");
    assert_eq!(form.body_text(), "0.5,1.0,3,12.5,0");
    app.data.selected = Some(EP.into());
    press(&mut app, "xi");
    press(&mut app, r#"{"z": 1, "a": [true]}"#);
    app.on_key(key(KeyCode::Esc));
    press(&mut app, "f");
    assert_eq!(
        app.panes.invoke.form().unwrap().body_text(),
        "{\n  \"z\": 1,\n  \"a\": [\n    true\n  ]\n}"
    );
    // `b` puts the default back.
    press(&mut app, "b");
    assert!(
        app.panes
            .invoke
            .form()
            .unwrap()
            .body_text()
            .contains("return_all_scores")
    );
}

#[test]
fn mme_target_model_completes_from_the_catalog() {
    let mut app = app();
    app.data.selected = Some(MME.into());
    press(&mut app, "g");
    // The first catalog model is preselected; `m` edits it with completion.
    assert_eq!(app.panes.invoke.form().unwrap().model, "tenant-acme-v1.tar.gz");
    press(&mut app, "m");
    app.on_key(ctrl('u'));
    press(&mut app, "acme");
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(app.panes.invoke.form().unwrap().model, "tenant-acme-v2.tar.gz");
    app.on_key(key(KeyCode::F(5)));
    let jobs = invokes(&mut app);
    assert_eq!(jobs[0].1.target_model.as_deref(), Some("tenant-acme-v2.tar.gz"));
    // Without a model an MME call is refused inline.
    press(&mut app, "m");
    app.on_key(ctrl('u'));
    app.on_key(key(KeyCode::Esc));
    app.on_key(ctrl('s'));
    assert!(invokes(&mut app).is_empty());
    assert!(app.panes.invoke.notice().unwrap().contains("target model"));
    // A catalog that arrives after the form preselects its first model.
    let mut app2 = app_with(false);
    let later = app2.data.catalogs.remove(MME).unwrap();
    app2.data.selected = Some(MME.into());
    press(&mut app2, "g");
    assert_eq!(app2.panes.invoke.form().unwrap().model, "");
    app2.on_event(AppEvent::Catalog {
        endpoint: MME.into(),
        result: Ok(later),
    });
    press(&mut app2, "g");
    assert_eq!(app2.panes.invoke.form().unwrap().model, "tenant-acme-v1.tar.gz");
    // `m` on a single-model endpoint is refused.
    app.data.selected = Some(EP.into());
    press(&mut app, "m");
    assert_eq!(app.panes.invoke.focus(), None);
}

#[test]
fn read_only_refuses_sending() {
    let mut app = app_with(true);
    app.on_key(ctrl('s'));
    app.on_key(key(KeyCode::F(5)));
    assert!(invokes(&mut app).is_empty());
    assert!(
        toast_texts(&app)
            .iter()
            .any(|t| t.starts_with("read-only: invoking is disabled"))
    );
    let hints = app.panes.invoke.keys(&app.data);
    assert!(hints.iter().any(|k| k.key == "^S/F5" && k.disabled));
}

#[test]
fn repeat_results_aggregate_into_percentiles_and_variant_split() {
    let mut app = app();
    press(&mut app, "n");
    app.on_key(ctrl('u'));
    press(&mut app, "10");
    app.on_key(key(KeyCode::Esc));
    app.on_key(ctrl('s'));
    let (id, _, repeat) = invokes(&mut app).remove(0);
    assert_eq!(repeat, 10);
    for i in 0..9u32 {
        let v = if i % 3 == 0 { "Canary" } else { "Stable" };
        feed(&mut app, id, i, ok(v, 10 * (u64::from(i) + 1), "[]"));
        assert_eq!(app.panes.invoke.history()[0].state, CallState::Running);
    }
    feed(&mut app, id, 9, model_error());
    let call = &app.panes.invoke.history()[0];
    assert_eq!(call.state, CallState::Done);
    assert_eq!((call.ok, call.failed, call.attempts), (9, 1, 10));
    assert_eq!(call.variants.get("Canary"), Some(&3));
    assert_eq!(call.variants.get("Stable"), Some(&6));
    assert_eq!(call.errors.get("model_error"), Some(&1));
    let p = call.stats.percentiles().unwrap();
    assert_eq!(p.count, 9);
    assert!((p.p50_ms - 50.4).abs() < 0.1, "{p:?}");
    assert!((p.p99_ms - 90.4).abs() < 0.1, "{p:?}");
    assert_eq!(app.data.own_latency.count(), 9);
    assert!(toast_texts(&app).iter().any(|t| t.contains("×10: 9/10 ok")));
    // Answers of unknown jobs are ignored.
    feed(&mut app, 999, 0, model_error());
    assert_eq!(app.panes.invoke.history().len(), 1);
}

#[test]
fn history_reruns_and_loads_calls() {
    let mut app = app();
    press(&mut app, "vv");
    app.on_key(ctrl('s'));
    let (id, first, _) = invokes(&mut app).remove(0);
    feed(&mut app, id, 0, ok("Canary", 20, "[]"));
    // Change the form, then re-run the first call from the history: the old spec is sent.
    press(&mut app, "v");
    press(&mut app, "h");
    assert!(app.panes.invoke.history_open());
    app.on_key(key(KeyCode::Enter));
    let (_, again, repeat) = invokes(&mut app).remove(0);
    assert_eq!(repeat, 1);
    assert_eq!(again.target_variant, first.target_variant);
    assert_eq!(again.body, first.body);
    assert_eq!(app.panes.invoke.history().len(), 2);
    assert_eq!(app.panes.invoke.history()[1].number, 2);
    // `l` loads call #1 back into the form.
    app.on_key(key(KeyCode::Up));
    press(&mut app, "l");
    assert!(!app.panes.invoke.history_open());
    assert_eq!(app.panes.invoke.form().unwrap().variant.as_deref(), Some("Canary"));
    // Esc cancels the newest call: it shows as cancelled.
    let id2 = app.panes.invoke.history()[1].id.unwrap();
    app.on_event(AppEvent::Started {
        id: id2,
        kind: sagedeck::tui::event::JobKind::Fleet(sagedeck::tui::event::FleetKind::Invoke),
        label: "invoking".into(),
    });
    app.on_key(key(KeyCode::Esc));
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Cancel(c) if *c == id2))
    );
    app.on_event(AppEvent::Finished {
        id: id2,
        cancelled: true,
    });
    assert_eq!(app.panes.invoke.history()[1].state, CallState::Cancelled);
}

#[test]
fn snapshot_empty_form() {
    let mut app = app();
    insta::assert_snapshot!("empty_form_json", screen(&mut app));
}

#[test]
fn snapshot_json_response() {
    let mut app = app();
    press(&mut app, "v");
    app.on_key(ctrl('s'));
    let (id, _, _) = invokes(&mut app).remove(0);
    feed(
        &mut app,
        id,
        0,
        ok(
            "Stable",
            23,
            r#"[{"label":"book_flight","score":0.912},{"label":"check_weather","score":0.041},{"label":"smalltalk","score":0.02}]"#,
        ),
    );
    insta::assert_snapshot!("json_response", screen(&mut app));
}

#[test]
fn snapshot_model_error() {
    let mut app = app();
    press(&mut app, "xi");
    press(&mut app, r#"{"text": "hello"}"#);
    app.on_key(key(KeyCode::Esc));
    app.on_key(ctrl('s'));
    let (id, _, _) = invokes(&mut app).remove(0);
    feed(&mut app, id, 0, model_error());
    insta::assert_snapshot!("model_error", screen(&mut app));
}

#[test]
fn snapshot_invalid_json() {
    let mut app = app();
    press(&mut app, "xi");
    press(&mut app, "{\"inputs\": \"hi\",");
    app.on_key(key(KeyCode::Enter));
    press(&mut app, "  \"parameters\": {]");
    app.on_key(ctrl('s'));
    insta::assert_snapshot!("invalid_json", screen(&mut app));
}

#[test]
fn snapshot_repeat_statistics() {
    let mut app = app();
    press(&mut app, "n");
    app.on_key(ctrl('u'));
    press(&mut app, "20");
    app.on_key(key(KeyCode::Esc));
    app.on_key(ctrl('s'));
    let (id, _, _) = invokes(&mut app).remove(0);
    for i in 0..19u32 {
        let v = if i % 4 == 0 { "Canary" } else { "Stable" };
        feed(
            &mut app,
            id,
            i,
            ok(
                v,
                18 + u64::from(i * 7 % 23),
                r#"[{"label":"book_flight","score":0.9}]"#,
            ),
        );
    }
    feed(&mut app, id, 19, model_error());
    press(&mut app, "h");
    insta::assert_snapshot!("repeat_statistics", screen(&mut app));
}

#[test]
fn snapshot_mme_model_completion() {
    let mut app = app();
    app.data.selected = Some(MME.into());
    press(&mut app, "m");
    app.on_key(ctrl('u'));
    press(&mut app, "tenant");
    app.on_key(key(KeyCode::Down));
    insta::assert_snapshot!("mme_model_completion", screen(&mut app));
}
