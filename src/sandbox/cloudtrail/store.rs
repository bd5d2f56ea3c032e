//! CloudTrail's event history of one region: a bounded ring of the events the region's services
//! recorded (the oldest go first), the delivery delay before LookupEvents sees one, and the
//! token bucket that admits LookupEvents calls (AWS: 2 per second per account and region).

use std::collections::VecDeque;

use parking_lot::Mutex;

use crate::sandbox::cloudtrail::event::{Call, Place, TrailEvent, build};
use crate::sandbox::world::config::TrailConfig;

/// The event history and LookupEvents' rate limit.
pub struct TrailStore {
    config: TrailConfig,
    ring: Mutex<Ring>,
    bucket: Mutex<Bucket>,
}

#[derive(Default)]
struct Ring {
    events: VecDeque<TrailEvent>,
    next_seq: u64,
}

/// A token bucket: `tokens` left at `at` (epoch seconds).
struct Bucket {
    tokens: f64,
    at: f64,
}

impl TrailStore {
    /// An empty history under `config`.
    pub fn new(config: TrailConfig) -> TrailStore {
        let burst = config.lookups_per_second.max(1.0);
        TrailStore {
            config,
            ring: Mutex::new(Ring::default()),
            bucket: Mutex::new(Bucket { tokens: burst, at: 0.0 }),
        }
    }

    /// Records one call at `place`.
    pub fn record(&self, call: &Call<'_>, place: Place<'_>) {
        if self.config.capacity == 0 {
            return;
        }
        let mut ring = self.ring.lock();
        let seq = ring.next_seq;
        ring.next_seq += 1;
        let event = build(call, place, seq);
        ring.events.push_back(event);
        while ring.events.len() > self.config.capacity {
            ring.events.pop_front();
        }
    }

    /// Whether a LookupEvents call at `now` is admitted (one token of the bucket); false when
    /// it is to be throttled.
    pub fn admit_lookup(&self, now: f64) -> bool {
        let rate = self.config.lookups_per_second;
        if !rate.is_finite() {
            return true;
        }
        let burst = rate.max(1.0);
        let mut b = self.bucket.lock();
        b.tokens = (b.tokens + (now - b.at).max(0.0) * rate).min(burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// The events delivered by `now` (older than the delivery delay), newest first, from before
    /// `below` (a sequence number; None: from the newest), kept by `keep`, until `visit` returns
    /// false.
    pub fn scan(
        &self,
        now: f64,
        below: Option<u64>,
        mut keep: impl FnMut(&TrailEvent) -> bool,
        mut visit: impl FnMut(&TrailEvent) -> bool,
    ) {
        let delivered = now - self.config.delivery_delay.as_secs_f64();
        let ring = self.ring.lock();
        let events = ring
            .events
            .iter()
            .rev()
            .filter(|e| below.is_none_or(|b| e.seq < b) && e.time <= delivered);
        for e in events {
            if keep(e) && !visit(e) {
                break;
            }
        }
    }

    /// Events held.
    pub fn len(&self) -> usize {
        self.ring.lock().events.len()
    }

    /// Whether no event is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::sandbox::cloudtrail::event::Source;
    use crate::sandbox::cloudtrail::identity::Caller;

    fn record(store: &TrailStore, name: &str, time: f64) {
        let caller = Caller::internal("AKIDSANDBOX", "ua", "1");
        let call = Call {
            source: Source::SageMaker,
            name,
            caller: &caller,
            request: &json!({}),
            answer: Ok(&json!({})),
        };
        let place = Place {
            region: "r",
            account: "1",
            time,
        };
        store.record(&call, place);
    }

    fn names(store: &TrailStore, now: f64) -> Vec<String> {
        let mut out = Vec::new();
        store.scan(
            now,
            None,
            |_| true,
            |e| {
                out.push(e.name.clone());
                true
            },
        );
        out
    }

    #[test]
    fn the_ring_keeps_the_newest_and_answers_newest_first() {
        let store = TrailStore::new(TrailConfig {
            capacity: 3,
            ..TrailConfig::default()
        });
        for (i, n) in ["A", "B", "C", "D"].into_iter().enumerate() {
            record(&store, n, 100.0 + i as f64);
        }
        assert_eq!(store.len(), 3);
        assert_eq!(names(&store, 200.0), ["D", "C", "B"]);
    }

    #[test]
    fn events_are_delivered_after_the_delay() {
        let store = TrailStore::new(TrailConfig {
            delivery_delay: Duration::from_secs(60),
            ..TrailConfig::default()
        });
        record(&store, "A", 100.0);
        assert!(names(&store, 159.0).is_empty());
        assert_eq!(names(&store, 160.0), ["A"]);
    }

    #[test]
    fn lookups_are_admitted_at_the_configured_rate() {
        let store = TrailStore::new(TrailConfig::default());
        let admitted = (0..10).filter(|_| store.admit_lookup(1000.0)).count();
        assert_eq!(admitted, 2, "a burst of two, then throttled");
        assert!(store.admit_lookup(1000.5), "one more half a second later");
        assert!(!store.admit_lookup(1000.5));
        let free = TrailStore::new(TrailConfig {
            lookups_per_second: f64::INFINITY,
            ..TrailConfig::default()
        });
        assert!((0..100).all(|_| free.admit_lookup(1.0)));
    }
}
