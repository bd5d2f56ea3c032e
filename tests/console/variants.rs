//! The Variants pane and its weight editor, driven by key events through the real `App`, with
//! snapshots of the screen (120×30, default theme). Fixtures are built by hand: no network.

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

use crate::common::builders::{self, variant};
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
        inventory: vec![endpoint()],
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

#[test]
fn typing_weights_reviews_then_applies_exactly_that() {
    let mut app = app();
    press(&mut app, "w");
    assert_eq!(weights(&app), ["9", "1"]);
    // The first digit replaces the focused value; later ones append.
    press(&mut app, "50");
    tap(&mut app, KeyCode::Down);
    press(&mut app, "50");
    assert_eq!(weights(&app), ["50", "50"]);
    assert!(editor(&app).problems().is_empty());
    assert_eq!(editor(&app).after_shares(), [0.5, 0.5]);
    tap(&mut app, KeyCode::Enter);
    let (plan, lines) = confirm_plan(&app);
    assert_eq!(plan.endpoint, EP);
    assert_eq!(plan.changes.len(), 2);
    assert_eq!(
        (plan.changes[0].weight, plan.changes[1].weight),
        (Some(50.0), Some(50.0))
    );
    assert_eq!(plan.changes[0].instances, None);
    assert_eq!((plan.before[0].share, plan.after[0].share), (0.9, 0.5));
    assert!(lines.iter().any(|l| l == "UpdateEndpointWeightsAndCapacities"));
    assert!(
        lines
            .iter()
            .any(|l| l == "    - VariantName: Stable, DesiredWeight: 50")
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "    - VariantName: Canary, DesiredWeight: 50")
    );
    // Nothing is sent before the confirmation.
    assert!(
        app.take_jobs()
            .iter()
            .all(|(_, j)| !matches!(j, Job::Guard(GuardJob::ApplyWeights { .. })))
    );
    press(&mut app, "y");
    assert!(app.overlay.is_none());
    let jobs = app.take_jobs();
    assert!(
        jobs.iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::ApplyWeights { plan: p, .. }) if *p == plan)),
        "{jobs:?}"
    );
}

#[test]
fn backspace_edits_and_only_changed_variants_are_sent() {
    let mut app = app();
    tap(&mut app, KeyCode::Down);
    press(&mut app, "w");
    assert_eq!(editor(&app).cursor, 1, "the editor opens on the pane's variant");
    tap(&mut app, KeyCode::Backspace);
    assert_eq!(weights(&app)[1], "");
    assert!(editor(&app).problems().iter().any(|p| p == "Canary: enter a weight"));
    press(&mut app, "3");
    tap(&mut app, KeyCode::Enter);
    let (plan, lines) = confirm_plan(&app);
    assert_eq!(plan.changes.len(), 1, "Stable keeps its weight and is not sent");
    assert_eq!(
        (plan.changes[0].variant.as_str(), plan.changes[0].weight),
        ("Canary", Some(3.0))
    );
    assert_eq!(plan.after[0].share, 0.75);
    assert!(!lines.iter().any(|l| l.contains("VariantName: Stable")));
}

#[test]
fn nudging_moves_by_one_and_by_five_points_in_percent_mode() {
    let mut app = app();
    press(&mut app, "w");
    tap(&mut app, KeyCode::Down);
    press(&mut app, "++++");
    assert_eq!(weights(&app), ["9", "5"]);
    press(&mut app, "-");
    assert_eq!(weights(&app), ["9", "4"]);
    // Percent mode shows the split as percentages adding up to 100.
    press(&mut app, "%");
    assert!(editor(&app).percent);
    assert_eq!(weights(&app), ["69.23", "30.77"]);
    press(&mut app, "%");
    assert_eq!(weights(&app), ["9", "4"], "unedited percentages give the weights back");
    tap(&mut app, KeyCode::Up);
    press(&mut app, "0+");
    press(&mut app, "%");
    assert_eq!(weights(&app), ["20", "80"]);
    // A nudge moves five points from the counterpart, so the total stays 100.
    tap(&mut app, KeyCode::Down);
    press(&mut app, "+");
    assert_eq!(weights(&app), ["15", "85"]);
    press(&mut app, "++++");
    assert_eq!(weights(&app), ["0", "100"], "never below 0 nor above 100");
    press(&mut app, "---");
    assert_eq!(weights(&app), ["15", "85"]);
    tap(&mut app, KeyCode::Enter);
    let (plan, lines) = confirm_plan(&app);
    assert_eq!(
        plan.changes.iter().map(|c| c.weight).collect::<Vec<_>>(),
        [Some(15.0), Some(85.0)],
        "percentages are sent as weights, for every variant"
    );
    assert_eq!(plan.after[1].share, 0.85);
    assert!(lines.iter().any(|l| l.contains("percentages are sent as weights")));
}

