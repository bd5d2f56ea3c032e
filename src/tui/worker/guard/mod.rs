//! The guarded side of the worker: weight changes (compare-and-swap against what the operator
//! saw, audited), audited prewarms, the Activity tab's reads of the audit log, and promotion
//! plans running in their own tasks. Every mutation writes its intent to the audit log first;
//! when that fails nothing is sent and the job answers with the reason.

mod copies;
mod deploy;
mod dispatch;
mod prewarm;
mod promotion;
mod reads;
mod scaling;
mod serverless;
mod tools;

pub(super) use dispatch::run;
use reads::send_activity;
pub(super) use tools::{tool_call_finish, tool_call_intent};

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::mpsc::UnboundedSender;

use super::{JobLimits, timeout_error};
use crate::aws::Fleet;
use crate::aws::change::guard::Audited;
use crate::aws::promote::events::{Control, RunnerOptions};
use crate::aws::promote::plan::default_plan_dir;
use crate::tui::event::AppEvent;

/// Where the console's guardrails keep their files, and how plans are timed.
#[derive(Debug, Clone)]
pub struct GuardOptions {
    /// The audit log (None: no location known; every mutation is refused).
    pub audit_path: Option<PathBuf>,
    /// Where promotion plan states live.
    pub plan_dir: Option<PathBuf>,
    /// Timing of promotion plans.
    pub runner: RunnerOptions,
    /// The variant log the console's invoke and tool calls are appended to (None: not kept).
    pub invocation_log: Option<PathBuf>,
    /// Also keep each input in the variant log (default: its hash only).
    pub log_inputs: bool,
    /// The team's audit trail: a CloudWatch Logs group every audit record also goes to, and
    /// the Activity pane reads (None: the file only).
    pub audit_log_group: Option<String>,
}

impl Default for GuardOptions {
    fn default() -> Self {
        GuardOptions {
            audit_path: crate::aws::change::audit::default_audit_path(),
            plan_dir: default_plan_dir(),
            runner: RunnerOptions::default(),
            invocation_log: None,
            log_inputs: false,
            audit_log_group: None,
        }
    }
}

/// The worker's guard state: the audit handle (opened once it can be) and running plans.
#[derive(Clone)]
pub(super) struct Guard {
    opts: GuardOptions,
    audited: Arc<tokio::sync::Mutex<Option<Audited>>>,
    controls: Arc<Mutex<HashMap<String, UnboundedSender<Control>>>>,
    /// The variant log, or why it could not be opened.
    pub(super) invocations: Arc<Result<Option<crate::aws::invoke::log::InvocationLog>, String>>,
    contexts: Arc<Mutex<HashMap<(String, String), crate::aws::change::audit::AuditContext>>>,
    /// CloudTrail's pages read so far, per endpoint and window, and their pacing.
    trail: Arc<crate::aws::trail::TrailCache>,
    /// Where notices go (the team's trail failing is told there, once).
    events: UnboundedSender<AppEvent>,
    /// The fleet the team's trail is read with (set when the audit log opens).
    team_fleet: Arc<Mutex<Option<Fleet>>>,
}

impl Guard {
    pub(super) fn new(opts: GuardOptions, events: UnboundedSender<AppEvent>) -> Guard {
        let invocations = opts
            .invocation_log
            .as_ref()
            .map(|p| crate::aws::invoke::log::InvocationLog::open(p, opts.log_inputs))
            .transpose();
        Guard {
            opts,
            audited: Arc::default(),
            controls: Arc::default(),
            invocations: Arc::new(invocations),
            contexts: Arc::default(),
            trail: Arc::default(),
            events,
            team_fleet: Arc::default(),
        }
    }

    /// The audit handle, opening the log (and asking STS for the principal) the first time.
    pub(super) async fn audited(&self, f: &Fleet) -> Result<Audited, String> {
        let mut slot = self.audited.lock().await;
        if let Some(a) = slot.as_ref() {
            return Ok(self.for_fleet(a, f).await);
        }
        let Some(path) = &self.opts.audit_path else {
            return Err(
                "no audit log location (HOME is not set): start with --audit-file PATH; nothing was sent".into(),
            );
        };
        let a = Audited::open(path, f).await.map_err(|e| e.to_string())?;
        if let Some(group) = &self.opts.audit_log_group {
            let events = self.events.clone();
            let notify: crate::aws::change::team::Notify = Arc::new(move |text: String| notice(&events, true, text));
            let team = crate::aws::change::team::TeamTrail::new(f, group, a.ctx.principal.as_deref(), notify);
            a.audit.attach_team(team);
            *self.team_fleet.lock() = Some(f.clone());
        }
        *slot = Some(a.clone());
        Ok(a)
    }
}

impl Guard {
    /// The audit handle naming `f`'s own profile, region and principal (a multi-region view
    /// audits each mutation with its endpoint's pair; STS is asked once per pair).
    async fn for_fleet(&self, a: &Audited, f: &Fleet) -> Audited {
        if a.ctx.profile == f.profile && a.ctx.region == f.region {
            return a.clone();
        }
        let key = (f.profile.clone(), f.region.clone());
        let known = self.contexts.lock().get(&key).cloned();
        let ctx = match known {
            Some(c) => c,
            None => {
                let c = crate::aws::change::audit::AuditContext::from_fleet(f).await;
                self.contexts.lock().insert(key, c.clone());
                c
            }
        };
        Audited {
            audit: a.audit.clone(),
            ctx,
        }
    }
}

/// Opens the audit log (and asks STS who we are) in the background at start, not at the first
/// mutation; a log that cannot be opened is said at once (mutations will be refused). A worker
/// started without an audit location (tests of read paths) says it only when a mutation is asked.
pub(super) fn open_at_start(g: &Guard, f: &Fleet, events: &UnboundedSender<AppEvent>) {
    if let Err(e) = g.invocations.as_ref() {
        notice(events, true, format!("{e}; invocations go on unlogged"));
    }
    if g.opts.audit_path.is_none() {
        return;
    }
    let (g, f, events) = (g.clone(), f.clone(), events.clone());
    tokio::spawn(async move {
        if let Err(e) = g.audited(&f).await {
            notice(
                &events,
                true,
                format!("audit log: {e}; weight changes, prewarms and plans are refused"),
            );
        }
    });
}

pub(super) fn notice(events: &UnboundedSender<AppEvent>, error: bool, text: String) {
    let _ = events.send(AppEvent::Notice { error, text });
}
