//! CloudWatch's metric store: one series per (namespace, metric name, dimensions), each kept as
//! 10-second slots holding exact SampleCount / Sum / Minimum / Maximum plus a bounded reservoir
//! of raw samples from which percentiles are computed.
//!
//! Memory and speed: a slot costs about 80 bytes plus up to [`RESERVOIR`] `f32` samples; the
//! slot being written (the newest) is kept outside the map, so [`Series::record`] on the hot path
//! is O(1) and allocation-free once that slot's reservoir is full (one small allocation per slot
//! and a few growths until it is). Percentiles merge the raw samples of every slot in a period,
//! each weighted by its slot's `sampled count / reservoir length` (exact when every slot kept all
//! its samples), then take the weighted nearest rank — never an average of per-slot percentiles.
//!
//! Querying and listing live in `query.rs` ([`Stat`], [`Series::query`],
//! [`MetricStore::list`]).

pub mod coarse;
pub mod query;

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

/// Width of one storage slot in seconds (the finest resolution answered).
pub const SLOT_SECONDS: i64 = 10;
/// Raw samples kept per slot at most.
pub const RESERVOIR: usize = 64;
/// Slots older than this (25 h) are dropped by [`MetricStore::prune`].
pub const RETENTION_SECONDS: f64 = 25.0 * 3600.0;

/// Identity of a series: namespace, metric name and dimensions (sorted by name, then value).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeriesKey {
    /// Namespace (`AWS/SageMaker`).
    pub namespace: String,
    /// Metric name (`ModelLatency`).
    pub name: String,
    /// Dimensions as (name, value), sorted by name.
    pub dimensions: Vec<(String, String)>,
}

impl SeriesKey {
    /// A key from borrowed parts; dimensions are sorted.
    pub fn new(namespace: &str, name: &str, dims: &[(&str, &str)]) -> Self {
        Self::from_owned(
            namespace.to_string(),
            name.to_string(),
            dims.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        )
    }

    /// A key from owned parts; dimensions are sorted.
    pub fn from_owned(namespace: String, name: String, mut dimensions: Vec<(String, String)>) -> Self {
        dimensions.sort();
        SeriesKey {
            namespace,
            name,
            dimensions,
        }
    }

    /// A stable 64-bit hash (FNV-1a) used to seed the series' sampler.
    fn stable_hash(&self) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut eat = |s: &str| {
            for b in s.bytes().chain(std::iter::once(0xff)) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        eat(&self.namespace);
        eat(&self.name);
        for (n, v) in &self.dimensions {
            eat(n);
            eat(v);
        }
        h
    }
}

/// A shared series; callers cache it on hot paths and lock it to record.
pub type SeriesHandle = Arc<Mutex<Series>>;

/// CloudWatch's store: every series, thread-safe.
pub struct MetricStore {
    pub(crate) series: RwLock<BTreeMap<SeriesKey, SeriesHandle>>,
}

impl MetricStore {
    /// An empty store.
    pub fn new() -> Self {
        MetricStore {
            series: RwLock::new(BTreeMap::new()),
        }
    }

    /// The series for `key`, created with `unit` when absent (an existing series keeps its unit).
    pub fn series(&self, key: &SeriesKey, unit: &str) -> SeriesHandle {
        if let Some(h) = self.series.read().get(key) {
            return h.clone();
        }
        let mut map = self.series.write();
        map.entry(key.clone())
            .or_insert_with(|| Arc::new(Mutex::new(Series::new(unit, key.stable_hash()))))
            .clone()
    }

    /// The series for `key` if it exists.
    pub fn get(&self, key: &SeriesKey) -> Option<SeriesHandle> {
        self.series.read().get(key).cloned()
    }

    /// Records one value at `ts` (epoch seconds), creating the series when absent.
    pub fn record(&self, key: &SeriesKey, unit: &str, ts: f64, value: f64) {
        self.series(key, unit).lock().record(ts, value);
    }

