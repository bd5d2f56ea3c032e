//! The console as a newcomer meets it: p99 and 5XX against thresholds, sorting by a chosen
//! column (keys and `:sort`), the p99's complete period and sample count, the describe and audit
//! record overlays that wrap and scroll, the region switch (over the wire against a sandbox
//! serving two regions), toasts that replace each other and stay on their tab, and the panes at
//! 80x24 and 140x40.

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use sagedeck::aws::change::audit::{AuditPhase, AuditRecord};
use sagedeck::aws::endpoints::catalog::{Catalog, CatalogEntry};
use sagedeck::aws::endpoints::inventory::InventoryOptions;
use sagedeck::aws::observe::metrics::{MetricsSnapshot, VariantMetrics, VariantSummary};
use sagedeck::sandbox::RegionFleet;
use sagedeck::sandbox::SandboxConfig;
use sagedeck::tui::app::{App, Effect};
use sagedeck::tui::config::{ConfigFile, Standing, Thresholds};
use sagedeck::tui::event::FleetKind;
use sagedeck::tui::event::{AppEvent, JobKind};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::endpoints::Column;
use sagedeck::tui::theme::{BUILTIN, Role, Theme};
use sagedeck::tui::widgets::Overlay;
use sagedeck::tui::widgets::command_line::Command;
use sagedeck::tui::widgets::describe::DescribeView;
use sagedeck::tui::widgets::toasts::Level;

use crate::app::app_with_fleet;
use crate::common;
use crate::common::tui::{press, render, tap};

/// Start of the last complete period in the fixtures: 2026-09-27 09:06 UTC.
const PERIOD: f64 = 1_790_499_960.0;
const CLF: &str = "mcp-intent-classifier-prod";
const MME: &str = "mcp-multi-model-endpoint";

fn summary(p99: f64, invocations: f64, errors: f64) -> VariantSummary {
    VariantSummary {
        latest_period_start: Some(PERIOD),
        latest_samples: Some((invocations / 15.0).round()),
        model_latency_p50_ms: Some(p99 / 2.0),
        model_latency_p90_ms: Some(p99 * 0.8),
        model_latency_p99_ms: Some(p99),
        model_latency_p99_max_ms: Some(p99 * 1.2),
        overhead_latency_p99_ms: Some(3.0),
        invocations,
        invocations_per_min: invocations / 15.0,
        errors_5xx: errors,
        error_rate_5xx: Some(errors / invocations),
        ..Default::default()
    }
}

fn metrics() -> MetricsSnapshot {
    let vm = |endpoint: &str, variant: &str, s: VariantSummary| VariantMetrics {
        endpoint: endpoint.into(),
        variant: variant.into(),
        multi_model: endpoint == MME,
        summary: s,
        series: Default::default(),
    };
    MetricsSnapshot {
        start: PERIOD - 840.0,
        end: PERIOD + 60.0,
        period: 60,
        variants: vec![
            vm(CLF, "Stable", summary(42.0, 9000.0, 0.0)),
            vm(CLF, "Canary", summary(1250.0, 900.0, 27.0)),
            vm(MME, "AllTraffic", summary(350.0, 3000.0, 6.0)),
            vm("llm-tgi-chat", "AllTraffic", summary(95.0, 450.0, 0.0)),
        ],
        components: Vec::new(),
        queries: 0,
        calls: 0,
        warnings: vec![],
    }
}

/// The fleet of `app_with_fleet` with fleet metrics.
fn app() -> App {
    let mut app = app_with_fleet(3);
    app.data.fleet_metrics = Some(metrics());
    app
}

fn record(id: &str, action: &str, result: Option<&str>) -> AuditRecord {
    AuditRecord {
        time: "2026-12-03T07:05:00Z".into(),
        epoch: 1_796_281_500.0,
        id: id.into(),
        phase: if result.is_some() {
            AuditPhase::Result
        } else {
            AuditPhase::Intent
        },
        principal: Some("arn:aws:iam::123456789012:user/oncall".into()),
        profile: "prod".into(),
        region: "us-east-1".into(),
        endpoint_url: None,
        action: action.into(),
        target: if action == "prewarm" { MME.into() } else { CLF.into() },
        before: if action == "prewarm" {
            serde_json::Value::Null
        } else {
            serde_json::json!({"variants": [{"variant": "Stable", "current_weight": 9.0}, {"variant": "Canary", "current_weight": 1.0}]})
        },
        after: if action == "prewarm" {
            serde_json::json!({"models": ["tenant-acme-0000.tar.gz"]})
        } else {
            serde_json::json!({"variants": [{"variant": "Stable", "weight": 5.0}, {"variant": "Canary", "weight": 5.0}]})
        },
        result: result.map(str::to_string),
        request_id: Some("8f14e45f-ceea-467f-a9d5-6d3c9b1e0a77".into()),
        reason: Some("INC-4711: canary p99 above the limit since 07:00, rolling back to the stable weights".into()),
    }
}

