//! The background side of the console: connects the fleet layer, runs every job in its own task
//! with a timeout, reports through [`AppEvent`]s, and aborts a job on request. The UI task never
//! awaits any of this.

mod agent;
mod fleet;
mod guard;
mod mcp;

mod regions;
pub mod sampling;
mod varlog;

pub use guard::GuardOptions;
pub use mcp::elicitor;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::AbortHandle;

use super::event::{AppEvent, FleetJob, Job, McpJob};
use crate::aws::endpoints::multi::FleetTarget;
use crate::aws::endpoints::refresh::{RefreshMemory, RefreshPlan};
use crate::aws::{AwsError, AwsOptions, Fleet};

/// How the console refreshes: the control-plane budget of each account and region, the sweep
/// of the refresh that costs what changed, and the metrics budget (`[refresh]` in config.toml).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RefreshSettings {
    /// Control-plane calls per second per account and region (None: no limit).
    pub calls_per_second: Option<f64>,
    /// Every endpoint is described again at least this often, spread over the period.
    pub sweep: Duration,
    /// Every page is listed again at least this often (between full listings a refresh lists
    /// only what moved).
    pub full_listing: Duration,
    /// GetMetricData calls per minute the fleet table's metrics may take.
    pub metrics_calls_per_minute: u32,
}

impl Default for RefreshSettings {
    fn default() -> Self {
        RefreshSettings {
            calls_per_second: None,
            sweep: crate::aws::endpoints::refresh::DEFAULT_SWEEP,
            full_listing: crate::aws::endpoints::refresh::DEFAULT_FULL_LISTING,
            metrics_calls_per_minute: crate::tui::refresh::DEFAULT_METRICS_CALLS_PER_MINUTE,
        }
    }
}

/// Time limits of the jobs, and how the console refreshes.
#[derive(Debug, Clone, Copy)]
pub struct JobLimits {
    /// Inventory refresh.
    pub inventory: Duration,
    /// Metrics refresh.
    pub metrics: Duration,
    /// Following a weight change to InService.
    pub weights: Duration,
    /// One invocation (a repeat gets this per call).
    pub invoke: Duration,
    /// A prewarm.
    pub prewarm: Duration,
    /// The refresh's budget and sweep.
    pub refresh: RefreshSettings,
}

impl Default for JobLimits {
    fn default() -> Self {
        JobLimits {
            inventory: Duration::from_secs(120),
            metrics: Duration::from_secs(30),
            weights: Duration::from_secs(900),
            invoke: Duration::from_secs(90),
            prewarm: Duration::from_secs(300),
            refresh: RefreshSettings::default(),
        }
    }
}

/// A handle to submit jobs.
#[derive(Clone)]
pub struct Jobs {
    tx: UnboundedSender<(u64, Job, Option<FleetTarget>)>,
}

impl Jobs {
    /// Submits a job under an id chosen by the caller.
    pub fn submit(&self, id: u64, job: Job) {
        let _ = self.tx.send((id, job, None));
    }

    /// Submits a job that acts on `target`'s profile and region (None: the console's own).
    pub fn submit_to(&self, id: u64, job: Job, target: Option<FleetTarget>) {
        let _ = self.tx.send((id, job, target));
    }
}

/// Starts the worker: connects in the background (or uses `fleet`), then serves jobs. It has no
/// audit log, so every mutation and tool call is refused; the console uses [`spawn_guarded`].
pub fn spawn(options: AwsOptions, fleet: Option<Fleet>, limits: JobLimits, events: UnboundedSender<AppEvent>) -> Jobs {
    let guard = GuardOptions {
        audit_path: None,
        plan_dir: None,
        ..GuardOptions::default()
    };
    spawn_guarded(options, fleet, limits, events, None, guard)
}

