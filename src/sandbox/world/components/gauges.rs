//! The gauges of inference components, recorded every few seconds: per component, its
//! concurrent requests per copy (`AWS/SageMaker` ConcurrentRequestsPerCopy) and its use of its
//! reservation (`/aws/sagemaker/InferenceComponents` CPU, GPU, memory and GPU memory
//! UtilizationNormalized), both from its recent invocations and latency; per IC variant, how much
//! of its instances the placed copies reserve (`/aws/sagemaker/Endpoints` CPU, GPU and memory
//! Reservation).

use crate::sandbox::cloudwatch::metrics::query::Stat;
use crate::sandbox::cloudwatch::metrics::{MetricStore, SeriesKey};
use crate::sandbox::world::components::Components;
use crate::sandbox::world::components::records::{InferenceComponent, Resources};
use crate::sandbox::world::variant::{NS_COMPONENTS, NS_ENDPOINTS, NS_SAGEMAKER};

/// Seconds of invocations the gauges look back on.
const WINDOW: f64 = 60.0;

impl Components {
    /// Records every component's and every IC variant's gauges at `now`.
    pub fn record_gauges(&self, metrics: &MetricStore, now: f64) {
        for ic in self.items.values() {
            let (_, copies) = self.copies(&ic.name).unwrap_or((0, 0));
            if copies > 0 {
                record_component(metrics, ic, copies, now);
            }
        }
        for ((endpoint, variant), host) in &self.hosts {
            if host.current_instances < 1 {
                continue;
            }
            let mut reserved = Resources::default();
            for ic in self
                .items
                .values()
                .filter(|c| &c.endpoint == endpoint && &c.variant == variant)
            {
                let r = ic.spec.reservation.unwrap_or_default();
                let n = ic.current_copies as f64;
                reserved.cpus += r.cpus * n;
                reserved.accelerators += r.accelerators * n;
                reserved.memory_mb += r.memory_mb * n;
            }
            let total = host.current_instances as f64;
            let percent = |used: f64, cap: f64| {
                if cap > 0.0 {
                    (100.0 * used / (cap * total)).min(100.0)
                } else {
                    0.0
                }
            };
            let dims = [("EndpointName", endpoint.as_str()), ("VariantName", variant.as_str())];
            let cap = host.capacity;
            for (name, value) in [
                ("CPUReservation", percent(reserved.cpus, cap.cpus)),
                ("GPUReservation", percent(reserved.accelerators, cap.accelerators)),
                ("MemoryReservation", percent(reserved.memory_mb, cap.memory_mb)),
            ] {
                metrics.record(&SeriesKey::new(NS_ENDPOINTS, name, &dims), "Percent", now, value);
            }
        }
    }
}

/// A component's concurrency per copy (Little's law over the last minute) and its utilisation.
fn record_component(metrics: &MetricStore, ic: &InferenceComponent, copies: i32, now: f64) {
    let s = &ic.sim.series;
    let calls = s.invocations.lock().window(now - WINDOW, now, Stat::Sum).unwrap_or(0.0);
    let latency_s = s
        .model_latency
        .lock()
        .window(now - WINDOW, now, Stat::Average)
        .unwrap_or(0.0)
        / 1e6;
    let per_copy = calls / WINDOW * latency_s / copies as f64;
    let dims = [("InferenceComponentName", ic.name.as_str())];
    let busy = per_copy.min(1.0);
    metrics.record(
        &SeriesKey::new(NS_SAGEMAKER, "ConcurrentRequestsPerCopy", &dims),
        "None",
        now,
        per_copy,
    );
    s.cpu.lock().record(now, 8.0 + 80.0 * busy);
    s.memory.lock().record(now, 45.0 + 30.0 * busy);
    if ic.spec.reservation.is_some_and(|r| r.accelerators > 0.0) {
        for (name, value) in [
            ("GPUUtilizationNormalized", 5.0 + 90.0 * busy),
            ("GPUMemoryUtilizationNormalized", 60.0 + 25.0 * busy),
        ] {
            metrics.record(&SeriesKey::new(NS_COMPONENTS, name, &dims), "Percent", now, value);
        }
    }
}
