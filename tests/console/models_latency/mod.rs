//! The Models and Latency panes driven by keys and events (no terminal, no network), and insta
//! snapshots of both on a 120×30 `TestBackend`: a catalog with what the console knows of its
//! models, a prewarm in progress, a non-MME endpoint, and canary/baseline latency charts with the
//! console's own latencies.
//!
//! `keys`: the Models pane's filter, marks, prewarm keys and their refusals.

mod keys;

use crate::common::builders::{self, EndpointBuilder, shared, variant};
use crate::common::tui;
use std::collections::BTreeMap;
use std::time::Duration;

use crossterm::event::KeyCode;
use sagedeck::aws::AwsError;
use sagedeck::aws::endpoints::catalog::{Catalog, CatalogEntry};
use sagedeck::aws::invoke::prewarm::{PrewarmEvent, PrewarmResult, PrewarmStatus};
use sagedeck::aws::observe::metrics::{
    Metric, MetricsSnapshot, Series, VariantMetrics, VariantSummary, series_name, summarize,
};
use sagedeck::tui::app::App;
use sagedeck::tui::data::{Data, ModelKnowledge};
use sagedeck::tui::event::{AppEvent, Job};
use sagedeck::tui::event::{FleetJob, GuardJob};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::models::{RunEnd, RunState};
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::Overlay;

const MME: &str = "mcp-multi-model-endpoint";
const CHAT: &str = "mcp-chat-llm";
const PREFIX: &str = "s3://sagedeck-demo-models/tenants/";
/// End of every fixture window (2026-09-21 20:00 UTC).
const END: f64 = 1_790_020_800.0;

/// An endpoint of these fixtures: created a day and modified an hour before [`END`].
fn endpoint(name: &str) -> EndpointBuilder {
    builders::endpoint(name)
        .created(END - 86_400.0)
        .modified(END - 3600.0)
        .no_config()
}

fn catalog(n: usize) -> Catalog {
    let tenants = ["acme", "globex", "initech", "umbrella", "hooli", "stark"];
    Catalog {
        bucket: "sagedeck-demo-models".into(),
        prefix: "tenants/".into(),
        models: (0..n)
            .map(|i| CatalogEntry {
                key: format!("tenant-{}-{:04}.tar.gz", tenants[i % tenants.len()], i),
                size: 40_000_000 + (i as u64 % 7) * 113_000_000,
                last_modified: Some(END - 86_400.0 * (1 + i % 9) as f64),
                etag: None,
            })
            .collect(),
        pages: n.div_ceil(1000).max(1),
    }
}

/// A deterministic wave: `base` ± `amp` over `n` points.
fn wave(n: usize, base: f64, amp: f64, phase: f64) -> Vec<f64> {
    (0..n)
        .map(|i| base + amp * ((i as f64 / 3.0 + phase).sin() + 0.3 * (i as f64 / 1.3).cos()))
        .collect()
}

fn variant_metrics(ep: &str, v: &str, mme: bool, scale: f64, window: Duration) -> VariantMetrics {
    let n = (window.as_secs() / 60) as usize;
    let ts: Vec<f64> = (0..n).map(|i| END - window.as_secs_f64() + 60.0 * i as f64).collect();
    // (metric, statistic, base, amplitude, phase, whether counts); MME ones after the first nine.
    let specs = [
        (Metric::ModelLatency, "p50", 40.0 * scale, 5.0, 0.0, false),
        (Metric::ModelLatency, "p90", 70.0 * scale, 10.0, 0.5, false),
        (Metric::ModelLatency, "p99", 120.0 * scale, 30.0, 1.0, false),
        (Metric::OverheadLatency, "p50", 3.0, 0.5, 0.0, false),
        (Metric::OverheadLatency, "p90", 5.0, 1.0, 0.3, false),
        (Metric::OverheadLatency, "p99", 9.0, 2.0, 0.9, false),
        (Metric::Invocations, "Sum", 120.0 / scale, 30.0, 0.2, true),
        (Metric::Invocation4xxErrors, "Sum", 2.0, 1.5, 0.0, true),
        (Metric::Invocation5xxErrors, "Sum", scale, 0.8, 2.0, true),
        (Metric::ModelCacheHit, "Average", 0.85, 0.08, 0.0, false),
        (Metric::ModelLoadingWaitTime, "p50", 400.0, 100.0, 0.0, false),
        (Metric::ModelLoadingWaitTime, "p99", 9000.0, 2000.0, 0.0, false),
        (Metric::ModelDownloadingTime, "Average", 3400.0, 500.0, 0.0, false),
        (Metric::ModelLoadingTime, "Average", 2100.0, 300.0, 0.0, false),
        (Metric::LoadedModelCount, "Average", 14.0, 3.0, 0.0, false),
    ];
    let mut series = BTreeMap::new();
    for (m, stat, base, amp, phase, counts) in specs.into_iter().take(if mme { 15 } else { 9 }) {
        let mut values = wave(n, base, amp, phase);
        if counts {
            values.iter_mut().for_each(|v| *v = v.round().max(0.0));
        }
        let timestamps = ts.clone();
        series.insert(series_name(m, stat), Series { timestamps, values });
    }
    let mut vm = VariantMetrics {
        endpoint: ep.into(),
        variant: v.into(),
        multi_model: mme,
        summary: VariantSummary::default(),
        series,
    };
    vm.summary = summarize(&vm, window);
    vm
}