#[test]
fn percentages_must_add_up_to_100() {
    let mut app = app();
    press(&mut app, "w%");
    assert_eq!(weights(&app), ["90", "10"]);
    press(&mut app, "50");
    let problems = editor(&app).problems();
    assert_eq!(problems, ["percentages add up to 60, not 100"]);
    tap(&mut app, KeyCode::Enter);
    assert!(app.panes.variants.editor.is_some(), "Enter is blocked");
    assert_eq!(
        editor(&app).message.as_deref(),
        Some("percentages add up to 60, not 100")
    );
    tap(&mut app, KeyCode::Down);
    press(&mut app, "50");
    assert!(editor(&app).problems().is_empty());
    press(&mut app, "%");
    assert_eq!(weights(&app), ["50", "50"], "edited percentages become the weights");
}

#[test]
fn invalid_input_is_shown_inline_and_blocks_enter() {
    let cases: &[(&str, &str)] = &[
        // Nudging below zero: negative.
        ("j--", "Canary: weight must be ≥ 0 (got -1)"),
        // Two dots: not a number.
        ("1..5", "Stable: weight `1..5` is not a number"),
        // Every weight zero.
        ("0j0", "all weights are 0: at least one variant must keep traffic"),
        // A percentage over 100.
        ("%120", "Stable: 120% is more than 100%"),
    ];
    for (keys, problem) in cases {
        let mut app = app();
        press(&mut app, "w");
        press(&mut app, keys);
        assert!(
            editor(&app).problems().iter().any(|p| p == problem),
            "{keys}: {:?}",
            editor(&app).problems()
        );
        tap(&mut app, KeyCode::Enter);
        assert!(app.panes.variants.editor.is_some(), "{keys}: Enter must be blocked");
        assert!(screen(&mut app).contains(problem), "{keys}: the problem is shown");
        assert!(editor(&app).keys().iter().any(|k| k.key == "Enter" && k.disabled));
        assert!(
            app.take_jobs()
                .iter()
                .all(|(_, j)| !matches!(j, Job::Guard(GuardJob::ApplyWeights { .. })))
        );
    }
    // An unchanged split has nothing to send.
    let mut app = app();
    press(&mut app, "w");
    tap(&mut app, KeyCode::Enter);
    assert!(editor(&app).message.as_deref().unwrap().starts_with("nothing changes"));
}

#[test]
fn tab_edits_instance_counts() {
    let mut app = app();
    press(&mut app, "w");
    tap(&mut app, KeyCode::Tab);
    assert_eq!(editor(&app).field, Field::Instances);
    press(&mut app, "+");
    assert_eq!(editor(&app).rows[0].instances, "3");
    press(&mut app, ".");
    assert_eq!(editor(&app).rows[0].instances, "3", "counts are whole numbers");
    tap(&mut app, KeyCode::Enter);
    let (plan, lines) = confirm_plan(&app);
    assert_eq!(plan.changes.len(), 1);
    assert_eq!((plan.changes[0].weight, plan.changes[0].instances), (None, Some(3)));
    assert_eq!(plan.after[0].instances, 3);
    assert!(
        lines
            .iter()
            .any(|l| l == "    - VariantName: Stable, DesiredInstanceCount: 3")
    );
}

