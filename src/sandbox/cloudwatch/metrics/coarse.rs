//! The store's bound in time, as CloudWatch keeps its data: high-resolution (10-second) slots for
//! the last [`HIGH_RES_SECONDS`] (3 h), then one-minute slots up to the retention (25 h, a little
//! more than the longest window sagedeck reads: 24 h), then nothing. A series written once a
//! second for a day holds at most 1,080 ten-second slots and 1,320 one-minute ones, whatever the
//! sandbox's uptime. Merging keeps SampleCount, Sum, Minimum and Maximum exact; the merged
//! reservoir is drawn from both with each sample weighted as the percentiles weigh it.

use crate::sandbox::cloudwatch::metrics::{RESERVOIR, Series, Slot, SplitMix, slot_start};

/// How long 10-second slots are kept before they are merged into one-minute slots.
pub const HIGH_RES_SECONDS: i64 = 3 * 3600;

/// The width of a slot older than [`HIGH_RES_SECONDS`].
pub const COARSE_SECONDS: i64 = 60;

impl Slot {
    /// The weight of each of this slot's samples: observations per sample kept.
    fn sample_weight(&self) -> f64 {
        if self.samples.is_empty() {
            0.0
        } else {
            self.sampled / self.samples.len() as f64
        }
    }

    /// Merges `other` into this slot.
    fn merge(&mut self, other: Slot, rng: &mut SplitMix) {
        let (wa, wb) = (self.sample_weight(), other.sample_weight());
        let fits = self.samples.len() + other.samples.len() <= RESERVOIR;
        let samples = if fits && (wa == wb || self.samples.is_empty() || other.samples.is_empty()) {
            let mut all = std::mem::take(&mut self.samples);
            all.extend_from_slice(&other.samples);
            all
        } else {
            weighted_draw(&self.samples, wa, &other.samples, wb, rng)
        };
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sampled += other.sampled;
        self.seen = self.seen.saturating_add(other.seen);
        self.samples = samples;
    }
}

/// [`RESERVOIR`] samples drawn with replacement from `a` and `b`, each sample chosen with a
/// probability in proportion to its weight.
fn weighted_draw(a: &[f32], wa: f64, b: &[f32], wb: f64, rng: &mut SplitMix) -> Vec<f32> {
    let (ta, tb) = (wa * a.len() as f64, wb * b.len() as f64);
    if ta + tb <= 0.0 {
        return Vec::new();
    }
    (0..RESERVOIR)
        .map(|_| {
            let from_a = !a.is_empty() && (b.is_empty() || rng.unit() * (ta + tb) < ta);
            let side = if from_a { a } else { b };
            side[rng.below(side.len() as u64) as usize]
        })
        .collect()
}

impl Series {
    /// Merges the closed 10-second slots older than [`HIGH_RES_SECONDS`] before `now` into
    /// one-minute slots (those since the last call; later writes to older times stay fine-grained
    /// until the retention drops them).
    pub(super) fn coarsen(&mut self, now: f64) {
        let until = slot_start(now).saturating_sub(HIGH_RES_SECONDS);
        let from = self.coarse_until.min(until);
        let old: Vec<i64> = self.slots.range(from..until).map(|(k, _)| *k).collect();
        for k in old {
            let minute = k.div_euclid(COARSE_SECONDS) * COARSE_SECONDS;
            if minute == k {
                continue;
            }
            let Some(slot) = self.slots.remove(&k) else { continue };
            match self.slots.remove(&minute) {
                Some(mut into) => {
                    into.merge(slot, &mut self.rng);
                    self.slots.insert(minute, into);
                }
                None => _ = self.slots.insert(minute, slot),
            }
        }
        self.coarse_until = self.coarse_until.max(until.div_euclid(COARSE_SECONDS) * COARSE_SECONDS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::cloudwatch::metrics::query::Stat;
    use crate::sandbox::cloudwatch::metrics::{MetricStore, RETENTION_SECONDS, SeriesKey};

    const T0: f64 = 1_700_000_040.0; // a multiple of 60

    fn key() -> SeriesKey {
        SeriesKey::new("AWS/SageMaker", "ModelLatency", &[("EndpointName", "e")])
    }

    fn stat(store: &MetricStore, (start, end): (f64, f64), period: u32, stat: Stat) -> Vec<(f64, f64)> {
        let h = store.get(&key()).expect("series");
        let s = h.lock();
        s.query(start, end, period, stat)
            .iter()
            .map(|d| (d.timestamp, d.value))
            .collect()
    }

    /// A day and a half written once a second, pruned every 5 minutes as the ticker does: the
    /// store holds at most 3 h of 10-second slots and 22 h of one-minute slots, and the one-minute
    /// figures of old data stay exact.
    #[test]
    fn a_long_run_stays_within_three_hours_fine_and_the_retention_coarse() {
        let store = MetricStore::new();
        let hours = 36;
        let mut bound = 0;
        for s in 0..hours * 3600 {
            let t = T0 + f64::from(s);
            store.record(&key(), "Microseconds", t, f64::from(s % 100));
            if s % 300 == 299 {
                store.prune(t);
                let slots = store.get(&key()).expect("series").lock().slot_count();
                bound = bound.max(slots);
            }
        }
        let fine = (HIGH_RES_SECONDS / 10) as usize;
        let coarse = ((RETENTION_SECONDS as i64 - HIGH_RES_SECONDS) / COARSE_SECONDS) as usize;
        assert!(
            bound <= fine + coarse + 2,
            "{bound} slots at most, against {fine} + {coarse}"
        );
        assert!(bound >= fine + coarse - 40, "the bound is reached: {bound}");
        // Ten hours ago: one-minute slots, exact counts, sums, minimum and maximum.
        let now = T0 + f64::from(hours * 3600);
        let minute = (now - 10.0 * 3600.0, now - 10.0 * 3600.0 + 60.0);
        assert_eq!(stat(&store, minute, 60, Stat::SampleCount), vec![(minute.0, 60.0)]);
        let sum: f64 = (0..60).map(|i| f64::from((i + (minute.0 - T0) as i32) % 100)).sum();
        assert_eq!(stat(&store, minute, 60, Stat::Sum), vec![(minute.0, sum)]);
        let hour = (now - 10.0 * 3600.0, now - 9.0 * 3600.0);
        let max = stat(&store, hour, 3600, Stat::Maximum);
        let min = stat(&store, hour, 3600, Stat::Minimum);
        assert_eq!((min[0].1, max[0].1), (0.0, 99.0));
        let p50 = stat(&store, hour, 3600, Stat::Percentile(50.0));
        assert!((40.0..=60.0).contains(&p50[0].1), "p50 of 0..99 evenly: {p50:?}");
    }

    #[test]
    fn a_merge_weighs_each_side_as_the_percentiles_do() {
        let mut rng = SplitMix(7);
        let mut heavy = Slot::default();
        for _ in 0..10_000 {
            heavy.offer(1.0, 1.0, &mut rng);
        }
        let mut light = Slot::default();
        for _ in 0..10 {
            light.offer(100.0, 1.0, &mut rng);
        }
        heavy.merge(light, &mut rng);
        assert_eq!((heavy.count, heavy.sampled), (0.0, 10_010.0));
        assert_eq!(heavy.samples.len(), RESERVOIR);
        let high = heavy.samples.iter().filter(|s| **s == 100.0).count();
        assert!(high <= 3, "10 in 10,010 weigh little: {high} of {RESERVOIR}");
    }
}