fn snapshot(variants: Vec<VariantMetrics>, window: Duration) -> MetricsSnapshot {
    MetricsSnapshot {
        start: END - window.as_secs_f64(),
        end: END,
        period: 60,
        variants,
        components: Vec::new(),
        queries: 0,
        calls: 1,
        warnings: vec![],
    }
}

/// A console on a loaded two-endpoint fleet: an MME with a catalog of `models` and a chat
/// endpoint with a baseline and a canary. Nothing time-dependent is shown.
fn app(models: usize, selected: &str) -> App {
    let fifteen = Duration::from_secs(900);
    let mut data = Data {
        context: tui::context(),
        inventory: shared(vec![
            endpoint(MME)
                .variants([variant("AllTraffic")
                    .instance_type("ml.g5.2xlarge")
                    .instances(2)
                    .mme(PREFIX)])
                .build(),
            endpoint(CHAT)
                .variants([
                    variant("Baseline")
                        .instance_type("ml.m5.xlarge")
                        .weight(9.0)
                        .share(0.9)
                        .instances(2),
                    variant("CanaryV2").instance_type("ml.m5.xlarge").weight(1.0).share(0.1),
                ])
                .build(),
        ]),
        loaded: true,
        last_ok: None,
        refresh_interval: Duration::from_secs(10),
        selected: Some(selected.into()),
        fleet_metrics: Some(snapshot(
            vec![variant_metrics(MME, "AllTraffic", true, 1.0, fifteen)],
            fifteen,
        )),
        ..Default::default()
    };
    data.catalogs.insert(MME.into(), catalog(models));
    // What the console knows of a few models: prewarmed cold, prewarmed warm, invoked, failed.
    let error = "model error: the container answered HTTP 400 (bad input)";
    let known = [
        (0, Some(END - 600.0), Some(14_250.0), Some(true), None),
        (1, Some(END - 300.0), Some(48.2), Some(false), None),
        (3, None, Some(212.0), Some(false), None),
        (5, None, None, None, Some(error.to_string())),
    ];
    let cat = catalog(models);
    for (i, prewarmed_at, last_latency_ms, cold, last_error) in known.into_iter().filter(|k| k.0 < models) {
        let k = ModelKnowledge {
            prewarmed_at,
            last_latency_ms,
            cold,
            last_error,
        };
        data.models.insert((MME.to_string(), cat.models[i].key.clone()), k);
    }
    App::new(data, Theme::default_theme())
}

/// Presses keys: characters as typed, `\n` Enter, `\x1b` Esc, `↓`/`↑` the arrows.
fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            '↓' => KeyCode::Down,
            '↑' => KeyCode::Up,
            c => KeyCode::Char(c),
        };
        tui::tap(app, code);
    }
}

/// The Models tab of [`app`] on the MME.
fn models_app(models: usize) -> App {
    let mut app = app(models, MME);
    app.tab = Tab::Models;
    app
}

fn screen(app: &mut App) -> String {
    tui::render(app, 120, 30)
}

fn prewarm_jobs(app: &mut App) -> Vec<(String, Vec<String>)> {
    let jobs = app.take_jobs().into_iter();
    jobs.filter_map(|(_, j)| match j {
        Job::Guard(GuardJob::Prewarm { endpoint, models, .. }) => Some((endpoint, models)),
        _ => None,
    })
    .collect()
}

fn toasts(app: &App) -> Vec<String> {
    app.toasts.visible().map(|t| t.text.clone()).collect()
}

