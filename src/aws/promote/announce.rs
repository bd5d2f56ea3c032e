//! A running promotion plan announces itself in the team's audit trail (`promote.plan` lines:
//! its id, phase, step, host and pid, at start, at each step and at its end), and while it runs
//! it says so again every heartbeat (`RunnerOptions::heartbeat`, a minute by default), so that
//! `promote --status` on another machine says who runs a plan on the endpoint and where it is,
//! and a second plan there is refused unless forced. A running plan not heard of for
//! [`STALE_BEATS`] heartbeats is likely dead (its process ended without saying so), and one on
//! this host whose process is gone is dead: neither refuses a new plan. A held plan is driven by
//! no one and has no heartbeat: it is never stale. The lock is advisory: nothing stops a caller
//! that does not read the trail.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::aws::change::audit::{AuditRecord, Mutation};
use crate::aws::change::guard::Audited;
use crate::aws::promote::plan::{Phase, PlanState};
use crate::aws::trail::event::shorten;
use crate::aws::{AwsError, Fleet};

/// The action of an announcement.
pub const ACTION: &str = "promote.plan";

/// How far back announcements are looked for.
const LOOK_BACK: f64 = 86_400.0;

/// The result note of a heartbeat line.
pub const HEARTBEAT_NOTE: &str = "still running";

/// Whether `r` is a plan's heartbeat: it says nothing new, so the lists of the team's trail
/// (`audit --log-group`, the Activity pane) leave it out; `promote --status` reads it.
pub fn is_heartbeat(r: &AuditRecord) -> bool {
    r.action == ACTION && r.result.as_deref() == Some(HEARTBEAT_NOTE)
}

/// How many heartbeats a running plan may miss before it is called likely dead.
pub const STALE_BEATS: f64 = 5.0;

/// The heartbeat assumed of an announcement that does not state its own.
const DEFAULT_BEAT: f64 = 60.0;

/// The announcement of `state`, beating every `every`.
fn mutation(state: &PlanState, every: Duration) -> Mutation {
    Mutation {
        action: ACTION.into(),
        target: state.spec.endpoint.clone(),
        before: serde_json::Value::Null,
        after: json!({
            "plan": state.id,
            "phase": state.phase,
            "step": state.step + 1,
            "steps": state.spec.steps.len(),
            "host": crate::local::host::host_name(),
            "pid": std::process::id(),
            "heartbeat_secs": every.as_secs_f64(),
        }),
        reason: state.reason.clone(),
    }
}

/// Whether a plan in `phase` is driven (and so beats).
fn driven(phase: Phase) -> bool {
    !phase.is_final() && phase != Phase::Held
}

/// A plan's announcements: each phase when it changes, and the last one again every heartbeat
/// while the plan is driven (the beat stops when the plan ends, is held, or this is dropped).
#[derive(Debug, Default)]
pub struct Beat {
    task: Option<(tokio::task::JoinHandle<()>, tokio::sync::watch::Sender<Mutation>)>,
}

impl Drop for Beat {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Beat {
    fn stop(&mut self) {
        if let Some((task, _)) = self.task.take() {
            task.abort();
        }
    }

    /// Announces `state` in the team's trail of `audited` (when one is attached) and keeps
    /// saying it every `every` while the plan is driven (a zero `every` never beats).
    pub fn announce(&mut self, audited: &Audited, state: &PlanState, every: Duration) {
        let m = mutation(state, every);
        audited.audit.announce(&audited.ctx, m.clone(), "announced");
        if !driven(state.phase) || every.is_zero() || audited.audit.team().is_none() {
            return self.stop();
        }
        if let Some((_, said)) = &self.task {
            said.send_replace(m);
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (said, mut last) = tokio::sync::watch::channel(m);
        let audited = audited.clone();
        let task = runtime.spawn(async move {
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            loop {
                tick.tick().await;
                let m = last.borrow_and_update().clone();
                audited.audit.announce(&audited.ctx, m, HEARTBEAT_NOTE);
            }
        });
        self.task = Some((task, said));
    }
}

/// What an announcement says.
#[derive(Debug, Deserialize)]
struct Said {
    plan: String,
    phase: Phase,
    step: usize,
    steps: usize,
    host: String,
    #[serde(default)]
    pid: Option<u32>,
    #[serde(default)]
    heartbeat_secs: Option<f64>,
}

/// Whether the process that announced a plan is still there, as far as can be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Liveness {
    /// Heard of within its heartbeats (or held: nobody drives it, nothing beats).
    Running,
    /// Driven, but silent for [`STALE_BEATS`] heartbeats: likely dead.
    Stale,
    /// On this host, and its process is gone.
    Dead,
}

/// A plan another sagedeck announced on an endpoint, as last heard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Announced {
    /// The plan's id.
    pub plan: String,
    /// Who runs it (the principal shortened).
    pub who: String,
    /// The host it runs on.
    pub host: String,
    /// The process that drives it, when the announcement names it.
    pub pid: Option<u32>,
    /// Where it is.
    pub phase: Phase,
    /// Its step (1-based) and how many there are.
    pub step: (usize, usize),
    /// When it was last heard of (epoch seconds).
    pub epoch: f64,
    /// When it was first announced within the day looked at (epoch seconds).
    pub since: f64,
    /// How often it says it is still running, seconds.
    pub heartbeat_secs: f64,
    /// Whether it is still running, as far as can be told.
    pub liveness: Liveness,
}

