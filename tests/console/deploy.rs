//! The console side of `sagedeck deploy`: `D` on Variants opens the form, Enter plans it (the
//! schedule, or the refusals in one line), Enter again confirms, and the start goes through the
//! guard runner's audited job, refused in read-only mode; the stepper shows each read the watch
//! task sends. Snapshots at 80x24 and 140x40; one deployment sent from the console against the
//! sandbox to InService on its new configuration.

use std::time::Duration;

use aws_sdk_sagemaker::types::{ContainerDefinition, ProductionVariant, ProductionVariantInstanceType};
use crossterm::event::KeyCode;
use sagedeck::aws::deploy::plan::{ConfigChoice, DeployAsk, DeployPlan, NewConfig};
use sagedeck::aws::deploy::policy::{Capacity, DeployFacts, DeploySpec, Policy, Shift, VariantFacts};
use sagedeck::aws::deploy::stepper::{GreenVariant, Outcome, StatusStep, Stepper, parse_message};
use sagedeck::aws::endpoints::inventory::EndpointInfo;
use sagedeck::tui::app::App;
use sagedeck::tui::event::{AppEvent, GuardJob, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::widgets::Overlay;

use crate::app::app_with_fleet;
use crate::common;
use crate::common::tui::{press, render as screen, tap};

const POLICY: Policy = Policy::BlueGreen {
    shift: Shift::Canary(Capacity::Instances(1)),
    bake_secs: 300,
    final_bake_secs: 600,
};

fn variant_facts(name: &str) -> VariantFacts {
    VariantFacts {
        name: name.into(),
        instance_type: Some("ml.g5.2xlarge".into()),
        instances: 2,
        serverless: false,
        marketplace: false,
    }
}

/// A plan of a canary deployment of `seen` onto `new-config`.
pub fn sample_plan(seen: EndpointInfo) -> DeployPlan {
    let current_config = seen.config_name.clone().unwrap_or_default();
    let variants: Vec<VariantFacts> = seen.variants.iter().map(|v| variant_facts(&v.name)).collect();
    DeployPlan {
        facts: DeployFacts {
            endpoint: seen.name.clone(),
            current_config,
            new_config: "new-config".into(),
            current: variants.clone(),
            new: variants,
        },
        info: seen,
        target: NewConfig {
            name: "new-config".into(),
            variants: vec![],
            derived_from: None,
        },
        spec: DeploySpec {
            policy: POLICY,
            max_time_secs: 3600,
            alarms: vec!["ep-5xx".into()],
            retain_all: false,
            retain_deployment: false,
        },
        gates: vec![],
        keep_alarms: false,
    }
}

/// The read-only gate's sample of a plan request.
pub fn plan_job(seen: EndpointInfo) -> GuardJob {
    GuardJob::DeployPlan {
        ask: Box::new(DeployAsk {
            config: ConfigChoice::Named("new-config".into()),
            policy: POLICY,
            max_time_secs: None,
            alarms: vec![],
            gate_alarms: false,
            keep_alarms: false,
            retain_all: false,
            retain_deployment: false,
            expected_config: seen.config_name.clone(),
        }),
        info: Box::new(seen),
    }
}

/// The read-only gate's sample of a start.
pub fn deploy_job(seen: EndpointInfo) -> GuardJob {
    GuardJob::Deploy {
        plan: Box::new(sample_plan(seen)),
        reason: None,
    }
}

/// The fleet fixture on the Variants pane with the deploy form open.
fn form_open() -> App {
    let mut app = app_with_fleet(0);
    app.switch(Tab::Variants);
    press(&mut app, "D");
    assert!(
        app.panes.variants.deploy.form.is_some(),
        "{}",
        screen(&mut app, 140, 40)
    );
    // The form offers `Stable=`: the model to put there.
    press(&mut app, "model-v2");
    app
}

fn planned(app: &mut App) {
    let seen = (*app.data.inventory[0]).clone();
    let endpoint = seen.name.clone();
    app.on_event(AppEvent::DeployPlanned {
        endpoint,
        result: Ok(Box::new(sample_plan(seen))),
    });
}

fn step(status: &str, message: &str, bake_left_secs: Option<i64>) -> StatusStep {
    StatusStep {
        status: status.into(),
        message: message.into(),
        phase: parse_message(message),
        started: Some(1_790_000_100.0),
        bake_left_secs,
    }
}

/// A canary baking, one rollback alarm named but not read.
fn baking(endpoint: &str) -> Stepper {
    Stepper {
        endpoint: endpoint.into(),
        status: "Updating".into(),
        live_config: Some("old-config".into()),
        pending_config: Some("new-config".into()),
        started: Some(1_790_000_000.0),
        now: 1_790_000_190.0,
        blue: vec![("Stable".into(), 2), ("Canary".into(), 1)],
        green: vec![GreenVariant {
            name: "Stable".into(),
            weights: (1.0, 1.0),
            instances: (1, 2),
            steps: vec![step(
                "Baking",
                "Baking for 300 seconds (WaitIntervalInSeconds) with traffic enabled on canary capacity of 1 instance(s).",
                Some(210),
            )],
        }],
        failure_reason: None,
        alarms: vec![],
        alarm_names: vec!["ep-5xx".into()],
        policy: Some(POLICY),
        expected_end: Some(1_790_001_500.0),
    }
}

#[test]
fn snapshot_the_form_and_its_schedule() {
    let mut app = form_open();
    insta::assert_snapshot!("deploy_form_80x24", screen(&mut app, 80, 24));
    tap(&mut app, KeyCode::Enter);
    let jobs = app.take_jobs();
    assert!(
        jobs.iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::DeployPlan { .. }))),
        "Enter plans: {jobs:?}"
    );
    planned(&mut app);
    insta::assert_snapshot!("deploy_form_schedule_140x40", screen(&mut app, 140, 40));
    insta::assert_snapshot!("deploy_form_schedule_80x24", screen(&mut app, 80, 24));
    // Any edit drops the plan: Enter plans again rather than confirming.
    tap(&mut app, KeyCode::Backspace);
    assert!(app.panes.variants.deploy.form.as_ref().unwrap().planned.is_none());
}

