//! Prewarming multi-model endpoint models: there is no preload API, so each model gets one
//! warm-up invocation. ModelNotReadyException (the model is still loading), throttling and
//! SageMaker-side failures are retried with full-jitter backoff until a per-model deadline; each
//! model ends `cold` (it had to be loaded), `warm` (it already was) or `failed`, and partial
//! failures never stop the others.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde::Serialize;
use tokio::sync::mpsc::UnboundedSender;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;
use crate::aws::invoke::call::{InvokeSpec, is_json, ser_ms};
use crate::aws::retry::RetryPolicy;

/// How a prewarm runs.
#[derive(Debug, Clone)]
pub struct PrewarmOptions {
    /// Warm-up invocations in flight at once (default 4).
    pub concurrency: usize,
    /// Per model, from its first attempt: no attempt runs past it (default 120 s).
    pub deadline: Duration,
    /// A first successful attempt at least this slow counts as a cold load (default 1 s; real
    /// MME loads take 10-60 s, warm calls rarely more than a second).
    pub cold_threshold: Duration,
    /// Request body; `None` = [`default_warmup_body`] of the content type.
    pub body: Option<Vec<u8>>,
    /// Content-Type (default `application/json`).
    pub content_type: String,
    /// Accept.
    pub accept: Option<String>,
    /// First backoff ceiling between attempts (default 500 ms).
    pub backoff_base: Duration,
    /// Largest backoff ceiling (default 5 s).
    pub backoff_cap: Duration,
    /// The inference component every warm-up calls; with no models, the component itself is
    /// warmed with one call.
    pub inference_component: Option<String>,
}

impl Default for PrewarmOptions {
    fn default() -> Self {
        PrewarmOptions {
            concurrency: 4,
            deadline: Duration::from_secs(120),
            cold_threshold: Duration::from_secs(1),
            body: None,
            content_type: "application/json".into(),
            accept: None,
            backoff_base: Duration::from_millis(500),
            backoff_cap: Duration::from_secs(5),
            inference_component: None,
        }
    }
}

impl PrewarmOptions {
    /// The body to send: the given one, or the default of the content type.
    pub fn warmup_body(&self) -> Result<Vec<u8>, AwsError> {
        match &self.body {
            Some(b) => Ok(b.clone()),
            None => default_warmup_body(&self.content_type).ok_or_else(|| {
                AwsError::Validation(format!(
                    "no default warm-up payload for content type {}; give a body",
                    self.content_type
                ))
            }),
        }
    }
}

/// A warm-up payload for a content type: `{"inputs": "warmup"}` for JSON (the Hugging Face
/// toolkits' shape), one line of it for JSON Lines, a numeric row for CSV, `warmup` for plain
/// text; `None` for binary types, whose containers need a real input.
pub fn default_warmup_body(content_type: &str) -> Option<Vec<u8>> {
    let base = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let body: &[u8] = match base.as_str() {
        "application/jsonlines" | "application/x-jsonlines" => b"{\"inputs\": \"warmup\"}\n",
        _ if is_json(&base) => br#"{"inputs": "warmup"}"#,
        "text/csv" => b"0,0,0,0",
        "text/plain" => b"warmup",
        _ => return None,
    };
    Some(body.to_vec())
}

/// How a model ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PrewarmStatus {
    /// It had to be loaded: ModelNotReady was seen, or the first success was slow.
    Cold,
    /// It was already in memory.
    Warm,
    /// No successful invocation within the deadline.
    Failed,
}

impl PrewarmStatus {
    /// `cold`, `warm` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            PrewarmStatus::Cold => "cold",
            PrewarmStatus::Warm => "warm",
            PrewarmStatus::Failed => "failed",
        }
    }
}

