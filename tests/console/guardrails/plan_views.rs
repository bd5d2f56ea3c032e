//! The promotion in the console to its end: the plan editor's judge, alarm, load and
//! consolidation fields (choices that say which keys work), the timeline's per-metric verdicts
//! and consolidation step, a breach without a verdict shown loud with its key, dialogs that
//! always show their keys, `?` naming the plan keys, and one source of truth for a running plan.

use crossterm::event::KeyCode;

use sagedeck::aws::judge::compare::{MetricVerdict, Outcome};
use sagedeck::aws::judge::stats::Method;
use sagedeck::aws::promote::events::PromotionEvent;
use sagedeck::aws::promote::plan::Phase;
use sagedeck::aws::promote::report::{GateCheck, Verdict};
use sagedeck::tui::event::Job;
use sagedeck::tui::event::{FleetJob, GuardJob};
use sagedeck::tui::widgets::Overlay;

use super::{EP, app, app_on, endpoint, promotion, report, set_field, snapshot, state};
use crate::common::tui::{self, press, tap};

fn editor(app: &sagedeck::tui::app::App) -> &sagedeck::tui::panes::variants::promotion::PlanEditor {
    app.panes.variants.promo.editor.as_ref().expect("plan editor open")
}

/// The editor with the judge on, two alarms and a load, the cursor on the load.
fn filled_editor() -> sagedeck::tui::app::App {
    let mut app = app();
    press(&mut app, "P");
    set_field(&mut app, 10, "0.05");
    set_field(&mut app, 15, "ep-errors, ep-latency");
    set_field(&mut app, 16, "20");
    app
}

#[test]
fn snapshot_plan_editor_fields_140x40() {
    let mut app = filled_editor();
    snapshot("plan_editor_fields_140x40", tui::render(&mut app, 140, 40));
}

#[test]
fn snapshot_plan_editor_fields_80x24() {
    let mut app = filled_editor();
    let screen = tui::render(&mut app, 80, 24);
    assert!(
        screen.contains("load (req/s)"),
        "the focused field is in view:\n{screen}"
    );
    snapshot("plan_editor_fields_80x24", screen);
}

#[test]
fn the_editor_carries_judge_alarms_load_and_consolidation_into_the_plan() {
    let mut app = filled_editor();
    // The consolidation field is a choice: n switches the last step off.
    set_field(&mut app, 9, "");
    press(&mut app, "n");
    assert!(!editor(&app).consolidate);
    tap(&mut app, KeyCode::Enter);
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation: {:?}", app.overlay)
    };
    assert_eq!(c.lines[0], "Canary against baseline Stable", "no `Canary Canary`");
    let text = c.lines.join("\n");
    for needle in [
        "Last step: none",
        "Judge: Mann-Whitney at alpha 0.05",
        "Alarms: ep-errors, ep-latency",
        "Load: 20 req/s",
    ] {
        assert!(text.contains(needle), "{needle}:\n{text}");
    }
    press(&mut app, "y");
    let jobs = app.take_jobs();
    let (spec, extras) = jobs
        .iter()
        .find_map(|(_, j)| match j {
            Job::Guard(GuardJob::Promote { spec, extras, .. }) => Some((spec.clone(), extras.clone())),
            _ => None,
        })
        .expect("y starts the plan");
    assert!(!spec.consolidate);
    assert_eq!(extras.judge.map(|j| j.alpha), Some(0.05));
    assert_eq!(extras.alarms, ["ep-errors", "ep-latency"]);
    assert_eq!(extras.load_rps, Some(20.0));
}

#[test]
fn choice_fields_refuse_other_keys_out_loud_and_space_does_not_flip_them() {
    let mut app = app();
    press(&mut app, "P");
    set_field(&mut app, 8, "");
    let manual = editor(&app).manual;
    press(&mut app, " ");
    assert_eq!(editor(&app).manual, manual, "space does not flip the mode");
    let (field, why) = editor(&app).problem.clone().expect("space is answered");
    assert_eq!(field, 8);
    assert!(why.contains("a auto · m manual"), "{why}");
    press(&mut app, "x");
    let why = editor(&app).problem.clone().unwrap().1;
    assert!(why.contains("`x` does nothing here"), "{why}");
    press(&mut app, "m");
    assert!(editor(&app).manual && editor(&app).problem.is_none());
    press(&mut app, "a");
    assert!(!editor(&app).manual);
    // A rate reads as a percentage beside its fraction.
    let screen = tui::render(&mut app, 120, 30);
    assert!(screen.contains("0.01  = 1%"), "{screen}");
}