#[test]
fn esc_closes_the_editor_without_sending() {
    let mut app = app();
    press(&mut app, "w55");
    tap(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    assert!(app.take_jobs().is_empty());
    assert!(
        toasts(&app)
            .iter()
            .any(|t| t.1 == "weights of fraud-detector not changed")
    );
    // Esc in the confirm dialog does not send either.
    press(&mut app, "w5");
    tap(&mut app, KeyCode::Enter);
    assert!(matches!(app.overlay, Some(Overlay::Confirm(_))));
    tap(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    assert!(app.take_jobs().is_empty());
}

#[test]
fn read_only_refuses_the_editor_and_shows_the_key_disabled() {
    let mut d = data();
    d.read_only = true;
    let mut app = app_with(d);
    let w = app
        .panes
        .variants
        .keys(&app.data)
        .into_iter()
        .find(|k| k.key == "w")
        .unwrap();
    assert!(w.disabled);
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    assert!(
        toasts(&app)
            .iter()
            .any(|(l, t)| *l == Level::Warn && t.starts_with("read-only: changing weights is disabled")),
        "{:?}",
        toasts(&app)
    );
    assert!(
        !app.panes
            .variants
            .keys(&data())
            .into_iter()
            .find(|k| k.key == "w")
            .unwrap()
            .disabled
    );
}

#[test]
fn an_endpoint_not_in_service_refuses_the_editor_with_the_reason() {
    let mut d = data();
    d.inventory[0].status = "Updating".into();
    let mut app = app_with(d);
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    assert!(
        toasts(&app)
            .iter()
            .any(|(_, t)| t == "fraud-detector is Updating; weights can change only when it is InService"),
        "{:?}",
        toasts(&app)
    );
    assert!(
        app.panes
            .variants
            .keys(&app.data)
            .iter()
            .any(|k| k.key == "w" && k.disabled)
    );
    // And nothing selected.
    let mut d = data();
    d.selected = None;
    let mut app = app_with(d);
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    assert!(toasts(&app).iter().any(|(_, t)| t.starts_with("no endpoint selected")));
}

#[test]
fn the_update_is_followed_to_in_service() {
    let mut app = app();
    press(&mut app, "wj5");
    tap(&mut app, KeyCode::Enter);
    press(&mut app, "y");
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::ApplyWeights { .. })))
    );
    let mut updating = endpoint();
    updating.status = "Updating".into();
    updating.variants[1].desired_weight = 5.0;
    updating.variants[1].statuses = vec!["Updating".into()];
    app.on_event(AppEvent::WeightsProgress(updating.clone()));
    let s = screen(&mut app);
    assert!(s.contains("● sent ── ● Updating ── ○ InService"), "{s}");
    assert!(s.contains("1/2 variants at their desired weight and count"), "{s}");
    assert!(s.contains("Canary weight 1 → 5 …"), "{s}");
    insta::assert_snapshot!("updating", s);
    // A second editor is refused while the change is followed.
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    let mut done = endpoint();
    done.variants[0].traffic_share = 9.0 / 14.0;
    done.variants[1].current_weight = 5.0;
    done.variants[1].desired_weight = 5.0;
    done.variants[1].traffic_share = 5.0 / 14.0;
    app.on_event(AppEvent::WeightsProgress(done.clone()));
    assert!(screen(&mut app).contains("2/2 variants at their desired weight and count"));
    app.on_event(AppEvent::WeightsDone {
        endpoint: EP.into(),
        result: Ok(done),
    });
    assert!(app.data.weights_progress.is_none());
    let s = screen(&mut app);
    assert!(!s.contains("● sent"), "the update section goes once settled");
    assert!(s.contains("35.7%"), "{s}");
}