fn audit_log() -> Vec<AuditRecord> {
    vec![
        record("a", "weights.set", None),
        record("a", "weights.set", Some("ok")),
        record("b", "prewarm", Some("ok")),
    ]
}

fn catalog() -> Catalog {
    Catalog {
        bucket: "sagedeck-demo-models".into(),
        prefix: "tenants/".into(),
        models: ["tenant-acme-0000.tar.gz", "tenant-globex-0001.tar.gz"]
            .iter()
            .map(|k| CatalogEntry {
                key: k.to_string(),
                size: 153_000_000,
                last_modified: Some(PERIOD - 86_400.0),
                etag: None,
            })
            .collect(),
        pages: 1,
    }
}

/// The foreground colour of the first cell of `needle` on the screen.
fn fg_of(app: &mut App, w: u16, h: u16, needle: &str) -> Color {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| sagedeck::tui::render::draw(f, app)).unwrap();
    let buf = t.backend().buffer().clone();
    let text = t.backend().to_string();
    for (y, line) in text.lines().enumerate() {
        let line = line.trim_matches('"');
        if let Some(byte) = line.find(needle) {
            let x = line[..byte].chars().count() as u16;
            return buf[(x, y as u16)].fg;
        }
    }
    panic!("{needle} not on screen:\n{text}");
}

fn first_row(app: &App) -> String {
    let i = app.panes.endpoints.view[0];
    app.data.inventory[i].name.clone()
}

#[test]
fn p99_and_5xx_are_coloured_against_the_thresholds() {
    let t = Thresholds::default();
    assert_eq!(
        (t.p99(42.0), t.p99(350.0), t.p99(1250.0)),
        (Standing::Ok, Standing::Warn, Standing::Breach)
    );
    assert_eq!(
        (t.rate_5xx(0.0), t.rate_5xx(0.002), t.rate_5xx(0.03)),
        (Standing::Ok, Standing::Warn, Standing::Breach)
    );
    // The file sets them, per profile too; a missing key keeps its default.
    let file: ConfigFile =
        toml::from_str("[thresholds]\np99_warn_ms = 50\n[profiles.prod.thresholds]\nrate_5xx_breach_pct = 5\n")
            .unwrap();
    let dev = file.for_profile("dev").thresholds.unwrap();
    assert_eq!((dev.p99_warn_ms, dev.p99_breach_ms), (50.0, 1000.0));
    assert_eq!(file.for_profile("prod").thresholds.unwrap().rate_5xx_breach_pct, 5.0);
    assert!(toml::from_str::<ConfigFile>("[thresholds]\np99_warn = 1\n").is_err());

    let mut app = app();
    let theme = app.theme.clone();
    // Worst variant's p99 with the sample count of its complete period.
    assert_eq!(fg_of(&mut app, 140, 14, "1250.0 (60)"), theme.color(Role::StatusError));
    assert_eq!(fg_of(&mut app, 140, 14, "350.0 (200)"), theme.color(Role::StatusWarn));
    assert_eq!(fg_of(&mut app, 140, 14, "95.0 (30)"), theme.color(Role::Fg));
    assert_eq!(fg_of(&mut app, 140, 14, "0.27%"), theme.color(Role::StatusWarn));
    assert!(render(&mut app, 140, 14).contains("P99 of the last complete period 09:06, N samples"));
    app.data.thresholds.p99_breach_ms = 300.0;
    assert_eq!(fg_of(&mut app, 140, 14, "350.0 (200)"), theme.color(Role::StatusError));
}

