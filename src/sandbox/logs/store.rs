//! CloudWatch Logs' store: log groups `/aws/sagemaker/Endpoints/<endpoint>`, one stream per
//! variant and instance (`<variant>/<instance-id>`), events with a global sequence number that
//! tokens point at. Memory stays flat: the store keeps at most [`MAX_EVENTS`] events in all
//! (each stream keeps at least [`MIN_EVENTS_PER_STREAM`] of its newest), dropping the oldest.

use std::collections::{BTreeMap, VecDeque};

use parking_lot::Mutex;

use crate::sandbox::world::hash::fxhash;

/// Events kept across all streams before the oldest are dropped.
pub const MAX_EVENTS: usize = 200_000;
/// Newest events every stream keeps whatever the total.
pub const MIN_EVENTS_PER_STREAM: usize = 500;

/// One log event.
#[derive(Debug, Clone)]
pub struct LogEvent {
    /// Global sequence number (eventId and tokens derive from it).
    pub seq: u64,
    /// Event time, epoch milliseconds.
    pub timestamp: i64,
    /// Ingestion time, epoch milliseconds.
    pub ingestion: i64,
    /// The line.
    pub message: String,
}

/// One log stream.
#[derive(Debug, Default)]
pub struct LogStream {
    /// Creation time, epoch milliseconds.
    pub creation_ms: i64,
    /// Events, oldest first, timestamps non-decreasing.
    pub events: VecDeque<LogEvent>,
    /// Bytes ever stored.
    pub stored_bytes: u64,
}

/// One log group.
#[derive(Debug, Default)]
pub struct LogGroup {
    /// Creation time, epoch milliseconds.
    pub creation_ms: i64,
    /// Streams by name.
    pub streams: BTreeMap<String, LogStream>,
}

/// Everything CloudWatch Logs holds.
#[derive(Debug, Default)]
pub struct LogData {
    /// Groups by name.
    pub groups: BTreeMap<String, LogGroup>,
    next_seq: u64,
    total: usize,
    /// When health checks were last written (epoch seconds).
    pub last_ping: f64,
    /// The world's revision the last tick saw (`World::revision`): with no change since and no
    /// health check due, a tick looks at nothing.
    pub last_revision: u64,
}

/// The shared, locked store.
#[derive(Debug, Default)]
pub struct LogStore {
    /// The data (handlers lock it for one request).
    pub data: Mutex<LogData>,
}

/// The log group of an endpoint.
pub fn group_name(endpoint: &str) -> String {
    format!("/aws/sagemaker/Endpoints/{endpoint}")
}

/// A stable EC2-style instance id for an endpoint's variant's n-th instance.
pub fn instance_id(endpoint: &str, variant: &str, index: usize) -> String {
    let h = fxhash(&format!("{endpoint}/{variant}/{index}"));
    format!("i-0{:016x}", h)
}

/// The stream of an endpoint's variant's n-th instance.
pub fn stream_name(endpoint: &str, variant: &str, index: usize) -> String {
    format!("{variant}/{}", instance_id(endpoint, variant, index))
}

fn epoch_ms(t: f64) -> i64 {
    (t * 1000.0).round() as i64
}

impl LogStore {
    /// Whether a stream exists.
    pub fn has_stream(&self, group: &str, stream: &str) -> bool {
        self.data
            .lock()
            .groups
            .get(group)
            .is_some_and(|g| g.streams.contains_key(stream))
    }

    /// Appends lines to a stream at time `at` (epoch seconds), creating group and stream.
    pub fn append(&self, group: &str, stream: &str, at: f64, lines: &[String]) {
        let now_ms = epoch_ms(crate::sandbox::world::clock::now_epoch());
        let ts = epoch_ms(at);
        let mut d = self.data.lock();
        let LogData {
            groups,
            next_seq,
            total,
            ..
        } = &mut *d;
        let g = groups.entry(group.to_string()).or_insert_with(|| LogGroup {
            creation_ms: ts.min(now_ms),
            streams: BTreeMap::new(),
        });
        let s = g.streams.entry(stream.to_string()).or_insert_with(|| LogStream {
            creation_ms: ts.min(now_ms),
            ..Default::default()
        });
        let floor = s.events.back().map_or(i64::MIN, |e| e.timestamp);
        for line in lines {
            s.stored_bytes += line.len() as u64;
            s.events.push_back(LogEvent {
                seq: *next_seq,
                timestamp: ts.max(floor),
                ingestion: now_ms.max(ts),
                message: line.clone(),
            });
            *next_seq += 1;
            *total += 1;
        }
        let streams = groups.values().map(|g| g.streams.len()).sum::<usize>().max(1);
        let cap = (MAX_EVENTS / streams).max(MIN_EVENTS_PER_STREAM);
        if let Some(s) = groups.get_mut(group).and_then(|g| g.streams.get_mut(stream)) {
            while s.events.len() > cap {
                s.events.pop_front();
                *total -= 1;
            }
        }
        if *total > MAX_EVENTS {
            trim_largest(groups, total, cap);
        }
    }

    /// Events held in all.
    pub fn total_events(&self) -> usize {
        self.data.lock().total
    }
}

/// Drops the oldest events of streams above the per-stream cap until the total fits.
fn trim_largest(groups: &mut BTreeMap<String, LogGroup>, total: &mut usize, cap: usize) {
    for g in groups.values_mut() {
        for s in g.streams.values_mut() {
            while s.events.len() > cap && *total > MAX_EVENTS {
                s.events.pop_front();
                *total -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_stays_bounded_and_keeps_the_newest() {
        let store = LogStore::default();
        let line = vec!["x".to_string()];
        for i in 0..(MAX_EVENTS + 5_000) {
            store.append("/g", &format!("s{}", i % 3), i as f64, &line);
        }
        assert!(store.total_events() <= MAX_EVENTS);
        let d = store.data.lock();
        let s = &d.groups["/g"].streams["s0"];
        let newest = (0..MAX_EVENTS + 5_000).rfind(|i| i % 3 == 0).unwrap();
        assert_eq!(s.events.back().unwrap().timestamp, epoch_ms(newest as f64));
    }

    #[test]
    fn timestamps_never_go_backwards_in_a_stream() {
        let store = LogStore::default();
        store.append("/g", "s", 10.0, &["a".into()]);
        store.append("/g", "s", 5.0, &["b".into()]);
        let d = store.data.lock();
        let ev = &d.groups["/g"].streams["s"].events;
        assert_eq!(ev[1].timestamp, 10_000);
    }
}
