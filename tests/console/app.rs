//! The console's state machine driven by keys and events (no terminal, no network), and insta
//! snapshots of the Endpoints pane, the overlays, and one reference screen per shipped theme.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sagedeck::aws::endpoints::autoscaling::ScalingInfo;
use sagedeck::aws::endpoints::inventory::{EndpointInfo, Inventory};
use sagedeck::tui::app::App;
use sagedeck::tui::data::{ContextInfo, Data};
use sagedeck::tui::event::{AppEvent, FleetJob, GuardJob, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::{BUILTIN, Theme};
use sagedeck::tui::widgets::Overlay;

// `screen` keeps the expression recorded in the snapshots.
use crate::common::builders::{self, EndpointBuilder, VariantBuilder};
use crate::common::tui::{ctrl, key as code, render as screen};

/// An endpoint of the fleet fixture: created at 1_790_000_000, one AllTraffic variant.
fn fleet_endpoint(name: &str, status: &str, modified: f64) -> EndpointBuilder {
    builders::endpoint(name)
        .status(status)
        .created(1_790_000_000.0)
        .modified(modified)
        .variants([fleet_variant("AllTraffic")])
}

/// A variant of the fleet fixture: a Hugging Face image, no traffic share measured.
fn fleet_variant(name: &str) -> VariantBuilder {
    builders::variant(name)
        .share(0.0)
        .image("huggingface-pytorch-inference")
}

/// A console with a loaded fleet of `n` extra endpoints besides the four named ones.
pub fn app_with_fleet(n: usize) -> App {
    let clf = fleet_endpoint("mcp-intent-classifier-prod", "InService", 1_790_500_000.0)
        .variants([
            fleet_variant("Stable").weight(9.0).instances(2),
            fleet_variant("Canary"),
        ])
        .autoscaling(vec![ScalingInfo {
            variant: "Stable".into(),
            min: 2,
            max: 6,
            policies: vec![],
        }]);
    let mme = fleet_endpoint("mcp-multi-model-endpoint", "InService", 1_790_400_000.0).variants([fleet_variant(
        "AllTraffic",
    )
    .instances(2)
    .mme("s3://b/tenants/")]);
    let failed = fleet_endpoint("mcp-embeddings-failed", "Failed", 1_790_300_000.0).failure("ping health check failed");
    let mut endpoints: Vec<EndpointInfo> = vec![
        clf.build(),
        mme.build(),
        failed.build(),
        fleet_endpoint("llm-tgi-chat", "Updating", 1_790_200_000.0).build(),
    ];
    for i in 0..n {
        endpoints.push(fleet_endpoint(&format!("fleet-ep-{i:04}"), "InService", 1_780_000_000.0 + i as f64).build());
    }
    let data = Data {
        context: ContextInfo {
            profile: "prod".into(),
            region: "us-east-1".into(),
            endpoint: "aws".into(),
        },
        refresh_interval: Duration::from_secs(10),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.on_event(AppEvent::Inventory(Ok(Inventory {
        endpoints: endpoints.into_iter().map(std::sync::Arc::new).collect(),
        failures: vec![],
        api_calls: 0,
        elapsed_ms: 0,
        ..Default::default()
    })));
    // Snapshots must not depend on the clock.
    app.data.last_ok = None;
    app.toasts = Default::default();
    app.take_jobs();
    app
}

fn key(c: char) -> KeyEvent {
    code(KeyCode::Char(c))
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.on_key(key(c));
    }
}

/// The screen with its styles: the text, then per row the runs of distinct styles.
fn styled_screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| sagedeck::tui::render::draw(f, app)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut styles: Vec<String> = Vec::new();
    let mut out = t.backend().to_string();
    out.push_str("\nstyle runs (row: start-end style#)\n");
    for y in 0..h {
        let mut runs = Vec::new();
        let mut start = 0;
        let mut current = String::new();
        for x in 0..w {
            let c = &buf[(x, y)];
            let s = format!("fg={:?} bg={:?} mod={:?}", c.fg, c.bg, c.modifier);
            if s != current {
                if x > 0 {
                    runs.push((start, x - 1, current.clone()));
                }
                start = x;
                current = s;
            }
        }
        runs.push((start, w - 1, current));
        let encoded: Vec<String> = runs
            .into_iter()
            .map(|(a, b, s)| {
                let id = styles.iter().position(|x| *x == s).unwrap_or_else(|| {
                    styles.push(s.clone());
                    styles.len() - 1
                });
                format!("{a}-{b}:{id}")
            })
            .collect();
        out.push_str(&format!("{y:02}: {}\n", encoded.join(" ")));
    }
    out.push_str("styles\n");
    for (i, s) in styles.iter().enumerate() {
        out.push_str(&format!("{i}: {s}\n"));
    }
    out
}

