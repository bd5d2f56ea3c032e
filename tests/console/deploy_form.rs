//! The deploy form's fields besides the policy: the timeout, the rolling rollback batch, the gate
//! alarms with keep-alarms, RetainDeploymentConfig and RetainAllVariantProperties. Once a plan is
//! read, a change of the policy, a bake or the timeout is checked again at once by the CLI's rules
//! (no read: the refusal or the re-drawn schedule shows); the other fields plan again. Snapshots
//! at 80x24 and 140x40.

use crossterm::event::KeyCode;
use sagedeck::aws::deploy::plan::DeployAsk;
use sagedeck::tui::app::App;
use sagedeck::tui::event::{AppEvent, GuardJob, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::variants::deploy::{DeployForm, FormField};

use crate::app::app_with_fleet;
use crate::common::tui::{press, render as screen, tap};
use crate::deploy::sample_plan;

/// The form open on the fixture's first endpoint, `Stable=model-v2`, planned as `sample_plan`.
fn planned_form() -> App {
    let mut app = app_with_fleet(0);
    app.switch(Tab::Variants);
    press(&mut app, "D");
    press(&mut app, "model-v2");
    tap(&mut app, KeyCode::Enter);
    app.take_jobs();
    let seen = (*app.data.inventory[0]).clone();
    app.on_event(AppEvent::DeployPlanned {
        endpoint: seen.name.clone(),
        result: Ok(Box::new(sample_plan(seen))),
    });
    app
}

fn form(app: &App) -> &DeployForm {
    app.panes.variants.deploy.form.as_ref().expect("the form is open")
}

/// Moves the focus down to `field`.
fn focus(app: &mut App, field: FormField) {
    for _ in 0..20 {
        if form(app).field == field {
            return;
        }
        tap(app, KeyCode::Down);
    }
    panic!("{field:?} not reached: {:?}", form(app).field);
}

/// Replaces the focused text field's value with `text`.
fn retype(app: &mut App, text: &str) {
    for _ in 0..12 {
        tap(app, KeyCode::Backspace);
    }
    press(app, text);
}

/// The plan asks sent since the last look.
fn asks(app: &mut App) -> Vec<DeployAsk> {
    app.take_jobs()
        .into_iter()
        .filter_map(|(_, j)| match j {
            Job::Guard(GuardJob::DeployPlan { ask, .. }) => Some(*ask),
            _ => None,
        })
        .collect()
}

#[test]
fn policy_bake_and_timeout_are_checked_again_without_a_read() {
    let mut app = planned_form();
    focus(&mut app, FormField::Bake);
    retype(&mut app, "900");
    let s = screen(&mut app, 140, 40);
    assert!(s.contains("bake 15m"), "the schedule is re-drawn: {s}");
    assert!(matches!(form(&app).planned, Some(Ok(_))));
    focus(&mut app, FormField::MaxTime);
    retype(&mut app, "600");
    let refusal = form(&app)
        .planned
        .clone()
        .expect("checked at once")
        .expect_err("refused");
    assert!(
        refusal.contains("timeout-exceeds-waits: --max-time 600s is not longer than the 1200s"),
        "{refusal}"
    );
    insta::assert_snapshot!("deploy_form_refused_80x24", screen(&mut app, 80, 24));
    retype(&mut app, "3600");
    let plan = form(&app).planned.clone().expect("checked").expect("accepted");
    assert_eq!(plan.spec.max_time_secs, 3600);
    assert!(asks(&mut app).is_empty(), "nothing was read again");
}

#[test]
fn rolling_takes_a_rollback_batch_and_gate_alarms_are_asked_with_keep() {
    let mut app = planned_form();
    focus(&mut app, FormField::Policy);
    for _ in 0..3 {
        tap(&mut app, KeyCode::Right);
    }
    assert!(
        form(&app).shows(FormField::RollbackBatch),
        "rolling shows the rollback batch"
    );
    let refusal = form(&app)
        .planned
        .clone()
        .expect("checked at once")
        .expect_err("refused");
    assert!(refusal.contains("rolling-batch: rolling batches of 1 %"), "{refusal}");
    assert!(refusal.contains("rolling-multi-variant"), "{refusal}");
    focus(&mut app, FormField::Size);
    retype(&mut app, "25%");
    focus(&mut app, FormField::RollbackBatch);
    retype(&mut app, "150%");
    let refusal = form(&app).planned.clone().expect("checked").expect_err("refused");
    assert!(
        refusal.contains("rollback-batch: rollback batches of 150 %"),
        "{refusal}"
    );
    retype(&mut app, "50%");
    assert!(
        !form(&app).shows(FormField::KeepAlarms),
        "keep-alarms comes with gate alarms"
    );
    focus(&mut app, FormField::GateAlarms);
    tap(&mut app, KeyCode::Char(' '));
    assert!(form(&app).planned.is_none(), "gate alarms are planned again (a read)");
    focus(&mut app, FormField::KeepAlarms);
    tap(&mut app, KeyCode::Char(' '));
    focus(&mut app, FormField::RetainAll);
    tap(&mut app, KeyCode::Right);
    insta::assert_snapshot!("deploy_form_all_fields_140x40", screen(&mut app, 140, 40));
    tap(&mut app, KeyCode::Enter);
    let asked = asks(&mut app);
    assert_eq!(asked.len(), 1, "{asked:?}");
    let ask = &asked[0];
    assert!(ask.gate_alarms && ask.keep_alarms && ask.retain_all && !ask.retain_deployment);
    assert_eq!(
        ask.policy,
        sagedeck::aws::deploy::policy::Policy::Rolling {
            batch_percent: 25,
            bake_secs: 300,
            rollback_percent: Some(50),
        }
    );
}

#[test]
fn retaining_the_last_deployment_config_hides_the_policy() {
    let mut app = planned_form();
    focus(&mut app, FormField::RetainDeployment);
    tap(&mut app, KeyCode::Char(' '));
    for hidden in [
        FormField::Policy,
        FormField::Bake,
        FormField::Alarms,
        FormField::GateAlarms,
    ] {
        assert!(!form(&app).shows(hidden), "{hidden:?} is the last config's");
    }
    insta::assert_snapshot!("deploy_form_retained_80x24", screen(&mut app, 80, 24));
    tap(&mut app, KeyCode::Enter);
    let asked = asks(&mut app);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].retain_deployment && !asked[0].gate_alarms && asked[0].alarms.is_empty());
}
