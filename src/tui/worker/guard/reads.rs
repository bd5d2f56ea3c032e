//! The guard's reads: the audit log for the Activity tab (with the team's audit trail when one
//! is configured), an endpoint's timeline (with one more page of CloudTrail) and the plan the
//! team's trail announces on an endpoint (the advisory lock a new plan respects).

use tokio::sync::mpsc::UnboundedSender;

use super::{Guard, notice};
use crate::aws::change::audit::Audit;
use crate::aws::observe::timeline::merge_trail;
use crate::aws::{AwsError, Fleet};
use crate::tui::event::AppEvent;
use crate::tui::worker::{JobLimits, timeout_error};

/// Reads the audit log and reports it to the Activity tab; with the team's trail configured,
/// its records too (every principal's and host's, each once), read in the background.
pub(super) fn send_activity(g: &Guard, events: &UnboundedSender<AppEvent>) {
    let r = match &g.opts.audit_path {
        Some(p) => Audit::read(p, None).map_err(|e| e.to_string()),
        None => Err("no audit log location (HOME is not set; start with --audit-file PATH)".into()),
    };
    let fleet = g.team_fleet.lock().clone();
    let (Some(group), Some(f), Ok(handle)) = (
        g.opts.audit_log_group.clone(),
        fleet,
        tokio::runtime::Handle::try_current(),
    ) else {
        let _ = events.send(AppEvent::Activity(r));
        return;
    };
    let events = events.clone();
    handle.spawn(async move {
        let since = crate::format::now_epoch() - TEAM_SINCE;
        let r = match f.read_team_trail(&group, since, 20).await {
            Ok(team) => r.map(|local| merge_team(local, team)),
            Err(e) => {
                notice(&events, true, format!("the team's audit trail {group} not read: {e}"));
                r
            }
        };
        let _ = events.send(AppEvent::Activity(r));
    });
}

/// How far back the Activity tab reads the team's audit trail.
const TEAM_SINCE: f64 = 7.0 * 86_400.0;

/// The local records and the team's, each once (by id and phase), oldest first; a running
/// plan's heartbeats are left out.
fn merge_team(
    mut all: Vec<crate::aws::change::audit::AuditRecord>,
    team: Vec<crate::aws::observe::team::TeamRecord>,
) -> Vec<crate::aws::change::audit::AuditRecord> {
    for t in team {
        if crate::aws::promote::announce::is_heartbeat(&t.record) {
            continue;
        }
        if !all.iter().any(|x| x.id == t.record.id && x.phase == t.record.phase) {
            all.push(t.record);
        }
    }
    all.sort_by(|a, b| a.epoch.total_cmp(&b.epoch));
    all
}

/// Builds an endpoint's timeline with the audit log (an unreadable log only loses that source)
/// and one more page of CloudTrail (the cache keeps the pages read before).
pub(super) async fn send_timeline(
    g: &Guard,
    fleet: &Result<Fleet, AwsError>,
    endpoint: String,
    since: f64,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
) {
    let audit = g
        .opts
        .audit_path
        .as_ref()
        .and_then(|p| Audit::read(p, Some(since)).ok())
        .unwrap_or_default();
    let (result, trail) = match fleet {
        Ok(f) => {
            let read = async {
                let now = crate::format::now_epoch();
                let trail = f.trail_refresh(&g.trail, &endpoint, since, now).await;
                let mut timeline = f.timeline(&endpoint, since, &audit).await?;
                merge_trail(&mut timeline, &trail.events, &audit);
                Ok((timeline, trail.status))
            };
            match tokio::time::timeout(limits.metrics, read).await {
                Ok(Ok((timeline, status))) => (Ok(timeline), Some(status)),
                Ok(Err(e)) => (Err(e), None),
                Err(_) => (Err(timeout_error("the timeline", limits.metrics)), None),
            }
        }
        Err(e) => (Err(e.clone()), None),
    };
    let _ = events.send(AppEvent::Timeline {
        endpoint,
        result,
        trail,
    });
}

/// Reads what the team's audit trail says of a plan on `endpoint`: the last one announced
/// there and not ended, with whether it still runs (None: none, or no trail configured).
pub(super) async fn send_plan_lock(
    g: &Guard,
    fleet: &Result<Fleet, AwsError>,
    endpoint: String,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
) {
    let result = match (&g.opts.audit_log_group, fleet) {
        (None, _) => Ok(None),
        (Some(_), Err(e)) => Err(e.to_string()),
        (Some(group), Ok(f)) => {
            let now = crate::format::now_epoch();
            let read = f.announced_plan(group, &endpoint, now);
            match tokio::time::timeout(limits.metrics, read).await {
                Ok(r) => r.map_err(|e| e.to_string()),
                Err(_) => Err(timeout_error("the team's audit trail", limits.metrics).to_string()),
            }
        }
    };
    let _ = events.send(AppEvent::PlanLock { endpoint, result });
}
