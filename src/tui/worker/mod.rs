//! The background side of the console: connects the fleet layer, runs every job in its own task
//! with a timeout, reports through [`AppEvent`]s, and aborts a job on request. The UI task never
//! awaits any of this.

mod agent;
mod mcp;

mod guard;

mod regions;
mod varlog;

pub use guard::GuardOptions;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::AbortHandle;

use super::event::{AppEvent, Job, JobKind, Runner};
use crate::aws::inventory::InventoryOptions;
use crate::aws::metrics::MetricsPlan;
use crate::aws::multi::FleetTarget;
use crate::aws::{AwsError, AwsOptions, Fleet, RetryPolicy};

/// Time limits of the jobs.
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
}

impl Default for JobLimits {
    fn default() -> Self {
        JobLimits {
            inventory: Duration::from_secs(120),
            metrics: Duration::from_secs(30),
            weights: Duration::from_secs(900),
            invoke: Duration::from_secs(90),
            prewarm: Duration::from_secs(300),
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
    let guard = guard::Guard::new(guard);
    let fleets = regions::Fleets::new(options.clone(), fleet.clone(), targets);
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
    if let Ok(f) = &fleet {
        guard::open_at_start(&guard, f, &events);
    }
    let shared = Shared {
        events,
        running: Arc::default(),
        tool_calls: Arc::default(),
        fleet,
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
        if matches!(job.kind(), JobKind::ToolCall | JobKind::AgentRun) {
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
    /// the part of the worker its kind names, then reports it finished.
    async fn run(self, id: u64, job: Job, target: Option<FleetTarget>, cancel: tokio_util::sync::CancellationToken) {
        if !self.run_merged(&job).await {
            let fleet = match target {
                Some(t) => self.fleets.get(&t).await,
                None => self.fleet.clone(),
            };
            let (events, guard, limits) = (&self.events, &self.guard, self.limits);
            match (job.kind().runner(), fleet) {
                (Runner::Mcp, fleet) => {
                    mcp::run(self.hub.clone(), id, job, cancel, events, (guard, &fleet)).await;
                    self.tool_calls.lock().remove(&id);
                }
                (Runner::Guard, fleet) => guard::run(guard, &fleet, job, limits, events).await,
                (Runner::Fleet, Ok(f)) => run_job(&f, id, job, limits, events, guard).await,
                (Runner::Fleet, Err(e)) => fail(events, id, job, e),
                // Cancel is answered by `serve` and never spawned.
                (Runner::Worker, _) => {}
            }
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
            Job::Inventory => {
                self.fleets.inventory(self.limits.inventory, &self.events).await;
                true
            }
            Job::Metrics {
                endpoints,
                window,
                detail: false,
            } => {
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

fn timeout_error(what: &str, d: Duration) -> AwsError {
    AwsError::Timeout(format!("{what} took longer than {}s", d.as_secs()))
}

/// Answers a job with the connection error.
fn fail(events: &UnboundedSender<AppEvent>, id: u64, job: Job, e: AwsError) {
    let ev = match job {
        Job::Inventory => AppEvent::Inventory(Err(e)),
        Job::Metrics { detail, .. } => AppEvent::Metrics { detail, result: Err(e) },
        Job::Describe { endpoint } => AppEvent::Described {
            endpoint,
            result: Err(e),
        },
        Job::ApplyWeights { plan, .. } => AppEvent::WeightsDone {
            endpoint: plan.endpoint,
            result: Err(e),
        },
        Job::Invoke { .. } => AppEvent::Invoked {
            id,
            index: 0,
            result: Err(crate::aws::invoke::InvokeFailure {
                error: e,
                attempts: 0,
                total: Duration::ZERO,
            }),
        },
        Job::Catalog { endpoint, .. } => AppEvent::Catalog {
            endpoint,
            result: Err(e),
        },
        Job::Prewarm { endpoint, .. } => AppEvent::PrewarmDone {
            endpoint,
            result: Err(e),
        },
        Job::Promote { spec, .. } => AppEvent::PromotionEnded {
            endpoint: spec.endpoint,
            result: Err(e.to_string()),
        },
        Job::PromoteResume { endpoint, .. } => AppEvent::PromotionEnded {
            endpoint,
            result: Err(e.to_string()),
        },
        Job::Logs { query, follow, .. } => AppEvent::Logs {
            endpoint: query.endpoint,
            follow,
            result: Err(e),
        },
        Job::Timeline { endpoint, .. } => AppEvent::Timeline {
            endpoint,
            result: Err(e),
        },
        Job::Alarms => AppEvent::Alarms(Err(e.to_string())),
        Job::ScalingView { endpoint } => AppEvent::Scaling {
            endpoint,
            result: Err(e),
        },
        Job::ChangeScaling { endpoint, variant, .. } => AppEvent::ScalingChanged {
            endpoint,
            variant,
            result: Err(e.to_string()),
        },
        Job::Cancel(_)
        | Job::McpConnect { .. }
        | Job::ToolCall { .. }
        | Job::AgentRun { .. }
        | Job::Activity
        | Job::PromoteControl { .. } => {
            return;
        }
    };
    let _ = events.send(ev);
}

/// An endpoint with its autoscaling and its last ten scaling activities (the `d` overlay).
async fn describe(
    f: &Fleet,
    endpoint: &str,
) -> Result<
    (
        crate::aws::inventory::EndpointInfo,
        Vec<crate::aws::scaling::ActivityInfo>,
    ),
    AwsError,
> {
    let info = f.endpoint(endpoint).await?;
    let variants: Vec<String> = info.variants.iter().map(|v| v.name.clone()).collect();
    let acts = f.scaling_activities(endpoint, &variants, 10).await.unwrap_or_default();
    Ok((info, acts))
}

/// Invokes `spec` `repeat` times (at least once), each with its retries and time limit, each
/// recorded in the variant log and sent as it ends.
async fn invoke(
    f: &Fleet,
    id: u64,
    (spec, repeat): (&crate::aws::invoke::InvokeSpec, u32),
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
    guard: &guard::Guard,
) {
    let policy = RetryPolicy::default();
    for index in 0..repeat.max(1) {
        let r = tokio::time::timeout(limits.invoke, f.invoke(spec, &policy))
            .await
            .unwrap_or_else(|_| {
                Err(crate::aws::invoke::InvokeFailure {
                    error: timeout_error("the invocation", limits.invoke),
                    attempts: 1,
                    total: limits.invoke,
                })
            });
        let record = crate::aws::invocation_log::InvocationRecord::of_invoke("console-invoke", None, spec, &r);
        varlog::append(guard, record, &spec.body, events);
        let _ = events.send(AppEvent::Invoked { id, index, result: r });
    }
}

/// Runs a plain fleet-layer job (a read or an invocation), each within its time limit.
async fn run_job(
    f: &Fleet,
    id: u64,
    job: Job,
    limits: JobLimits,
    events: &UnboundedSender<AppEvent>,
    guard: &guard::Guard,
) {
    let send = |ev: AppEvent| {
        let _ = events.send(ev);
    };
    let now = std::time::SystemTime::now;
    match job {
        Job::Inventory => {
            let report = |progress| {
                let _ = events.send(AppEvent::InventoryProgress { origin: None, progress });
            };
            let r = within(
                limits.inventory,
                "the inventory",
                f.inventory_progressive(InventoryOptions::default(), &report),
            )
            .await;
            send(AppEvent::Inventory(r));
            release_freed_memory();
        }
        Job::Metrics {
            endpoints,
            window,
            detail,
        } => {
            let plan = MetricsPlan::for_endpoints(&endpoints, window, MetricsPlan::period_for(window));
            let r = within(limits.metrics, "the metrics refresh", f.fetch_metrics(&plan, now())).await;
            send(AppEvent::Metrics { detail, result: r });
        }
        Job::Describe { endpoint } => {
            let r = within(limits.metrics, "describe", describe(f, &endpoint)).await;
            send(AppEvent::Described { endpoint, result: r });
        }
        Job::Invoke { spec, repeat } => invoke(f, id, (&spec, repeat), limits, events, guard).await,
        Job::Catalog { endpoint, prefix } => {
            let r = within(limits.metrics, "the catalog listing", f.list_catalog(&prefix, None)).await;
            send(AppEvent::Catalog { endpoint, result: r });
        }
        Job::ScalingView { endpoint } => {
            let r = within(limits.metrics, "the autoscaling view", f.scaling_view(&endpoint, now())).await;
            send(AppEvent::Scaling {
                endpoint,
                result: r.map(Box::new),
            });
        }
        Job::Alarms => {
            let r = within(limits.metrics, "the alarm states", f.alarms_by_endpoint()).await;
            send(AppEvent::Alarms(r.map_err(|e| e.to_string())));
        }
        Job::Logs { query, streams, follow } => {
            let r = within(limits.metrics, "reading the logs", read_logs(f, query.clone(), streams)).await;
            send(AppEvent::Logs {
                endpoint: query.endpoint,
                follow,
                result: r,
            });
        }
        // Run elsewhere, by `JobKind::runner`: audited mutations in `guard`, MCP in `mcp`.
        Job::ChangeScaling { .. }
        | Job::Timeline { .. }
        | Job::ApplyWeights { .. }
        | Job::Activity
        | Job::Promote { .. }
        | Job::PromoteResume { .. }
        | Job::PromoteControl { .. }
        | Job::Prewarm { .. }
        | Job::McpConnect { .. }
        | Job::ToolCall { .. }
        | Job::AgentRun { .. }
        | Job::Cancel(_) => {}
    }
}

/// `call`'s result, or a timeout error naming `what` when it takes longer than `limit`.
async fn within<T>(
    limit: Duration,
    what: &str,
    call: impl std::future::Future<Output = Result<T, AwsError>>,
) -> Result<T, AwsError> {
    tokio::time::timeout(limit, call)
        .await
        .unwrap_or_else(|_| Err(timeout_error(what, limit)))
}

/// The logs of a [`Job::Logs`]: the streams when asked, then every page of lines.
async fn read_logs(
    f: &Fleet,
    query: crate::aws::logs::LogQuery,
    streams: bool,
) -> Result<(Option<Vec<crate::aws::logs::StreamInfo>>, crate::aws::logs::LogRead), AwsError> {
    let streams = match streams {
        true => Some(f.log_streams(&query.endpoint, query.variant.as_deref()).await?),
        false => None,
    };
    let calls = std::sync::atomic::AtomicUsize::new(0);
    Ok((streams, f.log_lines(&query, &calls).await?))
}

/// An inventory of a large fleet allocates thousands of transient response buffers; glibc keeps
/// the freed pages resident. Handing them back after each inventory keeps a 1,000-endpoint
/// console's resident set flat (`benches/console_live.sh`).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}
