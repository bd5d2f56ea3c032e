//! The Scaling pane's component pages: after the variants, `v` shows each inference component
//! with its copies, policies, the scale-to-zero doctor (from the real doctor) and activities;
//! insta snapshots at 80x24 and 140x40; its edits (`m` copies, `t` target per copy, `z` the
//! scale-to-zero plan) confirmed before → after (snapshots of the plan's confirmation) and sent
//! as one guarded job, refused in read-only mode; over the wire, the plan run from the view leaves
//! the doctor clean.

use sagedeck::aws::endpoints::autoscaling::ActivityInfo;
use sagedeck::aws::scaling::spec::Dimension;
use sagedeck::aws::scaling::zero::doctor::doctor;
use sagedeck::aws::scaling::zero::plan::{invocations_per_copy_policy, wake_step_policy};
use sagedeck::aws::scaling::zero::read::{ComponentScaling, InstanceScaling, NamedPolicy, WakeAlarm};
use sagedeck::aws::scaling::zero::view::ComponentView;

use crossterm::event::KeyCode;
use sagedeck::aws::scaling::change::ScalingChange;
use sagedeck::tui::event::{GuardJob, Job};
use sagedeck::tui::panes::scaling::EditKind;
use sagedeck::tui::widgets::Overlay;

use super::app::app_with_fleet;
use super::scaling::{hand_made_view, shown};
use crate::common::tui::{press, render as screen, tap};

const EP: &str = "mcp-intent-classifier-prod";
const IC: &str = "llm-base";

/// A component with everything but a right wake alarm: its alarm uses `> 1` (two failed calls).
fn component(end: f64) -> ComponentView {
    let scaling = ComponentScaling {
        endpoint: EP.into(),
        component: IC.into(),
        variant: "Stable".into(),
        status: "InService".into(),
        desired_copies: Some(0),
        current_copies: Some(0),
        instance_scaling: Some(InstanceScaling {
            enabled: true,
            min: Some(0),
            max: Some(2),
        }),
        endpoint_config: Some(format!("{EP}-config")),
        bounds: Some((0, 2)),
        policies: vec![
            NamedPolicy {
                spec: invocations_per_copy_policy(IC, "per-copy", 10.0),
                arn: "arn:per-copy".into(),
            },
            NamedPolicy {
                spec: wake_step_policy(IC, "wake"),
                arn: "arn:wake".into(),
            },
        ],
        alarms: vec![WakeAlarm {
            name: "ic-wake".into(),
            namespace: "AWS/SageMaker".into(),
            metric_name: "NoCapacityInvocationFailures".into(),
            dimensions: vec![Dimension {
                name: "InferenceComponentName".into(),
                value: IC.into(),
            }],
            statistic: Some("Sum".into()),
            period: 60,
            evaluation_periods: 1,
            threshold: 1.0,
            comparison: "GreaterThanThreshold".into(),
            actions: vec!["arn:wake".into()],
            actions_enabled: true,
            ..Default::default()
        }],
    };
    ComponentView {
        doctor: doctor(&scaling),
        activities: vec![ActivityInfo {
            resource_id: format!("inference-component/{IC}"),
            description: "Setting desired copy count to 0.".into(),
            cause: "monitor alarm TargetTracking-inference-component/llm-base-AlarmLow-1f2e in state ALARM triggered policy per-copy changing the desired capacity from 1 to 0.".into(),
            status: "Successful".into(),
            start: end - 300.0,
            end: Some(end - 290.0),
        }],
        scaling,
    }
}

#[test]
fn a_component_page_shows_the_doctor_and_its_fix() {
    let base = app_with_fleet(0);
    let mut view = hand_made_view(&base);
    view.components = vec![component(view.end)];
    let mut app = shown(view);
    let variant_page = screen(&mut app, 140, 40);
    assert!(variant_page.contains("1 inference component(s)"), "{variant_page}");
    press(&mut app, "v");
    press(&mut app, "v");
    let wide = screen(&mut app, 140, 40);
    for want in [
        "component llm-base (1/1)",
        "copies desired 0 · current 0",
        "1 of 5 pieces missing or wrong",
        "✗ wrong wake alarm",
        "needs 2 failed calls",
        "--scale-to-zero",
        "1 → 0",
    ] {
        assert!(wide.contains(want), "{want} not in\n{wide}");
    }
    insta::assert_snapshot!("scaling_component_140x40", wide);
    insta::assert_snapshot!("scaling_component_80x24", screen(&mut app, 80, 24));
    // `v` comes back round to the first variant.
    press(&mut app, "v");
    assert!(screen(&mut app, 140, 40).contains("variant Stable (1/2)"));
}

/// The confirmation shown now: its lines.
fn confirmation(app: &sagedeck::tui::app::App) -> Vec<String> {
    match &app.overlay {
        Some(Overlay::Confirm(c)) => c.lines.clone(),
        other => panic!("no confirmation: {other:?}"),
    }
}

