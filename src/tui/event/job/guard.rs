//! The guard runner's jobs (`worker/guard/`): audited mutations (weights, prewarms, promotion
//! plans, autoscaling) and the reads of the audit log (Activity, Timeline).

use super::Effect;
use crate::aws::change::weights::WeightPlan;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::promote::events::Control;
use crate::aws::scaling::change::ScalingChange;

/// What the read-only refusal calls a weight change (the Variants pane asks it before editing).
pub const CHANGING_WEIGHTS: &str = "changing weights";
/// What the read-only refusal calls a new promotion plan.
pub const PROMOTION: &str = "promotion";
/// What the read-only refusal calls resuming an unfinished plan.
pub const RESUMING_A_PROMOTION: &str = "resuming a promotion";
/// What the read-only refusal calls a prewarm.
pub const PREWARMING: &str = "prewarming";
/// What the read-only refusal calls an autoscaling change (the Scaling pane asks it before editing).
pub const CHANGING_AUTOSCALING: &str = "changing autoscaling";
/// What the read-only refusal calls a deployment (the Variants pane asks it before its form).
pub const DEPLOYING: &str = "deploying";

/// What the read-only refusal calls setting a component's copies (the Components pane asks it
/// before opening its form).
pub const SETTING_COPIES: &str = "setting copies";
/// What the read-only refusal calls waking a component from zero copies.
pub const WAKING_A_COMPONENT: &str = "waking a component";

/// What the read-only refusal calls a change of a serverless variant's concurrency (the
/// Variants pane asks it before opening its editor).
pub const SETTING_CONCURRENCY: &str = "setting serverless concurrency";

/// What the read-only refusal calls a rolling update of a component's model.
pub const UPDATING_A_COMPONENT: &str = "updating a component";