/// `40s`, `14 min`, `3 h`.
fn ago(secs: f64) -> String {
    let s = secs.max(0.0).round();
    match s {
        s if s < 120.0 => format!("{s}s"),
        s if s < 7200.0 => format!("{} min", (s / 60.0).round()),
        s => format!("{} h", (s / 3600.0).round()),
    }
}

/// Whether process `pid` exists on this host (a process of another user counts).
fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

impl Announced {
    /// The staleness rule: a driven plan silent for [`STALE_BEATS`] heartbeats is likely dead;
    /// one on `here` (this host) whose process is gone is dead.
    fn judge(&self, now: f64, here: &str) -> Liveness {
        if !driven(self.phase) {
            return Liveness::Running;
        }
        if self.host == here && self.pid.is_some_and(|p| !process_exists(p)) {
            return Liveness::Dead;
        }
        if now - self.epoch > STALE_BEATS * self.heartbeat_secs {
            return Liveness::Stale;
        }
        Liveness::Running
    }

    /// Whether it refuses a second plan on its endpoint (a running one does; the lock is
    /// advisory).
    pub fn blocks(&self) -> bool {
        self.liveness == Liveness::Running
    }

    /// `a plan by bob on host-x is at step 2/4, baking (last heard 40s ago)`; for a stale one
    /// `a plan by bob on host-x last heard 14 min ago — likely dead (…)`.
    pub fn line(&self, now: f64) -> String {
        let (who, heard) = (
            format!("a plan by {} on {}", self.who, self.host),
            ago(now - self.epoch),
        );
        let at = format!("step {}/{}, {}", self.step.0, self.step.1, self.phase.text());
        match self.liveness {
            Liveness::Running => format!("{who} is at {at} (last heard {heard} ago)"),
            Liveness::Stale => format!(
                "{who} last heard {heard} ago — likely dead (it was at {at}; no heartbeat for {})",
                ago(STALE_BEATS * self.heartbeat_secs)
            ),
            Liveness::Dead => format!(
                "{who} last heard {heard} ago — dead: its process (pid {}) is gone (it was at {at})",
                self.pid.unwrap_or_default()
            ),
        }
    }
}

impl Fleet {
    /// The last plan announced on `endpoint` in the team's trail `group` within a day, when it
    /// has not ended, with whether it still runs.
    pub async fn announced_plan(&self, group: &str, endpoint: &str, now: f64) -> Result<Option<Announced>, AwsError> {
        let records = self.read_team_trail(group, now - LOOK_BACK, 50).await?;
        let last = records
            .iter()
            .rev()
            .filter(|t| t.record.action == ACTION && t.record.target == endpoint)
            .find_map(|t| Some((t, serde_json::from_value::<Said>(t.record.after.clone()).ok()?)));
        let here = crate::local::host::host_name();
        let first_of = |plan: &str| {
            records
                .iter()
                .find(|t| t.record.action == ACTION && t.record.after["plan"] == plan)
                .map(|t| t.record.epoch)
        };
        Ok(last.filter(|(_, s)| !s.phase.is_final()).map(|(t, s)| {
            let mut a = Announced {
                since: first_of(&s.plan).unwrap_or(t.record.epoch),
                plan: s.plan,
                who: t.record.principal.as_deref().map_or_else(|| "someone".into(), shorten),
                host: s.host,
                pid: s.pid,
                phase: s.phase,
                step: (s.step, s.steps),
                epoch: t.record.epoch,
                heartbeat_secs: s.heartbeat_secs.filter(|b| *b > 0.0).unwrap_or(DEFAULT_BEAT),
                liveness: Liveness::Running,
            };
            a.liveness = a.judge(now, &here);
            a
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(phase: Phase, host: &str, pid: Option<u32>, epoch: f64) -> Announced {
        Announced {
            plan: "p".into(),
            who: "bob".into(),
            host: host.into(),
            pid,
            phase,
            step: (2, 4),
            epoch,
            since: epoch,
            heartbeat_secs: 60.0,
            liveness: Liveness::Running,
        }
    }

    #[test]
    fn a_driven_plan_silent_for_five_heartbeats_is_likely_dead() {
        let now = 10_000.0;
        let fresh = plan(Phase::Baking, "host-x", Some(1), now - 299.0);
        assert_eq!(fresh.judge(now, "here"), Liveness::Running);
        let mut old = plan(Phase::Baking, "host-x", Some(1), now - 14.0 * 60.0);
        old.liveness = old.judge(now, "here");
        assert_eq!(old.liveness, Liveness::Stale);
        assert!(!old.blocks());
        assert_eq!(
            old.line(now),
            "a plan by bob on host-x last heard 14 min ago — likely dead (it was at step 2/4, baking; no heartbeat for 5 min)"
        );
        let held = plan(Phase::Held, "host-x", Some(1), now - 86_000.0);
        assert_eq!(held.judge(now, "here"), Liveness::Running, "a held plan does not beat");
    }

    #[test]
    fn on_this_host_a_gone_process_is_dead_at_once() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let now = 10_000.0;
        let p = plan(Phase::Updating, "here", Some(gone), now - 1.0);
        assert_eq!(p.judge(now, "here"), Liveness::Dead);
        assert_eq!(
            p.judge(now, "elsewhere"),
            Liveness::Running,
            "another host's pid means nothing here"
        );
        let me = plan(Phase::Updating, "here", Some(std::process::id()), now - 1.0);
        assert_eq!(me.judge(now, "here"), Liveness::Running);
    }
}
