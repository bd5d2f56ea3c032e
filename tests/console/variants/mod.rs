//! The Variants pane and its weight editor, driven by key events through the real `App`, with
//! snapshots of the screen (120×30, default theme). Fixtures are built by hand: no network.
//!
//! `editor`: the weight editor's keys, checks, refusals and the update followed; `view`: the
//! pane's drawing (theme roles, snapshots, small terminals, latency figures).

mod editor;
mod view;

use std::collections::BTreeMap;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use sagedeck::aws::endpoints::inventory::EndpointInfo;
use sagedeck::aws::observe::metrics::{MetricsSnapshot, VariantMetrics, VariantSummary};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::GuardJob;
use sagedeck::tui::event::{AppEvent, Job};
use sagedeck::tui::panes::variants::weight_editor::{Field, WeightEditor};
use sagedeck::tui::panes::{Pane, Tab};
use sagedeck::tui::render::draw;
use sagedeck::tui::theme::Role;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::Overlay;
use sagedeck::tui::widgets::toasts::Level;

use crate::common::builders::{self, shared, variant};
use crate::common::tui::{self, press, tap};

const EP: &str = "fraud-detector";

/// The fraud detector: Stable (fraud-v1, weight 9, two instances) and Canary (fraud-v2, weight 1).
fn endpoint() -> EndpointInfo {
    let variant = |name: &str, model: &str| {
        variant(name)
            .model(model)
            .instance_type("ml.m5.xlarge")
            .image("123456789012.dkr.ecr.us-east-1.amazonaws.com/xgboost:1.7")
    };
    builders::endpoint(EP)
        .config("fraud-detector-config-7")
        .variants([
            variant("Stable", "fraud-v1").weight(9.0).share(0.9).instances(2),
            variant("Canary", "fraud-v2").weight(1.0).share(0.1),
        ])
        .build()
}

fn summary(p50: f64, p99: f64, invocations: f64, e5: f64) -> VariantSummary {
    VariantSummary {
        model_latency_p50_ms: Some(p50),
        model_latency_p90_ms: Some(p50 * 1.8),
        model_latency_p99_ms: Some(p99),
        model_latency_p99_max_ms: Some(p99 * 1.2),
        overhead_latency_p99_ms: Some(3.5),
        invocations,
        invocations_per_min: invocations / 15.0,
        errors_4xx: 3.0,
        errors_5xx: e5,
        error_rate_4xx: Some(3.0 / invocations),
        error_rate_5xx: Some(e5 / invocations),
        ..Default::default()
    }
}

fn metrics() -> MetricsSnapshot {
    let vm = |variant: &str, summary: VariantSummary| VariantMetrics {
        endpoint: EP.into(),
        variant: variant.into(),
        multi_model: false,
        summary,
        series: BTreeMap::new(),
    };
    MetricsSnapshot {
        start: 1_700_000_000.0,
        end: 1_700_000_900.0,
        period: 60,
        variants: vec![
            vm("Stable", summary(12.4, 31.0, 8_850.0, 2.0)),
            vm("Canary", summary(14.9, 48.6, 1_150.0, 23.0)),
        ],
        components: Vec::new(),
        queries: 18,
        calls: 1,
        warnings: vec![],
    }
}

fn data() -> Data {
    Data {
        context: tui::context(),
        inventory: shared(vec![endpoint()]),
        loaded: true,
        refresh_interval: std::time::Duration::from_secs(10),
        fleet_metrics: Some(metrics()),
        selected: Some(EP.into()),
        ..Default::default()
    }
}

fn app_with(data: Data) -> App {
    let mut app = App::new(data, Theme::default_theme());
    app.tab = Tab::Variants;
    app
}

fn app() -> App {
    app_with(data())
}

fn screen(app: &mut App) -> String {
    tui::render(app, 120, 30)
}

fn editor(app: &App) -> &WeightEditor {
    match &app.panes.variants.editor {
        Some(e) => e,
        None => panic!("the weight editor is not open (overlay: {:?})", app.overlay),
    }
}

fn weights(app: &App) -> Vec<String> {
    editor(app).rows.iter().map(|r| r.weight.clone()).collect()
}

fn toasts(app: &App) -> Vec<(Level, String)> {
    app.toasts.visible().map(|e| (e.level, e.text.clone())).collect()
}

/// The plan of the confirm dialog open now, and its lines.
fn confirm_plan(app: &App) -> (sagedeck::aws::change::weights::WeightPlan, Vec<String>) {
    match &app.overlay {
        Some(Overlay::Confirm(c)) => match c.jobs.as_slice() {
            [Job::Guard(GuardJob::ApplyWeights { plan, .. })] => (plan.clone(), c.lines.clone()),
            other => panic!("unexpected jobs {other:?}"),
        },
        other => panic!("no confirm dialog: {other:?}"),
    }
}
