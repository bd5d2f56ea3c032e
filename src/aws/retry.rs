//! The fleet layer's retry policy, on top of the SDK's: exponential backoff with full jitter,
//! bounded attempts and a total deadline, for InternalFailure, ServiceUnavailable, ModelNotReady
//! and Throttling only — never for ModelError or Validation.

use std::future::Future;
use std::time::{Duration, Instant};

use rand::Rng;
use serde::Serialize;

use crate::aws::error::AwsError;

/// Backoff parameters.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RetryPolicy {
    /// Attempts at most (1 = no retry).
    pub max_attempts: u32,
    /// First backoff ceiling.
    #[serde(with = "millis")]
    pub base: Duration,
    /// Largest backoff ceiling.
    #[serde(with = "millis")]
    pub cap: Duration,
    /// No new attempt starts after this much time has passed since the first.
    #[serde(with = "millis")]
    pub deadline: Duration,
}

mod millis {
    pub fn serialize<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base: Duration::from_millis(100),
            cap: Duration::from_secs(5),
            deadline: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..Default::default()
        }
    }

    /// The ceiling of the backoff before attempt `n + 1` (n >= 1): min(cap, base × 2^(n-1)).
    pub fn ceiling(&self, n: u32) -> Duration {
        let factor = 1u32.checked_shl(n.saturating_sub(1).min(20)).unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.cap)
    }

    /// A full-jitter backoff: uniform in [0, ceiling(n)].
    pub fn backoff(&self, n: u32) -> Duration {
        let ceiling = self.ceiling(n);
        if ceiling.is_zero() {
            return ceiling;
        }
        Duration::from_secs_f64(rand::rng().random_range(0.0..=ceiling.as_secs_f64()))
    }

    /// Runs `op` until it succeeds, fails with a non-retryable error, runs out of attempts, or the
    /// deadline would pass. Returns the result, the attempts made and every retried error.
    pub async fn run<T, F, Fut>(&self, mut op: F) -> Retried<T>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, AwsError>>,
    {
        let start = Instant::now();
        let mut retried = Vec::new();
        let mut attempt = 1;
        loop {
            match op(attempt).await {
                Ok(v) => {
                    return Retried {
                        result: Ok(v),
                        attempts: attempt,
                        retried,
                    };
                }
                Err(e) => {
                    let wait = self.backoff(attempt);
                    let out_of_time = start.elapsed() + wait >= self.deadline;
                    if !e.retryable() || attempt >= self.max_attempts || out_of_time {
                        return Retried {
                            result: Err(e),
                            attempts: attempt,
                            retried,
                        };
                    }
                    retried.push(e);
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
            }
        }
    }
}

/// The outcome of a retried call.
#[derive(Debug)]
pub struct Retried<T> {
    /// The final result.
    pub result: Result<T, AwsError>,
    /// Attempts made (1 = no retry).
    pub attempts: u32,
    /// The errors of the attempts that were retried.
    pub retried: Vec<AwsError>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_grow_exponentially_to_the_cap() {
        let p = RetryPolicy {
            base: Duration::from_millis(100),
            cap: Duration::from_millis(500),
            ..Default::default()
        };
        assert_eq!(p.ceiling(1), Duration::from_millis(100));
        assert_eq!(p.ceiling(2), Duration::from_millis(200));
        assert_eq!(p.ceiling(3), Duration::from_millis(400));
        assert_eq!(p.ceiling(4), Duration::from_millis(500));
        assert_eq!(p.ceiling(60), Duration::from_millis(500));
        for n in 1..6 {
            assert!(p.backoff(n) <= p.ceiling(n));
        }
    }

    #[tokio::test]
    async fn retries_only_retryable_errors() {
        let p = RetryPolicy {
            base: Duration::from_millis(1),
            cap: Duration::from_millis(2),
            ..Default::default()
        };
        let r = p
            .run(|n| async move {
                if n < 3 {
                    Err(AwsError::Throttling("slow".into()))
                } else {
                    Ok(n)
                }
            })
            .await;
        assert_eq!((r.result.unwrap(), r.attempts, r.retried.len()), (3, 3, 2));
        let r: Retried<()> = p.run(|_| async { Err(AwsError::Validation("bad".into())) }).await;
        assert_eq!(r.attempts, 1);
        let me = AwsError::ModelError {
            original_status: Some(500),
            original_message: None,
            message: "x".into(),
            log_stream_arn: None,
        };
        let r: Retried<()> = p
            .run(|_| {
                let me = me.clone();
                async move { Err(me) }
            })
            .await;
        assert_eq!(r.attempts, 1);
        let r: Retried<()> = p.run(|_| async { Err(AwsError::ServiceUnavailable("x".into())) }).await;
        assert_eq!(r.attempts, 4, "bounded by max_attempts");
    }
}