fn key_of(i: usize) -> String {
    catalog(i + 1).models[i].key.clone()
}

fn event(app: &mut App, event: PrewarmEvent) {
    app.on_event(AppEvent::Prewarm {
        endpoint: MME.into(),
        event,
    });
}

fn result(model: &str, status: PrewarmStatus, ms: u64) -> PrewarmResult {
    let failed = status == PrewarmStatus::Failed;
    PrewarmResult {
        model: model.into(),
        status,
        loaded: !failed,
        latency: (!failed).then(|| Duration::from_millis(ms)),
        total: Duration::from_millis(ms),
        attempts: 1,
        not_ready: 0,
        invoked_variant: Some("AllTraffic".into()),
        error: failed.then(|| AwsError::Timeout("no answer".into())),
    }
}

#[test]
fn showing_the_tab_lists_the_catalog_of_the_mme() {
    let mut app = app(40, MME);
    app.switch(Tab::Models);
    let jobs = app.take_jobs();
    let listed = |j: &Job| matches!(j, Job::Fleet(FleetJob::Catalog { endpoint, prefix }) if endpoint == MME && prefix == PREFIX);
    assert!(jobs.iter().any(|(_, j)| listed(j)), "{jobs:?}");
    // Showing it again right away does not list again; `c` does.
    app.switch(Tab::Endpoints);
    app.switch(Tab::Models);
    assert!(!app.take_jobs().iter().any(|(_, j)| listed(j)));
    keys(&mut app, "c");
    assert!(app.take_jobs().iter().any(|(_, j)| listed(j)));
}

#[test]
fn a_non_mme_endpoint_says_so_and_refuses_prewarming() {
    let mut app = app(40, CHAT);
    app.switch(Tab::Models);
    assert!(
        !app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Fleet(FleetJob::Catalog { .. })))
    );
    keys(&mut app, "p");
    assert!(prewarm_jobs(&mut app).is_empty());
    assert!(toasts(&app).iter().any(|t| t.contains("not a multi-model endpoint")));
    let mut app = self::app(40, CHAT);
    app.tab = Tab::Models;
    insta::assert_snapshot!("models_not_mme", screen(&mut app));
}

#[test]
fn prewarm_events_drive_progress_and_results() {
    let mut app = models_app(40);
    let models: Vec<String> = (0..4).map(key_of).collect();
    keys(&mut app, "    p");
    assert_eq!(prewarm_jobs(&mut app)[0].1, models);
    for m in &models[..3] {
        event(&mut app, PrewarmEvent::Started { model: m.clone() });
    }
    let error = AwsError::ModelNotReady("loading".into());
    let (model, backoff) = (models[1].clone(), Duration::from_millis(500));
    event(
        &mut app,
        PrewarmEvent::Retrying {
            model,
            attempt: 2,
            error,
            backoff,
        },
    );
    event(
        &mut app,
        PrewarmEvent::Finished(result(&models[0], PrewarmStatus::Cold, 12_400)),
    );
    event(
        &mut app,
        PrewarmEvent::Finished(result(&models[2], PrewarmStatus::Warm, 45)),
    );
    let run = app.panes.models.run.clone().unwrap();
    assert_eq!((run.done(), run.cold, run.warm, run.failed), (2, 1, 1, 0));
    let reason = "not ready".to_string();
    assert_eq!(run.states[&models[1]], RunState::Retrying { attempt: 2, reason });
    assert_eq!(run.states[&models[3]], RunState::Queued);
    let known = |app: &App, i: usize| app.data.models[&(MME.to_string(), models[i].clone())].clone();
    assert_eq!(
        (known(&app, 0).last_latency_ms, known(&app, 0).cold),
        (Some(12_400.0), Some(true))
    );
    insta::assert_snapshot!("models_prewarm_progress", screen(&mut app));
    // The end: every result recorded once, a toast sums it up.
    let results = vec![
        result(&models[0], PrewarmStatus::Cold, 12_400),
        result(&models[1], PrewarmStatus::Cold, 30_100),
        result(&models[2], PrewarmStatus::Warm, 45),
        result(&models[3], PrewarmStatus::Failed, 0),
    ];
    app.on_event(AppEvent::PrewarmDone {
        endpoint: MME.into(),
        result: Ok(results),
    });
    let run = app.panes.models.run.clone().unwrap();
    assert_eq!((run.done(), run.cold, run.warm, run.failed), (4, 2, 1, 1));
    assert_eq!(run.ended, Some(RunEnd::Finished));
    assert!(toasts(&app).contains(&format!("prewarmed 4 models of {MME}: 2 cold, 1 warm, 1 failed")));
    assert!(known(&app, 3).last_error.unwrap().contains("timed out"));
    assert!(known(&app, 3).prewarmed_at.is_none());
    assert!(known(&app, 1).prewarmed_at.is_some());
}