/// The outcome for one model.
#[derive(Debug, Clone, Serialize)]
pub struct PrewarmResult {
    /// The model key (TargetModel).
    pub model: String,
    /// Cold, warm or failed.
    pub status: PrewarmStatus,
    /// Whether the model is now loaded: a success, or a ModelError (the container answered,
    /// so it was loaded, only the warm-up payload was refused).
    pub loaded: bool,
    /// Client-side latency of the first successful attempt.
    #[serde(rename = "latency_ms", serialize_with = "ser_opt_ms")]
    pub latency: Option<Duration>,
    /// Wall time from the first attempt to the end, backoff included.
    #[serde(rename = "total_ms", serialize_with = "ser_ms")]
    pub total: Duration,
    /// Attempts made.
    pub attempts: u32,
    /// ModelNotReadyException answers seen.
    pub not_ready: u32,
    /// The variant that answered.
    pub invoked_variant: Option<String>,
    /// The final error, when failed.
    pub error: Option<AwsError>,
}

fn ser_opt_ms<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => ser_ms(d, s),
        None => s.serialize_none(),
    }
}

/// Progress of a prewarm, for a progress bar.
#[derive(Debug, Clone)]
pub enum PrewarmEvent {
    /// A model's first attempt starts.
    Started {
        /// Model key.
        model: String,
    },
    /// An attempt failed and will be retried after `backoff`.
    Retrying {
        /// Model key.
        model: String,
        /// The attempt that failed (1-based).
        attempt: u32,
        /// Why.
        error: AwsError,
        /// Wait before the next attempt.
        backoff: Duration,
    },
    /// A model is done.
    Finished(PrewarmResult),
}

/// Every model's outcome, in the order asked.
#[derive(Debug, Clone, Serialize)]
pub struct PrewarmReport {
    /// Endpoint.
    pub endpoint: String,
    /// Per model.
    pub results: Vec<PrewarmResult>,
    /// Models that had to be loaded.
    pub cold: usize,
    /// Models already loaded.
    pub warm: usize,
    /// Models that failed.
    pub failed: usize,
    /// Wall time of the whole prewarm.
    #[serde(rename = "elapsed_ms", serialize_with = "ser_ms")]
    pub elapsed: Duration,
}

impl Fleet {
    /// Invokes each model of an MME once (duplicates once), `opts.concurrency` at a time, and
    /// reports each (no models and `opts.inference_component`: the component, once). Fails as a whole only when no warm-up body can be found; every AWS failure
    /// is the model's own result. Progress goes to `progress` when given.
    pub async fn prewarm(
        &self,
        endpoint: &str,
        models: &[String],
        opts: &PrewarmOptions,
        progress: Option<&UnboundedSender<PrewarmEvent>>,
    ) -> Result<PrewarmReport, AwsError> {
        let start = Instant::now();
        let body = opts.warmup_body()?;
        let mut unique: Vec<Option<String>> = Vec::with_capacity(models.len());
        for m in models {
            if !unique.iter().flatten().any(|u| u == m) {
                unique.push(Some(m.clone()));
            }
        }
        if unique.is_empty() && opts.inference_component.is_some() {
            unique.push(None);
        }
        let body = &body;
        let mut indexed: Vec<(usize, PrewarmResult)> = futures_util::stream::iter(unique.into_iter().enumerate())
            .map(|(i, model)| async move {
                let spec = InvokeSpec {
                    endpoint: endpoint.to_string(),
                    body: body.clone(),
                    content_type: opts.content_type.clone(),
                    accept: opts.accept.clone(),
                    target_model: model,
                    inference_component: opts.inference_component.clone(),
                    ..Default::default()
                };
                (i, self.prewarm_one(&spec, opts, progress).await)
            })
            .buffer_unordered(opts.concurrency.max(1))
            .collect()
            .await;
        indexed.sort_by_key(|(i, _)| *i);
        let results: Vec<PrewarmResult> = indexed.into_iter().map(|(_, r)| r).collect();
        let count = |s: PrewarmStatus| results.iter().filter(|r| r.status == s).count();
        Ok(PrewarmReport {
            endpoint: endpoint.to_string(),
            cold: count(PrewarmStatus::Cold),
            warm: count(PrewarmStatus::Warm),
            failed: count(PrewarmStatus::Failed),
            results,
            elapsed: start.elapsed(),
        })
    }

