//! Reading the metric store: statistics over periods (with weighted nearest-rank percentiles)
//! and the filtered, ordered listing behind ListMetrics.

use std::ops::Bound;

use crate::sandbox::cloudwatch::metrics::{MetricStore, SLOT_SECONDS, Series, SeriesKey, Slot, TIME_LIMIT};

/// A CloudWatch statistic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stat {
    /// Number of observations.
    SampleCount,
    /// Sum of the observations.
    Sum,
    /// Sum / SampleCount.
    Average,
    /// Smallest observation.
    Minimum,
    /// Largest observation.
    Maximum,
    /// Percentile `pNN` / `pNN.NN` (0..=100), nearest rank on the weighted samples.
    Percentile(f64),
}

impl Stat {
    /// Parses `SampleCount`, `Sum`, `Average`, `Minimum`, `Maximum`, `pNN`, `pNN.NN`.
    /// Other CloudWatch statistics (trimmed means `TM99`, `IQM`, ...) are not supported: `None`.
    pub fn parse(s: &str) -> Option<Stat> {
        match s {
            "SampleCount" => Some(Stat::SampleCount),
            "Sum" => Some(Stat::Sum),
            "Average" => Some(Stat::Average),
            "Minimum" => Some(Stat::Minimum),
            "Maximum" => Some(Stat::Maximum),
            _ => {
                let num = s.strip_prefix('p')?;
                let (int, frac) = num.split_once('.').unwrap_or((num, ""));
                let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
                if int.is_empty() || int.len() > 3 || !digits(int) || !digits(frac) || frac.len() > 2 {
                    return None;
                }
                if num.ends_with('.') {
                    return None;
                }
                let p: f64 = num.parse().ok()?;
                (0.0..=100.0).contains(&p).then_some(Stat::Percentile(p))
            }
        }
    }
}

/// One answered period: its aligned start (epoch seconds) and the statistic's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Datapoint {
    /// Start of the period, aligned to a multiple of the period since the epoch.
    pub timestamp: f64,
    /// The statistic's value over that period.
    pub value: f64,
}

/// Aggregates of one period being built.
struct Acc {
    count: f64,
    sum: f64,
    min: f64,
    max: f64,
}

impl Acc {
    fn new() -> Self {
        Acc {
            count: 0.0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }

    fn add(&mut self, slot: &Slot, stat: Stat, samples: &mut Vec<(f64, f64)>) {
        self.count += slot.count;
        self.sum += slot.sum;
        self.min = self.min.min(slot.min);
        self.max = self.max.max(slot.max);
        if matches!(stat, Stat::Percentile(_)) && !slot.samples.is_empty() {
            let w = slot.sampled / slot.samples.len() as f64;
            samples.extend(slot.samples.iter().map(|&v| (f64::from(v), w)));
        }
    }

    fn finish(&self, stat: Stat, samples: &mut [(f64, f64)]) -> Option<f64> {
        if self.count <= 0.0 {
            return None;
        }
        Some(match stat {
            Stat::SampleCount => self.count,
            Stat::Sum => self.sum,
            Stat::Average => self.sum / self.count,
            Stat::Minimum => self.min,
            Stat::Maximum => self.max,
            Stat::Percentile(p) if p >= 100.0 && !samples.is_empty() => self.max,
            // Samples are f32: keep the answer inside the exact range (max/min, not clamp: no panic).
            Stat::Percentile(p) => weighted_nearest_rank(samples, p)?.max(self.min).min(self.max),
        })
    }
}

/// Nearest-rank percentile of weighted samples: the smallest value whose cumulative weight
/// reaches `p`% of the total (the first value for p = 0). `None` when there are no samples.
pub fn weighted_nearest_rank(samples: &mut [(f64, f64)], p: f64) -> Option<f64> {
    samples.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = samples.iter().map(|s| s.1).sum();
    if samples.is_empty() || total <= 0.0 {
        return None;
    }
    let target = p / 100.0 * total;
    let tolerance = total * 1e-9;
    let mut cum = 0.0;
    for &(v, w) in samples.iter() {
        cum += w;
        if cum + tolerance >= target {
            return Some(v);
        }
    }
    samples.last().map(|s| s.0)
}

impl Series {
    /// Datapoints of `stat` over periods of `period` seconds that have data, ascending, for data
    /// in `[start, end)`.
    ///
    /// Periods are aligned to multiples of `period` since the epoch and `start` is rounded down
    /// to its period boundary (CloudWatch rounds StartTime down too). Data is stored in 10-second
    /// slots, so a slot belongs to the query when its start lies in the range, and periods
    /// shorter than 10 s (high-resolution 1 s and 5 s) are answered at 10 s granularity:
    /// one datapoint per 10-second slot, stamped with the slot's start.
    pub fn query(&self, start: f64, end: f64, period: u32, stat: Stat) -> Vec<Datapoint> {
        let mut out = Vec::new();
        // Written as a negation so NaN bounds give no data.
        if !(start < end && start.is_finite() && end.is_finite()) {
            return out;
        }
        let p = i64::from(period).max(SLOT_SECONDS);
        let lo = (start.clamp(-TIME_LIMIT, TIME_LIMIT).floor() as i64).div_euclid(p) * p;
        let hi = end.clamp(-TIME_LIMIT, TIME_LIMIT).ceil() as i64;
        let mut samples: Vec<(f64, f64)> = Vec::new();
        let mut current: Option<(i64, Acc)> = None;
        for (k, slot) in self.slots_in(lo, hi) {
            let bucket = k.div_euclid(p) * p;
            if current.as_ref().is_none_or(|(b, _)| *b != bucket) {
                if let Some((b, acc)) = current.take()
                    && let Some(value) = acc.finish(stat, &mut samples)
                {
                    out.push(Datapoint {
                        timestamp: b as f64,
                        value,
                    });
                }
                samples.clear();
                current = Some((bucket, Acc::new()));
            }
            if let Some((_, acc)) = current.as_mut() {
                acc.add(slot, stat, &mut samples);
            }
        }
        if let Some((b, acc)) = current
            && let Some(value) = acc.finish(stat, &mut samples)
        {
            out.push(Datapoint {
                timestamp: b as f64,
                value,
            });
        }
        out
    }
}

impl Series {
    /// `stat` over the raw window `[start, end)` (not period-aligned), or `None` without data.
    /// At 10-second slot granularity: a slot counts when its midpoint lies in the window, so a
    /// 60 s window covers 60 s of data on average.
    pub fn window(&self, start: f64, end: f64, stat: Stat) -> Option<f64> {
        if !(start < end && start.is_finite() && end.is_finite()) {
            return None;
        }
        let half = SLOT_SECONDS as f64 / 2.0;
        let (start, end) = (start.clamp(-TIME_LIMIT, TIME_LIMIT), end.clamp(-TIME_LIMIT, TIME_LIMIT));
        let lo = ((start - half) / SLOT_SECONDS as f64).ceil() as i64 * SLOT_SECONDS;
        let hi = (end - half).ceil() as i64;
        let mut acc = Acc::new();
        let mut samples = Vec::new();
        for (_, slot) in self.slots_in(lo, hi) {
            acc.add(slot, stat, &mut samples);
        }
        acc.finish(stat, &mut samples)
    }
}

/// ListMetrics filters.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Exact namespace.
    pub namespace: Option<String>,
    /// Exact metric name.
    pub metric_name: Option<String>,
    /// Dimensions the metric must have (any value when the value is `None`); the metric may
    /// have more dimensions than these.
    pub dimensions: Vec<(String, Option<String>)>,
    /// Only metrics with data at or after this time (`RecentlyActive=PT3H` = now - 3 h).
    pub active_since: Option<f64>,
}

