//! Deployments from the console: the plan checked (nothing sent), then the guarded, audited
//! start and a watch task that reports each read of the stepper and the outcome as typed events.
//! The deployment runs on SageMaker: the watch stopping stops nothing.

use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::{Guard, notice, send_activity};
use crate::aws::Fleet;
use crate::aws::deploy::plan::{DeployAsk, DeployPlan};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::event::AppEvent;

/// How often the watch reads the endpoint.
const WATCH_INTERVAL: Duration = Duration::from_secs(1);

/// Plans `ask` on `info` and reports the plan or its refusals.
pub(super) async fn plan(f: &Fleet, info: EndpointInfo, ask: DeployAsk, events: &UnboundedSender<AppEvent>) {
    let endpoint = info.name.clone();
    let result = f
        .plan_deployment(info, &ask)
        .await
        .map(Box::new)
        .map_err(|e| e.to_string());
    let _ = events.send(AppEvent::DeployPlanned { endpoint, result });
}

/// Starts `plan` (audited first, compare-and-swap), then watches it in its own task.
pub(super) async fn start(
    g: &Guard,
    f: &Fleet,
    plan: DeployPlan,
    reason: Option<String>,
    events: &UnboundedSender<AppEvent>,
) {
    let endpoint = plan.info.name.clone();
    let ended = |result: Result<_, String>| {
        let _ = events.send(AppEvent::DeploymentEnded {
            endpoint: endpoint.clone(),
            result,
        });
    };
    let audited = match g.audited(f).await {
        Ok(a) => a,
        Err(e) => return ended(Err(e)),
    };
    let started = f.run_deployment(&plan, &audited, reason.clone()).await;
    send_activity(g, events);
    match started {
        Ok(s) => {
            if let Some(w) = s.audit_warning {
                notice(events, true, w);
            }
        }
        Err(e) => return ended(Err(e.to_string())),
    }
    let (f, events) = (f.clone(), events.clone());
    tokio::spawn(async move {
        let target = Some(plan.target.name.clone());
        let each = |s: &crate::aws::deploy::stepper::Stepper| {
            let _ = events.send(AppEvent::Deployment {
                endpoint: plan.info.name.clone(),
                stepper: Box::new(s.clone()),
            });
        };
        let watched = f.watch_deployment(&plan.info.name, target, WATCH_INTERVAL, each).await;
        if let Ok(w) = &watched
            && let Err(e) = crate::aws::deploy::watch::record_outcome(&audited, w, reason.clone()).await
        {
            notice(
                &events,
                true,
                format!("the deployment's outcome could not be logged: {e}"),
            );
        }
        let gates = if plan.keep_alarms {
            Vec::new()
        } else {
            plan.gate_names()
        };
        if !gates.is_empty()
            && let Err(e) = f.delete_gate_alarms(&gates, &audited, reason).await
        {
            notice(&events, true, format!("the gate alarms could not be deleted: {e}"));
        }
        let _ = events.send(AppEvent::DeploymentEnded {
            endpoint: plan.info.name.clone(),
            result: watched.map(|w| w.outcome).map_err(|e| e.to_string()),
        });
    });
}

/// Follows the deployment in flight on `endpoint` (started anywhere) in its own task, as
/// `deploy --watch` does; once it has ended, deletes the gate alarms marked to be deleted when
/// `delete_leftover_gates`.
pub(super) async fn attach(
    g: &Guard,
    f: &Fleet,
    endpoint: String,
    delete_leftover_gates: bool,
    events: &UnboundedSender<AppEvent>,
) {
    let audited = if delete_leftover_gates {
        g.audited(f).await.ok()
    } else {
        None
    };
    let (f, events) = (f.clone(), events.clone());
    tokio::spawn(async move {
        let each = |s: &crate::aws::deploy::stepper::Stepper| {
            let _ = events.send(AppEvent::Deployment {
                endpoint: endpoint.clone(),
                stepper: Box::new(s.clone()),
            });
        };
        let watched = f.watch_deployment(&endpoint, None, WATCH_INTERVAL, each).await;
        if watched.is_ok()
            && let Some(audited) = &audited
        {
            match f.delete_leftover_gate_alarms(&endpoint, audited, None).await {
                Ok(names) if !names.is_empty() => notice(
                    &events,
                    false,
                    format!(
                        "deleted the gate alarms a stopped deployment left: {}",
                        names.join(", ")
                    ),
                ),
                Ok(_) => {}
                Err(e) => notice(&events, true, format!("the gate alarms left could not be deleted: {e}")),
            }
        }
        let _ = events.send(AppEvent::DeploymentEnded {
            endpoint: endpoint.clone(),
            result: watched.map(|w| w.outcome).map_err(|e| e.to_string()),
        });
    });
}
