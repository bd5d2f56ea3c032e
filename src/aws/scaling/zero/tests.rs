//! The doctor and the plan on hand-built component states.

use super::doctor::{Piece, PieceState, calls_to_fire, doctor};
use super::plan::{ComponentRequest, plan_component, wake_step_policy};
use super::read::{ComponentScaling, InstanceScaling, NamedPolicy, WakeAlarm};
use crate::aws::scaling::change::ScalingChange;
use crate::aws::scaling::spec::Dimension;

fn bare() -> ComponentScaling {
    ComponentScaling {
        endpoint: "ep".into(),
        component: "ic".into(),
        variant: "AllTraffic".into(),
        status: "InService".into(),
        desired_copies: Some(1),
        current_copies: Some(1),
        instance_scaling: None,
        endpoint_config: Some("ep-config".into()),
        bounds: None,
        policies: Vec::new(),
        alarms: Vec::new(),
    }
}

fn alarm(comparison: &str, threshold: f64, action: &str) -> WakeAlarm {
    WakeAlarm {
        name: "wake".into(),
        namespace: "AWS/SageMaker".into(),
        metric_name: "NoCapacityInvocationFailures".into(),
        dimensions: vec![Dimension {
            name: "InferenceComponentName".into(),
            value: "ic".into(),
        }],
        statistic: Some("Sum".into()),
        period: 60,
        evaluation_periods: 1,
        comparison: comparison.into(),
        threshold,
        actions: vec![action.into()],
        actions_enabled: true,
        ..Default::default()
    }
}

fn complete() -> ComponentScaling {
    let mut s = bare();
    s.instance_scaling = Some(InstanceScaling {
        enabled: true,
        min: Some(0),
        max: Some(2),
    });
    s.bounds = Some((0, 2));
    s.policies = vec![
        NamedPolicy {
            spec: super::plan::invocations_per_copy_policy("ic", "tt", 5.0),
            arn: "arn:tt".into(),
        },
        NamedPolicy {
            spec: wake_step_policy("ic", "step"),
            arn: "arn:step".into(),
        },
    ];
    s.alarms = vec![alarm("GreaterThanOrEqualToThreshold", 1.0, "arn:step")];
    s
}

fn state_of(s: &ComponentScaling, piece: Piece) -> PieceState {
    doctor(s).into_iter().find(|r| r.piece == piece).unwrap().state
}

#[test]
fn a_bare_component_misses_every_piece_and_the_plan_creates_them_all() {
    let s = bare();
    assert!(doctor(&s).iter().all(|r| r.state == PieceState::Missing));
    let req = ComponentRequest {
        scale_to_zero: true,
        ..Default::default()
    };
    let changes = plan_component(&req, &s).unwrap();
    assert!(
        matches!(&changes[0], ScalingChange::ZeroInstances { variant, from_config, was: None, max: None }
            if variant == "AllTraffic" && from_config == "ep-config"),
        "{changes:?}"
    );
    assert!(matches!(changes[1], ScalingChange::Bounds { min: 0, max: 1 }));
    assert_eq!(changes.len(), 5, "{changes:?}");
    assert!(matches!(&changes[4], ScalingChange::WakeAlarm { policy_name, .. } if policy_name == "sagedeck-wake"));
}

#[test]
fn a_variant_at_min_one_is_planned_to_zero_keeping_its_max() {
    let mut s = complete();
    s.instance_scaling.as_mut().unwrap().min = Some(1);
    let req = ComponentRequest {
        scale_to_zero: true,
        ..Default::default()
    };
    let changes = plan_component(&req, &s).unwrap();
    assert_eq!(changes.len(), 1, "only the variant is missing: {changes:?}");
    assert!(matches!(&changes[0], ScalingChange::ZeroInstances { max: Some(2), .. }));
    s.endpoint_config = None;
    assert!(plan_component(&req, &s).is_err(), "no configuration to copy");
}

#[test]
fn a_complete_setup_is_clean_and_plans_nothing() {
    let s = complete();
    assert!(doctor(&s).iter().all(|r| r.state == PieceState::Ok), "{:?}", doctor(&s));
    let req = ComponentRequest {
        scale_to_zero: true,
        ..Default::default()
    };
    assert!(plan_component(&req, &s).is_err());
}

#[test]
fn greater_than_one_needs_two_calls_and_is_flagged() {
    let mut s = complete();
    s.alarms = vec![alarm("GreaterThanThreshold", 1.0, "arn:step")];
    assert_eq!(calls_to_fire(&s.alarms[0]), Some(2.0));
    assert_eq!(state_of(&s, Piece::WakeAlarm), PieceState::Wrong);
    s.alarms = vec![alarm("GreaterThanThreshold", 0.0, "arn:step")];
    assert_eq!(state_of(&s, Piece::WakeAlarm), PieceState::Ok);
}

#[test]
fn an_alarm_firing_another_policy_a_min_above_zero_and_a_percent_step_are_wrong() {
    let mut s = complete();
    s.alarms = vec![alarm("GreaterThanOrEqualToThreshold", 1.0, "arn:other")];
    assert_eq!(state_of(&s, Piece::WakeAlarm), PieceState::Wrong);
    s = complete();
    s.bounds = Some((1, 2));
    assert_eq!(state_of(&s, Piece::ScalableTarget), PieceState::Wrong);
    s = complete();
    let step = s.policies[1].spec.step_scaling_policy_configuration.as_mut().unwrap();
    step.adjustment_type = Some("PercentChangeInCapacity".into());
    assert_eq!(state_of(&s, Piece::StepPolicy), PieceState::Wrong);
    s = complete();
    s.instance_scaling.as_mut().unwrap().min = Some(1);
    assert_eq!(state_of(&s, Piece::InstanceScaling), PieceState::Wrong);
}

#[test]
fn bad_bounds_are_refused() {
    let s = bare();
    let req = |min, max| ComponentRequest {
        min,
        max,
        ..Default::default()
    };
    assert!(plan_component(&req(Some(3), Some(1)), &s).is_err());
    assert!(plan_component(&req(Some(-1), Some(1)), &s).is_err());
    assert!(plan_component(&req(Some(0), None), &s).is_err());
    assert!(plan_component(&req(Some(0), Some(2)), &s).is_ok());
}