#[test]
fn tabs_switch_with_numbers_tab_and_commands() {
    let mut app = app_with_fleet(0);
    app.on_key(key('3'));
    assert_eq!(app.tab, Tab::Models);
    app.on_key(code(KeyCode::Tab));
    assert_eq!(app.tab, Tab::Latency);
    app.on_key(code(KeyCode::BackTab));
    app.on_key(code(KeyCode::BackTab));
    assert_eq!(app.tab, Tab::Variants);
    app.on_key(key(':'));
    type_text(&mut app, "invoke");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.tab, Tab::Invoke);
    app.on_key(key(':'));
    type_text(&mut app, "endp");
    app.on_key(code(KeyCode::Tab));
    assert_eq!(app.command_line.input, "endpoints");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.tab, Tab::Endpoints);
    // History: ↑ brings back the last command.
    app.on_key(key(':'));
    app.on_key(code(KeyCode::Up));
    assert_eq!(app.command_line.input, "endpoints");
    app.on_key(code(KeyCode::Esc));
    assert!(!app.command_line.open);
}

#[test]
fn command_line_changes_theme_refresh_and_read_only() {
    let mut app = app_with_fleet(0);
    app.on_key(key(':'));
    type_text(&mut app, "theme light");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.theme.name, "light");
    app.on_key(key(':'));
    type_text(&mut app, "theme nope");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.theme.name, "light", "a bad theme keeps the current one");
    assert!(app.toasts.log.last().unwrap().text.contains("no theme named"));
    app.on_key(key(':'));
    type_text(&mut app, "refresh 1");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.intervals.inventory, Duration::from_secs(10));
    app.on_key(key(':'));
    type_text(&mut app, "refresh 30");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.intervals.inventory, Duration::from_secs(30));
    app.on_key(key(':'));
    type_text(&mut app, "readonly");
    app.on_key(code(KeyCode::Enter));
    assert!(app.data.read_only);
    // Turned on at run time, it can be turned off again...
    app.on_key(key(':'));
    type_text(&mut app, "readonly");
    app.on_key(code(KeyCode::Enter));
    assert!(!app.data.read_only);
    // ...but not when --read-only or the profile's config asked for it at start.
    app.data.read_only = true;
    app.data.read_only_locked = true;
    app.on_key(key(':'));
    type_text(&mut app, "readonly");
    app.on_key(code(KeyCode::Enter));
    assert!(app.data.read_only);
    app.data.read_only_locked = false;
    app.on_key(key(':'));
    type_text(&mut app, "region eu-west-1");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.data.context.region, "eu-west-1");
    assert_eq!(app.take_effects().len(), 1);
    app.on_key(key(':'));
    type_text(&mut app, "quit");
    app.on_key(code(KeyCode::Enter));
    assert!(app.quit);
}

#[test]
fn endpoints_filter_sort_drill_in_and_describe() {
    let mut app = app_with_fleet(30);
    app.on_key(key('/'));
    type_text(&mut app, "mcp");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.panes.endpoints.view.len(), 3);
    app.on_key(key('/'));
    type_text(&mut app, "!^fleet-");
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.panes.endpoints.view.len(), 4, "regex, inverted");
    // Sort by name ascending.
    while app.panes.endpoints.sort != sagedeck::tui::panes::endpoints::Column::Name {
        app.on_key(key('s'));
    }
    app.on_key(key('S'));
    let first = app.panes.endpoints.view[0];
    assert_eq!(app.data.inventory[first].name, "llm-tgi-chat");
    // The selection follows its endpoint through sorting; go to the top, then one down.
    app.on_key(key('g'));
    app.on_key(code(KeyCode::Down));
    app.on_key(code(KeyCode::Enter));
    assert_eq!(app.tab, Tab::Variants);
    assert_eq!(app.data.selected.as_deref(), Some("mcp-embeddings-failed"));
    app.on_key(key('1'));
    app.on_key(key('d'));
    assert!(matches!(app.overlay, Some(Overlay::Describe(_))));
    let jobs = app.take_jobs();
    assert!(
        matches!(&jobs[..], [(_, Job::Fleet(FleetJob::Describe { endpoint }))] if endpoint == "mcp-embeddings-failed")
    );
    app.on_key(code(KeyCode::Esc));
    assert!(app.overlay.is_none());
    // Esc clears the filter.
    app.on_key(code(KeyCode::Esc));
    assert_eq!(app.panes.endpoints.view.len(), 34);
}