#[test]
fn refusals_from_aws_are_error_toasts() {
    let mut app = app();
    app.on_event(AppEvent::WeightsDone {
        endpoint: EP.into(),
        result: Err(sagedeck::aws::AwsError::Validation(
            "DesiredWeight of variant \"Canary\" must be a number >= 0 (got -1).".into(),
        )),
    });
    assert!(
        toasts(&app)
            .iter()
            .any(|(l, t)| *l == Level::Error && t.contains("must be a number >= 0")),
        "{:?}",
        toasts(&app)
    );
}

#[test]
fn baseline_and_canary_use_their_theme_roles() {
    let mut app = app();
    let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
    t.draw(|f| draw(f, &mut app)).unwrap();
    let buf = t.backend().buffer().clone();
    let theme = Theme::default_theme();
    let find = |text: &str| {
        for y in 0..buf.area.height {
            let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol().to_string()).collect();
            if let Some(pos) = line.find(text) {
                let x = line[..pos].chars().count() as u16;
                return buf[(x, y)].fg;
            }
        }
        panic!("{text} not on screen");
    };
    assert_eq!(find("CANARY"), theme.color(Role::Canary));
    assert_eq!(find("▓ Canary"), theme.color(Role::Canary));
    // The selected row is drawn in the selection style; move off the baseline to see its colour.
    tap(&mut app, KeyCode::Down);
    t.draw(|f| draw(f, &mut app)).unwrap();
    let buf = t.backend().buffer().clone();
    let line: String = (0..buf.area.width).map(|x| buf[(x, 6)].symbol().to_string()).collect();
    assert!(line.contains("BASELINE"), "{line}");
    let x = line[..line.find("BASELINE").unwrap()].chars().count() as u16;
    assert_eq!(buf[(x, 6)].fg, theme.color(Role::Baseline));
    assert_ne!(theme.color(Role::Baseline), theme.color(Role::Canary));
}

#[test]
fn snapshot_variants_pane() {
    let mut app = app();
    insta::assert_snapshot!("variants_pane", screen(&mut app));
}

#[test]
fn snapshot_weight_editor() {
    let mut app = app();
    press(&mut app, "w");
    tap(&mut app, KeyCode::Down);
    press(&mut app, "3");
    insta::assert_snapshot!("weight_editor", screen(&mut app));
}

#[test]
fn snapshot_weight_editor_percent_invalid() {
    let mut app = app();
    press(&mut app, "w%");
    press(&mut app, "50");
    insta::assert_snapshot!("weight_editor_percent_invalid", screen(&mut app));
}

#[test]
fn snapshot_confirm_dialog() {
    let mut app = app();
    press(&mut app, "wj");
    press(&mut app, "3");
    tap(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("confirm_dialog", screen(&mut app));
}

#[test]
fn small_terminals_and_empty_states_draw_without_panicking() {
    for (w, h) in [(20, 6), (40, 10), (80, 24), (200, 60)] {
        let mut app = app();
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| draw(f, &mut app)).unwrap();
        press(&mut app, "wj3");
        t.draw(|f| draw(f, &mut app)).unwrap();
        tap(&mut app, KeyCode::Enter);
        t.draw(|f| draw(f, &mut app)).unwrap();
    }
    let mut d = data();
    d.selected = None;
    assert!(screen(&mut app_with(d)).contains("no endpoint selected"));
    let mut d = data();
    d.loaded = false;
    d.inventory.clear();
    assert!(screen(&mut app_with(d)).contains("loading endpoints"));
    let mut d = data();
    d.fleet_metrics = None;
    let s = screen(&mut app_with(d));
    assert!(s.contains("no invocations in the metrics window yet"), "{s}");
    assert!(s.contains("no metrics for this variant yet"), "{s}");
}

#[test]
fn latency_figures_name_their_complete_period_and_its_sample_count() {
    let mut d = data();
    if let Some(m) = d.fleet_metrics.as_mut() {
        m.variants[0].summary.latest_period_start = Some(1_700_000_820.0);
        m.variants[0].summary.latest_samples = Some(11.0);
    }
    let mut app = app_with(d);
    let text = screen(&mut app);
    assert!(text.contains("latest period 22:27 (11 samples)"), "{text}");
}