#[test]
fn a_cancelled_prewarm_ends_unless_its_events_go_on() {
    let mut app = models_app(40);
    keys(&mut app, "p");
    app.panes.models.on_cancelled();
    assert_eq!(app.panes.models.run.as_ref().unwrap().ended, Some(RunEnd::Cancelled));
    event(&mut app, PrewarmEvent::Started { model: key_of(0) });
    assert!(app.panes.models.run.as_ref().unwrap().active());
    let error = AwsError::Timeout("the prewarm took longer than 300s".into());
    app.on_event(AppEvent::PrewarmDone {
        endpoint: MME.into(),
        result: Err(error),
    });
    let ended = app.panes.models.run.as_ref().unwrap().ended.clone();
    assert!(matches!(ended, Some(RunEnd::Failed(_))), "{ended:?}");
}

#[test]
fn models_pane_snapshot() {
    let mut app = models_app(40);
    keys(&mut app, "↓  ");
    insta::assert_snapshot!("models_catalog", screen(&mut app));
}

#[test]
fn ten_thousand_models_draw_only_the_visible_rows() {
    let mut app = models_app(10_000);
    screen(&mut app);
    keys(&mut app, "G");
    // How long such a frame takes is measured in benches/console_render.rs.
    let text = screen(&mut app);
    assert!(text.contains("tenant-umbrella-9999.tar.gz"), "{text}");
    assert!(text.contains("10,000 models"), "{text}");
}

#[test]
fn window_keys_switch_and_ask_for_metrics() {
    let mut app = app(0, CHAT);
    app.switch(Tab::Latency);
    let asks = |jobs: &[(u64, Job)], secs: u64| {
        matches!(jobs, [(_, Job::Fleet(FleetJob::Metrics { endpoints, window, detail: true }))]
            if endpoints.len() == 1 && endpoints[0].name == CHAT && window.as_secs() == secs)
    };
    let first = app.take_jobs();
    assert!(asks(&first, 900), "showing the tab asks for the metrics: {first:?}");
    for secs in [3600, 3 * 3600, 24 * 3600, 900] {
        keys(&mut app, "w");
        assert_eq!(app.panes.latency.window(), Duration::from_secs(secs));
        let jobs = app.take_jobs();
        assert!(asks(&jobs, secs), "{jobs:?}");
    }
    keys(&mut app, "W");
    assert_eq!(app.panes.latency.window(), Duration::from_secs(24 * 3600));
    // `v` cycles the variant shown alone; `+`/`-` the refresh interval.
    keys(&mut app, "v");
    assert_eq!(app.panes.latency.focus.as_deref(), Some("Baseline"));
    keys(&mut app, "vv");
    assert_eq!(app.panes.latency.focus, None);
    let before = app.panes.latency.refresh_interval();
    keys(&mut app, "+");
    assert!(app.panes.latency.refresh_interval() > before);
}

#[test]
fn latency_pane_snapshots() {
    let mut app = app(0, CHAT);
    let fifteen = Duration::from_secs(900);
    let variants = vec![
        variant_metrics(CHAT, "Baseline", false, 1.0, fifteen),
        variant_metrics(CHAT, "CanaryV2", false, 1.6, fifteen),
    ];
    app.data.detail_metrics = Some(snapshot(variants, fifteen));
    for ms in [38, 41, 45, 47, 52, 55, 61, 64, 70, 88, 95, 120, 180, 240, 410, 1300] {
        for k in 0..(1 + ms % 5) {
            app.data.own_latency.record(Duration::from_millis(ms + k));
        }
    }
    app.tab = Tab::Latency;
    insta::assert_snapshot!("latency_canary_baseline", screen(&mut app));
    // One variant alone, and a window still loading (the 15m data stays on screen).
    keys(&mut app, "vvw");
    insta::assert_snapshot!("latency_canary_alone_loading_1h", screen(&mut app));
    // `x` clears the console's own samples.
    keys(&mut app, "x");
    assert_eq!(app.data.own_latency.count(), 0);
}