/// Audited mutations and the audit log's reads. Every mutation writes its intent to the audit log
/// before anything is sent.
#[derive(Debug, Clone)]
pub enum GuardJob {
    /// Apply a weight plan and follow the endpoint until InService.
    ApplyWeights {
        /// The plan.
        plan: WeightPlan,
        /// The endpoint as the operator saw it (compare-and-swap: refused if it changed since).
        seen: Box<EndpointInfo>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Read the audit log for the Activity tab ([`crate::tui::event::AppEvent::Activity`]).
    Activity,
    /// Read the team's audit trail for a plan announced on an endpoint, before a plan is
    /// confirmed there ([`crate::tui::event::AppEvent::PlanLock`]).
    PlanLock {
        /// Endpoint.
        endpoint: String,
    },
    /// Start a promotion plan (in its own task; progress as
    /// [`crate::tui::event::AppEvent::Promotion`]).
    Promote {
        /// The plan.
        spec: crate::aws::promote::plan::PromotionSpec,
        /// The operator's reason (audited).
        reason: Option<String>,
        /// The judge, gate alarms and load the plan adds.
        extras: crate::aws::promote::events::PlanExtras,
    },
    /// Resume (or roll back) an endpoint's saved, unfinished plan.
    PromoteResume {
        /// Endpoint.
        endpoint: String,
        /// Roll back instead of resuming.
        rollback: bool,
    },
    /// Answer a running plan (proceed, hold, roll back).
    PromoteControl {
        /// Endpoint.
        endpoint: String,
        /// The decision.
        control: Control,
    },
    /// Prewarm models of an MME.
    Prewarm {
        /// Endpoint.
        endpoint: String,
        /// Model keys.
        models: Vec<String>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Change a variant's autoscaling (bounds, a policy, its removal, the instance count now):
    /// compare-and-swapped against `seen`, audited before it is sent
    /// ([`crate::tui::event::AppEvent::ScalingChanged`]).
    ChangeScaling {
        /// Endpoint.
        endpoint: String,
        /// Variant.
        variant: String,
        /// What to send, in order.
        changes: Vec<ScalingChange>,
        /// The variant's autoscaling as the operator saw it.
        seen: Box<crate::aws::scaling::change::ScalingSnapshot>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Change an inference component's autoscaling (bounds in copies, target tracking on
    /// invocations per copy, the scale-to-zero plan with the variant's ManagedInstanceScaling):
    /// compare-and-swapped against `seen` (and the endpoint's configuration), audited before it
    /// is sent ([`crate::tui::event::AppEvent::ScalingChanged`], the component as its variant).
    ChangeComponentScaling {
        /// Endpoint hosting it.
        endpoint: String,
        /// The component.
        component: String,
        /// What to send, in order.
        changes: Vec<ScalingChange>,
        /// The component's autoscaling as the operator saw it.
        seen: Box<crate::aws::scaling::change::ScalingSnapshot>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Change a serverless variant's max and provisioned concurrency in place
    /// (UpdateEndpointWeightsAndCapacities with ServerlessUpdateConfig): compare-and-swapped
    /// against the variant as the plan saw it, audited before it is sent, followed to InService
    /// ([`crate::tui::event::AppEvent::ServerlessSet`]).
    SetServerless {
        /// The checked plan (the variant as seen inside).
        plan: Box<crate::aws::change::serverless::ServerlessPlan>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Set an inference component's copy count now (UpdateInferenceComponentRuntimeConfig):
    /// compare-and-swapped against the desired count the operator saw, audited before it is sent
    /// ([`crate::tui::event::AppEvent::CopiesSet`]). A wake is the same change from zero.
    SetCopies {
        /// Endpoint hosting it.
        endpoint: String,
        /// The component as the operator saw it: refused if its desired copies (or model)
        /// changed since.
        seen: crate::aws::components::ComponentSnapshot,
        /// The copy count to set.
        copies: i32,
        /// Whether this wakes the component from zero (0 → N).
        wake: bool,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Roll an inference component over to another model (UpdateInferenceComponent with its
    /// DeploymentConfig): compare-and-swapped against what the operator saw, audited before it is
    /// sent, then followed to its outcome ([`crate::tui::event::AppEvent::ComponentUpdate`]).
    UpdateComponent {
        /// Endpoint hosting it.
        endpoint: String,
        /// The component as the operator saw it.
        seen: crate::aws::components::ComponentSnapshot,
        /// The new model and the rolling update's policy.
        update: Box<crate::aws::components::RollingUpdate>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Plan a deployment and check it, sending nothing
    /// ([`crate::tui::event::AppEvent::DeployPlanned`]).
    DeployPlan {
        /// The endpoint as the operator saw it.
        info: Box<EndpointInfo>,
        /// What the form asks for.
        ask: Box<crate::aws::deploy::plan::DeployAsk>,
    },
    /// Start a planned deployment (audited, compare-and-swap), then watch it to its outcome
    /// ([`crate::tui::event::AppEvent::Deployment`], then
    /// [`crate::tui::event::AppEvent::DeploymentEnded`]).
    Deploy {
        /// The plan the operator confirmed.
        plan: Box<crate::aws::deploy::plan::DeployPlan>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Follow the deployment in flight on `endpoint`, whoever started it, to its outcome
    /// ([`crate::tui::event::AppEvent::Deployment`], then
    /// [`crate::tui::event::AppEvent::DeploymentEnded`]); once it has ended, the gate alarms a
    /// stopped `deploy` left (marked to be deleted) are deleted, audited, when
    /// `delete_leftover_gates` (not in read-only mode).
    DeployAttach {
        /// Endpoint.
        endpoint: String,
        /// Delete the gate alarms marked to be deleted once it has ended.
        delete_leftover_gates: bool,
    },
    /// Build an endpoint's timeline since `since` (epoch seconds), audit log included
    /// ([`crate::tui::event::AppEvent::Timeline`]); the guard holds the audit log.
    Timeline {
        /// Endpoint.
        endpoint: String,
        /// From (epoch seconds).
        since: f64,
    },
}

super::kinds!(GuardJob => GuardKind {
    ApplyWeights,
    Activity,
    Promote,
    PromoteResume,
    PromoteControl,
    Prewarm,
    ChangeScaling,
    ChangeComponentScaling,
    SetServerless,
    SetCopies,
    UpdateComponent,
    Timeline,
    PlanLock,
    DeployPlan,
    Deploy,
    DeployAttach,
});

super::effects!(GuardJob, |job| match job {
    GuardJob::ApplyWeights { reason, .. } => Effect::Audited(CHANGING_WEIGHTS, reason),
    GuardJob::Promote { reason, .. } => Effect::Audited(PROMOTION, reason),
    GuardJob::Prewarm { reason, .. } => Effect::Audited(PREWARMING, reason),
    GuardJob::ChangeScaling { changes, reason, .. } => Effect::Audited(scaling_change(changes), reason),
    GuardJob::ChangeComponentScaling { changes, reason, .. } => Effect::Audited(scaling_change(changes), reason),
    GuardJob::SetServerless { reason, .. } => Effect::Audited(SETTING_CONCURRENCY, reason),
    GuardJob::SetCopies { wake: true, reason, .. } => Effect::Audited(WAKING_A_COMPONENT, reason),
    GuardJob::SetCopies { reason, .. } => Effect::Audited(SETTING_COPIES, reason),
    GuardJob::UpdateComponent { reason, .. } => Effect::Audited(UPDATING_A_COMPONENT, reason),
    GuardJob::PromoteResume { rollback: true, .. } => Effect::Changes("rolling a promotion back"),
    GuardJob::PromoteResume { .. } => Effect::Changes(RESUMING_A_PROMOTION),
    GuardJob::PromoteControl { control, .. } => match control {
        Control::Proceed => Effect::Changes("proceeding with a promotion"),
        Control::Rollback => Effect::Changes("rolling a promotion back"),
        Control::Hold => Effect::Reads,
    },
    GuardJob::Deploy { reason, .. } => Effect::Audited(DEPLOYING, reason),
    GuardJob::Activity | GuardJob::Timeline { .. } | GuardJob::DeployPlan { .. } => Effect::Reads,
    GuardJob::PlanLock { .. } => Effect::Reads,
    // A read; its clean-up of ended deployments' gate alarms is asked only outside read-only.
    GuardJob::DeployAttach { .. } => Effect::Reads,
});

/// What an autoscaling change is called by its first change.
fn scaling_change(changes: &[ScalingChange]) -> &'static str {
    match changes.first() {
        Some(ScalingChange::Bounds { .. }) => "changing autoscaling bounds",
        Some(ScalingChange::Policy { .. }) => "changing a scaling policy",
        Some(ScalingChange::RemovePolicy { .. }) => "removing a scaling policy",
        Some(ScalingChange::Instances { .. }) => "setting the instance count",
        Some(ScalingChange::WakeAlarm { .. }) => "writing a wake alarm",
        Some(ScalingChange::ZeroInstances { .. }) => "setting up scale to zero",
        None => CHANGING_AUTOSCALING,
    }
}

impl GuardJob {
    /// The endpoint this job acts on; None for the Activity tab's read of the whole log.
    pub fn endpoint(&self) -> Option<&str> {
        match self {
            GuardJob::PromoteResume { endpoint, .. }
            | GuardJob::PromoteControl { endpoint, .. }
            | GuardJob::Prewarm { endpoint, .. }
            | GuardJob::ChangeScaling { endpoint, .. }
            | GuardJob::ChangeComponentScaling { endpoint, .. }
            | GuardJob::SetCopies { endpoint, .. }
            | GuardJob::UpdateComponent { endpoint, .. }
            | GuardJob::Timeline { endpoint, .. }
            | GuardJob::PlanLock { endpoint }
            | GuardJob::DeployAttach { endpoint, .. } => Some(endpoint),
            GuardJob::ApplyWeights { plan, .. } => Some(&plan.endpoint),
            GuardJob::SetServerless { plan, .. } => Some(&plan.endpoint),
            GuardJob::Promote { spec, .. } => Some(&spec.endpoint),
            GuardJob::DeployPlan { info, .. } => Some(&info.name),
            GuardJob::Deploy { plan, .. } => Some(&plan.info.name),
            GuardJob::Activity => None,
        }
    }

    /// A short label for the status line.
    pub fn label(&self) -> String {
        match self {
            GuardJob::ApplyWeights { plan, .. } => format!("updating weights of {}", plan.endpoint),
            GuardJob::Activity => "refreshing activity".into(),
            GuardJob::Promote { spec, .. } => format!("starting the promotion of {}", spec.endpoint),
            GuardJob::PromoteResume {
                endpoint,
                rollback: false,
            } => format!("resuming the promotion of {endpoint}"),
            GuardJob::PromoteResume { endpoint, .. } => format!("rolling back the promotion of {endpoint}"),
            GuardJob::PromoteControl { endpoint, control } => format!("{control:?} the promotion of {endpoint}"),
            GuardJob::Prewarm { endpoint, models, .. } => format!("prewarming {} models of {endpoint}", models.len()),
            GuardJob::ChangeScaling { endpoint, variant, .. } => {
                format!("changing the autoscaling of {endpoint} {variant}")
            }
            GuardJob::ChangeComponentScaling { component, .. } => {
                format!("changing the autoscaling of component {component}")
            }
            GuardJob::SetServerless { plan, .. } => {
                format!("setting the concurrency of {} {}", plan.endpoint, plan.variant)
            }
            GuardJob::SetCopies { seen, wake: true, .. } => format!("waking {}", seen.component),
            GuardJob::SetCopies { seen, copies, .. } => format!("setting {} to {copies} copies", seen.component),
            GuardJob::UpdateComponent { seen, update, .. } => {
                format!("rolling {} over to {}", seen.component, update.model)
            }
            GuardJob::Timeline { endpoint, .. } => format!("reading what changed on {endpoint}"),
            GuardJob::PlanLock { endpoint } => format!("reading the team's trail for a plan on {endpoint}"),
            GuardJob::DeployPlan { info, .. } => format!("planning a deployment of {}", info.name),
            GuardJob::Deploy { plan, .. } => format!("starting a deployment of {}", plan.info.name),
            GuardJob::DeployAttach { endpoint, .. } => format!("following the deployment of {endpoint}"),
        }
    }
}

impl GuardKind {
    /// A refresh the console runs on its own (not cancelled by Esc, not shown as the user's).
    pub fn is_refresh(self) -> bool {
        matches!(self, GuardKind::Activity | GuardKind::Timeline)
    }
}