#[test]
fn esc_cancels_the_call_in_flight_and_q_quits() {
    let mut app = app_with_fleet(0);
    app.on_event(AppEvent::Started {
        id: 41,
        kind: sagedeck::tui::event::JobKind::Fleet(sagedeck::tui::event::FleetKind::Inventory),
        label: "refreshing endpoints".into(),
    });
    app.on_event(AppEvent::Started {
        id: 42,
        kind: sagedeck::tui::event::JobKind::Fleet(sagedeck::tui::event::FleetKind::Invoke),
        label: "invoking llm-tgi-chat".into(),
    });
    app.on_key(code(KeyCode::Esc));
    let jobs = app.take_jobs();
    assert!(matches!(&jobs[..], [(_, Job::Cancel(42))]), "{jobs:?}");
    app.on_event(AppEvent::Finished {
        id: 42,
        cancelled: true,
    });
    assert!(!app.inflight.contains_key(&42));
    app.on_key(ctrl('c'));
    assert!(app.quit);
}

#[test]
fn confirmed_jobs_are_refused_in_read_only_mode() {
    let mut app = app_with_fleet(0);
    app.data.read_only = true;
    app.overlay = Some(Overlay::Confirm(sagedeck::tui::widgets::confirm::Confirm {
        title: "Prewarm".into(),
        lines: vec!["prewarm 3 models".into()],
        jobs: vec![Job::Guard(GuardJob::Prewarm {
            endpoint: "mcp-multi-model-endpoint".into(),
            models: vec!["a".into()],
            reason: None,
        })],
        danger: false,
        force: Vec::new(),
    }));
    app.on_key(key('y'));
    assert!(app.take_jobs().is_empty());
    assert!(app.toasts.log.last().unwrap().text.contains("read-only"));
}

#[test]
fn remapped_keys_reach_their_actions() {
    let mut app = app_with_fleet(0);
    let keys = [("quit".to_string(), "x".to_string())].into();
    app.keymap = sagedeck::tui::config::Keymap::from_config(&keys).0;
    app.on_key(key('x'));
    assert!(app.quit);
}

#[test]
fn a_failed_refresh_marks_the_data_stale() {
    let mut app = app_with_fleet(0);
    app.on_event(AppEvent::Inventory(Err(sagedeck::aws::AwsError::Network(
        "connection refused".into(),
    ))));
    assert!(app.data.stale());
    assert_eq!(app.data.inventory.len(), 4, "nothing is lost");
    let s = screen(&mut app, 120, 12);
    assert!(s.contains("STALE"));
}

#[test]
fn snapshot_endpoints_pane() {
    let mut app = app_with_fleet(3);
    insta::assert_snapshot!("endpoints_pane", screen(&mut app, 140, 14));
}

#[test]
fn snapshot_endpoints_filter_and_read_only() {
    let mut app = app_with_fleet(3);
    app.data.read_only = true;
    app.on_key(key('/'));
    type_text(&mut app, "mcp");
    insta::assert_snapshot!("endpoints_filter_read_only", screen(&mut app, 140, 10));
}

#[test]
fn help_scrolls_on_a_short_terminal() {
    let mut app = app_with_fleet(0);
    app.on_key(key('?'));
    let top = screen(&mut app, 120, 24);
    assert!(top.contains("more lines) · Esc closes"), "{top}");
    assert!(!top.contains(":quit"), "the end is below: {top}");
    app.on_key(code(KeyCode::End));
    let end = screen(&mut app, 120, 24);
    assert!(end.contains(":quit") && end.contains(":reason TEXT"), "{end}");
    assert!(end.contains("Help — ↑ scrolls"), "nothing more below: {end}");
    // Down at the end stays at the end (the offset is clamped when drawn).
    app.on_key(key('j'));
    assert_eq!(screen(&mut app, 120, 24), end);
    app.on_key(key('k'));
    assert!(screen(&mut app, 120, 24).contains("(1 more line)"));
    app.on_key(code(KeyCode::Home));
    assert_eq!(screen(&mut app, 120, 24), top);
    app.on_key(code(KeyCode::Esc));
    assert!(app.overlay.is_none());
}

