//! The runtime side of one production variant: its latency and error profile, its per-instance
//! multi-model caches (LRU, cold loads that take real time), and cached handles of the CloudWatch
//! series every invocation feeds.

use std::collections::BTreeMap;

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, LogNormal};

use crate::sandbox::cloudwatch::metrics::{MetricStore, SeriesHandle, SeriesKey};
use crate::sandbox::world::config::SandboxConfig;
use crate::sandbox::world::containers::ContainerKind;
use crate::sandbox::world::hash::fxhash;
use crate::sandbox::world::serverless::ServerlessSim;

/// Namespace of the invocation metrics.
pub const NS_SAGEMAKER: &str = "AWS/SageMaker";
/// Namespace of the instance metrics (LoadedModelCount, utilisation).
pub const NS_ENDPOINTS: &str = "/aws/sagemaker/Endpoints";
/// Namespace of an inference component's utilisation of its reservation.
pub const NS_COMPONENTS: &str = "/aws/sagemaker/InferenceComponents";

/// The CloudWatch series one variant feeds.
pub struct VariantSeries {
    /// Invocations (Count).
    pub invocations: SeriesHandle,
    /// InvocationsPerInstance (Count; 1/instances per invocation).
    pub per_instance: SeriesHandle,
    /// ModelLatency (Microseconds).
    pub model_latency: SeriesHandle,
    /// OverheadLatency (Microseconds).
    pub overhead_latency: SeriesHandle,
    /// Invocation4XXErrors (Count).
    pub errors_4xx: SeriesHandle,
    /// Invocation5XXErrors (Count).
    pub errors_5xx: SeriesHandle,
    /// ModelCacheHit (MME; Count, Average = hit ratio).
    pub cache_hit: SeriesHandle,
    /// ModelLoadingWaitTime (MME; Microseconds).
    pub loading_wait: SeriesHandle,
    /// ModelDownloadingTime (MME; Microseconds).
    pub downloading: SeriesHandle,
    /// ModelLoadingTime (MME; Microseconds).
    pub loading: SeriesHandle,
    /// ModelUnloadingTime (MME; Microseconds).
    pub unloading: SeriesHandle,
    /// LoadedModelCount (MME; per-instance samples).
    pub loaded_count: SeriesHandle,
    /// CPUUtilization (Percent).
    pub cpu: SeriesHandle,
    /// MemoryUtilization (Percent).
    pub memory: SeriesHandle,
}

impl VariantSeries {
    fn new(metrics: &MetricStore, endpoint: &str, variant: &str) -> Self {
        Self::with_dims(metrics, &[("EndpointName", endpoint), ("VariantName", variant)])
    }

    fn with_dims(metrics: &MetricStore, dims: &[(&str, &str)]) -> Self {
        let m = |ns: &str, name: &str, unit: &str| metrics.series(&SeriesKey::new(ns, name, dims), unit);
        VariantSeries {
            invocations: m(NS_SAGEMAKER, "Invocations", "None"),
            per_instance: m(NS_SAGEMAKER, "InvocationsPerInstance", "None"),
            model_latency: m(NS_SAGEMAKER, "ModelLatency", "Microseconds"),
            overhead_latency: m(NS_SAGEMAKER, "OverheadLatency", "Microseconds"),
            errors_4xx: m(NS_SAGEMAKER, "Invocation4XXErrors", "None"),
            errors_5xx: m(NS_SAGEMAKER, "Invocation5XXErrors", "None"),
            cache_hit: m(NS_SAGEMAKER, "ModelCacheHit", "None"),
            loading_wait: m(NS_SAGEMAKER, "ModelLoadingWaitTime", "Microseconds"),
            downloading: m(NS_SAGEMAKER, "ModelDownloadingTime", "Microseconds"),
            loading: m(NS_SAGEMAKER, "ModelLoadingTime", "Microseconds"),
            unloading: m(NS_SAGEMAKER, "ModelUnloadingTime", "Microseconds"),
            loaded_count: m(NS_ENDPOINTS, "LoadedModelCount", "None"),
            cpu: m(NS_ENDPOINTS, "CPUUtilization", "Percent"),
            memory: m(NS_ENDPOINTS, "MemoryUtilization", "Percent"),
        }
    }

