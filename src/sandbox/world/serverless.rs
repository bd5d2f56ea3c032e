//! The runtime side of a serverless variant: its containers (provisioned ones kept warm, on-demand
//! ones started cold and released after they idle), the concurrency limit that throttles, the
//! settings in force and the ones an update is rolling out, and the series only serverless
//! variants feed (`AWS/SageMaker`, EndpointName and VariantName).

use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::sandbox::cloudwatch::metrics::{MetricStore, SeriesHandle, SeriesKey};

/// A serverless variant's settings (ProductionVariantServerlessConfig).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerlessSettings {
    /// MemorySizeInMB (1024–6144 in steps of 1024).
    pub memory_mb: i32,
    /// MaxConcurrency (1–200).
    pub max_concurrency: i32,
    /// ProvisionedConcurrency (1–200, at most MaxConcurrency), if any.
    pub provisioned: Option<i32>,
}

impl ServerlessSettings {
    /// The settings of a ServerlessConfig as sent (members already checked against the model).
    pub fn from_json(v: &Value) -> Option<ServerlessSettings> {
        let int = |k: &str| v.get(k).and_then(Value::as_i64).map(|n| n as i32);
        Some(ServerlessSettings {
            memory_mb: int("MemorySizeInMB")?,
            max_concurrency: int("MaxConcurrency")?,
            provisioned: int("ProvisionedConcurrency"),
        })
    }

    /// The ProductionVariantServerlessConfig document.
    pub fn to_json(self) -> Value {
        let mut j = json!({"MemorySizeInMB": self.memory_mb, "MaxConcurrency": self.max_concurrency});
        if let Some(p) = self.provisioned {
            j["ProvisionedConcurrency"] = p.into();
        }
        j
    }
}

/// The series only a serverless variant feeds.
struct ServerlessSeries {
    setup_time: SeriesHandle,
    memory: SeriesHandle,
    concurrency_utilization: SeriesHandle,
    provisioned_executions: SeriesHandle,
    provisioned_utilization: SeriesHandle,
    provisioned_invocations: SeriesHandle,
    spillover_invocations: SeriesHandle,
}

/// One container: when it is free again (infinite while an admitted call has not set it), and
/// whether it is one of the provisioned ones.
#[derive(Debug, Clone)]
struct Container {
    id: u64,
    free_at: f64,
    provisioned: bool,
}

#[derive(Debug)]
struct Pool {
    current: ServerlessSettings,
    desired: ServerlessSettings,
    containers: Vec<Container>,
    next_id: u64,
}

/// Where an admitted call runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Admitted {
    /// The container, for [`ServerlessSim::finish`].
    pub container: u64,
    /// Seconds of cold start (ModelSetupTime) before the call runs; 0 on a warm container.
    pub setup_secs: f64,
    /// Whether it ran on provisioned concurrency.
    pub provisioned: bool,
}

/// A serverless variant's containers, settings and series.
pub struct ServerlessSim {
    pool: Mutex<Pool>,
    series: ServerlessSeries,
}

impl std::fmt::Debug for ServerlessSim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerlessSim")
            .field("settings", &self.current())
            .finish()
    }
}

impl ServerlessSim {
    /// A variant with `settings`, its provisioned containers warm.
    pub fn new(metrics: &MetricStore, (endpoint, variant): (&str, &str), settings: ServerlessSettings) -> Self {
        let dims = [("EndpointName", endpoint), ("VariantName", variant)];
        let m = |name: &str, unit: &str| metrics.series(&SeriesKey::new("AWS/SageMaker", name, &dims), unit);
        let series = ServerlessSeries {
            setup_time: m("ModelSetupTime", "Microseconds"),
            memory: m("MemoryUtilization", "Percent"),
            concurrency_utilization: m("ServerlessConcurrentExecutionsUtilization", "None"),
            provisioned_executions: m("ServerlessProvisionedConcurrencyExecutions", "None"),
            provisioned_utilization: m("ServerlessProvisionedConcurrencyUtilization", "None"),
            provisioned_invocations: m("ServerlessProvisionedConcurrencyInvocations", "None"),
            spillover_invocations: m("ServerlessProvisionedConcurrencySpilloverInvocations", "None"),
        };
        let mut pool = Pool {
            current: settings,
            desired: settings,
            containers: Vec::new(),
            next_id: 0,
        };
        pool.provision();
        ServerlessSim {
            pool: Mutex::new(pool),
            series,
        }
    }

    /// The settings in force (CurrentServerlessConfig).
    pub fn current(&self) -> ServerlessSettings {
        self.pool.lock().current
    }

    /// The settings being rolled out (DesiredServerlessConfig).
    pub fn desired(&self) -> ServerlessSettings {
        self.pool.lock().desired
    }

    /// Sets the desired settings (an update in progress).
    pub fn set_desired(&self, desired: ServerlessSettings) {
        self.pool.lock().desired = desired;
    }

    /// Puts the desired settings in force (the update is done): provisioned containers are
    /// added or released to match.
    pub fn settle(&self) {
        let mut pool = self.pool.lock();
        pool.current = pool.desired;
        pool.provision();
    }