    /// Drops slots older than 25 h in every series and merges those older than 3 h into
    /// one-minute slots, so the store stays bounded however long the sandbox runs. Series themselves are kept (callers hold
    /// handles to them), and still listed by ListMetrics once they ever had data.
    pub fn prune(&self, now: f64) {
        let handles: Vec<SeriesHandle> = self.series.read().values().cloned().collect();
        for h in handles {
            h.lock().prune(now);
        }
    }

    /// Number of series (with or without data).
    pub fn series_count(&self) -> usize {
        self.series.read().len()
    }
}

impl Default for MetricStore {
    fn default() -> Self {
        Self::new()
    }
}

/// Exact aggregates of one 10-second slot plus its sample reservoir.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub(crate) count: f64,
    pub(crate) sum: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    /// Observations offered to the reservoir (statistic sets with min != max are not).
    pub(crate) sampled: f64,
    /// Integer observations the reservoir has seen (drives reservoir sampling).
    seen: u64,
    pub(crate) samples: Vec<f32>,
}

impl Default for Slot {
    fn default() -> Self {
        Slot {
            count: 0.0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            sampled: 0.0,
            seen: 0,
            samples: Vec::new(),
        }
    }
}

impl Slot {
    fn add_exact(&mut self, count: f64, sum: f64, min: f64, max: f64) {
        self.count += count;
        self.sum += sum;
        self.min = self.min.min(min);
        self.max = self.max.max(max);
    }

    /// Offers `weight` observations of `v` to the reservoir (Algorithm R; for large integer
    /// weights the expected number of replacements is applied at once).
    fn offer(&mut self, v: f64, weight: f64, rng: &mut SplitMix) {
        self.sampled += weight;
        let v = v as f32;
        // Fractional counts are rounded for sampling purposes (at least one observation).
        let mut n = weight.round().clamp(1.0, 1e15) as u64;
        let room = (RESERVOIR - self.samples.len()) as u64;
        let fill = room.min(n);
        for _ in 0..fill {
            self.samples.push(v);
        }
        self.seen = self.seen.saturating_add(fill);
        n -= fill;
        if n == 0 {
            return;
        }
        if n <= RESERVOIR as u64 {
            for _ in 0..n {
                self.seen = self.seen.saturating_add(1);
                let j = rng.below(self.seen) as usize;
                if let Some(s) = self.samples.get_mut(j) {
                    *s = v;
                }
            }
        } else {
            let total = self.seen.saturating_add(n);
            let expected = RESERVOIR as f64 * n as f64 / total as f64;
            let mut r = expected.floor() as usize;
            if rng.unit() < expected.fract() {
                r += 1;
            }
            let mut idx: [u8; RESERVOIR] = std::array::from_fn(|i| i as u8);
            for i in 0..r.min(RESERVOIR) {
                let j = i + rng.below((RESERVOIR - i) as u64) as usize;
                idx.swap(i, j);
                if let Some(s) = self.samples.get_mut(usize::from(idx[i])) {
                    *s = v;
                }
            }
            self.seen = total;
        }
    }
}

/// A tiny deterministic PRNG (SplitMix64) for reservoir sampling.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Start (epoch seconds) of the slot holding `ts`.
pub(crate) fn slot_start(ts: f64) -> i64 {
    (ts.clamp(-TIME_LIMIT, TIME_LIMIT).floor() as i64).div_euclid(SLOT_SECONDS) * SLOT_SECONDS
}

/// Timestamps are clamped to ±this many epoch seconds (±3 million years) so that slot
/// arithmetic can never overflow, whatever a request says.
pub(crate) const TIME_LIMIT: f64 = 1e14;

/// One metric's data: closed slots in a map plus the newest ("open") slot kept aside.
#[derive(Debug, Clone)]
pub struct Series {
    unit: String,
    /// Closed slots; every key is below the open slot's key.
    pub(crate) slots: BTreeMap<i64, Slot>,
    /// The newest slot, where nearly every write lands.
    pub(crate) open: Option<(i64, Slot)>,
    /// Latest data timestamp ever recorded (survives pruning; drives ListMetrics).
    last_ts: Option<f64>,
    rng: SplitMix,
    /// Slots before this start are merged into one-minute slots (`coarse.rs`).
    coarse_until: i64,
}

