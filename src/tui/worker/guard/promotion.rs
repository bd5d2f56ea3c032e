//! Promotion plans run by the console: started or resumed (refused while one runs on the
//! endpoint or one of its gate alarms fires), each in its own task whose events go to the
//! Variants pane, and answered while they run (proceed, hold, roll back).

use std::path::PathBuf;

use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::{Guard, notice, send_activity};
use crate::aws::Fleet;
use crate::aws::change::guard::Audited;
use crate::aws::promote::events::Control;
use crate::aws::promote::lock::PlanLock;
use crate::aws::promote::plan::{load_alarms, load_judge, load_state, plan_path};
use crate::aws::promote::run::PromotionRunner;
use crate::tui::event::AppEvent;

/// Starts a promotion plan (refused while one runs on the endpoint or one of its gate alarms
/// fires).
pub(super) async fn start(
    g: &Guard,
    f: &Fleet,
    spec: crate::aws::promote::plan::PromotionSpec,
    reason: Option<String>,
    extras: crate::aws::promote::events::PlanExtras,
    events: &UnboundedSender<AppEvent>,
) {
    let endpoint = spec.endpoint.clone();
    if g.controls.lock().contains_key(&endpoint) {
        return notice(events, true, format!("a promotion is already running on {endpoint}"));
    }
    let (audited, dir) = match prepare(g, f).await {
        Ok(x) => x,
        Err(e) => return ended(events, &endpoint, Err(e)),
    };
    if let Err(e) = refuse_under_firing_alarms(f, &extras.alarms).await {
        return ended(events, &endpoint, Err(e));
    }
    let path = plan_path(&dir, &endpoint);
    let lock = match PlanLock::acquire(&path) {
        Ok(l) => l,
        Err(e) => return ended(events, &endpoint, Err(format!("refused: {e}"))),
    };
    let opts = extras.apply(g.opts.runner.clone());
    match PromotionRunner::begin(f.clone(), audited, spec, reason, path, opts).await {
        Ok((runner, ctl)) => start_runner(g, endpoint, (runner, lock), ctl, false, events),
        Err(e) => ended(events, &endpoint, Err(e.to_string())),
    }
}

/// Resumes (or rolls back) the plan saved for `endpoint`, with the judge and gate alarms saved
/// with it.
pub(super) async fn resume(g: &Guard, f: &Fleet, endpoint: String, rollback: bool, events: &UnboundedSender<AppEvent>) {
    if g.controls.lock().contains_key(&endpoint) {
        return notice(events, true, format!("the promotion of {endpoint} is already running"));
    }
    let (audited, dir) = match prepare(g, f).await {
        Ok(x) => x,
        Err(e) => return ended(events, &endpoint, Err(e)),
    };
    let path = plan_path(&dir, &endpoint);
    let lock = match PlanLock::acquire(&path) {
        Ok(l) => l,
        Err(e) => return ended(events, &endpoint, Err(format!("refused: {e}"))),
    };
    match load_state(&path) {
        Ok(Some(state)) => {
            let mut opts = g.opts.runner.clone();
            opts.judge = load_judge(&path).or(opts.judge);
            let alarms = load_alarms(&path);
            if !alarms.is_empty() {
                opts.alarms = alarms;
            }
            let (runner, ctl) = PromotionRunner::from_state(f.clone(), audited, state, path, opts);
            start_runner(g, endpoint, (runner, lock), ctl, rollback, events)
        }
        Ok(None) => ended(events, &endpoint, Err(format!("no saved plan for {endpoint}"))),
        Err(e) => ended(events, &endpoint, Err(e)),
    }
}

/// Answers the plan running on `endpoint` (proceed, hold, roll back), or says none runs.
pub(super) fn control(g: &Guard, endpoint: &str, control: Control, events: &UnboundedSender<AppEvent>) {
    let sent = g
        .controls
        .lock()
        .get(endpoint)
        .is_some_and(|tx| tx.send(control).is_ok());
    if !sent {
        notice(events, true, format!("no promotion is running on {endpoint}"));
    }
}

/// Refuses a plan while one of its gate alarms is in ALARM (or cannot be read); nothing is sent.
async fn refuse_under_firing_alarms(f: &Fleet, alarms: &[String]) -> Result<(), String> {
    if alarms.is_empty() {
        return Ok(());
    }
    let states = f
        .alarm_states(alarms)
        .await
        .map_err(|e| format!("cannot read the gate alarms: {e}"))?;
    match states.iter().find(|a| a.firing()) {
        Some(a) => Err(format!(
            "refused: alarm {} is in ALARM ({}); the plan starts once it is OK (nothing was sent)",
            a.name, a.reason
        )),
        None => Ok(()),
    }
}

fn ended(
    events: &UnboundedSender<AppEvent>,
    endpoint: &str,
    result: Result<crate::aws::promote::plan::PlanState, String>,
) {
    let _ = events.send(AppEvent::PromotionEnded {
        endpoint: endpoint.to_string(),
        result: result.map(Box::new),
    });
}

async fn prepare(g: &Guard, f: &Fleet) -> Result<(Audited, PathBuf), String> {
    let audited = g.audited(f).await?;
    let dir = g
        .opts
        .plan_dir
        .clone()
        .ok_or("no state directory for plans (HOME is not set)")?;
    Ok((audited, dir))
}

/// Runs a plan (or its rollback) in its own task, forwarding its events; the plan's driver lock
/// is held until the task ends.
fn start_runner(
    g: &Guard,
    endpoint: String,
    (runner, lock): (PromotionRunner, PlanLock),
    ctl: UnboundedSender<Control>,
    rollback: bool,
    events: &UnboundedSender<AppEvent>,
) {
    g.controls.lock().insert(endpoint.clone(), ctl);
    let (ptx, mut prx) = unbounded_channel();
    let runner = runner.with_events(ptx);
    let (g2, ev2, ep2) = (g.clone(), events.clone(), endpoint.clone());
    let forward = tokio::spawn(async move {
        while let Some(event) = prx.recv().await {
            let saved = matches!(event, crate::aws::promote::events::PromotionEvent::Saved { .. });
            let _ = ev2.send(AppEvent::Promotion {
                endpoint: ep2.clone(),
                event: Box::new(event),
            });
            if saved {
                send_activity(&g2, &ev2);
            }
        }
    });
    let (g, events) = (g.clone(), events.clone());
    tokio::spawn(async move {
        let r = if rollback {
            runner.rollback().await
        } else {
            runner.run().await
        };
        drop(lock);
        g.controls.lock().remove(&endpoint);
        let _ = forward.await;
        send_activity(&g, &events);
        ended(&events, &endpoint, r.map_err(|e| e.to_string()));
    });
}
