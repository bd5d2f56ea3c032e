//! The control plane's throttle: a token bucket per region state (one account per region in the
//! sandbox), kept as GCRA's theoretical arrival time in one atomic, so admitting a call is a
//! compare-and-swap and never a lock. Off until a rate is set (`--throttle-rate`, or
//! `POST /_sandbox/throttle`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A throttle's settings: `rate` calls per second sustained, bursts of `burst` calls.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ThrottleSpec {
    /// Calls per second (> 0).
    pub rate: f64,
    /// Calls admitted at once from a full bucket (>= 1; default: one second's worth).
    #[serde(default)]
    pub burst: Option<u64>,
}

impl ThrottleSpec {
    /// The burst in force: the given one, else one second of the rate (at least 1).
    pub fn burst(&self) -> u64 {
        self.burst.unwrap_or(self.rate.ceil() as u64).max(1)
    }

    /// Refuses a rate that is not a finite number > 0 or a burst of 0.
    pub fn check(&self) -> Result<(), String> {
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return Err(format!(
                "throttle rate must be a number of calls per second > 0 (got {})",
                self.rate
            ));
        }
        if self.burst == Some(0) {
            return Err("throttle burst must be at least 1".to_string());
        }
        Ok(())
    }
}

/// A token bucket, off (admitting everything) until set.
pub struct Throttle {
    origin: Instant,
    /// Nanoseconds one call costs (0 = off).
    interval_ns: AtomicU64,
    /// Nanoseconds of burst tolerance (`burst × interval`).
    tolerance_ns: AtomicU64,
    /// GCRA's theoretical arrival time, nanoseconds since `origin`.
    tat_ns: AtomicU64,
    spec_bits: AtomicU64,
    burst: AtomicU64,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle {
            origin: Instant::now(),
            interval_ns: AtomicU64::new(0),
            tolerance_ns: AtomicU64::new(0),
            tat_ns: AtomicU64::new(0),
            spec_bits: AtomicU64::new(0),
            burst: AtomicU64::new(0),
        }
    }
}

impl Throttle {
    /// Sets (or with `None` lifts) the throttle; the bucket starts full.
    pub fn set(&self, spec: Option<ThrottleSpec>) {
        let (interval, burst, rate) = match spec {
            Some(s) => ((1e9 / s.rate).max(1.0) as u64, s.burst(), s.rate),
            None => (0, 0, 0.0),
        };
        self.interval_ns.store(0, Ordering::SeqCst);
        self.tat_ns.store(0, Ordering::SeqCst);
        self.tolerance_ns
            .store(interval.saturating_mul(burst), Ordering::SeqCst);
        self.spec_bits.store(rate.to_bits(), Ordering::SeqCst);
        self.burst.store(burst, Ordering::SeqCst);
        self.interval_ns.store(interval, Ordering::SeqCst);
    }

    /// The settings in force, if any.
    pub fn spec(&self) -> Option<ThrottleSpec> {
        (self.interval_ns.load(Ordering::Relaxed) > 0).then(|| ThrottleSpec {
            rate: f64::from_bits(self.spec_bits.load(Ordering::Relaxed)),
            burst: Some(self.burst.load(Ordering::Relaxed)),
        })
    }

    /// Whether a call may go now (taking its token), false when it is throttled.
    pub fn admit(&self) -> bool {
        let interval = self.interval_ns.load(Ordering::Relaxed);
        if interval == 0 {
            return true;
        }
        let tolerance = self.tolerance_ns.load(Ordering::Relaxed);
        let now = self.origin.elapsed().as_nanos() as u64;
        let mut tat = self.tat_ns.load(Ordering::Relaxed);
        loop {
            let next = tat.max(now) + interval;
            if next - now > tolerance {
                return false;
            }
            match self
                .tat_ns
                .compare_exchange_weak(tat, next, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(seen) => tat = seen,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_a_burst_then_refuses_until_tokens_return() {
        let t = Throttle::default();
        assert!((0..1000).all(|_| t.admit()), "off admits everything");
        t.set(Some(ThrottleSpec {
            rate: 1.0,
            burst: Some(3),
        }));
        assert_eq!((0..10).filter(|_| t.admit()).count(), 3, "the burst, then nothing");
        assert_eq!(t.spec().map(|s| s.burst), Some(Some(3)));
        t.set(None);
        assert!(t.admit());
        assert_eq!(t.spec(), None);
    }

    #[test]
    fn a_fast_rate_refills_within_its_interval() {
        let t = Throttle::default();
        t.set(Some(ThrottleSpec {
            rate: 1000.0,
            burst: Some(1),
        }));
        assert!(t.admit());
        assert!(!t.admit(), "the bucket of one is empty");
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        while !t.admit() {
            assert!(Instant::now() < deadline, "a token returns after 1 ms");
        }
    }

    #[test]
    fn refuses_bad_settings() {
        assert!(ThrottleSpec { rate: 0.0, burst: None }.check().is_err());
        assert!(
            ThrottleSpec {
                rate: f64::NAN,
                burst: None
            }
            .check()
            .is_err()
        );
        assert!(
            ThrottleSpec {
                rate: 2.0,
                burst: Some(0)
            }
            .check()
            .is_err()
        );
        assert_eq!(ThrottleSpec { rate: 2.5, burst: None }.burst(), 3);
    }
}