    /// One model: attempts until a success, a non-retryable error, or the deadline.
    async fn prewarm_one(
        &self,
        spec: &InvokeSpec,
        opts: &PrewarmOptions,
        progress: Option<&UnboundedSender<PrewarmEvent>>,
    ) -> PrewarmResult {
        let model = (spec.target_model.clone())
            .or_else(|| spec.inference_component.clone())
            .unwrap_or_default();
        let emit = |e: PrewarmEvent| {
            if let Some(tx) = progress {
                let _ = tx.send(e);
            }
        };
        emit(PrewarmEvent::Started { model: model.clone() });
        let backoff = RetryPolicy {
            max_attempts: u32::MAX,
            base: opts.backoff_base,
            cap: opts.backoff_cap,
            deadline: opts.deadline,
        };
        let start = Instant::now();
        let mut result = PrewarmResult {
            model: model.clone(),
            status: PrewarmStatus::Failed,
            loaded: false,
            latency: None,
            total: Duration::ZERO,
            attempts: 0,
            not_ready: 0,
            invoked_variant: None,
            error: None,
        };
        loop {
            result.attempts += 1;
            let remaining = opts.deadline.saturating_sub(start.elapsed());
            let attempt = tokio::time::timeout(remaining, self.invoke(spec, &RetryPolicy::none())).await;
            let error = match attempt {
                Ok(Ok(ok)) => {
                    let cold = result.not_ready > 0 || ok.latency >= opts.cold_threshold;
                    result.status = if cold { PrewarmStatus::Cold } else { PrewarmStatus::Warm };
                    result.loaded = true;
                    result.latency = Some(ok.latency);
                    result.invoked_variant = ok.invoked_variant;
                    break;
                }
                Ok(Err(failure)) => failure.error,
                Err(_) => {
                    result.error = Some(AwsError::Timeout(format!(
                        "{model} was not ready within the {}s deadline ({} attempts)",
                        opts.deadline.as_secs_f64(),
                        result.attempts
                    )));
                    break;
                }
            };
            if matches!(error, AwsError::ModelNotReady(_)) {
                result.not_ready += 1;
            }
            // A read timeout of one attempt is worth retrying here: the load goes on.
            let retryable = error.retryable() || matches!(error, AwsError::Timeout(_));
            let wait = backoff.backoff(result.attempts);
            if !retryable || start.elapsed() + wait >= opts.deadline {
                result.loaded = matches!(error, AwsError::ModelError { .. });
                result.error = Some(error);
                break;
            }
            emit(PrewarmEvent::Retrying {
                model: model.clone(),
                attempt: result.attempts,
                error,
                backoff: wait,
            });
            tokio::time::sleep(wait).await;
        }
        result.total = start.elapsed();
        emit(PrewarmEvent::Finished(result.clone()));
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_bodies_by_content_type() {
        let body = |ct: &str| default_warmup_body(ct).map(|b| String::from_utf8(b).unwrap());
        assert_eq!(body("application/json").as_deref(), Some(r#"{"inputs": "warmup"}"#));
        assert_eq!(
            body("application/json; charset=utf-8").as_deref(),
            Some(r#"{"inputs": "warmup"}"#)
        );
        assert_eq!(
            body("application/jsonlines").as_deref(),
            Some("{\"inputs\": \"warmup\"}\n")
        );
        assert_eq!(body("text/csv").as_deref(), Some("0,0,0,0"));
        assert_eq!(body("image/jpeg"), None);
        let opts = PrewarmOptions {
            content_type: "application/x-image".into(),
            ..Default::default()
        };
        assert_eq!(opts.warmup_body().unwrap_err().class(), "validation");
        let opts = PrewarmOptions {
            content_type: "application/x-image".into(),
            body: Some(vec![1, 2]),
            ..Default::default()
        };
        assert_eq!(opts.warmup_body().unwrap(), vec![1, 2]);
    }
}
