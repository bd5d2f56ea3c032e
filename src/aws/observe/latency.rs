//! Client-side latency statistics of everything the console itself invokes, in an HDR histogram
//! (1 µs to 10 min, 3 significant digits).

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

/// A latency recorder.
#[derive(Debug, Clone)]
pub struct LatencyStats {
    hist: Histogram<u64>,
}

/// Percentiles of a recorder, in milliseconds.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Percentiles {
    /// Samples.
    pub count: u64,
    /// Median.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Fastest.
    pub min_ms: f64,
    /// Slowest.
    pub max_ms: f64,
    /// Mean.
    pub mean_ms: f64,
}

impl Default for LatencyStats {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyStats {
    /// An empty recorder.
    pub fn new() -> Self {
        // Bounds are constants that hdrhistogram accepts.
        let hist = Histogram::new_with_bounds(1, 600_000_000, 3).unwrap_or_else(|_| Histogram::new(3).expect("hdr"));
        LatencyStats { hist }
    }

    /// Records one latency (clamped into the histogram's range).
    pub fn record(&mut self, d: Duration) {
        let us = (d.as_micros() as u64).clamp(1, 600_000_000);
        let _ = self.hist.record(us);
    }

    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// Percentiles so far (None when empty).
    pub fn percentiles(&self) -> Option<Percentiles> {
        if self.hist.is_empty() {
            return None;
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Some(Percentiles {
            count: self.hist.len(),
            p50_ms: ms(self.hist.value_at_quantile(0.50)),
            p95_ms: ms(self.hist.value_at_quantile(0.95)),
            p99_ms: ms(self.hist.value_at_quantile(0.99)),
            min_ms: ms(self.hist.min()),
            max_ms: ms(self.hist.max()),
            mean_ms: self.hist.mean() / 1000.0,
        })
    }

    /// `buckets` log-spaced bars between min and max: (upper bound in ms, count).
    pub fn histogram(&self, buckets: usize) -> Vec<(f64, u64)> {
        if self.hist.is_empty() || buckets == 0 {
            return Vec::new();
        }
        let (lo, hi) = (self.hist.min().max(1) as f64, self.hist.max().max(2) as f64);
        let step = (hi / lo).powf(1.0 / buckets as f64);
        let mut out = Vec::with_capacity(buckets);
        let mut prev = 0u64;
        for i in 1..=buckets {
            let upper = if i == buckets {
                hi as u64
            } else {
                (lo * step.powi(i as i32)) as u64
            };
            let count = self.hist.count_between(prev, upper);
            out.push((upper as f64 / 1000.0, count));
            prev = upper + 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_known_sample() {
        let mut s = LatencyStats::new();
        for ms in 1..=100 {
            s.record(Duration::from_millis(ms));
        }
        let p = s.percentiles().unwrap();
        assert_eq!(p.count, 100);
        assert!((p.p50_ms - 50.0).abs() < 0.1, "{p:?}");
        assert!((p.p99_ms - 99.0).abs() < 0.1, "{p:?}");
        let h = s.histogram(5);
        assert_eq!(h.iter().map(|b| b.1).sum::<u64>(), 100);
    }
}