#[test]
fn a_key_or_sort_command_picks_the_column() {
    let mut app = app();
    press(&mut app, "p");
    assert_eq!(
        (app.panes.endpoints.sort, app.panes.endpoints.descending),
        (Column::P99, true)
    );
    assert_eq!(first_row(&app), CLF, "worst p99 first");
    press(&mut app, "p");
    assert!(!app.panes.endpoints.descending, "the same key again reverses");
    press(&mut app, "i");
    assert_eq!(app.panes.endpoints.sort, Column::Invocations);
    assert_eq!(first_row(&app), CLF);
    press(&mut app, "n");
    assert_eq!(
        (app.panes.endpoints.sort, app.panes.endpoints.descending),
        (Column::Name, false)
    );
    assert_eq!(first_row(&app), "fleet-ep-0000");
    // `:sort` completes its columns, from any tab.
    press(&mut app, "2:sort 5");
    tap(&mut app, KeyCode::Tab);
    assert_eq!(app.command_line.input, "sort 5xx");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(app.tab, Tab::Endpoints);
    assert_eq!(
        (app.panes.endpoints.sort, app.panes.endpoints.descending),
        (Column::Errors, true)
    );
    assert_eq!(first_row(&app), CLF);
    press(&mut app, ":sort m");
    tap(&mut app, KeyCode::Tab);
    assert_eq!(app.command_line.candidates, ["mme", "modified"]);
    press(&mut app, "o");
    tap(&mut app, KeyCode::Tab);
    tap(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.endpoints.sort, Column::Modified);
    press(&mut app, ":sort latency");
    tap(&mut app, KeyCode::Enter);
    assert!(
        app.toasts
            .log
            .last()
            .unwrap()
            .text
            .contains("sort by what? one of: name status"),
        "{:?}",
        app.toasts.log.last()
    );
    assert_eq!(app.panes.endpoints.sort, Column::Modified, "unchanged");
}

#[test]
fn the_describe_overlay_wraps_a_long_failure_reason_and_scrolls() {
    let mut app = app();
    let reason = "CannotStartContainerError. Please ensure the model container for variant AllTraffic starts \
                  correctly when invoked with 'docker run <image> serve': ping health check failed after 8 attempts \
                  THE-END";
    let i = app.data.inventory.iter().position(|e| e.status == "Failed").unwrap();
    std::sync::Arc::make_mut(&mut app.data.inventory[i]).failure_reason = Some(reason.into());
    let failed = app.data.inventory[i].clone();
    let mut view = DescribeView::loading("describe mcp-embeddings-failed");
    view.set(&serde_json::json!({ "endpoint": failed, "scaling_activities": [] }));
    app.overlay = Some(Overlay::Describe(view));
    let top = render(&mut app, 80, 24);
    assert!(top.contains("more below"), "{top}");
    tap(&mut app, KeyCode::End);
    let end = render(&mut app, 80, 24);
    assert!(!end.contains("more below"), "{end}");
    // Every word of the reason is on screen somewhere between the top and the end.
    tap(&mut app, KeyCode::Home);
    let mut seen = String::new();
    for _ in 0..20 {
        seen.push_str(&render(&mut app, 80, 24));
        tap(&mut app, KeyCode::Down);
    }
    for word in [
        "CannotStartContainerError.",
        "'docker",
        "serve':",
        "attempts",
        "THE-END",
    ] {
        assert!(seen.contains(word), "{word} missing:\n{seen}");
    }
    insta::assert_snapshot!("newcomer_describe_failed_80x24", top);
}

#[test]
fn the_audit_record_scrolls_to_its_reason() {
    let mut app = app();
    press(&mut app, "7");
    app.on_event(AppEvent::Activity(Ok(audit_log())));
    // Columns by content: RESULT is as wide as its title, the reason gives way first, the
    // change is whole.
    let wide = render(&mut app, 140, 40);
    assert!(wide.contains("Stable=9 Canary=1 → Stable=5 Canary=5"), "{wide}");
    assert!(
        wide.contains("│ok     INC-4711") || wide.contains(" ok     INC-4711"),
        "{wide}"
    );
    insta::assert_snapshot!("newcomer_activity_140x40", wide);
    insta::assert_snapshot!("newcomer_activity_80x24", render(&mut app, 80, 24));
    press(&mut app, "j");
    tap(&mut app, KeyCode::Enter);
    let top = render(&mut app, 80, 24);
    assert!(top.contains("more below") && !top.contains("rolling"), "{top}");
    tap(&mut app, KeyCode::End);
    let end = render(&mut app, 80, 24);
    assert!(end.contains("\"reason\"") && end.contains("rolling"), "{end}");
    assert!(end.contains("\"request_id\""), "{end}");
    tap(&mut app, KeyCode::Esc);
    assert!(app.panes.activity.detail.is_none());
}