fn verdict(metric: &str, outcome: Outcome, p: f64, effect: f64, allowed: f64) -> MetricVerdict {
    MetricVerdict {
        metric: metric.into(),
        outcome,
        p_value: Some(p),
        method: Some(Method::Exact),
        effect: Some(effect),
        allowed: Some(allowed),
        canary: vec![1.0; 12],
        baseline: vec![1.0; 12],
    }
}

/// A plan whose first step was judged metric by metric, baking its last step.
fn judged_plan() -> sagedeck::tui::app::App {
    let mut app = app();
    let mut st = state(Phase::Baking, 1);
    let mut gate = report(Verdict::NoVerdict);
    gate.judge = vec![
        verdict("model_latency_p99", Outcome::Pass, 0.4113, 1.2, 3.1),
        verdict("model_latency_p50", Outcome::Fail, 0.0021, 9.5, 2.0),
        verdict("5xx_rate", Outcome::Inconclusive, 0.2, 0.001, 0.005),
    ];
    st.timeline[0].gate = Some(gate);
    st.spec.steps = vec![10.0, 100.0];
    promotion(&mut app, PromotionEvent::Saved { state: Box::new(st) });
    app
}

#[test]
fn snapshot_timeline_with_per_metric_verdicts_140x40() {
    let mut app = judged_plan();
    let screen = tui::render(&mut app, 140, 40);
    assert!(screen.contains("judge model_latency_p50"), "{screen}");
    assert!(screen.contains("consolidate"), "{screen}");
    snapshot("timeline_judge_140x40", screen);
}

#[test]
fn snapshot_timeline_with_per_metric_verdicts_80x24() {
    let mut app = judged_plan();
    snapshot("timeline_judge_80x24", tui::render(&mut app, 80, 24));
}

#[test]
fn a_5xx_breach_without_a_verdict_is_shown_loud_with_the_key_that_rolls_back() {
    let mut app = app();
    let mut st = state(Phase::Held, 0);
    let mut gate = report(Verdict::NoVerdict);
    gate.checks = vec![
        GateCheck {
            name: "invocations".into(),
            value: Some(50.0),
            limit: 100.0,
            ok: Some(false),
        },
        GateCheck {
            name: "5xx_rate".into(),
            value: Some(0.02),
            limit: 0.01,
            ok: None,
        },
    ];
    st.timeline[0].gate = Some(gate);
    st.timeline.truncate(1);
    st.message = Some(
        "no verdict at step 1: too few; resume with `sagedeck promote fraud-detector --resume`, or roll back with `sagedeck promote fraud-detector --rollback`"
            .into(),
    );
    app.on_event(sagedeck::tui::event::AppEvent::PromotionEnded {
        endpoint: EP.into(),
        result: Ok(Box::new(st)),
    });
    let screen = tui::render(&mut app, 140, 40);
    assert!(
        screen.contains("BREACH: 5XX 2.00% is above its 1.00% limit") && screen.contains("B rolls back"),
        "{screen}"
    );
    assert!(
        !screen.contains("sagedeck promote"),
        "no CLI command inside the console:\n{screen}"
    );
    snapshot("breach_without_verdict_140x40", screen);
    // The key does it, after a confirmation whose keys are shown even at 80x24.
    press(&mut app, "B");
    let screen = tui::render(&mut app, 80, 24);
    assert!(screen.contains("y / Enter") && screen.contains("n / Esc"), "{screen}");
    press(&mut app, "y");
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::PromoteResume { rollback: true, .. })))
    );
}

#[test]
fn help_names_the_plan_keys() {
    let mut app = app();
    press(&mut app, "?");
    let screen = tui::render(&mut app, 140, 40);
    assert!(
        screen.contains("resume this endpoint's held or interrupted plan")
            && screen.contains("roll this endpoint's held or interrupted plan back"),
        "{screen}"
    );
}

#[test]
fn a_running_plan_is_this_consoles_in_the_variants_table_too() {
    let mut e = endpoint();
    e.status = "Updating".into();
    e.variants[1].desired_weight = 5.0;
    let mut app = app_on(e);
    promotion(
        &mut app,
        PromotionEvent::Saved {
            state: Box::new(state(Phase::Updating, 1)),
        },
    );
    let screen = tui::render(&mut app, 140, 40);
    assert!(!screen.contains("not started from this console"), "{screen}");
    assert!(screen.contains("(this console's promotion plan)"), "{screen}");
}

