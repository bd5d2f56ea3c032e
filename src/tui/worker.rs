//! The background side of the console: connects the fleet layer, runs every job in its own task
//! with a timeout, reports through [`AppEvent`]s, and aborts a job on request. The UI task never
//! awaits any of this.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::AbortHandle;

use super::event::{AppEvent, Job};
use crate::aws::inventory::InventoryOptions;
use crate::aws::metrics::MetricsPlan;
use crate::aws::prewarm::PrewarmOptions;
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
    tx: UnboundedSender<(u64, Job)>,
}

impl Jobs {
    /// Submits a job under an id chosen by the caller.
    pub fn submit(&self, id: u64, job: Job) {
        let _ = self.tx.send((id, job));
    }
}

/// Starts the worker: connects in the background (or uses `fleet`), then serves jobs.
pub fn spawn(options: AwsOptions, fleet: Option<Fleet>, limits: JobLimits, events: UnboundedSender<AppEvent>) -> Jobs {
    let (tx, rx) = unbounded_channel();
    tokio::spawn(serve(options, fleet, limits, events, rx));
    Jobs { tx }
}

async fn serve(
    options: AwsOptions,
    fleet: Option<Fleet>,
    limits: JobLimits,
    events: UnboundedSender<AppEvent>,
    mut rx: UnboundedReceiver<(u64, Job)>,
) {
    let fleet: Result<Fleet, AwsError> = match fleet {
        Some(f) => Ok(f),
        None => Fleet::connect(&options).await,
    };
    let running: Arc<Mutex<HashMap<u64, AbortHandle>>> = Arc::default();
    while let Some((id, job)) = rx.recv().await {
        if let Job::Cancel(target) = job {
            if let Some(h) = running.lock().remove(&target) {
                h.abort();
                let _ = events.send(AppEvent::Finished {
                    id: target,
                    cancelled: true,
                });
            }
            continue;
        }
        let _ = events.send(AppEvent::Started { id, label: job.label() });
        let (events2, running2) = (events.clone(), running.clone());
        let fleet = fleet.clone();
        let handle = tokio::spawn(async move {
            match fleet {
                Ok(f) => run_job(&f, id, job, limits, &events2).await,
                Err(e) => fail(&events2, id, job, e),
            }
            if running2.lock().remove(&id).is_some() {
                let _ = events2.send(AppEvent::Finished { id, cancelled: false });
            }
        });
        running.lock().insert(id, handle.abort_handle());
        // A job that finished before it was registered leaves a stale handle: drop those.
        running.lock().retain(|_, h| !h.is_finished());
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
        Job::ApplyWeights { plan } => AppEvent::WeightsDone {
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
        Job::Cancel(_) => return,
    };
    let _ = events.send(ev);
}

async fn run_job(f: &Fleet, id: u64, job: Job, limits: JobLimits, events: &UnboundedSender<AppEvent>) {
    let send = |ev: AppEvent| {
        let _ = events.send(ev);
    };
    let progress_events = events.clone();
    match job {
        Job::Inventory => {
            let r = tokio::time::timeout(limits.inventory, f.inventory(InventoryOptions::default()))
                .await
                .unwrap_or_else(|_| Err(timeout_error("the inventory", limits.inventory)));
            send(AppEvent::Inventory(r));
        }
        Job::Metrics {
            endpoints,
            window,
            detail,
        } => {
            let plan = MetricsPlan::for_endpoints(&endpoints, window, MetricsPlan::period_for(window));
            let r = tokio::time::timeout(limits.metrics, f.fetch_metrics(&plan, std::time::SystemTime::now()))
                .await
                .unwrap_or_else(|_| Err(timeout_error("the metrics refresh", limits.metrics)));
            send(AppEvent::Metrics { detail, result: r });
        }
        Job::Describe { endpoint } => {
            let r = async {
                let info = f.endpoint(&endpoint).await?;
                let variants: Vec<String> = info.variants.iter().map(|v| v.name.clone()).collect();
                let acts = f.scaling_activities(&endpoint, &variants, 10).await.unwrap_or_default();
                Ok((info, acts))
            };
            let r = tokio::time::timeout(limits.metrics, r)
                .await
                .unwrap_or_else(|_| Err(timeout_error("describe", limits.metrics)));
            send(AppEvent::Described { endpoint, result: r });
        }
        Job::ApplyWeights { plan } => {
            let endpoint = plan.endpoint.clone();
            let r = async {
                f.apply_weights(&plan).await?;
                f.wait_in_service(
                    &endpoint,
                    limits.weights,
                    Duration::from_secs(1),
                    |i: &crate::aws::inventory::EndpointInfo| {
                        let _ = progress_events.send(AppEvent::WeightsProgress(i.clone()));
                    },
                )
                .await
            }
            .await;
            send(AppEvent::WeightsDone { endpoint, result: r });
        }
        Job::Invoke { spec, repeat } => {
            let policy = RetryPolicy::default();
            for index in 0..repeat.max(1) {
                let r = tokio::time::timeout(limits.invoke, f.invoke(&spec, &policy))
                    .await
                    .unwrap_or_else(|_| {
                        Err(crate::aws::invoke::InvokeFailure {
                            error: timeout_error("the invocation", limits.invoke),
                            attempts: 1,
                            total: limits.invoke,
                        })
                    });
                send(AppEvent::Invoked { id, index, result: r });
            }
        }
        Job::Catalog { endpoint, prefix } => {
            let r = tokio::time::timeout(limits.metrics, f.list_catalog(&prefix, None))
                .await
                .unwrap_or_else(|_| Err(timeout_error("the catalog listing", limits.metrics)));
            send(AppEvent::Catalog { endpoint, result: r });
        }
        Job::Prewarm { endpoint, models } => {
            let (ptx, mut prx) = unbounded_channel();
            let forward = {
                let events = events.clone();
                let endpoint = endpoint.clone();
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
                f.prewarm(&endpoint, &models, &PrewarmOptions::default(), Some(&ptx)),
            )
            .await
            .unwrap_or_else(|_| Err(timeout_error("the prewarm", limits.prewarm)))
            .map(|report| report.results);
            drop(ptx);
            let _ = forward.await;
            send(AppEvent::PrewarmDone { endpoint, result: r });
        }
        Job::Cancel(_) => {}
    }
}
