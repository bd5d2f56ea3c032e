//! Load during a bake: bounded traffic pinned with TargetVariant, alternating between the canary
//! and the baseline at a fixed rate, measured client-side (an HDR histogram per variant and per
//! period), so that a quiet endpoint still gives the gate and the judge something to look at.
//!
//! Bounded: at most [`MAX_IN_FLIGHT`] invocations are outstanding; a tick that finds none free
//! is skipped (counted), never queued. The load stops when its handle is stopped or dropped (the
//! end of the bake, Ctrl-C, a failed gate, the plan ending).

use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;

use crate::aws::config::Fleet;
use crate::aws::invoke::call::InvokeSpec;
use crate::aws::judge::compare::{JudgeConfig, MetricVerdict, Tolerance, judge_metric};
use crate::aws::retry::RetryPolicy;

/// Invocations outstanding at most.
pub const MAX_IN_FLIGHT: usize = 32;

/// What load to send during each bake.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadConfig {
    /// Invocations per second, shared between canary and baseline.
    pub rps: f64,
    /// Request body.
    #[serde(skip)]
    pub body: Vec<u8>,
    /// Its Content-Type.
    pub content_type: String,
}

/// One variant's client-side figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VariantLoad {
    /// Invocations answered (successes and failures).
    pub sent: u64,
    /// Failed invocations.
    pub errors: u64,
    /// Client latency p50 over the bake, ms.
    pub p50_ms: Option<f64>,
    /// Client latency p99 over the bake, ms.
    pub p99_ms: Option<f64>,
    /// Client latency p99 per period with answers, ms.
    pub period_p99_ms: Vec<f64>,
    /// Error rate per period with answers.
    pub period_error_rate: Vec<f64>,
}

/// What the load measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoadReport {
    /// The canary.
    pub canary: VariantLoad,
    /// The baseline.
    pub baseline: VariantLoad,
    /// Ticks skipped because [`MAX_IN_FLIGHT`] invocations were outstanding.
    pub skipped: u64,
}

/// Per-period accumulation of one variant.
#[derive(Default)]
struct Acc {
    all: Option<Histogram<u64>>,
    periods: Vec<(Option<Histogram<u64>>, u64, u64)>,
    sent: u64,
    errors: u64,
}

fn histogram() -> Option<Histogram<u64>> {
    Histogram::new_with_bounds(1, 600_000_000, 3).ok()
}

impl Acc {
    fn add(&mut self, period: usize, micros: u64, ok: bool) {
        self.sent += 1;
        if !ok {
            self.errors += 1;
        }
        if self.periods.len() <= period {
            self.periods.resize_with(period + 1, || (None, 0, 0));
        }
        let p = &mut self.periods[period];
        p.1 += 1;
        if !ok {
            p.2 += 1;
        }
        for h in [
            self.all.get_or_insert_with(|| histogram().expect("valid bounds")),
            p.0.get_or_insert_with(|| histogram().expect("valid bounds")),
        ] {
            let _ = h.record(micros.clamp(1, 600_000_000));
        }
    }

    fn report(&self) -> VariantLoad {
        let ms = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1000.0;
        VariantLoad {
            sent: self.sent,
            errors: self.errors,
            p50_ms: self.all.as_ref().map(|h| ms(h, 0.5)),
            p99_ms: self.all.as_ref().map(|h| ms(h, 0.99)),
            period_p99_ms: self
                .periods
                .iter()
                .filter_map(|(h, _, _)| h.as_ref().map(|h| ms(h, 0.99)))
                .collect(),
            period_error_rate: self
                .periods
                .iter()
                .filter(|(_, n, _)| *n > 0)
                .map(|(_, n, e)| *e as f64 / *n as f64)
                .collect(),
        }
    }
}

/// A running load; stop it to read what it measured (dropping it stops it too).
pub struct LoadHandle {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<JoinHandle<LoadReport>>,
}

impl LoadHandle {
    /// Stops sending, waits briefly for answers in flight, and returns the figures.
    pub async fn stop(mut self) -> LoadReport {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        match self.task.take() {
            Some(t) => t.await.unwrap_or_default(),
            None => LoadReport::default(),
        }
    }
}

impl Drop for LoadHandle {
    fn drop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

impl Fleet {
    /// Starts load on `endpoint`, alternating `canary` and `baseline`, with periods of `period`.
    pub fn start_bake_load(
        &self,
        endpoint: &str,
        variants: [&str; 2],
        cfg: &LoadConfig,
        period: Duration,
    ) -> LoadHandle {
        let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
        let fleet = self.clone();
        let specs: Vec<InvokeSpec> = variants
            .iter()
            .map(|v| InvokeSpec {
                endpoint: endpoint.to_string(),
                body: cfg.body.clone(),
                content_type: cfg.content_type.clone(),
                target_variant: Some(v.to_string()),
                ..Default::default()
            })
            .collect();
        let interval = Duration::from_secs_f64(1.0 / cfg.rps.max(0.01));
        let period = period.max(Duration::from_secs(1));
        let task = tokio::spawn(async move {
            let started = Instant::now();
            let permits = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
            let (tx, mut rx) = mpsc::unbounded_channel::<(usize, usize, u64, bool)>();
            let mut ticker = tokio::time::interval(interval);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            let (mut accs, mut skipped, mut n) = ([Acc::default(), Acc::default()], 0u64, 0usize);
            loop {
                tokio::select! {
                    _ = &mut stop_rx => break,
                    Some((v, p, us, ok)) = rx.recv() => accs[v].add(p, us, ok),
                    _ = ticker.tick() => {
                        let Ok(permit) = permits.clone().try_acquire_owned() else {
                            skipped += 1;
                            continue;
                        };
                        let which = n % 2;
                        n += 1;
                        let (fleet, spec, tx) = (fleet.clone(), specs[which].clone(), tx.clone());
                        tokio::spawn(async move {
                            let t0 = Instant::now();
                            let p = (t0.duration_since(started).as_secs_f64() / period.as_secs_f64()) as usize;
                            let ok = fleet.invoke(&spec, &RetryPolicy::none()).await.is_ok();
                            let _ = tx.send((which, p, t0.elapsed().as_micros() as u64, ok));
                            drop(permit);
                        });
                    }
                }
            }
            drop(tx);
            // Answers still in flight, for a short while.
            let _ = tokio::time::timeout(Duration::from_secs(2), async {
                while let Some((v, p, us, ok)) = rx.recv().await {
                    accs[v].add(p, us, ok);
                }
            })
            .await;
            LoadReport {
                canary: accs[0].report(),
                baseline: accs[1].report(),
                skipped,
            }
        });
        LoadHandle {
            stop: Some(stop_tx),
            task: Some(task),
        }
    }
}

/// The judge's verdicts on client-measured load figures (client latency p99, client error
/// rate), per period.
pub fn client_verdicts(load: &LoadReport, cfg: &JudgeConfig) -> Vec<MetricVerdict> {
    vec![
        judge_metric(
            "client_latency_p99",
            load.canary.period_p99_ms.clone(),
            load.baseline.period_p99_ms.clone(),
            Tolerance::Relative,
            cfg,
        ),
        judge_metric(
            "client_error_rate",
            load.canary.period_error_rate.clone(),
            load.baseline.period_error_rate.clone(),
            Tolerance::Absolute,
            cfg,
        ),
    ]
}