/// Three alarms watch the endpoint: one in ALARM, one OK, one without data.
fn with_alarms(app: &mut sagedeck::tui::app::App) {
    use sagedeck::aws::observe::alarms::AlarmStatus;
    let a = |name: &str, state: &str| AlarmStatus {
        name: name.into(),
        kind: "metric",
        state: state.into(),
        reason: "drill".into(),
        updated: None,
        watches: "AWS/SageMaker/Invocation5XXErrors Sum (EndpointName=fraud-detector) GreaterThanThreshold 50".into(),
    };
    app.data.alarms.insert(
        EP.into(),
        vec![
            a("fraud-5xx", "ALARM"),
            a("fraud-p99", "OK"),
            a("fraud-disk", "INSUFFICIENT_DATA"),
        ],
    );
}

#[test]
fn snapshot_alarm_badges_on_variants_140x40() {
    let mut app = app();
    with_alarms(&mut app);
    let screen = tui::render(&mut app, 140, 40);
    assert!(
        screen.contains("fraud-5xx ALARM") && screen.contains("fraud-p99 OK"),
        "{screen}"
    );
    snapshot("alarm_badges_variants_140x40", screen);
}

#[test]
fn snapshot_alarm_badges_on_variants_80x24() {
    let mut app = app();
    with_alarms(&mut app);
    snapshot("alarm_badges_variants_80x24", tui::render(&mut app, 80, 24));
}

#[test]
fn snapshot_alarm_badge_on_the_endpoints_table() {
    let mut app = app();
    with_alarms(&mut app);
    app.tab = sagedeck::tui::panes::Tab::Endpoints;
    let screen = tui::render(&mut app, 140, 40);
    assert!(screen.contains("⚠1 fraud-detector"), "{screen}");
    snapshot("alarm_badge_endpoints_140x40", screen);
    snapshot("alarm_badge_endpoints_80x24", tui::render(&mut app, 80, 24));
}

/// The text inside the box of `screen` whose top border holds `heading`, row after row, its
/// words joined by single spaces.
fn boxed_text(screen: &str, heading: &str) -> String {
    let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = rows
        .iter()
        .position(|r| r.iter().collect::<String>().contains(heading))
        .expect("the box");
    let left = (0..rows[top].len())
        .rev()
        .find(|&i| rows[top][i] == '┌')
        .expect("a corner");
    let right = (left..rows[top].len())
        .find(|&i| rows[top][i] == '┐')
        .expect("a corner");
    let text: Vec<String> = rows[top + 1..]
        .iter()
        .take_while(|r| r.get(left) == Some(&'│'))
        .map(|r| r[left + 1..right].iter().collect())
        .collect();
    text.join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn at_100x30_the_stop_dialog_and_the_plan_confirmation_show_every_line() {
    let mut baking = super::app_with_a_baking_plan();
    baking.on_key(tui::ctrl('c'));
    assert!(baking.panes.variants.promo.esc_menu.is_some());
    let screen = tui::render(&mut baking, 100, 30);
    let text = boxed_text(&screen, "Promotion of fraud-detector");
    assert!(
        text.contains("Ctrl-C quits; the plan stays saved (R resumes at the next start)"),
        "{screen}"
    );

    let mut app = app();
    press(&mut app, "P");
    tap(&mut app, KeyCode::Enter);
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation: {:?}", app.overlay)
    };
    let lines = c.lines.clone();
    let screen = tui::render(&mut app, 100, 30);
    let text = boxed_text(&screen, "Promote Canary on fraud-detector?");
    for line in lines {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(&line), "{line:?} not whole:\n{screen}");
    }
    assert!(text.contains("y / Enter apply"), "{screen}");
}

#[test]
fn a_plan_event_asks_for_a_describe_and_the_variants_table_follows_it() {
    let mut e = endpoint();
    e.status = "Updating".into();
    e.variants[1].statuses = vec!["Updating".into()];
    let mut app = app_on(e);
    app.take_jobs();
    promotion(
        &mut app,
        PromotionEvent::Saved {
            state: Box::new(state(Phase::Baking, 1)),
        },
    );
    let asked = app.take_jobs();
    assert!(
        asked
            .iter()
            .any(|(_, j)| matches!(j, Job::Fleet(FleetJob::Describe { endpoint }) if endpoint == EP)),
        "{asked:?}"
    );
    let mut now = endpoint();
    now.variants[0].current_weight = 1.0;
    now.variants[0].desired_weight = 1.0;
    now.variants[1].current_weight = 1.0;
    now.variants[1].desired_weight = 1.0;
    app.on_event(sagedeck::tui::event::AppEvent::Described {
        endpoint: EP.into(),
        result: Ok((now.clone(), vec![])),
    });
    assert_eq!(
        app.data.endpoint(EP),
        Some(&now),
        "the table shows what the describe read"
    );
}
