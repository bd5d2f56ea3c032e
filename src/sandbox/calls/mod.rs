//! What the sandbox counts of the calls it serves, and the control plane's throttle.
//!
//! [`CallCounts`] keeps one counter pair (served, throttled) per service and operation of one
//! region's state: a fixed table of slots claimed once per key and counted with atomics, so the
//! hot path takes no lock. The admin route (`/_sandbox/calls`) and
//! [`Sandbox::all_call_counts`](crate::sandbox::Sandbox::all_call_counts) read them; a reset
//! zeroes them (a call counted while a reset runs may land on either side of it).

pub mod throttle;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::hash::fxhash;

/// Distinct (service, operation) keys a state counts; calls of further keys (only garbage
/// targets get there) are counted under [`OVERFLOW_OPERATION`].
pub const SLOTS: usize = 1024;
/// The operation name calls beyond [`SLOTS`] distinct keys are counted under.
pub const OVERFLOW_OPERATION: &str = "(other)";

/// One key's counters.
struct Slot {
    key: OnceLock<(&'static str, Box<str>)>,
    calls: AtomicU64,
    throttled: AtomicU64,
}

/// The calls one region's state served, by service and operation.
pub struct CallCounts {
    slots: Box<[Slot]>,
    overflow: Slot,
    since_bits: AtomicU64,
}

/// One row of the counts: a service's operation, its calls and how many were throttled.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CallCount {
    /// The service, as boto3 names its client (`sagemaker`, `sagemaker-runtime`, `cloudwatch`,
    /// `application-autoscaling`, `logs`, `s3`, `sts`).
    pub service: &'static str,
    /// The operation (`DescribeEndpoint`, ...).
    pub operation: String,
    /// Calls served, throttled ones included.
    pub calls: u64,
    /// Calls answered ThrottlingException by the control-plane throttle.
    pub throttled: u64,
}

impl Default for CallCounts {
    fn default() -> Self {
        let slot = || Slot {
            key: OnceLock::new(),
            calls: AtomicU64::new(0),
            throttled: AtomicU64::new(0),
        };
        CallCounts {
            slots: (0..SLOTS).map(|_| slot()).collect(),
            overflow: slot(),
            since_bits: AtomicU64::new(now_epoch().to_bits()),
        }
    }
}

impl CallCounts {
    /// The slot of a key, claiming a free one the first time (open addressing, linear probing;
    /// a slot once claimed keeps its key).
    fn slot(&self, service: &'static str, operation: &str) -> &Slot {
        let start = (fxhash(operation) ^ fxhash(service)) as usize % SLOTS;
        for i in 0..SLOTS {
            let slot = &self.slots[(start + i) % SLOTS];
            let (s, op) = slot.key.get_or_init(|| (service, operation.into()));
            if *s == service && &**op == operation {
                return slot;
            }
        }
        &self.overflow
    }

    /// Counts one call served.
    pub fn count(&self, service: &'static str, operation: &str) {
        self.slot(service, operation).calls.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one call the throttle refused (after [`CallCounts::count`] counted it).
    pub fn count_throttled(&self, service: &'static str, operation: &str) {
        self.slot(service, operation).throttled.fetch_add(1, Ordering::Relaxed);
    }

    /// Calls of an operation so far, whatever the service.
    pub fn calls_of(&self, operation: &str) -> u64 {
        self.slots
            .iter()
            .filter(|s| s.key.get().is_some_and(|(_, op)| &**op == operation))
            .map(|s| s.calls.load(Ordering::Relaxed))
            .sum()
    }

    /// Calls served since the last reset, every service and operation together.
    pub fn total(&self) -> u64 {
        self.snapshot().iter().map(|c| c.calls).sum()
    }

    /// Calls served since the last reset by operation, whatever the service.
    pub fn by_operation(&self) -> std::collections::HashMap<String, u64> {
        let mut out = std::collections::HashMap::new();
        for c in self.snapshot() {
            *out.entry(c.operation).or_insert(0) += c.calls;
        }
        out
    }

    /// Every key called since the last reset, sorted by service and operation.
    pub fn snapshot(&self) -> Vec<CallCount> {
        let overflow = std::iter::once((&self.overflow, ("*", OVERFLOW_OPERATION)));
        let keyed = self
            .slots
            .iter()
            .filter_map(|s| s.key.get().map(|(svc, op)| (s, (*svc, &**op))));
        let mut rows: Vec<CallCount> = keyed
            .chain(overflow)
            .map(|(s, (service, op))| CallCount {
                service,
                operation: op.to_string(),
                calls: s.calls.load(Ordering::Relaxed),
                throttled: s.throttled.load(Ordering::Relaxed),
            })
            .filter(|c| c.calls > 0 || c.throttled > 0)
            .collect();
        rows.sort_by(|a, b| (a.service, &a.operation).cmp(&(b.service, &b.operation)));
        rows
    }

    /// Zeroes every counter; the counts start again from now.
    pub fn reset(&self) {
        for s in self.slots.iter().chain(std::iter::once(&self.overflow)) {
            s.calls.store(0, Ordering::Relaxed);
            s.throttled.store(0, Ordering::Relaxed);
        }
        self.since_bits.store(now_epoch().to_bits(), Ordering::Relaxed);
    }

    /// When counting started (the state's start or the last reset), epoch seconds.
    pub fn since(&self) -> f64 {
        f64::from_bits(self.since_bits.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_service_and_operation_and_resets() {
        let c = CallCounts::default();
        for _ in 0..3 {
            c.count("sagemaker", "DescribeEndpoint");
        }
        c.count("sagemaker", "ListEndpoints");
        c.count("cloudwatch", "ListEndpoints");
        c.count_throttled("sagemaker", "ListEndpoints");
        let rows = c.snapshot();
        let row = |svc: &str, op: &str| rows.iter().find(|r| r.service == svc && r.operation == op).cloned();
        assert_eq!(row("sagemaker", "DescribeEndpoint").map(|r| r.calls), Some(3));
        assert_eq!(
            row("sagemaker", "ListEndpoints").map(|r| (r.calls, r.throttled)),
            Some((1, 1))
        );
        assert_eq!(c.calls_of("ListEndpoints"), 2, "both services");
        assert_eq!(rows.len(), 3);
        c.reset();
        assert!(c.snapshot().is_empty());
        assert_eq!(c.calls_of("DescribeEndpoint"), 0);
    }

    #[test]
    fn keys_past_the_table_are_counted_as_other() {
        let c = CallCounts::default();
        for i in 0..SLOTS + 5 {
            c.count("sagemaker", &format!("Op{i}"));
        }
        let rows = c.snapshot();
        assert_eq!(rows.len(), SLOTS + 1);
        let other = rows.iter().find(|r| r.operation == OVERFLOW_OPERATION).unwrap();
        assert_eq!(other.calls, 5);
    }
}
