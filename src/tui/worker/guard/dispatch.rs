//! Which guarded job goes where: each to its own module's runner, and with no AWS connection
//! each answered with the connection error (nothing sent).

use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::prewarm::prewarm;
use super::reads::{send_activity, send_plan_lock, send_timeline};
use super::{Guard, copies, deploy, notice, promotion, scaling, serverless};
use crate::aws::change::guard::{Expectation, GuardError};
use crate::aws::{AwsError, Fleet};
use crate::tui::event::{AppEvent, GuardJob};
use crate::tui::worker::{JobLimits, timeout_error};

/// Runs one of this module's jobs.
pub(in crate::tui::worker) async fn run(
    g: &Guard,
    fleet: &Result<Fleet, AwsError>,
    job: GuardJob,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
) {
    let f = match (job, fleet) {
        (GuardJob::Activity, _) => return send_activity(g, events),
        (GuardJob::PlanLock { endpoint }, _) => return send_plan_lock(g, fleet, endpoint, limits, events).await,
        (GuardJob::Timeline { endpoint, since }, _) => {
            return send_timeline(g, fleet, endpoint, since, limits, events).await;
        }
        (job, Err(e)) => return fail(events, job, e.clone()),
        (job, Ok(f)) => (job, f),
    };
    match f {
        (GuardJob::ApplyWeights { plan, seen, reason }, f) => {
            let endpoint = plan.endpoint.clone();
            let r = apply_weights(g, f, &plan, &seen, reason, limits, events).await;
            let _ = events.send(AppEvent::WeightsDone { endpoint, result: r });
        }
        (
            GuardJob::Prewarm {
                endpoint,
                models,
                reason,
            },
            f,
        ) => {
            let r = prewarm(g, f, &endpoint, &models, reason, limits, events).await;
            send_activity(g, events);
            let _ = events.send(AppEvent::PrewarmDone { endpoint, result: r });
        }
        (GuardJob::Promote { spec, reason, extras }, f) => promotion::start(g, f, spec, reason, extras, events).await,
        (GuardJob::PromoteResume { endpoint, rollback }, f) => {
            promotion::resume(g, f, endpoint, rollback, events).await
        }
        (GuardJob::PromoteControl { endpoint, control }, _) => promotion::control(g, &endpoint, control, events),
        (job, f) => run_more(g, f, job, limits, events).await,
    }
}

/// Runs the scaling, serverless, component and deployment jobs.
async fn run_more(g: &Guard, f: &Fleet, job: GuardJob, limits: JobLimits, events: &UnboundedSender<AppEvent>) {
    match job {
        GuardJob::ChangeScaling {
            endpoint,
            variant,
            changes,
            seen,
            reason,
        } => {
            let r = change_scaling(g, f, (&endpoint, &variant), &changes, &seen, reason, limits).await;
            send_activity(g, events);
            let _ = events.send(AppEvent::ScalingChanged {
                endpoint,
                variant,
                result: r,
            });
        }
        GuardJob::SetServerless { plan, reason } => {
            let endpoint = plan.endpoint.clone();
            let r = serverless::set(g, f, &plan, reason, limits, events).await;
            let _ = events.send(AppEvent::ServerlessSet { endpoint, result: r });
        }
        GuardJob::ChangeComponentScaling {
            endpoint,
            component,
            changes,
            seen,
            reason,
        } => scaling::run(g, f, (endpoint, component), (&changes, &seen), reason, limits, events).await,
        GuardJob::SetCopies {
            endpoint,
            seen,
            copies,
            wake,
            reason,
        } => {
            let component = seen.component.clone();
            let r = copies::set_copies(g, f, &seen, (copies, wake), reason, limits).await;
            send_activity(g, events);
            let _ = events.send(AppEvent::CopiesSet {
                endpoint,
                component,
                result: r.map(Box::new),
            });
        }
        GuardJob::UpdateComponent {
            endpoint,
            seen,
            update,
            reason,
        } => copies::update_component(g, f, (endpoint, &seen), &update, reason, events).await,
        GuardJob::DeployPlan { info, ask } => deploy::plan(f, *info, *ask, events).await,
        GuardJob::Deploy { plan, reason } => deploy::start(g, f, *plan, reason, events).await,
        GuardJob::DeployAttach {
            endpoint,
            delete_leftover_gates,
        } => deploy::attach(g, f, endpoint, delete_leftover_gates, events).await,
        // Answered by [`run`].
        GuardJob::Activity
        | GuardJob::Timeline { .. }
        | GuardJob::PlanLock { .. }
        | GuardJob::ApplyWeights { .. }
        | GuardJob::Prewarm { .. }
        | GuardJob::Promote { .. }
        | GuardJob::PromoteResume { .. }
        | GuardJob::PromoteControl { .. } => {}
    }
}

