//! The console's guardrails (issue 6): the promotion plan editor, its confirmation and timeline,
//! manual-mode questions and Esc during a plan, read-only refusals, the Activity tab (the audit
//! log); and over the wire with the sandbox and the worker: a weight change made behind the
//! console's back is refused with nothing sent, a console prewarm is audited, an unwritable audit
//! log blocks the mutation.

mod activity;
mod plan_driver;
mod plan_views;
mod quit;
mod wire;

use std::time::Duration;

use crossterm::event::KeyCode;

use sagedeck::aws::endpoints::inventory::EndpointInfo;
use sagedeck::aws::promote::events::{Control, PromotionEvent, Question};
use sagedeck::aws::promote::plan::{Mode, Phase, PlanState, PromotionSpec, StepRecord};
use sagedeck::aws::promote::report::{Figures, GateCheck, GateReport, Gates, Verdict};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::GuardJob;
use sagedeck::tui::event::{AppEvent, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::Overlay;

use crate::common;
use crate::common::builders::{self, shared, variant};
use crate::common::tui::{self, ctrl, press, tap};

const EP: &str = "fraud-detector";

/// The fraud detector: Stable (weight 9) and Canary (weight 1), each on one ml.m5.xlarge.
fn endpoint() -> EndpointInfo {
    let variant = |name: &str| {
        variant(name)
            .model(&format!("model-{name}"))
            .instance_type("ml.m5.xlarge")
    };
    builders::endpoint(EP)
        .config("fraud-detector-config-7")
        .variants([
            variant("Stable").weight(9.0).share(0.9),
            variant("Canary").weight(1.0).share(0.1),
        ])
        .build()
}

fn app_on(info: EndpointInfo) -> App {
    let data = Data {
        context: tui::context(),
        selected: Some(info.name.clone()),
        inventory: shared(vec![info]),
        loaded: true,
        refresh_interval: Duration::from_secs(10),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.tab = Tab::Variants;
    app
}

fn app() -> App {
    app_on(endpoint())
}

fn screen(app: &mut App) -> String {
    tui::render(app, 120, 30)
}

/// A snapshot stored with the others in tests/snapshots (for the child modules too).
fn snapshot(name: &str, screen: String) {
    insta::assert_snapshot!(name, screen);
}

fn toasts(app: &App) -> Vec<String> {
    app.toasts.visible().map(|e| e.text.clone()).collect()
}

/// Focuses field `i` of the open plan editor and replaces its text.
fn set_field(app: &mut App, i: usize, text: &str) {
    while app
        .panes
        .variants
        .promo
        .editor
        .as_ref()
        .expect("plan editor open")
        .cursor
        != i
    {
        tap(app, KeyCode::Down);
    }
    for _ in 0..40 {
        tap(app, KeyCode::Backspace);
    }
    press(app, text);
}

fn problem(app: &App) -> Option<(usize, String)> {
    app.panes.variants.promo.editor.as_ref().and_then(|e| e.problem.clone())
}

#[test]
fn the_plan_editor_validates_then_states_the_plan() {
    let mut app = app();
    press(&mut app, "P");
    let ed = app
        .panes
        .variants
        .promo
        .editor
        .as_ref()
        .expect("P opens the plan editor");
    assert_eq!((ed.values[0].as_str(), ed.values[1].as_str()), ("Canary", "Stable"));
    assert_eq!(ed.values[2], "10,25,50,100");
    assert!(
        app.panes.variants.promo.capturing(),
        "the editor takes the keys (q types, does not quit)"
    );

    set_field(&mut app, 0, "Nope");
    tap(&mut app, KeyCode::Enter);
    let (field, why) = problem(&app).expect("an unknown canary is refused");
    assert_eq!(field, 0);
    assert!(
        why.contains("not a variant of fraud-detector (Stable, Canary)"),
        "{why}"
    );
    set_field(&mut app, 0, "Canary");

    set_field(&mut app, 2, "10,5");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(problem(&app).map(|p| p.0), Some(2), "steps must increase");
    set_field(&mut app, 2, "10,50,100");

    set_field(&mut app, 3, "5 minutes");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(problem(&app).map(|p| p.0), Some(3));
    set_field(&mut app, 3, "2m");

    set_field(&mut app, 5, "2");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(problem(&app).map(|p| p.0), Some(5), "a rate above 1 is refused");
    set_field(&mut app, 5, "0.02");
    set_field(&mut app, 7, "many");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(problem(&app).map(|p| p.0), Some(7));
    set_field(&mut app, 7, "50");
    set_field(&mut app, 8, "m");
    assert!(
        app.panes.variants.promo.editor.as_ref().unwrap().manual,
        "m chooses manual"
    );
    set_field(&mut app, 17, "INC-42 quiet hours");
    assert!(
        app.take_jobs()
            .iter()
            .all(|(_, j)| !matches!(j, Job::Guard(GuardJob::Promote { .. })))
    );

    tap(&mut app, KeyCode::Enter);
    assert!(app.panes.variants.promo.editor.is_none());
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation: {:?}", app.overlay)
    };
    assert_eq!(c.title, "Promote Canary on fraud-detector?");
    assert_eq!(
        c.lines[..5],
        [
            "Canary against baseline Stable",
            "Steps: canary share 10% → 50% → 100% — bake 2m each",
            "Gates: p99 ≤ 1.2× baseline, 5XX ≤ 2%, 4XX not gated, ≥ 50 invocations (fewer: no verdict)",
            "Mode: manual — asks before each step; a failed gate stops and asks",
            "Starting weights: Stable=9 Canary=1",
        ]
    );
    assert!(c.lines.contains(&"Reason: INC-42 quiet hours".to_string()));
    press(&mut app, "y");
    let jobs = app.take_jobs();
    let spec = jobs
        .iter()
        .find_map(|(_, j)| match j {
            Job::Guard(GuardJob::Promote { spec, reason, .. }) => Some((spec.clone(), reason.clone())),
            _ => None,
        })
        .expect("y starts the plan");
    assert_eq!(spec.0.steps, [10.0, 50.0, 100.0]);
    assert_eq!(spec.0.bake, Duration::from_secs(120));
    assert_eq!(spec.0.mode, Mode::Manual);
    assert_eq!(spec.0.gates.max_5xx_rate, 0.02);
    assert_eq!(spec.0.gates.min_invocations, 50);
    assert_eq!(spec.1.as_deref(), Some("INC-42 quiet hours"));
}

#[test]
fn esc_closes_the_editor_and_nothing_is_sent() {
    let mut app = app();
    press(&mut app, "P");
    tap(&mut app, KeyCode::Esc);
    assert!(app.panes.variants.promo.editor.is_none() && app.overlay.is_none());
    assert!(app.take_jobs().is_empty());
    assert_eq!(app.tab, Tab::Variants);
}

#[test]
fn read_only_refuses_promotion_and_weights_and_shows_the_keys_disabled() {
    let mut app = app();
    app.data.read_only = true;
    press(&mut app, "P");
    assert!(app.panes.variants.promo.editor.is_none());
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    let t = toasts(&app);
    assert!(
        t.iter().any(|m| m.starts_with("read-only: promotion is disabled")),
        "{t:?}"
    );
    assert!(t.iter().any(|m| m.starts_with("read-only: changing weights")), "{t:?}");
    let hints = app.hints();
    for k in ["P", "w"] {
        assert!(
            hints.iter().any(|h| h.key == k && h.disabled),
            "{k} shown disabled: {hints:?}"
        );
    }
    assert!(app.take_jobs().is_empty());
}

fn spec() -> PromotionSpec {
    PromotionSpec {
        endpoint: EP.into(),
        canary: "Canary".into(),
        baseline: None,
        steps: vec![10.0, 50.0, 100.0],
        bake: Duration::from_secs(300),
        gates: Gates::default(),
        mode: Mode::Manual,
        consolidate: true,
    }
}

fn report(verdict: Verdict) -> GateReport {
    let fig = |inv: f64, p99: f64, e5: f64| Figures {
        invocations: inv,
        p99_ms: Some(p99),
        errors_5xx: e5,
        errors_4xx: 0.0,
    };
    let check = |name: &str, value: f64, limit: f64| GateCheck {
        name: name.into(),
        value: Some(value),
        limit,
        ok: Some(true),
    };
    GateReport {
        start: 1_700_000_000.0,
        end: 1_700_000_300.0,
        canary: fig(420.0, 33.0, 1.0),
        baseline: fig(3800.0, 31.0, 6.0),
        reference: Some(fig(3800.0, 31.0, 6.0)),
        reference_from: Some("this step".into()),
        checks: vec![
            check("invocations", 420.0, 100.0),
            check("p99_ratio", 33.0 / 31.0, 1.2),
            check("5xx_rate", 1.0 / 420.0, 0.01),
        ],
        verdict,
        reasons: vec![],
        judge: vec![],
    }
}

fn state(phase: Phase, step: usize) -> PlanState {
    let rec = |i: usize, share: f64, gate: Option<GateReport>| StepRecord {
        index: i,
        share,
        weights: vec![],
        request_id: Some("req-1".into()),
        applied_at: Some(1_700_000_000.0),
        bake_start: Some(1_700_000_000.0),
        bake_end: Some(1_700_000_300.0),
        gate,
    };
    PlanState {
        id: "fraud-detector-1".into(),
        spec: spec(),
        baseline: "Stable".into(),
        start_weights: vec![("Stable".into(), 9.0), ("Canary".into(), 1.0)],
        phase,
        step,
        timeline: vec![rec(0, 10.0, Some(report(Verdict::Pass))), rec(1, 50.0, None)],
        message: None,
        updated: 1_700_000_400.0,
        pid: 1,
        reason: None,
        consolidation_started: false,
    }
}

fn promotion(app: &mut App, event: PromotionEvent) {
    app.on_event(AppEvent::Promotion {
        endpoint: EP.into(),
        event: Box::new(event),
    });
}

#[test]
fn manual_mode_asks_and_esc_offers_hold_or_roll_back() {
    let mut app = app();
    promotion(
        &mut app,
        PromotionEvent::Saved {
            state: Box::new(state(Phase::Updating, 1)),
        },
    );
    // Esc during a running plan: hold here or roll back (the tab stays).
    tap(&mut app, KeyCode::Esc);
    assert_eq!(app.panes.variants.promo.esc_menu.as_deref(), Some(EP));
    assert_eq!(app.tab, Tab::Variants);
    press(&mut app, "b");
    let controls = |app: &mut App| -> Vec<Control> {
        app.take_jobs()
            .into_iter()
            .filter_map(|(_, j)| match j {
                Job::Guard(GuardJob::PromoteControl { control, .. }) => Some(control),
                _ => None,
            })
            .collect()
    };
    assert_eq!(controls(&mut app), [Control::Rollback]);
    // A question before the next step: y proceeds, h holds.
    promotion(
        &mut app,
        PromotionEvent::Ask {
            question: Question::NextStep { step: 2, share: 100.0 },
        },
    );
    assert!(screen(&mut app).contains("Apply step 3 — canary share 100%?"));
    press(&mut app, "y");
    assert_eq!(controls(&mut app), [Control::Proceed]);
    promotion(
        &mut app,
        PromotionEvent::Ask {
            question: Question::AfterGate {
                step: 2,
                verdict: Verdict::NoVerdict,
            },
        },
    );
    press(&mut app, "h");
    assert_eq!(controls(&mut app), [Control::Hold]);
    // The plan ends held: R and B are offered.
    let mut held = state(Phase::Held, 1);
    held.message = Some("held by the operator".into());
    app.on_event(AppEvent::PromotionEnded {
        endpoint: EP.into(),
        result: Ok(Box::new(held)),
    });
    assert!(
        toasts(&app)
            .iter()
            .any(|t| t.contains("promotion of fraud-detector held"))
    );
    assert!(app.hints().iter().any(|h| h.key == "R" && !h.disabled));
    press(&mut app, "B");
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("B asks first")
    };
    assert!(matches!(
        c.jobs.as_slice(),
        [Job::Guard(GuardJob::PromoteResume { rollback: true, .. })]
    ));
}