/// [`spawn`], with the MCP servers of `hub` for the Tools tab's jobs and the audit log and plan
/// directory of `guard`.
pub fn spawn_guarded(
    options: AwsOptions,
    fleet: Option<Fleet>,
    limits: JobLimits,
    events: UnboundedSender<AppEvent>,
    hub: Option<crate::mcp::McpHub>,
    guard: GuardOptions,
) -> Jobs {
    spawn_regions(options, fleet, limits, events, hub, guard, Vec::new())
}

/// [`spawn_guarded`] over several profile × region pairs (`targets`; empty: one): the
/// inventory lists every pair as one merged table, and a job submitted with a pair
/// ([`Jobs::submit_to`]) runs on that pair's own fleet, connected once and kept.
pub fn spawn_regions(
    options: AwsOptions,
    fleet: Option<Fleet>,
    limits: JobLimits,
    events: UnboundedSender<AppEvent>,
    hub: Option<crate::mcp::McpHub>,
    guard: GuardOptions,
    targets: Vec<FleetTarget>,
) -> Jobs {
    let (tx, rx) = unbounded_channel();
    let guard = guard::Guard::new(guard, events.clone());
    let fleets = regions::Fleets::new(options.clone(), fleet.clone(), targets, limits.refresh);
    tokio::spawn(serve(options, fleet, limits, events, rx, hub, guard, fleets));
    Jobs { tx }
}

/// The jobs in flight that can be aborted, by id.
type Running = Arc<Mutex<HashMap<u64, AbortHandle>>>;

/// The tool calls and agent runs in flight, by id: cancelling one ends it cleanly.
type Cancellable = Arc<Mutex<HashMap<u64, tokio_util::sync::CancellationToken>>>;

/// What every job's task shares: where it reports, the jobs in flight, the fleets and the
/// worker's parts (MCP servers, the guard).
#[derive(Clone)]
struct Shared {
    events: UnboundedSender<AppEvent>,
    running: Running,
    tool_calls: Cancellable,
    fleet: Result<Fleet, AwsError>,
    /// What the console's own profile and region remember between refreshes.
    memory: Arc<tokio::sync::Mutex<RefreshMemory>>,
    fleets: regions::Fleets,
    hub: Option<crate::mcp::McpHub>,
    guard: guard::Guard,
    limits: JobLimits,
}

#[allow(clippy::too_many_arguments)]
async fn serve(
    options: AwsOptions,
    fleet: Option<Fleet>,
    limits: JobLimits,
    events: UnboundedSender<AppEvent>,
    mut rx: UnboundedReceiver<(u64, Job, Option<FleetTarget>)>,
    hub: Option<crate::mcp::McpHub>,
    guard: guard::Guard,
    fleets: regions::Fleets,
) {
    let fleet: Result<Fleet, AwsError> = match fleet {
        Some(f) => Ok(f),
        None => Fleet::connect(&options).await,
    };
    let fleet = fleet.map(|f| limits.refresh.budgeted(f));
    if let Ok(f) = &fleet {
        guard::open_at_start(&guard, f, &events);
    }
    let shared = Shared {
        events,
        running: Arc::default(),
        tool_calls: Arc::default(),
        fleet,
        memory: Arc::default(),
        fleets,
        hub,
        guard,
        limits,
    };
    while let Some((id, job, target)) = rx.recv().await {
        if let Job::Cancel(target) = job {
            shared.cancel(target);
            continue;
        }
        let _ = shared.events.send(AppEvent::Started {
            id,
            kind: job.kind(),
            label: job.label(),
        });
        let cancel = tokio_util::sync::CancellationToken::new();
        if matches!(job, Job::Mcp(McpJob::ToolCall { .. }) | Job::Agent(_)) {
            shared.tool_calls.lock().insert(id, cancel.clone());
        }
        let handle = tokio::spawn(shared.clone().run(id, job, target, cancel));
        shared.running.lock().insert(id, handle.abort_handle());
        // A job that finished before it was registered leaves a stale handle: drop those.
        shared.running.lock().retain(|_, h| !h.is_finished());
    }
}