    /// The series of an inference component, as AWS names them: `AWS/SageMaker` with the
    /// `InferenceComponentName` dimension (InvocationsPerCopy where a variant has
    /// InvocationsPerInstance), utilisation normalized to the reservation in
    /// `/aws/sagemaker/InferenceComponents`.
    fn for_component(metrics: &MetricStore, component: &str) -> Self {
        let dims = [("InferenceComponentName", component)];
        let m = |ns: &str, name: &str, unit: &str| metrics.series(&SeriesKey::new(ns, name, &dims), unit);
        VariantSeries {
            invocations: m(NS_SAGEMAKER, "Invocations", "None"),
            per_instance: m(NS_SAGEMAKER, "InvocationsPerCopy", "None"),
            model_latency: m(NS_SAGEMAKER, "ModelLatency", "Microseconds"),
            overhead_latency: m(NS_SAGEMAKER, "OverheadLatency", "Microseconds"),
            errors_4xx: m(NS_SAGEMAKER, "Invocation4XXErrors", "None"),
            errors_5xx: m(NS_SAGEMAKER, "Invocation5XXErrors", "None"),
            cache_hit: m(NS_SAGEMAKER, "ModelCacheHit", "None"),
            loading_wait: m(NS_SAGEMAKER, "ModelLoadingWaitTime", "Microseconds"),
            downloading: m(NS_SAGEMAKER, "ModelDownloadingTime", "Microseconds"),
            loading: m(NS_SAGEMAKER, "ModelLoadingTime", "Microseconds"),
            unloading: m(NS_SAGEMAKER, "ModelUnloadingTime", "Microseconds"),
            loaded_count: m(NS_COMPONENTS, "LoadedModelCount", "None"),
            cpu: m(NS_COMPONENTS, "CPUUtilizationNormalized", "Percent"),
            memory: m(NS_COMPONENTS, "MemoryUtilizationNormalized", "Percent"),
        }
    }
}

/// Latency and error behaviour of a variant.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Median model latency in milliseconds (before the request's work factor).
    pub latency_median_ms: f64,
    /// Log-normal sigma of model latency.
    pub latency_sigma: f64,
    /// Fraction of requests the container answers with HTTP 500.
    pub error_rate: f64,
    /// Median SageMaker overhead in microseconds.
    pub overhead_median_us: f64,
    /// Invocations per second one instance serves before requests queue.
    pub instance_rps: f64,
}

impl Profile {
    /// The profile of a container kind, overridden by `SAGEDECK_LATENCY_MS`,
    /// `SAGEDECK_LATENCY_SIGMA` and `SAGEDECK_ERROR_RATE` in the model's environment.
    pub fn from_env(kind: ContainerKind, env: &BTreeMap<String, String>, random_errors: bool) -> Profile {
        let num = |k: &str| {
            env.get(k)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
        };
        Profile {
            latency_median_ms: num("SAGEDECK_LATENCY_MS").unwrap_or(kind.base_latency_ms()),
            latency_sigma: num("SAGEDECK_LATENCY_SIGMA").unwrap_or(0.35),
            error_rate: if random_errors {
                num("SAGEDECK_ERROR_RATE").unwrap_or(0.002).min(1.0)
            } else {
                0.0
            },
            overhead_median_us: 1200.0,
            instance_rps: num("SAGEDECK_INSTANCE_RPS").filter(|r| *r > 0.0).unwrap_or(1000.0),
        }
    }
}

#[derive(Debug, Default)]
struct InstanceCache {
    /// Loaded models and their last use (a logical clock), oldest evicted first.
    loaded: BTreeMap<String, u64>,
    /// Models being downloaded and loaded: the time they become ready, and the logical time of
    /// the request that asked for them (their last use once loaded).
    loading: BTreeMap<String, (f64, u64)>,
}

/// Where a multi-model invocation found its model.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelAccess {
    /// Already in memory on an instance.
    Warm,
    /// Loading; the request waits `wait` seconds (download and load durations for metrics).
    Cold {
        /// Seconds this request waits.
        wait: f64,
        /// Download duration of this load.
        download: f64,
        /// Load duration of this load.
        load: f64,
    },
    /// Loading takes longer than the threshold: ModelNotReadyException after `wait` seconds.
    NotReady {
        /// Seconds before answering.
        wait: f64,
    },
}

/// The runtime simulation of one production variant.
pub struct VariantSim {
    /// Container kind.
    pub kind: ContainerKind,
    /// Latency and errors.
    pub profile: Profile,
    /// Whether the variant serves a multi-model container.
    pub multi_model: bool,
    /// Metric series.
    pub series: VariantSeries,
    /// The same series with the EndpointConfigName dimension too, fed by the fleets of a
    /// deployment so that an alarm can watch one fleet (set once, by `feed_config_series`).
    pub config_series: std::sync::OnceLock<VariantSeries>,
    /// A serverless variant's containers and settings (set once, when the variant is built).
    pub serverless: std::sync::OnceLock<ServerlessSim>,
    /// Instances whose log streams the log writer has opened (`logs/content.rs`): its tick
    /// looks only at instances past it.
    pub logged_streams: std::sync::atomic::AtomicUsize,
    capacity: usize,
    instances: Mutex<Vec<InstanceCache>>,
    clock: std::sync::atomic::AtomicU64,
    rng: Mutex<SmallRng>,
    evictions: Mutex<Vec<(usize, String)>>,
}