#[test]
fn snapshot_plan_editor() {
    let mut app = app();
    press(&mut app, "P");
    set_field(&mut app, 2, "10,5");
    tap(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("guard_plan_editor", screen(&mut app));
}

#[test]
fn snapshot_promotion_timeline() {
    let mut app = app();
    promotion(
        &mut app,
        PromotionEvent::Saved {
            state: Box::new(state(Phase::Updating, 1)),
        },
    );
    insta::assert_snapshot!("guard_promotion_timeline", screen(&mut app));
}

#[test]
fn unfinished_plans_are_announced_and_offered_for_resume() {
    let mut app = app();
    let mut held = state(Phase::Baking, 1);
    held.pid = 999_999;
    app.on_event(AppEvent::UnfinishedPlans(vec![held]));
    let t = toasts(&app);
    assert!(
        t.iter()
            .any(|m| m.contains("unfinished promotion of Canary on fraud-detector (Baking, step 2)")),
        "{t:?}"
    );
    let hints = app.hints();
    assert!(hints.iter().any(|h| h.key == "R") && hints.iter().any(|h| h.key == "B"));
    assert!(
        hints.iter().any(|h| h.key == "P" && h.disabled),
        "no second plan on the endpoint"
    );
    press(&mut app, "R");
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("R asks first")
    };
    assert_eq!(c.title, "Resume the promotion of fraud-detector?");
    assert!(matches!(
        c.jobs.as_slice(),
        [Job::Guard(GuardJob::PromoteResume { rollback: false, .. })]
    ));
    tap(&mut app, KeyCode::Esc);
    app.data.read_only = true;
    press(&mut app, "R");
    assert!(app.overlay.is_none());
    assert!(
        toasts(&app)
            .iter()
            .any(|m| m.starts_with("read-only: resuming a promotion"))
    );
}