impl ListFilter {
    /// Whether `key` passes the name filters (activity is checked separately).
    pub fn matches(&self, key: &SeriesKey) -> bool {
        self.namespace.as_ref().is_none_or(|ns| *ns == key.namespace)
            && self.metric_name.as_ref().is_none_or(|n| *n == key.name)
            && self.dimensions.iter().all(|(name, value)| {
                key.dimensions
                    .iter()
                    .any(|(n, v)| n == name && value.as_ref().is_none_or(|want| want == v))
            })
    }
}

impl MetricStore {
    /// Up to `limit` keys of series that ever had data and match `filter`, in key order,
    /// strictly after `after` (the last key of the previous page). The flag says whether more
    /// matching keys follow.
    pub fn list(&self, filter: &ListFilter, after: Option<&SeriesKey>, limit: usize) -> (Vec<SeriesKey>, bool) {
        let map = self.series.read();
        let lower = after.map_or(Bound::Unbounded, Bound::Excluded);
        let mut out = Vec::new();
        for (key, handle) in map.range::<SeriesKey, _>((lower, Bound::Unbounded)) {
            if !filter.matches(key) {
                continue;
            }
            let Some(last) = handle.lock().last_timestamp() else {
                continue;
            };
            if filter.active_since.is_some_and(|since| last < since) {
                continue;
            }
            if out.len() == limit {
                return (out, true);
            }
            out.push(key.clone());
        }
        (out, false)
    }

    /// Datapoints of `stat` for the series `key` (see [`Series::query`]); empty when the series
    /// does not exist, or when `unit` is given and differs from the series' unit.
    pub fn query(
        &self,
        key: &SeriesKey,
        unit: Option<&str>,
        start: f64,
        end: f64,
        period: u32,
        stat: Stat,
    ) -> Vec<Datapoint> {
        let Some(handle) = self.get(key) else {
            return Vec::new();
        };
        let series = handle.lock();
        if unit.is_some_and(|u| u != series.unit()) {
            return Vec::new();
        }
        series.query(start, end, period, stat)
    }

    /// `stat` (a statistic name as in [`Stat::parse`]) of series `key` over the raw window
    /// `[start, end)` (see [`Series::window`]); `None` when the series, the statistic or data
    /// in the window is missing. Used by the autoscaling emulation.
    pub fn window_stat(&self, key: &SeriesKey, start: f64, end: f64, stat: &str) -> Option<f64> {
        let stat = Stat::parse(stat)?;
        self.get(key)?.lock().window(start, end, stat)
    }
}