#[test]
fn refusals_show_as_one_line() {
    let mut app = form_open();
    tap(&mut app, KeyCode::Enter);
    app.take_jobs();
    let endpoint = app.data.inventory[0].name.clone();
    app.on_event(AppEvent::DeployPlanned {
        endpoint,
        result: Err("refused: canary 5 instance(s) is more than the 2 of Stable; nothing was sent".into()),
    });
    let s = screen(&mut app, 140, 40);
    assert!(
        s.contains("refused: canary 5 instance(s) is more than the 2 of Stable"),
        "{s}"
    );
    // A refused plan is not confirmed: Enter asks for a plan again.
    tap(&mut app, KeyCode::Enter);
    assert!(app.overlay.is_none());
}

#[test]
fn confirming_sends_the_deploy_job_and_the_stepper_follows_the_reads() {
    let mut app = form_open();
    tap(&mut app, KeyCode::Enter);
    app.take_jobs();
    planned(&mut app);
    tap(&mut app, KeyCode::Enter);
    assert!(
        matches!(app.overlay, Some(Overlay::Confirm(_))),
        "Enter on a plan asks to confirm"
    );
    let s = screen(&mut app, 140, 40);
    assert!(
        s.contains("Deploy mcp-intent-classifier-prod") && s.contains("new-config"),
        "{s}"
    );
    press(&mut app, "y");
    let jobs = app.take_jobs();
    assert!(
        jobs.iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::Deploy { .. }))),
        "y sends the start: {jobs:?}"
    );
    let endpoint = app.data.inventory[0].name.clone();
    app.on_event(AppEvent::Deployment {
        endpoint: endpoint.clone(),
        stepper: Box::new(baking(&endpoint)),
    });
    assert!(
        app.panes.variants.deploy.form.is_none(),
        "the first read closes the form"
    );
    insta::assert_snapshot!("deploy_stepper_140x40", screen(&mut app, 140, 40));
    insta::assert_snapshot!("deploy_stepper_80x24", screen(&mut app, 80, 24));
    // Esc leaves the view; `D` opens it again while the deployment runs.
    tap(&mut app, KeyCode::Esc);
    assert_eq!(app.panes.variants.deploy.open, None);
    press(&mut app, "D");
    assert_eq!(app.panes.variants.deploy.open.as_deref(), Some(endpoint.as_str()));
    app.on_event(AppEvent::DeploymentEnded {
        endpoint: endpoint.clone(),
        result: Ok(Outcome::RollbackFailed {
            reason: "the old fleet could not be restored".into(),
        }),
    });
    let s = screen(&mut app, 140, 40);
    assert!(s.contains("EMERGENCY: UpdateRollbackFailed"), "{s}");
}

#[test]
fn read_only_refuses_the_form_and_the_send() {
    let mut app = app_with_fleet(0);
    app.switch(Tab::Variants);
    app.data.read_only = true;
    press(&mut app, "D");
    assert!(app.panes.variants.deploy.form.is_none());
    assert!(
        app.toasts
            .log
            .iter()
            .any(|t| t.text.starts_with("read-only: deploying is disabled")),
        "{:?}",
        app.toasts.log
    );
    // Turned on with the form open and a plan read: the confirmation's job is refused too.
    let mut app = form_open();
    tap(&mut app, KeyCode::Enter);
    app.take_jobs();
    planned(&mut app);
    app.data.read_only = true;
    tap(&mut app, KeyCode::Enter);
    assert!(app.overlay.is_none(), "no confirmation in read-only mode");
    app.data.read_only = false;
    tap(&mut app, KeyCode::Enter);
    app.data.read_only = true;
    press(&mut app, "y");
    assert!(
        !app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::Deploy { .. }))),
        "nothing sent"
    );
}

// ---- over the wire ----