impl Series {
    fn new(unit: &str, seed: u64) -> Self {
        Series {
            unit: unit.to_string(),
            slots: BTreeMap::new(),
            open: None,
            last_ts: None,
            rng: SplitMix(seed),
            coarse_until: i64::MIN,
        }
    }

    /// The unit given when the series was created (`None`, `Microseconds`, `Percent`, ...).
    pub fn unit(&self) -> &str {
        &self.unit
    }

    /// Latest timestamp ever recorded, if any.
    pub fn last_timestamp(&self) -> Option<f64> {
        self.last_ts
    }

    /// Number of slots currently held.
    pub fn slot_count(&self) -> usize {
        self.slots.len() + usize::from(self.open.is_some())
    }

    fn slot_mut(&mut self, ts: f64) -> (&mut Slot, &mut SplitMix) {
        self.last_ts = Some(self.last_ts.map_or(ts, |t| t.max(ts)));
        let start = slot_start(ts);
        let open_key = self.open.as_ref().map(|(k, _)| *k);
        if open_key.is_some_and(|k| start < k) {
            return (self.slots.entry(start).or_default(), &mut self.rng);
        }
        if open_key != Some(start)
            && let Some((k, s)) = self.open.take()
        {
            self.slots.insert(k, s);
        }
        (
            &mut self.open.get_or_insert_with(|| (start, Slot::default())).1,
            &mut self.rng,
        )
    }

    /// Records one observation (non-finite values and timestamps are ignored).
    pub fn record(&mut self, ts: f64, value: f64) {
        if !ts.is_finite() || !value.is_finite() {
            return;
        }
        let (slot, rng) = self.slot_mut(ts);
        slot.add_exact(1.0, value, value, value);
        slot.offer(value, 1.0, rng);
    }

    /// Records a statistic set (PutMetricData `StatisticValues`). Its exact aggregates always
    /// count; it feeds percentiles only when it is degenerate (`min == max`), as CloudWatch only
    /// computes percentiles from statistic sets in that case.
    pub fn record_stats(&mut self, ts: f64, count: f64, sum: f64, min: f64, max: f64) {
        if ![ts, count, sum, min, max].iter().all(|x| x.is_finite()) || count <= 0.0 {
            return;
        }
        let (min, max) = (min.min(max), max.max(min));
        let (slot, rng) = self.slot_mut(ts);
        slot.add_exact(count, sum, min, max);
        if min == max {
            slot.offer(min, count, rng);
        }
    }

    /// Records `values[i]` observed `counts[i]` times (a missing count means 1; non-positive
    /// counts and non-finite values are skipped).
    pub fn record_values(&mut self, ts: f64, values: &[f64], counts: &[f64]) {
        if !ts.is_finite() {
            return;
        }
        for (i, &v) in values.iter().enumerate() {
            let c = counts.get(i).copied().unwrap_or(1.0);
            if !v.is_finite() || !c.is_finite() || c <= 0.0 {
                continue;
            }
            let (slot, rng) = self.slot_mut(ts);
            slot.add_exact(c, v * c, v, v);
            slot.offer(v, c, rng);
        }
    }

    /// Drops slots that start more than 25 h before `now`, and merges those older than 3 h into
    /// one-minute slots (`coarse.rs`).
    pub fn prune(&mut self, now: f64) {
        self.coarsen(now);
        let cutoff = slot_start(now - RETENTION_SECONDS);
        self.slots = self.slots.split_off(&cutoff);
        if self.open.as_ref().is_some_and(|(k, _)| *k < cutoff) {
            self.open = None;
        }
    }

    /// Slots whose start lies in `[lo, hi)`, ascending.
    pub(crate) fn slots_in(&self, lo: i64, hi: i64) -> impl Iterator<Item = (i64, &Slot)> {
        let closed = if lo < hi { Some(self.slots.range(lo..hi)) } else { None };
        closed.into_iter().flatten().map(|(k, s)| (*k, s)).chain(
            self.open
                .iter()
                .filter(move |(k, _)| *k >= lo && *k < hi)
                .map(|(k, s)| (*k, s)),
        )
    }
}

#[cfg(test)]
mod tests;
