//! The Scaling pane's component pages: after the variants, `v` shows each inference component
//! with its copies, policies, the scale-to-zero doctor (from the real doctor) and activities;
//! insta snapshots at 80x24 and 140x40; an edit key there names the CLI instead of editing.

use sagedeck::aws::endpoints::autoscaling::ActivityInfo;
use sagedeck::aws::scaling::spec::Dimension;
use sagedeck::aws::scaling::zero::doctor::doctor;
use sagedeck::aws::scaling::zero::plan::{invocations_per_copy_policy, wake_step_policy};
use sagedeck::aws::scaling::zero::read::{ComponentScaling, InstanceScaling, NamedPolicy, WakeAlarm};
use sagedeck::aws::scaling::zero::view::ComponentView;

use super::app::app_with_fleet;
use super::scaling::{hand_made_view, shown};
use crate::common::tui::{press, render as screen};

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
    // An edit key on a component page names the CLI and opens no editor.
    press(&mut app, "m");
    assert!(app.panes.scaling.editor().is_none());
    // `v` comes back round to the first variant.
    press(&mut app, "v");
    assert!(screen(&mut app, 140, 40).contains("variant Stable (1/2)"));
}