const EP: &str = "console-deploy";

async fn model(sm: &aws_sdk_sagemaker::Client, name: &str) {
    let container = ContainerDefinition::builder()
        .image("huggingface-pytorch-inference")
        .build();
    sm.create_model()
        .model_name(name)
        .primary_container(container)
        .execution_role_arn("arn:aws:iam::123456789012:role/x")
        .send()
        .await
        .unwrap();
}

/// A sandbox whose updates take 300 ms, with EP InService on model-v1 (two instances) and
/// model-v2 ready.
async fn sandbox() -> sagedeck::sandbox::SandboxHandle {
    let mut config = sagedeck::sandbox::SandboxConfig::for_tests();
    config.timing.update = Duration::from_millis(300);
    let sb = common::sandbox_with(config).await;
    let sm = aws_sdk_sagemaker::Client::new(&common::sdk_config(&sb).await);
    model(&sm, "model-v1").await;
    model(&sm, "model-v2").await;
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .model_name("model-v1")
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(2)
        .initial_variant_weight(1.0)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name("v1-config")
        .production_variants(variant)
        .send()
        .await
        .unwrap();
    sm.create_endpoint()
        .endpoint_name(EP)
        .endpoint_config_name("v1-config")
        .send()
        .await
        .unwrap();
    common::poll_until("InService", Duration::from_secs(30), || async {
        let d = sm.describe_endpoint().endpoint_name(EP).send().await.ok()?;
        (d.endpoint_status().map(|s| s.as_str()) == Some("InService")).then_some(())
    })
    .await;
    sb
}

#[tokio::test]
async fn a_deployment_sent_from_the_console_reaches_in_service_on_its_new_config() {
    let sb = sandbox().await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let (jobs, mut rx) = common::tui::guarded_worker_on(&sb, dir.path(), None).await;
    let mut app = common::tui::loaded_app(&jobs, &mut rx).await;
    let deadline = Duration::from_secs(120);
    let described = |a: &App| a.data.endpoint(EP).is_some_and(|e| e.config_name.is_some());
    common::tui::pump_until(
        &mut app,
        &jobs,
        &mut rx,
        ("the endpoint described", deadline),
        described,
        |a| a.schedule_refreshes(),
    )
    .await;
    app.data.selected = Some(EP.into());
    app.switch(Tab::Variants);
    press(&mut app, "D");
    // The variant and its model, a canary of 1 and no bakes.
    for _ in 0..40 {
        tap(&mut app, KeyCode::Backspace);
    }
    press(&mut app, "AllTraffic=model-v2");
    for (down, text) in [(2, "1"), (1, "0"), (1, "0")] {
        for _ in 0..down {
            tap(&mut app, KeyCode::Down);
        }
        for _ in 0..4 {
            tap(&mut app, KeyCode::Backspace);
        }
        press(&mut app, text);
    }
    tap(&mut app, KeyCode::Enter);
    let planned = |a: &App| {
        a.panes
            .variants
            .deploy
            .form
            .as_ref()
            .is_some_and(|f| f.planned.is_some())
    };
    common::tui::pump_until(&mut app, &jobs, &mut rx, ("the plan", deadline), planned, |_| {}).await;
    let form = app.panes.variants.deploy.form.as_ref().unwrap();
    assert!(matches!(form.planned, Some(Ok(_))), "{:?}", form.planned);
    tap(&mut app, KeyCode::Enter);
    press(&mut app, "y");
    let ended = |a: &App| a.panes.variants.deploy.watch(EP).is_some_and(|w| w.outcome.is_some());
    common::tui::pump_until(&mut app, &jobs, &mut rx, ("the outcome", deadline), ended, |_| {}).await;
    let w = app.panes.variants.deploy.watch(EP).unwrap().clone();
    let target = w.target.clone();
    assert!(target.starts_with("v1-config-"), "{target}");
    assert_eq!(
        w.outcome,
        Some(Ok(Outcome::Succeeded { config: target.clone() })),
        "{}",
        screen(&mut app, 140, 40)
    );
    assert!(w.stepper.is_some(), "the stepper saw reads");
    let sm = aws_sdk_sagemaker::Client::new(&common::sdk_config(&sb).await);
    let d = sm.describe_endpoint().endpoint_name(EP).send().await.unwrap();
    assert_eq!(d.endpoint_config_name(), Some(target.as_str()));
    assert_eq!(d.endpoint_status().map(|s| s.as_str()), Some("InService"));
    let log = std::fs::read_to_string(&audit).unwrap();
    assert!(log.contains("deploy.start"), "the start is audited: {log}");
    // The outcome is logged after the watch decides it: the timeline shows it.
    let outcome = log
        .lines()
        .rfind(|l| l.contains("\"deploy.outcome\""))
        .unwrap_or_else(|| panic!("no deploy.outcome line: {log}"));
    assert!(
        outcome.contains("\"result\":\"ok\"") && outcome.contains(&target),
        "{outcome}"
    );
}
