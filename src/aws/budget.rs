//! The control-plane budget of one account and region: a token bucket every SageMaker read of
//! the fleet layer waits on (ListEndpoints, DescribeEndpoint, DescribeEndpointConfig,
//! DescribeModel), so that a refresh of a large fleet never asks more of the control plane than
//! the budget allows. Each [`Fleet`](crate::aws::Fleet) is one profile × region and holds its
//! own budget, shared by its clones: unlimited unless set ([`Fleet::with_budget`](crate::aws::Fleet::with_budget):
//! the console sets it from `[refresh]`). When AWS throttles anyway, the rate in force halves (down to
//! a sixteenth of the budget) and climbs back by a tenth of the budget per clean second.

use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::aws::error::AwsError;

/// The default budget, in control-plane calls per second per account and region: a fraction of
/// what SageMaker's Describe and List operations accept, leaving room for other tools.
pub const DEFAULT_CALLS_PER_SECOND: f64 = 10.0;

/// The lowest the rate in force falls when throttled: this fraction of the budget.
const FLOOR: f64 = 1.0 / 16.0;

/// A token bucket of control-plane calls.
#[derive(Debug)]
pub struct CallBudget {
    state: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    /// The budget (calls per second).
    budget: f64,
    /// The rate in force (≤ budget; lowered by throttling).
    rate: f64,
    /// Tokens available (negative: calls already promised a later slot).
    tokens: f64,
    /// When the tokens and the rate were last brought up to date.
    at: Instant,
    /// Throttling errors seen since the start.
    throttles: u64,
}

impl Default for CallBudget {
    /// No limit: calls are only counted when throttled.
    fn default() -> Self {
        CallBudget::new(f64::INFINITY)
    }
}

impl CallBudget {
    /// A budget of `per_second` calls (at least 0.1; infinite: no limit), with a burst of one
    /// second's worth.
    pub fn new(per_second: f64) -> CallBudget {
        let budget = per_second.max(0.1);
        CallBudget {
            state: Mutex::new(Bucket {
                budget,
                rate: budget,
                tokens: budget.max(1.0),
                at: Instant::now(),
                throttles: 0,
            }),
        }
    }

    /// Waits for the next call's slot (at once while the bucket holds a token).
    pub async fn acquire(&self) {
        let wait = self.reserve(Instant::now());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }

    /// Runs `call` in its slot; a throttling answer (after the SDK's own retries) lowers the
    /// rate in force.
    pub async fn metered<T>(&self, call: impl Future<Output = Result<T, AwsError>>) -> Result<T, AwsError> {
        self.acquire().await;
        let r = call.await;
        if matches!(r, Err(AwsError::Throttling(_))) {
            self.throttled();
        }
        r
    }

    /// Takes one token at `now` and says how long the call must wait for it.
    fn reserve(&self, now: Instant) -> Duration {
        let mut b = self.state.lock();
        if !b.budget.is_finite() {
            return Duration::ZERO;
        }
        b.catch_up(now);
        b.tokens -= 1.0;
        if b.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-b.tokens / b.rate)
        }
    }

    /// AWS throttled a call: the rate in force halves (not below a sixteenth of the budget).
    pub fn throttled(&self) {
        let mut b = self.state.lock();
        if b.budget.is_finite() {
            b.catch_up(Instant::now());
            b.rate = (b.rate / 2.0).max(b.budget * FLOOR);
        }
        b.throttles += 1;
    }

    /// Throttling errors seen so far.
    pub fn throttles(&self) -> u64 {
        self.state.lock().throttles
    }

    /// The budget and the rate in force (calls per second).
    pub fn rates(&self) -> (f64, f64) {
        let b = self.state.lock();
        (b.budget, b.rate)
    }
}

impl Bucket {
    /// Refills the tokens at the rate in force, and lets the rate climb back towards the budget
    /// by a tenth of it per second.
    fn catch_up(&mut self, now: Instant) {
        let dt = now.saturating_duration_since(self.at).as_secs_f64();
        self.at = now.max(self.at);
        self.tokens = (self.tokens + dt * self.rate).min(self.budget.max(1.0));
        self.rate = (self.rate + dt * self.budget / 10.0).min(self.budget);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlimited_never_waits() {
        let b = CallBudget::default();
        assert!((0..1000).all(|_| b.reserve(Instant::now()).is_zero()));
        b.throttled();
        assert_eq!(b.throttles(), 1);
    }

    #[test]
    fn a_burst_then_one_slot_per_token() {
        let b = CallBudget::new(4.0);
        let t = Instant::now();
        let waits: Vec<Duration> = (0..6).map(|_| b.reserve(t)).collect();
        assert!(waits[..4].iter().all(Duration::is_zero), "{waits:?}");
        assert_eq!(waits[4], Duration::from_millis(250));
        assert_eq!(waits[5], Duration::from_millis(500));
    }

    #[test]
    fn throttling_halves_the_rate_down_to_a_floor_and_it_climbs_back() {
        let b = CallBudget::new(16.0);
        for _ in 0..10 {
            b.throttled();
        }
        assert_eq!(b.rates(), (16.0, 1.0));
        assert_eq!(b.throttles(), 10);
        let later = Instant::now() + Duration::from_secs(20);
        b.state.lock().catch_up(later);
        assert_eq!(b.rates(), (16.0, 16.0));
    }
}