    /// Admits a call at `now`, or refuses it (None) when MaxConcurrency calls are running: a
    /// free provisioned container first, then a warm on-demand one, else a new one that starts
    /// cold (`cold_start` seconds, drawn around its median by `jitter` in 0..1). Feeds the
    /// invocation counters.
    pub fn admit(&self, now: f64, (cold_start, idle): (f64, f64), jitter: f64) -> Option<Admitted> {
        let mut pool = self.pool.lock();
        pool.containers
            .retain(|c| c.provisioned || c.free_at == f64::INFINITY || c.free_at + idle >= now);
        let busy = pool.containers.iter().filter(|c| c.free_at > now).count();
        if busy >= pool.current.max_concurrency.max(1) as usize {
            return None;
        }
        let has_provisioned = pool.current.provisioned.is_some();
        let free = |provisioned: bool| move |c: &&mut Container| c.provisioned == provisioned && c.free_at <= now;
        let (id, setup_secs, provisioned) = if let Some(c) = pool.containers.iter_mut().find(free(true)) {
            c.free_at = f64::INFINITY;
            (c.id, 0.0, true)
        } else if let Some(c) = pool.containers.iter_mut().find(free(false)) {
            c.free_at = f64::INFINITY;
            (c.id, 0.0, false)
        } else {
            let id = pool.add(false);
            (id, cold_start * (0.7 + 0.6 * jitter), false)
        };
        drop(pool);
        if setup_secs > 0.0 {
            self.series.setup_time.lock().record(now, setup_secs * 1e6);
        }
        if has_provisioned {
            let (on_pc, spill) = if provisioned { (1.0, 0.0) } else { (0.0, 1.0) };
            self.series.provisioned_invocations.lock().record(now, on_pc);
            self.series.spillover_invocations.lock().record(now, spill);
        }
        self.record_gauges(now);
        Some(Admitted {
            container: id,
            setup_secs,
            provisioned,
        })
    }

    /// The admitted call on `container` ends at `until`.
    pub fn finish(&self, container: u64, until: f64) {
        if let Some(c) = self.pool.lock().containers.iter_mut().find(|c| c.id == container) {
            c.free_at = until;
        }
    }

    /// Calls running now, and those of them on provisioned containers.
    pub fn executions(&self, now: f64) -> (usize, usize) {
        let pool = self.pool.lock();
        let busy = pool.containers.iter().filter(|c| c.free_at > now);
        let provisioned = busy.clone().filter(|c| c.provisioned).count();
        (busy.count(), provisioned)
    }

    /// Records the gauges at `now`: concurrent executions over MaxConcurrency, the provisioned
    /// executions and their utilization (when provisioned concurrency is set), and memory.
    pub fn record_gauges(&self, now: f64) {
        let (busy, on_pc) = self.executions(now);
        let settings = self.current();
        let max = settings.max_concurrency.max(1) as f64;
        self.series
            .concurrency_utilization
            .lock()
            .record(now, busy as f64 / max);
        if let Some(pc) = settings.provisioned {
            self.series.provisioned_executions.lock().record(now, on_pc as f64);
            self.series
                .provisioned_utilization
                .lock()
                .record(now, on_pc as f64 / pc.max(1) as f64);
        }
        let memory = 18.0 + 40.0 * 1024.0 / settings.memory_mb.max(1024) as f64 + 10.0 * (busy as f64 / max);
        self.series.memory.lock().record(now, memory.min(100.0));
    }
}

impl Pool {
    /// A new container, busy (its call not finished yet).
    fn add(&mut self, provisioned: bool) -> u64 {
        self.next_id += 1;
        let free_at = if provisioned { 0.0 } else { f64::INFINITY };
        self.containers.push(Container {
            id: self.next_id,
            free_at,
            provisioned,
        });
        self.next_id
    }

    /// Adds or releases provisioned containers to match the settings in force (a busy one is
    /// released as an on-demand one, finishing its call).
    fn provision(&mut self) {
        let wanted = self.current.provisioned.unwrap_or(0).max(0) as usize;
        let mut have = self.containers.iter().filter(|c| c.provisioned).count();
        while have < wanted {
            self.add(true);
            have += 1;
        }
        for c in self.containers.iter_mut().rev().filter(|c| c.provisioned) {
            if have <= wanted {
                break;
            }
            c.provisioned = false;
            have -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(max: i32, provisioned: Option<i32>) -> ServerlessSim {
        let settings = ServerlessSettings {
            memory_mb: 2048,
            max_concurrency: max,
            provisioned,
        };
        ServerlessSim::new(&MetricStore::default(), ("ep", "v"), settings)
    }

    #[test]
    fn beyond_max_concurrency_a_call_is_refused_until_one_ends() {
        let s = sim(2, None);
        let a = s.admit(100.0, (3.0, 60.0), 0.5).expect("first");
        assert!(a.setup_secs > 0.0, "a first call starts cold");
        let b = s.admit(100.0, (3.0, 60.0), 0.5).expect("second");
        assert!(s.admit(100.0, (3.0, 60.0), 0.5).is_none());
        s.finish(a.container, 101.0);
        s.finish(b.container, 101.0);
        let warm = s.admit(102.0, (3.0, 60.0), 0.5).expect("after they end");
        assert_eq!(warm.setup_secs, 0.0, "a warm container is reused");
        s.finish(warm.container, 103.0);
        let cold = s.admit(200.0, (3.0, 60.0), 0.5).expect("after idling");
        assert!(cold.setup_secs > 0.0, "idle containers are released");
    }

    #[test]
    fn provisioned_containers_are_warm_and_the_rest_spills_over() {
        let s = sim(3, Some(1));
        let a = s.admit(100.0, (3.0, 60.0), 0.5).expect("first");
        assert!(a.provisioned && a.setup_secs == 0.0);
        let b = s.admit(100.0, (3.0, 60.0), 0.5).expect("second");
        assert!(!b.provisioned && b.setup_secs > 0.0);
        assert_eq!(s.executions(100.0), (2, 1));
        s.finish(a.container, 101.0);
        let later = s.admit(10_000.0, (3.0, 60.0), 0.5).expect("long after");
        assert!(later.provisioned && later.setup_secs == 0.0, "provisioned stays warm");
    }
}
