//! The guarded side of the worker: weight changes (compare-and-swap against what the operator
//! saw, audited), audited prewarms, the Activity tab's reads of the audit log, and promotion
//! plans running in their own tasks. Every mutation writes its intent to the audit log first;
//! when that fails nothing is sent and the job answers with the reason.

mod copies;
mod deploy;
mod promotion;
mod reads;
mod scaling;
mod serverless;

use reads::{send_activity, send_plan_lock, send_timeline};

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::json;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::{JobLimits, timeout_error};
use crate::aws::change::audit::Mutation;
use crate::aws::change::guard::{Audited, Expectation, GuardError};
use crate::aws::invoke::prewarm::PrewarmOptions;
use crate::aws::promote::events::{Control, RunnerOptions};
use crate::aws::promote::plan::default_plan_dir;
use crate::aws::{AwsError, Fleet};
use crate::tui::event::{AppEvent, GuardJob};

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

/// Runs one of this module's jobs.
pub(super) async fn run(
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
        (
            GuardJob::ChangeScaling {
                endpoint,
                variant,
                changes,
                seen,
                reason,
            },
            f,
        ) => {
            let r = change_scaling(g, f, (&endpoint, &variant), &changes, &seen, reason, limits).await;
            send_activity(g, events);
            let _ = events.send(AppEvent::ScalingChanged {
                endpoint,
                variant,
                result: r,
            });
        }
        (GuardJob::SetServerless { plan, reason }, f) => {
            let endpoint = plan.endpoint.clone();
            let r = serverless::set(g, f, &plan, reason, limits, events).await;
            let _ = events.send(AppEvent::ServerlessSet { endpoint, result: r });
        }
        (
            GuardJob::ChangeComponentScaling {
                endpoint,
                component,
                changes,
                seen,
                reason,
            },
            f,
        ) => scaling::run(g, f, (endpoint, component), (&changes, &seen), reason, limits, events).await,
        (
            GuardJob::SetCopies {
                endpoint,
                seen,
                copies,
                wake,
                reason,
            },
            f,
        ) => {
            let component = seen.component.clone();
            let r = copies::set_copies(g, f, &seen, (copies, wake), reason, limits).await;
            send_activity(g, events);
            let _ = events.send(AppEvent::CopiesSet {
                endpoint,
                component,
                result: r.map(Box::new),
            });
        }
        (
            GuardJob::UpdateComponent {
                endpoint,
                seen,
                update,
                reason,
            },
            f,
        ) => copies::update_component(g, f, (endpoint, &seen), &update, reason, events).await,
        (GuardJob::DeployPlan { info, ask }, f) => deploy::plan(f, *info, *ask, events).await,
        (GuardJob::Deploy { plan, reason }, f) => deploy::start(g, f, *plan, reason, events).await,
        (
            GuardJob::DeployAttach {
                endpoint,
                delete_leftover_gates,
            },
            f,
        ) => deploy::attach(g, f, endpoint, delete_leftover_gates, events).await,
        // Answered above, before the fleet is needed.
        (GuardJob::Activity | GuardJob::Timeline { .. } | GuardJob::PlanLock { .. }, _) => {}
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

/// A prewarm with its intent audited before anything is sent and its result after.
async fn prewarm(
    g: &Guard,
    f: &Fleet,
    endpoint: &str,
    models: &[String],
    reason: Option<String>,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
) -> Result<Vec<crate::aws::invoke::prewarm::PrewarmResult>, AwsError> {
    let audited = g.audited(f).await.map_err(AwsError::Config)?;
    let pending = audited
        .intent(Mutation {
            action: "prewarm".into(),
            target: endpoint.to_string(),
            before: serde_json::Value::Null,
            after: json!({ "models": models }),
            reason,
        })
        .await
        .map_err(|e| AwsError::Config(e.to_string()))?;
    send_activity(g, events);
    let (ptx, mut prx) = unbounded_channel();
    let forward = {
        let events = events.clone();
        let endpoint = endpoint.to_string();
        tokio::spawn(async move {
            while let Some(event) = prx.recv().await {
                let _ = events.send(AppEvent::Prewarm {
                    endpoint: endpoint.clone(),
                    event,
                });
            }
        })
    };
    let r = tokio::time::timeout(
        limits.prewarm,
        f.prewarm(endpoint, models, &PrewarmOptions::default(), Some(&ptx)),
    )
    .await
    .unwrap_or_else(|_| Err(timeout_error("the prewarm", limits.prewarm)))
    .map(|report| report.results);
    drop(ptx);
    let _ = forward.await;
    let outcome = match &r {
        Ok(results) => {
            let failed: Vec<&str> = results.iter().filter(|x| !x.loaded).map(|x| x.model.as_str()).collect();
            if failed.is_empty() {
                Ok(None)
            } else {
                Err(format!(
                    "{} of {} models not loaded: {}",
                    failed.len(),
                    results.len(),
                    failed.join(", ")
                ))
            }
        }
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = audited.finish(&pending, outcome) {
        notice(events, true, e.to_string());
    }
    r
}

/// A tool call from the console, audited: the intent (server, tool, redacted arguments) is written
/// before the call is sent. With no AWS connection there is no principal to record and the call is
/// not audited (MCP servers do not need AWS); with one, an audit log that cannot be written refuses
/// the call.
pub(super) async fn tool_call_intent(
    g: &Guard,
    fleet: &Result<Fleet, AwsError>,
    target: &str,
    arguments: &serde_json::Value,
    repeat: u32,
    reason: Option<String>,
    events: &UnboundedSender<AppEvent>,
) -> Result<Option<(Audited, crate::aws::change::audit::Pending)>, String> {
    let Ok(f) = fleet else {
        return Ok(None);
    };
    let audited = g.audited(f).await?;
    let pending = audited
        .intent(Mutation {
            action: "tool.call".into(),
            target: target.to_string(),
            before: serde_json::Value::Null,
            after: json!({ "arguments": arguments, "repeat": repeat }),
            reason,
        })
        .await
        .map_err(|e| format!("audit log: {e}; the tool call was not sent"))?;
    send_activity(g, events);
    Ok(Some((audited, pending)))
}

/// Records how an audited tool call ended.
pub(super) fn tool_call_finish(
    g: &Guard,
    audit: Option<(Audited, crate::aws::change::audit::Pending)>,
    outcome: Result<Option<String>, String>,
    events: &UnboundedSender<AppEvent>,
) {
    if let Some((audited, pending)) = audit {
        if let Err(e) = audited.finish(&pending, outcome) {
            notice(events, true, e.to_string());
        }
        send_activity(g, events);
    }
}