#[test]
fn toasts_replace_older_ones_about_the_same_thing_and_stay_on_their_tab() {
    let mut app = app();
    app.toasts.push(
        Level::Error,
        "weights of llm-tgi-chat: Cannot update in-progress endpoint",
    );
    app.toasts.push(Level::Info, "weights of llm-tgi-chat: applied");
    let shown: Vec<String> = app.toasts.visible().map(|e| e.text.clone()).collect();
    assert_eq!(shown, ["weights of llm-tgi-chat: applied"]);
    assert_eq!(app.toasts.log.len(), 2, "the log keeps both");

    // A refusal of the Invoke pane shows on Invoke only, and goes once a call is sent.
    app.data.selected = Some(CLF.into());
    press(&mut app, "5xi{");
    tap(&mut app, KeyCode::Esc);
    app.on_key(crate::common::tui::ctrl('s'));
    tap(&mut app, KeyCode::Esc);
    let refusal = "invalid body at line";
    assert!(render(&mut app, 140, 40).contains(refusal));
    assert!(!render(&mut app, 80, 24).contains("Cannot update"));
    press(&mut app, "1");
    assert!(!render(&mut app, 140, 40).contains(refusal), "not on the Endpoints tab");
    press(&mut app, "5b");
    app.on_key(crate::common::tui::ctrl('s'));
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| j.kind() == JobKind::Fleet(FleetKind::Invoke)),
        "sent"
    );
    assert!(
        !render(&mut app, 140, 40).contains(refusal),
        "the refusal went with the send"
    );

    // A long toast is shown whole, wrapped.
    app.toasts = Default::default();
    let long = "updating weights of mcp-intent-classifier-prod: Stable 9 → 5, Canary 1 → 5; \
                this takes a few minutes while SageMaker shifts the traffic END";
    app.toasts.push(Level::Info, long);
    let s = render(&mut app, 80, 24);
    assert!(s.contains("mcp-intent-classifier-prod:") && s.contains("END"), "{s}");
}

#[tokio::test]
async fn a_region_switch_shows_nothing_of_the_old_region() {
    let sb = common::sandbox_with(SandboxConfig {
        extra_regions: vec![RegionFleet::parse("eu-west-1=3").unwrap()],
        ..common::demo_config()
    })
    .await;
    let url = sb.endpoint_url();
    let us = common::fleet(&sb)
        .await
        .inventory(InventoryOptions::default())
        .await
        .unwrap();
    let mut app = App::new(
        sagedeck::tui::data::Data {
            context: common::tui::context(),
            ..Default::default()
        },
        Theme::default_theme(),
    );
    app.on_event(AppEvent::Inventory(Ok(us.clone())));
    app.take_jobs();
    app.data.fleet_metrics = Some(metrics());
    app.data.catalogs.insert(MME.into(), catalog());
    // A refresh of us-east-1 is in flight, and its description is open.
    app.on_event(AppEvent::Started {
        id: 900,
        kind: JobKind::Fleet(FleetKind::Inventory),
        label: "inventory".into(),
    });
    app.describe_selected();
    assert!(matches!(app.overlay, Some(Overlay::Describe(_))));

    // (`:region eu-west-1` typed once the description is closed: the same command.)
    app.run_command(Command::Region("eu-west-1".into()));
    assert_eq!(
        app.take_effects(),
        [Effect::Reconnect {
            profile: None,
            region: Some("eu-west-1".into())
        }]
    );
    assert!(app.overlay.is_none(), "the old region's description is closed");
    assert!(app.data.inventory.is_empty() && app.data.fleet_metrics.is_none() && app.data.catalogs.is_empty());
    let s = render(&mut app, 140, 12);
    assert!(
        s.contains("region eu-west-1 (was us-east-1)") && s.contains("loading…"),
        "{s}"
    );
    assert!(s.contains("loading endpoints…"), "{s}");
    assert!(
        app.toasts
            .log
            .iter()
            .any(|t| t.text.starts_with("region us-east-1 → eu-west-1")),
        "{:?}",
        app.toasts.log
    );
    // The old region's refresh arrives late: dropped.
    app.on_event(AppEvent::Inventory(Ok(us)));
    assert!(!app.data.loaded, "an inventory of the old region is not shown");
    app.on_event(AppEvent::Finished {
        id: 900,
        cancelled: false,
    });
    // The new region's, read over the wire with the new signing region.
    let eu_fleet = sagedeck::aws::Fleet::from_sdk_config(
        &sagedeck::aws::config::local_sdk_config_in(&url, "eu-west-1").await,
        "sandbox".into(),
        Some(url.clone()),
    );
    let eu = eu_fleet.inventory(InventoryOptions::default()).await.unwrap();
    app.on_event(AppEvent::Inventory(Ok(eu)));
    assert_eq!(app.data.inventory.len(), 3);
    assert!(app.data.inventory.iter().all(|e| e.arn.contains(":eu-west-1:")));
    app.toasts = Default::default();
    let s = render(&mut app, 140, 12);
    assert!(!s.contains("us-east-1"), "{s}");
}