impl std::fmt::Debug for VariantSim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VariantSim")
            .field("kind", &self.kind)
            .field("multi_model", &self.multi_model)
            .finish()
    }
}

impl VariantSim {
    /// A fresh variant with `instances` empty instances.
    pub fn new(
        (config, metrics): (&SandboxConfig, &MetricStore),
        endpoint: &str,
        variant: &str,
        kind: ContainerKind,
        env: &BTreeMap<String, String>,
        multi_model: bool,
        instances: usize,
    ) -> Self {
        let series = VariantSeries::new(metrics, endpoint, variant);
        Self::with_series(config, series, (endpoint, variant), kind, env, multi_model, instances)
    }

    /// The runtime simulation of an inference component: its container, one "instance" per
    /// copy, and the component's own series (`InferenceComponentName`).
    pub fn for_component(
        (config, metrics): (&SandboxConfig, &MetricStore),
        endpoint: &str,
        component: &str,
        kind: ContainerKind,
        env: &BTreeMap<String, String>,
        copies: usize,
    ) -> Self {
        let series = VariantSeries::for_component(metrics, component);
        Self::with_series(config, series, (endpoint, component), kind, env, false, copies)
    }

    fn with_series(
        config: &SandboxConfig,
        series: VariantSeries,
        (endpoint, variant): (&str, &str),
        kind: ContainerKind,
        env: &BTreeMap<String, String>,
        multi_model: bool,
        instances: usize,
    ) -> Self {
        let seed = config.seed ^ fxhash(endpoint) ^ fxhash(variant).rotate_left(17);
        VariantSim {
            kind,
            profile: Profile::from_env(kind, env, config.random_errors),
            multi_model,
            series,
            config_series: std::sync::OnceLock::new(),
            serverless: std::sync::OnceLock::new(),
            logged_streams: std::sync::atomic::AtomicUsize::new(0),
            capacity: env
                .get("SAGEDECK_MODELS_PER_INSTANCE")
                .and_then(|v| v.parse().ok())
                .unwrap_or(config.mme_models_per_instance)
                .max(1),
            instances: Mutex::new((0..instances.max(1)).map(|_| InstanceCache::default()).collect()),
            clock: std::sync::atomic::AtomicU64::new(0),
            rng: Mutex::new(SmallRng::seed_from_u64(seed)),
            evictions: Mutex::new(Vec::new()),
        }
    }

    /// Feeds the series of this variant's fleet on endpoint configuration `config` as well
    /// (dimensions EndpointName, VariantName, EndpointConfigName); a no-op once set.
    pub fn feed_config_series(&self, metrics: &MetricStore, (endpoint, variant, config): (&str, &str, &str)) {
        let dims = [
            ("EndpointName", endpoint),
            ("VariantName", variant),
            ("EndpointConfigName", config),
        ];
        let _ = self.config_series.set(VariantSeries::with_dims(metrics, &dims));
    }

    /// Resizes the instance fleet (new instances start with empty caches).
    pub fn set_instances(&self, n: usize) {
        self.instances.lock().resize_with(n.max(1), InstanceCache::default);
    }

    /// Number of instances.
    pub fn instance_count(&self) -> usize {
        self.instances.lock().len()
    }

    /// Draws a model latency in microseconds for a request of the given work.
    pub fn draw_model_latency_us(&self, work: f64) -> f64 {
        let p = &self.profile;
        let median_us = (p.latency_median_ms * 1000.0 * work).max(1.0);
        let d = LogNormal::new(median_us.ln(), p.latency_sigma.max(1e-6)).ok();
        let mut rng = self.rng.lock();
        d.map(|d| d.sample(&mut *rng)).unwrap_or(median_us)
    }

    /// How much queueing stretches model latency at the variant's load now: `1 / (1 - ρ)` with
    /// ρ the invocations of the last two 10 s slots (per second) over what its instances serve (capped at 0.9, ten times),
    /// so more instances mean lower latency under the same load.
    pub fn load_factor(&self, now: f64) -> f64 {
        let recent = self
            .series
            .invocations
            .lock()
            .window(
                now - 15.0,
                now + 5.0,
                crate::sandbox::cloudwatch::metrics::query::Stat::Sum,
            )
            .unwrap_or(0.0);
        let capacity = self.instance_count().max(1) as f64 * self.profile.instance_rps;
        1.0 / (1.0 - (recent / 20.0 / capacity).min(0.9))
    }

    /// Draws an overhead latency in microseconds.
    pub fn draw_overhead_us(&self) -> f64 {
        let d = LogNormal::new(self.profile.overhead_median_us.ln(), 0.25).ok();
        let mut rng = self.rng.lock();
        d.map(|d| d.sample(&mut *rng))
            .unwrap_or(self.profile.overhead_median_us)
    }