/// Answers a guard job with the connection error (nothing was sent).
fn fail(events: &UnboundedSender<AppEvent>, job: GuardJob, e: AwsError) {
    let ev = match job {
        GuardJob::ApplyWeights { plan, .. } => AppEvent::WeightsDone {
            endpoint: plan.endpoint,
            result: Err(e),
        },
        GuardJob::Prewarm { endpoint, .. } => AppEvent::PrewarmDone {
            endpoint,
            result: Err(e),
        },
        GuardJob::Promote { spec, .. } => AppEvent::PromotionEnded {
            endpoint: spec.endpoint,
            result: Err(e.to_string()),
        },
        GuardJob::PromoteResume { endpoint, .. } => AppEvent::PromotionEnded {
            endpoint,
            result: Err(e.to_string()),
        },
        GuardJob::Timeline { endpoint, .. } => AppEvent::Timeline {
            endpoint,
            result: Err(e),
            trail: None,
        },
        GuardJob::ChangeScaling { endpoint, variant, .. } => AppEvent::ScalingChanged {
            endpoint,
            variant,
            result: Err(e.to_string()),
        },
        GuardJob::ChangeComponentScaling {
            endpoint, component, ..
        } => AppEvent::ScalingChanged {
            endpoint,
            variant: component,
            result: Err(e.to_string()),
        },
        GuardJob::SetServerless { plan, .. } => AppEvent::ServerlessSet {
            endpoint: plan.endpoint,
            result: Err(e.to_string()),
        },
        GuardJob::SetCopies { endpoint, seen, .. } => AppEvent::CopiesSet {
            endpoint,
            component: seen.component,
            result: Err(e.to_string()),
        },
        GuardJob::UpdateComponent { endpoint, seen, .. } => AppEvent::ComponentUpdate {
            endpoint,
            component: seen.component,
            progress: crate::tui::event::UpdateProgress::Done(Err(e.to_string())),
        },
        GuardJob::DeployPlan { info, .. } => AppEvent::DeployPlanned {
            endpoint: info.name,
            result: Err(e.to_string()),
        },
        GuardJob::Deploy { plan, .. } => AppEvent::DeploymentEnded {
            endpoint: plan.info.name,
            result: Err(e.to_string()),
        },
        GuardJob::DeployAttach { endpoint, .. } => AppEvent::DeploymentEnded {
            endpoint,
            result: Err(e.to_string()),
        },
        GuardJob::PlanLock { endpoint } => AppEvent::PlanLock {
            endpoint,
            result: Err(e.to_string()),
        },
        GuardJob::Activity | GuardJob::PromoteControl { .. } => return,
    };
    let _ = events.send(ev);
}

/// An autoscaling change through the fleet layer's guarded path: compare-and-swapped against
/// what the operator saw, each change audited before it is sent.
async fn change_scaling(
    g: &Guard,
    f: &Fleet,
    (endpoint, variant): (&str, &str),
    changes: &[crate::aws::scaling::change::ScalingChange],
    seen: &crate::aws::scaling::change::ScalingSnapshot,
    reason: Option<String>,
    limits: JobLimits,
) -> Result<Vec<Option<String>>, String> {
    let audited = g.audited(f).await?;
    let sent = f.apply_scaling_guarded(endpoint, variant, changes, seen, &audited, reason);
    match tokio::time::timeout(limits.invoke, sent).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err(timeout_error("the autoscaling change", limits.invoke).to_string()),
    }
}

/// Compare-and-swap against what the operator saw, audited; then follows the endpoint.
async fn apply_weights(
    g: &Guard,
    f: &Fleet,
    plan: &crate::aws::change::weights::WeightPlan,
    seen: &crate::aws::endpoints::inventory::EndpointInfo,
    reason: Option<String>,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
) -> Result<crate::aws::endpoints::inventory::EndpointInfo, AwsError> {
    let audited = g.audited(f).await.map_err(AwsError::Config)?;
    let expect = Expectation::from_info(seen);
    let applied = f
        .apply_weights_guarded(plan, &expect, &audited, "weights.set", reason)
        .await;
    // Sent or refused, the log has its lines now.
    send_activity(g, events);
    let applied = match applied {
        Ok(a) => a,
        Err(GuardError::Aws(e)) => return Err(e),
        Err(e) => return Err(AwsError::Config(e.to_string())),
    };
    if let Some(w) = applied.audit_warning {
        notice(events, true, w);
    }
    let progress = events.clone();
    f.wait_in_service(
        &plan.endpoint,
        limits.weights,
        Duration::from_secs(1),
        |i: &crate::aws::endpoints::inventory::EndpointInfo| {
            let _ = progress.send(AppEvent::WeightsProgress(i.clone()));
        },
    )
    .await
}