#[test]
fn the_error_log_and_the_endpoints_table_scroll_with_every_scrolling_key() {
    let mut app = app_with_fleet(40);
    for i in 0..60 {
        app.toasts.push(
            sagedeck::tui::widgets::toasts::Level::Info,
            format!("message number {i:02}"),
        );
    }
    app.on_key(key('e'));
    let top = screen(&mut app, 120, 24);
    assert!(top.contains("message number 59"), "newest first: {top}");
    app.on_key(code(KeyCode::End));
    let end = screen(&mut app, 120, 24);
    assert!(
        end.contains("message number 00") && !end.contains("message number 59"),
        "{end}"
    );
    // The offset stopped at the end: one row up shows one more message at the top.
    app.on_key(key('k'));
    assert!(
        screen(&mut app, 120, 24).contains("message number"),
        "not blank after End"
    );
    app.on_key(key('g'));
    assert_eq!(screen(&mut app, 120, 24), top);
    app.on_key(code(KeyCode::PageDown));
    assert!(!screen(&mut app, 120, 24).contains("message number 59"), "a page down");
    app.on_key(code(KeyCode::Esc));
    // The Endpoints table: Space pages down like PgDn, G goes to the last row, g back.
    app.on_key(key('1'));
    screen(&mut app, 120, 24);
    app.on_key(key('g'));
    let first = app.data.selected.clone();
    app.on_key(key(' '));
    assert_ne!(app.data.selected, first, "Space moved a page");
    app.on_key(key('G'));
    let last = app.data.selected.clone();
    app.on_key(key('j'));
    assert_eq!(app.data.selected, last, "the last row stays the last");
    app.on_key(key('g'));
    assert_eq!(app.data.selected, first);
}

#[test]
fn snapshot_overlays() {
    let mut app = app_with_fleet(0);
    app.on_key(key('?'));
    insta::assert_snapshot!("help_overlay", screen(&mut app, 120, 34));
    app.on_key(code(KeyCode::Esc));
    app.on_key(key(':'));
    type_text(&mut app, "re");
    app.on_key(code(KeyCode::Tab));
    insta::assert_snapshot!("command_line_completion", screen(&mut app, 120, 8));
    app.on_key(code(KeyCode::Esc));
    app.on_key(key('d'));
    app.on_event(AppEvent::Described {
        endpoint: "mcp-intent-classifier-prod".into(),
        result: Ok(((*app.data.inventory[0]).clone(), vec![])),
    });
    insta::assert_snapshot!("describe_overlay", screen(&mut app, 120, 24));
    app.on_key(code(KeyCode::Esc));
    app.toasts.push(
        sagedeck::tui::widgets::toasts::Level::Error,
        "weights of llm-tgi-chat: invalid request: Cannot update in-progress endpoint",
    );
    insta::assert_snapshot!("error_toast", screen(&mut app, 120, 12));
    app.on_key(key('e'));
    let log = screen(&mut app, 120, 12);
    assert!(log.contains("Cannot update in-progress endpoint"));
}

#[test]
fn one_reference_screen_per_theme() {
    for (name, _) in BUILTIN {
        let mut app = app_with_fleet(1);
        app.theme = Theme::load(name, None).unwrap();
        insta::assert_snapshot!(format!("theme_{name}"), styled_screen(&mut app, 100, 9));
    }
}

#[test]
fn an_unreadable_config_makes_the_console_read_only_with_a_lasting_badge() {
    let opts = sagedeck::tui::ConsoleOptions {
        config_error: Some("config /x/config.toml line 3 (key `readonly_typo`): unknown field".into()),
        ..Default::default()
    };
    let (mut app, _) = sagedeck::tui::initial_app(&opts, None);
    assert!(app.data.read_only && app.data.read_only_locked);
    // `:readonly` cannot lift it; the badge is in the header, not a toast that expires.
    app.run_command(sagedeck::tui::widgets::command_line::Command::ReadOnly);
    assert!(app.data.read_only);
    let screen = screen(&mut app, 140, 10);
    assert!(
        screen.contains("READ-ONLY") && screen.contains("CONFIG ERROR"),
        "{screen}"
    );
    assert!(app.toasts.log.iter().any(|t| t.text.contains("line 3")));
}

#[test]
fn a_plan_step_reads_its_gate_after_the_metrics_delay_given_or_the_one_of_its_endpoint() {
    use std::time::Duration;
    let delay = |label: &str, given: Option<u64>| {
        let opts = sagedeck::tui::ConsoleOptions {
            endpoint_label: label.into(),
            metrics_delay: given.map(Duration::from_secs),
            ..Default::default()
        };
        opts.guard().runner.metrics_delay
    };
    // AWS's CloudWatch publishes a minute or two late; the sandbox at once; a given delay wins.
    assert_eq!(delay("aws", None), Duration::from_secs(120));
    assert_eq!(delay("sandbox", None), Duration::ZERO);
    assert_eq!(delay("aws", Some(30)), Duration::from_secs(30));
    assert_eq!(delay("sandbox", Some(45)), Duration::from_secs(45));
}
