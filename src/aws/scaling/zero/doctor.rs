//! The scale-to-zero doctor: the pieces AWS requires for a component to scale in to zero copies
//! and wake on the next call, each reported OK, missing or wrong with what to do:
//! the variant's ManagedInstanceScaling with MinInstanceCount 0; the component's scalable target
//! with MinCapacity 0; a target-tracking policy (it scales in to zero); a step policy adding at
//! least one copy; and the CloudWatch alarm on `NoCapacityInvocationFailures` (dimension
//! `InferenceComponentName`) whose action is that step policy. The alarm's comparison is checked
//! too: `GreaterThanThreshold 1` on a one-minute Sum needs two failed calls before it wakes.

use serde::Serialize;

use crate::aws::scaling::scope::NO_CAPACITY_METRIC;
use crate::aws::scaling::spec::StepScaling;
use crate::aws::scaling::zero::read::{ComponentScaling, NamedPolicy, WakeAlarm};

/// One piece scale to zero needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Piece {
    /// The variant's ManagedInstanceScaling with MinInstanceCount 0.
    InstanceScaling,
    /// The component's scalable target with MinCapacity 0.
    ScalableTarget,
    /// A target-tracking policy that scales in.
    TargetTracking,
    /// A step policy adding at least one copy.
    StepPolicy,
    /// The alarm on `NoCapacityInvocationFailures` that fires the step policy.
    WakeAlarm,
}

impl Piece {
    /// Its name in one or two words.
    pub fn label(self) -> &'static str {
        match self {
            Piece::InstanceScaling => "instance scaling",
            Piece::ScalableTarget => "scalable target",
            Piece::TargetTracking => "target tracking",
            Piece::StepPolicy => "step policy",
            Piece::WakeAlarm => "wake alarm",
        }
    }
}

/// How a piece stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PieceState {
    /// In place and right.
    Ok,
    /// Absent.
    Missing,
    /// Present but it will not do its part.
    Wrong,
}

/// The doctor's word on one piece.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PieceReport {
    /// Which piece.
    pub piece: Piece,
    /// How it stands.
    pub state: PieceState,
    /// What is there (or what is wrong with it).
    pub detail: String,
    /// What to do (empty when OK).
    pub fix: String,
}

impl PieceReport {
    /// Whether this piece needs doing.
    pub fn is_finding(&self) -> bool {
        self.state != PieceState::Ok
    }
}

/// The sagedeck command that creates what is missing.
fn scale_to_zero_cmd(s: &ComponentScaling) -> String {
    format!(
        "sagedeck autoscaling {} --inference-component {} --scale-to-zero",
        s.endpoint, s.component
    )
}

fn report(piece: Piece, state: PieceState, detail: String, fix: String) -> PieceReport {
    PieceReport {
        piece,
        state,
        detail,
        fix,
    }
}

fn instance_scaling(s: &ComponentScaling) -> PieceReport {
    let how = format!(
        "{} (writes a copy of the endpoint config with variant {}'s ManagedInstanceScaling ENABLED, MinInstanceCount 0, and updates the endpoint onto it)",
        scale_to_zero_cmd(s),
        s.variant
    );
    match &s.instance_scaling {
        None => report(
            Piece::InstanceScaling,
            PieceState::Missing,
            format!(
                "variant {} has no ManagedInstanceScaling: its instances stay when the copies reach zero",
                s.variant
            ),
            how,
        ),
        Some(m) if !m.enabled => report(
            Piece::InstanceScaling,
            PieceState::Wrong,
            format!("variant {}'s ManagedInstanceScaling is DISABLED", s.variant),
            how,
        ),
        Some(m) if m.min != Some(0) => report(
            Piece::InstanceScaling,
            PieceState::Wrong,
            format!(
                "variant {}'s MinInstanceCount is {}: at zero copies {} instance(s) stay and are billed",
                s.variant,
                m.min.map(|n| n.to_string()).unwrap_or_else(|| "unset".into()),
                m.min.unwrap_or(1)
            ),
            how,
        ),
        Some(m) => report(
            Piece::InstanceScaling,
            PieceState::Ok,
            format!(
                "variant {}: ManagedInstanceScaling ENABLED, instances 0-{}",
                s.variant,
                m.max.map(|n| n.to_string()).unwrap_or_else(|| "?".into())
            ),
            String::new(),
        ),
    }
}