#[test]
fn component_edits_confirm_before_and_after_and_send_one_guarded_job() {
    let base = app_with_fleet(0);
    let mut view = hand_made_view(&base);
    let mut c = component(view.end);
    c.scaling.instance_scaling.as_mut().unwrap().min = Some(1);
    c.doctor = doctor(&c.scaling);
    view.components = vec![c];
    let mut app = shown(view);
    press(&mut app, "v");
    press(&mut app, "v");
    // `m`: min/max copies, prefilled with the target read.
    press(&mut app, "m");
    let e = app.panes.scaling.editor().expect("an editor");
    assert_eq!((e.kind, e.input.as_str()), (EditKind::CopyBounds, "0 2"));
    tap(&mut app, KeyCode::Backspace);
    press(&mut app, "3");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(
        confirmation(&app)[0],
        "llm-base scalable target: min 0, max 2 → min 0, max 3"
    );
    tap(&mut app, KeyCode::Esc);
    app.take_jobs();
    // `t`: the target invocations per copy, on the tracking policy it has.
    press(&mut app, "t");
    tap(&mut app, KeyCode::Backspace);
    tap(&mut app, KeyCode::Backspace);
    press(&mut app, "25");
    tap(&mut app, KeyCode::Enter);
    let lines = confirmation(&app);
    assert!(
        lines[0].starts_with("llm-base policy per-copy:") && lines[0].contains("target 25"),
        "{lines:?}"
    );
    tap(&mut app, KeyCode::Esc);
    app.take_jobs();
    // `z`: the scale-to-zero plan, the variant's new configuration first.
    press(&mut app, "z");
    let lines = confirmation(&app);
    assert!(
        lines[0]
            .starts_with("variant Stable ManagedInstanceScaling: ENABLED 1-2 → ENABLED 0-2 (a copy of endpoint config"),
        "{lines:?}"
    );
    assert!(lines[1].contains("wake alarm ic-wake"), "{lines:?}");
    insta::assert_snapshot!("scaling_component_zero_140x40", screen(&mut app, 140, 40));
    insta::assert_snapshot!("scaling_component_zero_80x24", screen(&mut app, 80, 24));
    press(&mut app, "y");
    let jobs = app.take_jobs();
    let sent: Vec<&GuardJob> = jobs
        .iter()
        .filter_map(|(_, j)| match j {
            Job::Guard(g @ GuardJob::ChangeComponentScaling { .. }) => Some(g),
            _ => None,
        })
        .collect();
    assert_eq!(sent.len(), 1, "{jobs:?}");
    let GuardJob::ChangeComponentScaling { component, changes, .. } = sent[0] else {
        unreachable!()
    };
    assert_eq!(component, IC);
    assert!(
        matches!(changes[0], ScalingChange::ZeroInstances { max: Some(2), .. }),
        "{changes:?}"
    );
    // Read-only: refused at once, no editor, no job.
    app.data.read_only = true;
    press(&mut app, "z");
    assert!(app.overlay.is_none() && app.panes.scaling.editor().is_none());
    assert!(app.take_jobs().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scale_to_zero_plan_runs_from_the_view_audited_and_the_doctor_is_then_clean() {
    let sb = crate::common::sandbox_with(sagedeck::sandbox::SandboxConfig {
        demo_components: true,
        ..crate::common::demo_config()
    })
    .await;
    let mut c = super::scaling::Console::start(&sb, "llm-ic-endpoint").await;
    let view = c.app.panes.scaling.view(&c.app.data).expect("the view");
    let index = view
        .components
        .iter()
        .position(|x| x.scaling.component == "llm-ic-chat")
        .expect("the chat component's page");
    let presses = view.variants.len() + index;
    for _ in 0..presses {
        press(&mut c.app, "v");
    }
    press(&mut c.app, "z");
    let lines = confirmation(&c.app);
    assert!(!lines.is_empty(), "a plan to confirm");
    press(&mut c.app, "y");
    c.pump("the plan's outcome", |a| {
        a.toasts
            .log
            .iter()
            .any(|t| t.text.contains("autoscaling of llm-ic-chat"))
    })
    .await;
    assert!(c.toasts().contains("autoscaling of llm-ic-chat: "), "{}", c.toasts());
    let audit = std::fs::read_to_string(c._dir.path().join("audit.jsonl")).unwrap();
    assert!(
        audit.contains("autoscaling.wake-alarm") || audit.contains("autoscaling.bounds"),
        "{audit}"
    );
    let s = crate::common::fleet(&sb)
        .await
        .component_scaling("llm-ic-endpoint", "llm-ic-chat")
        .await
        .unwrap();
    let findings: Vec<_> = doctor(&s).into_iter().filter(|r| r.is_finding()).collect();
    assert!(findings.is_empty(), "{findings:?}\n{}", c.toasts());
}