#[test]
fn the_models_pane_marks_the_warm_set() {
    use sagedeck::aws::endpoints::catalog::{Catalog, CatalogEntry};
    let mme = "mme-tenants";
    let info = builders::endpoint(mme)
        .variants([variant("AllTraffic").mme("s3://models/tenants/")])
        .build();
    let mut app = app_on(info);
    let entry = |key: &str| CatalogEntry {
        key: key.into(),
        size: 40_000_000,
        last_modified: None,
        etag: None,
    };
    app.data.catalogs.insert(
        mme.into(),
        Catalog {
            bucket: "models".into(),
            prefix: "tenants/".into(),
            models: vec![entry("acme.tar.gz"), entry("globex.tar.gz")],
            pages: 1,
        },
    );
    app.data.warm_set = sagedeck::aws::endpoints::warmset::WarmSet::parse(
        &format!("[endpoints]\n\"{mme}\" = [\"globex.tar.gz\"]\n"),
        false,
    )
    .unwrap();
    app.tab = Tab::Models;
    let s = screen(&mut app);
    assert!(s.contains("♨ globex.tar.gz"), "{s}");
    assert!(!s.contains("♨ acme.tar.gz"), "{s}");
}

/// A console on the Endpoints tab while a plan bakes on the Variants tab.
fn app_with_a_baking_plan() -> App {
    let mut app = app();
    promotion(
        &mut app,
        PromotionEvent::Saved {
            state: Box::new(state(Phase::Baking, 1)),
        },
    );
    app.tab = Tab::Endpoints;
    app
}