fn scalable_target(s: &ComponentScaling) -> PieceReport {
    match s.bounds {
        None => report(
            Piece::ScalableTarget,
            PieceState::Missing,
            format!("{} has no scalable target: nothing scales its copies", s.component),
            scale_to_zero_cmd(s),
        ),
        Some((min, max)) if min > 0 => report(
            Piece::ScalableTarget,
            PieceState::Wrong,
            format!("MinCapacity is {min} (max {max}): the copies never go below {min}"),
            format!("{} (sets MinCapacity 0)", scale_to_zero_cmd(s)),
        ),
        Some((_, max)) => report(
            Piece::ScalableTarget,
            PieceState::Ok,
            format!("copies 0-{max}"),
            String::new(),
        ),
    }
}

fn target_tracking(s: &ComponentScaling) -> PieceReport {
    let tracking: Vec<&NamedPolicy> = s.policies.iter().filter(|p| p.spec.is_target_tracking()).collect();
    let scales_in = tracking.iter().find(|p| {
        p.spec
            .target_tracking_scaling_policy_configuration
            .as_ref()
            .is_some_and(|t| t.disable_scale_in != Some(true))
    });
    match (tracking.first(), scales_in) {
        (None, _) => report(
            Piece::TargetTracking,
            PieceState::Missing,
            "no target-tracking policy: nothing scales the copies in to zero when idle".into(),
            format!("{} --target-invocations-per-copy N", scale_to_zero_cmd(s)),
        ),
        (Some(p), None) => report(
            Piece::TargetTracking,
            PieceState::Wrong,
            format!("{} has DisableScaleIn: the copies never go down", p.spec.policy_name),
            format!(
                "sagedeck autoscaling {} --inference-component {} --target-invocations-per-copy N --policy-name {}",
                s.endpoint, s.component, p.spec.policy_name
            ),
        ),
        (_, Some(p)) => report(
            Piece::TargetTracking,
            PieceState::Ok,
            crate::aws::scaling::change::policy_text(&p.spec),
            String::new(),
        ),
    }
}

/// Whether a step configuration adds at least one copy from zero.
fn wakes_from_zero(c: &StepScaling) -> bool {
    let kind = c.adjustment_type.as_deref().unwrap_or("ChangeInCapacity");
    matches!(kind, "ChangeInCapacity" | "ExactCapacity") && c.step_adjustments.iter().any(|a| a.scaling_adjustment >= 1)
}

/// The step policy that wakes the component, if any (else any step policy, to say what is wrong).
pub fn wake_policy(s: &ComponentScaling) -> Option<&NamedPolicy> {
    let steps = || {
        s.policies
            .iter()
            .filter(|p| p.spec.step_scaling_policy_configuration.is_some() && !p.spec.is_target_tracking())
    };
    steps()
        .find(|p| {
            p.spec
                .step_scaling_policy_configuration
                .as_ref()
                .is_some_and(wakes_from_zero)
        })
        .or_else(|| steps().next())
}

fn step_policy(s: &ComponentScaling) -> PieceReport {
    match wake_policy(s) {
        None => report(
            Piece::StepPolicy,
            PieceState::Missing,
            "no step policy: a call at zero copies has nothing to add a copy".into(),
            scale_to_zero_cmd(s),
        ),
        Some(p)
            if !p
                .spec
                .step_scaling_policy_configuration
                .as_ref()
                .is_some_and(wakes_from_zero) =>
        {
            report(
                Piece::StepPolicy,
                PieceState::Wrong,
                format!(
                    "{} does not add a copy from zero (it needs AdjustmentType ChangeInCapacity and a step of +1 or more; a percentage of 0 copies is 0)",
                    p.spec.policy_name
                ),
                scale_to_zero_cmd(s),
            )
        }
        Some(p) => report(
            Piece::StepPolicy,
            PieceState::Ok,
            format!("{}: +1 copy when its alarm fires", p.spec.policy_name),
            String::new(),
        ),
    }
}