impl Shared {
    /// Aborts job `target` and reports it cancelled; a tool call ends itself after sending
    /// `notifications/cancelled`.
    fn cancel(&self, target: u64) {
        if let Some(token) = self.tool_calls.lock().remove(&target) {
            token.cancel();
            self.running.lock().remove(&target);
            let _ = self.events.send(AppEvent::Finished {
                id: target,
                cancelled: true,
            });
            return;
        }
        if let Some(h) = self.running.lock().remove(&target) {
            h.abort();
            let _ = self.events.send(AppEvent::Finished {
                id: target,
                cancelled: true,
            });
        }
    }

    /// Runs job `id` (in its own task) on the fleet of `target` (None: the console's own) by
    /// its runner, then reports it finished.
    async fn run(self, id: u64, job: Job, target: Option<FleetTarget>, cancel: tokio_util::sync::CancellationToken) {
        if !self.run_merged(&job).await {
            let fleet = match target {
                Some(t) => self.fleets.get(&t).await,
                None => self.fleet.clone(),
            };
            let (events, guard, limits, hub) = (&self.events, &self.guard, self.limits, self.hub.as_ref());
            match (job, fleet) {
                (Job::Fleet(job), Ok(f)) => {
                    let memory = &self.memory;
                    fleet::run(&f, (id, job), limits, events, guard, memory).await
                }
                (Job::Fleet(job), Err(e)) => fleet::fail(events, id, job, e),
                (Job::Guard(job), fleet) => guard::run(guard, &fleet, job, limits, events).await,
                (Job::Mcp(job), fleet) => mcp::run(hub, id, job, cancel, events, (guard, &fleet)).await,
                (Job::Agent(job), fleet) => agent::run(hub, id, job, cancel, events, (guard, &fleet)).await,
                // Answered by `serve` and never spawned.
                (Job::Cancel(_), _) => {}
            }
            self.tool_calls.lock().remove(&id);
        }
        if self.running.lock().remove(&id).is_some() {
            let _ = self.events.send(AppEvent::Finished { id, cancelled: false });
        }
    }

    /// In a multi-region view, the inventory and the fleet table's metrics are read from every
    /// pair and merged; whether `job` was one of those.
    async fn run_merged(&self, job: &Job) -> bool {
        if !self.fleets.multi() {
            return false;
        }
        match job {
            Job::Fleet(FleetJob::Inventory { selected }) => {
                let limits = self.limits;
                self.fleets.inventory(limits, selected.clone(), &self.events).await;
                crate::tui::refresh::release_freed_memory();
                true
            }
            Job::Fleet(FleetJob::Metrics {
                endpoints,
                window,
                detail: false,
            }) => {
                let result = self
                    .fleets
                    .metrics(endpoints.clone(), *window, self.limits.metrics)
                    .await;
                let _ = self.events.send(AppEvent::Metrics { detail: false, result });
                true
            }
            _ => false,
        }
    }
}

impl RefreshSettings {
    /// `fleet` with this control-plane budget (unchanged without one).
    pub fn budgeted(&self, fleet: Fleet) -> Fleet {
        match self.calls_per_second {
            Some(rate) => fleet.with_budget(rate),
            None => fleet,
        }
    }

    /// The plan of one refresh: the selected endpoint read fresh, the sweep, and a deadline
    /// within the job's time limit (describes not started by then wait for the next refresh).
    pub(crate) fn plan(&self, selected: Option<String>, limits: &JobLimits) -> RefreshPlan {
        RefreshPlan {
            options: Default::default(),
            selected,
            sweep: self.sweep,
            full_listing: self.full_listing,
            deadline: Some(limits.inventory.mul_f64(0.75)),
        }
    }
}

fn timeout_error(what: &str, d: Duration) -> AwsError {
    AwsError::Timeout(format!("{what} took longer than {}s", d.as_secs()))
}