    /// Whether this request hits the variant's simulated container error rate.
    pub fn draw_error(&self) -> bool {
        self.profile.error_rate > 0.0 && self.rng.lock().random::<f64>() < self.profile.error_rate
    }

    /// Models currently in memory, per instance.
    pub fn loaded_models(&self) -> Vec<Vec<String>> {
        let now = crate::sandbox::world::clock::now_epoch();
        let mut instances = self.instances.lock();
        for inst in instances.iter_mut() {
            promote_ready(inst, now, self.capacity);
        }
        instances.iter().map(|i| i.loaded.keys().cloned().collect()).collect()
    }

    /// Finds or loads `model` on an instance. `cost` = (download, load) seconds of a cold load;
    /// a load longer than `not_ready_after` answers NotReady while it continues.
    pub fn access_model(&self, model: &str, cost: (f64, f64), not_ready_after: f64, now: f64) -> ModelAccess {
        let tick = self.clock.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut evicted = 0usize;
        let mut instances = self.instances.lock();
        for (n, inst) in instances.iter_mut().enumerate() {
            let gone = promote_ready(inst, now, self.capacity);
            evicted += gone.len();
            self.evictions.lock().extend(gone.into_iter().map(|m| (n, m)));
        }
        drop(instances);
        for _ in 0..evicted {
            let us = self.draw_overhead_us() * 40.0;
            self.series.unloading.lock().record(now, us);
        }
        let mut instances = self.instances.lock();
        if let Some(inst) = instances.iter_mut().find(|i| i.loaded.contains_key(model)) {
            inst.loaded.insert(model.to_string(), tick);
            return ModelAccess::Warm;
        }
        let (download, load) = cost;
        if let Some(ready_at) = instances.iter().find_map(|i| i.loading.get(model).map(|l| l.0)) {
            let remaining = (ready_at - now).max(0.0);
            return if remaining > not_ready_after {
                ModelAccess::NotReady { wait: not_ready_after }
            } else {
                ModelAccess::Cold {
                    wait: remaining,
                    download,
                    load,
                }
            };
        }
        // Route a cold model to the instance with the most free memory (fewest models).
        let target = instances
            .iter()
            .enumerate()
            .min_by_key(|(_, i)| i.loaded.len() + i.loading.len())
            .map(|(n, _)| n)
            .unwrap_or(0);
        let total = download + load;
        instances[target].loading.insert(model.to_string(), (now + total, tick));
        if total > not_ready_after {
            ModelAccess::NotReady { wait: not_ready_after }
        } else {
            ModelAccess::Cold {
                wait: total,
                download,
                load,
            }
        }
    }

    /// Models evicted since the last call, with the instance index (for the container logs).
    pub fn take_evictions(&self) -> Vec<(usize, String)> {
        std::mem::take(&mut *self.evictions.lock())
    }

    /// Records the per-instance gauges (LoadedModelCount, memory, CPU) at `now`.
    pub fn record_gauges(&self, now: f64, invocations_per_minute: f64) {
        if let Some(serverless) = self.serverless.get() {
            // No instances: a serverless variant's own gauges instead.
            serverless.record_gauges(now);
            return;
        }
        let counts: Vec<usize> = self.instances.lock().iter().map(|i| i.loaded.len()).collect();
        self.record_gauges_of(now, invocations_per_minute, &counts);
    }

    /// Records the per-instance gauges for given loaded-model counts (one per instance): the
    /// backfill's history, which the live caches of a fresh sandbox know nothing of.
    pub fn record_gauges_of(&self, now: f64, invocations_per_minute: f64, counts: &[usize]) {
        let n = counts.len().max(1) as f64;
        for c in counts {
            if self.multi_model {
                self.series.loaded_count.lock().record(now, *c as f64);
            }
            let mem = if self.multi_model {
                20.0 + 70.0 * *c as f64 / self.capacity as f64
            } else {
                38.0
            };
            self.series.memory.lock().record(now, mem);
        }
        let cpu = (5.0 + invocations_per_minute / n * 0.08).min(100.0 * 2.0);
        self.series.cpu.lock().record(now, cpu);
    }
}

/// Moves finished loads into memory, evicting least recently used models past `capacity`.
fn promote_ready(inst: &mut InstanceCache, now: f64, capacity: usize) -> Vec<String> {
    let ready: Vec<(String, u64)> = inst
        .loading
        .iter()
        .filter(|(_, (t, _))| *t <= now)
        .map(|(k, (_, used))| (k.clone(), *used))
        .collect();
    let mut evicted = Vec::new();
    for (key, used) in ready {
        inst.loading.remove(&key);
        inst.loaded.insert(key, used);
        while inst.loaded.len() > capacity {
            let oldest = inst.loaded.iter().min_by_key(|(_, t)| **t).map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                inst.loaded.remove(&k);
                evicted.push(k);
            }
        }
    }
    evicted
}