/// How many failed calls in one period an alarm needs before it fires, for a Sum statistic.
pub fn calls_to_fire(a: &WakeAlarm) -> Option<f64> {
    let t = a.threshold;
    match a.comparison.as_str() {
        "GreaterThanThreshold" => Some(t.floor().max(-1.0) + 1.0),
        "GreaterThanOrEqualToThreshold" => Some(t.ceil().max(1.0)),
        _ => None,
    }
}

/// What is wrong with an alarm meant to wake the component through `policy_arn` (None: right).
fn alarm_problem(a: &WakeAlarm, component: &str, policy_arn: Option<&str>) -> Option<String> {
    if a.namespace != "AWS/SageMaker" {
        return Some(format!(
            "{} watches namespace {}, not AWS/SageMaker",
            a.name, a.namespace
        ));
    }
    if !a
        .dimensions
        .iter()
        .any(|d| d.name == "InferenceComponentName" && d.value == component)
    {
        return Some(format!(
            "{} does not have the dimension InferenceComponentName={component}",
            a.name
        ));
    }
    let Some(calls) = calls_to_fire(a) else {
        return Some(format!(
            "{} compares with {}: a failed call never fires it",
            a.name, a.comparison
        ));
    };
    if calls > 1.0 {
        return Some(format!(
            "{} fires on {} {} over {}s: it needs {calls} failed calls in a period before the component wakes (use GreaterThanOrEqualToThreshold 1 to wake on the first)",
            a.name, a.comparison, a.threshold, a.period
        ));
    }
    let needed = a.datapoints_to_alarm.unwrap_or(a.evaluation_periods);
    if needed > 1 {
        return Some(format!(
            "{} needs {needed} breaching periods: the component wakes only after failures in {needed} periods",
            a.name
        ));
    }
    if !a.actions_enabled {
        return Some(format!(
            "{}'s actions are disabled: it fires but nothing happens",
            a.name
        ));
    }
    match policy_arn {
        Some(arn) if !a.actions.iter().any(|x| x == arn) => {
            Some(format!("{}'s AlarmActions do not name the step policy ({arn})", a.name))
        }
        _ => None,
    }
}

fn wake_alarm(s: &ComponentScaling) -> PieceReport {
    let arn = wake_policy(s).map(|p| p.arn.as_str());
    if s.alarms.is_empty() {
        return report(
            Piece::WakeAlarm,
            PieceState::Missing,
            format!(
                "no alarm on {NO_CAPACITY_METRIC} for {}: a call at zero copies wakes nothing",
                s.component
            ),
            scale_to_zero_cmd(s),
        );
    }
    if let Some(a) = s.alarms.iter().find(|a| alarm_problem(a, &s.component, arn).is_none()) {
        return report(
            Piece::WakeAlarm,
            PieceState::Ok,
            format!("{}: the first failed call in {}s wakes it", a.name, a.period),
            String::new(),
        );
    }
    let problem = s
        .alarms
        .iter()
        .find_map(|a| alarm_problem(a, &s.component, arn))
        .unwrap_or_default();
    report(
        Piece::WakeAlarm,
        PieceState::Wrong,
        problem,
        format!("{} (rewrites the alarm)", scale_to_zero_cmd(s)),
    )
}

/// Every piece, in the order AWS's documentation sets them up.
pub fn doctor(s: &ComponentScaling) -> Vec<PieceReport> {
    vec![
        instance_scaling(s),
        scalable_target(s),
        target_tracking(s),
        step_policy(s),
        wake_alarm(s),
    ]
}