#[test]
fn models_say_what_is_known_and_what_cannot_be() {
    let mut app = app();
    app.data.catalogs.insert(MME.into(), catalog());
    app.data.selected = Some(MME.into());
    press(&mut app, "3");
    app.on_event(AppEvent::Activity(Ok(audit_log())));
    let s = render(&mut app, 140, 40);
    assert!(s.contains("prewarmed 12-03 07:05 by oncall"), "{s}");
    assert!(s.contains("no call seen from here"), "{s}");
    assert!(s.contains("AWS reports no per-model calls"), "{s}");
    assert!(!s.contains("never invoked"), "{s}");
    insta::assert_snapshot!("newcomer_models_140x40", s);
    insta::assert_snapshot!("newcomer_models_80x24", render(&mut app, 80, 24));
}

#[test]
fn every_pane_at_80x24_and_140x40() {
    let mut app = app();
    app.data.catalogs.insert(MME.into(), catalog());
    for (n, name) in [(1, "endpoints"), (2, "variants"), (4, "latency"), (5, "invoke")] {
        app.data.selected = Some(CLF.into());
        press(&mut app, &n.to_string());
        app.take_jobs();
        app.toasts = Default::default();
        let small = render(&mut app, 80, 24);
        let head = small.lines().next().unwrap();
        assert!(head.contains("refreshed"), "{name}: {head}");
        assert!(!small.contains("VARIA "), "{name}: a cut title\n{small}");
        insta::assert_snapshot!(format!("newcomer_{name}_80x24"), small);
        insta::assert_snapshot!(format!("newcomer_{name}_140x40"), render(&mut app, 140, 40));
    }
    // `1 variant`, never `1 variants`.
    app.data.selected = Some(MME.into());
    press(&mut app, "2");
    let s = render(&mut app, 140, 40);
    assert!(s.contains("1 variant") && !s.contains("1 variants"), "{s}");
}

#[test]
fn the_header_keeps_the_refresh_age_and_badges_at_80_columns() {
    let mut app = app();
    app.data.read_only = true;
    app.data.reason = Some("INC-4711 canary rollback".into());
    app.data.context.endpoint = "http://127.0.0.1:45678".into();
    let head = render(&mut app, 80, 24).lines().next().unwrap().to_string();
    assert!(head.contains("refreshed") && head.contains("READ-ONLY"), "{head}");
    assert!(head.contains("region us-east-1"), "{head}");
    assert!(!head.contains("127.0.0.1"), "the endpoint URL goes first: {head}");
    let wide = render(&mut app, 160, 24).lines().next().unwrap().to_string();
    assert!(wide.contains("127.0.0.1") && wide.contains("INC-4711"), "{wide}");
}

#[test]
fn no_theme_sets_its_own_text_colour_on_the_terminals_background() {
    for (name, _) in BUILTIN {
        let t = Theme::load(name, None).unwrap();
        if t.color(Role::Bg) == Color::Reset {
            assert_eq!(
                t.color(Role::Fg),
                Color::Reset,
                "{name}: a fixed text colour on the terminal's own background"
            );
        }
    }
    let light = Theme::load("light", None).unwrap();
    assert_ne!(
        light.color(Role::Bg),
        Color::Reset,
        "light text needs its light background"
    );
}
