//! Invoking endpoints: InvokeEndpoint with every header SageMaker takes, the body always read to
//! the end, client-side latency and attempts; the response stream with parts delivered as they
//! arrive; and the checks that keep invalid input from being sent.

use std::time::{Duration, Instant};

use aws_sdk_sagemakerruntime::operation::invoke_endpoint::InvokeEndpointError;
use aws_sdk_sagemakerruntime::primitives::Blob;
use aws_sdk_sagemakerruntime::types::ResponseStream;
use serde::Serialize;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;
use crate::aws::invoke::instance::InstanceReader;
use crate::aws::invoke::session::SessionInfo;
use crate::aws::retry::RetryPolicy;

/// SageMaker's real-time payload limit.
pub const MAX_PAYLOAD: usize = 6 * 1024 * 1024;

/// What to send.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InvokeSpec {
    /// Endpoint name.
    pub endpoint: String,
    /// Request body.
    #[serde(skip)]
    pub body: Vec<u8>,
    /// Content-Type (default application/json).
    pub content_type: String,
    /// Accept.
    pub accept: Option<String>,
    /// Route to this variant, bypassing weights.
    pub target_variant: Option<String>,
    /// MME model key, relative to the model's ModelDataUrl.
    pub target_model: Option<String>,
    /// Custom attributes passed to the container.
    pub custom_attributes: Option<String>,
    /// Inference id for data capture.
    pub inference_id: Option<String>,
    /// The inference component to call, on an endpoint that hosts components.
    pub inference_component: Option<String>,
    /// `SessionId`: `NEW_SESSION` opens a stateful session, an id keeps the call on its instance.
    pub session_id: Option<String>,
    /// `PrefixAwareId`: the prefix-aware routing hint.
    pub prefix_aware_id: Option<String>,
}

/// A successful invocation.
#[derive(Debug, Clone, Serialize)]
pub struct InvokeResult {
    /// Response body.
    #[serde(skip)]
    pub body: Vec<u8>,
    /// Response content type.
    pub content_type: Option<String>,
    /// The variant that served it.
    pub invoked_variant: Option<String>,
    /// Custom attributes the container returned.
    pub custom_attributes: Option<String>,
    /// Client-side latency of the successful attempt.
    #[serde(rename = "latency_ms", serialize_with = "ser_ms")]
    pub latency: Duration,
    /// Wall time of the whole call, retries and backoff included.
    #[serde(rename = "total_ms", serialize_with = "ser_ms")]
    pub total: Duration,
    /// Attempts made.
    pub attempts: u32,
    /// Classes of the errors that were retried.
    pub retried: Vec<String>,
    /// The session the call opened, kept or closed (left out of JSON when there is none).
    #[serde(skip_serializing_if = "SessionInfo::is_none")]
    pub session: SessionInfo,
    /// The instance that answered, where the runtime names it (AWS does not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
}

/// A failed invocation: the final error and what it took.
#[derive(Debug, Clone, Serialize)]
pub struct InvokeFailure {
    /// The classified error.
    pub error: AwsError,
    /// Attempts made.
    pub attempts: u32,
    /// Wall time of the whole call.
    #[serde(rename = "total_ms", serialize_with = "ser_ms")]
    pub total: Duration,
}

/// Serializes a duration as fractional milliseconds.
pub fn ser_ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1e6).round() / 1e3)
}

/// Whether a content type is JSON (`application/json`, `application/x-json`, `+json` types).
pub fn is_json(content_type: &str) -> bool {
    let base = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    base == "application/json"
        || base.ends_with("+json")
        || base == "application/x-json"
        || base == "application/jsonlines"
}

/// Refuses what must not be sent: a body over 6 MB, and malformed JSON when the content type is
/// JSON (the message names the line and column).
pub fn validate_body(content_type: &str, body: &[u8]) -> Result<(), String> {
    if body.len() > MAX_PAYLOAD {
        return Err(format!(
            "the body is {} bytes; SageMaker accepts at most {MAX_PAYLOAD} bytes",
            body.len()
        ));
    }
    let base = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if base == "application/jsonlines" {
        for (i, line) in body.split(|b| *b == b'\n').enumerate().filter(|(_, l)| !l.is_empty()) {
            serde_json::from_slice::<serde_json::Value>(line)
                .map_err(|e| format!("line {} of the JSON Lines body is not valid JSON: {e}", i + 1))?;
        }
    } else if is_json(content_type) {
        serde_json::from_slice::<serde_json::Value>(body).map_err(|e| format!("the body is not valid JSON: {e}"))?;
    }
    Ok(())
}

fn classify(err: aws_sdk_sagemakerruntime::error::SdkError<InvokeEndpointError>) -> AwsError {
    if let aws_sdk_sagemakerruntime::error::SdkError::ServiceError(se) = &err
        && let InvokeEndpointError::ModelError(me) = se.err()
    {
        return AwsError::ModelError {
            original_status: me.original_status_code(),
            original_message: me.original_message().map(str::to_string),
            message: me.message().unwrap_or_default().to_string(),
            log_stream_arn: me.log_stream_arn().map(str::to_string),
        };
    }
    AwsError::from_sdk(err)
}

impl Fleet {
    /// One InvokeEndpoint under the retry policy.
    pub async fn invoke(&self, spec: &InvokeSpec, policy: &RetryPolicy) -> Result<InvokeResult, InvokeFailure> {
        let start = Instant::now();
        let run = policy
            .run(|_| async {
                let t = Instant::now();
                let reader = InstanceReader::default();
                let out = self
                    .runtime
                    .invoke_endpoint()
                    .endpoint_name(&spec.endpoint)
                    .content_type(&spec.content_type)
                    .set_accept(spec.accept.clone())
                    .set_target_variant(spec.target_variant.clone())
                    .set_target_model(spec.target_model.clone())
                    .set_custom_attributes(spec.custom_attributes.clone())
                    .set_inference_id(spec.inference_id.clone())
                    .set_inference_component_name(spec.inference_component.clone())
                    .set_session_id(spec.session_id.clone())
                    .set_prefix_aware_id(spec.prefix_aware_id.clone())
                    .body(Blob::new(spec.body.clone()))
                    .customize()
                    .interceptor(reader.clone())
                    .send()
                    .await
                    .map_err(|e| classify(e).for_call(&spec.endpoint, spec.inference_component.as_deref()))?;
                Ok((out, t.elapsed(), reader.instance()))
            })
            .await;
        let total = start.elapsed();
        match run.result {
            Ok((mut out, latency, instance)) => Ok(InvokeResult {
                instance,
                session: SessionInfo::from_headers(
                    spec.session_id.as_deref(),
                    out.new_session_id(),
                    out.closed_session_id(),
                ),
                body: out.body.take().map(Blob::into_inner).unwrap_or_default(),
                content_type: out.content_type,
                invoked_variant: out.invoked_production_variant,
                custom_attributes: out.custom_attributes,
                latency,
                total,
                attempts: run.attempts,
                retried: run.retried.iter().map(|e| e.class().to_string()).collect(),
            }),
            Err(error) => Err(InvokeFailure {
                error: self
                    .async_refusal(self.name_components(error, &spec.endpoint).await, &spec.endpoint)
                    .await,
                attempts: run.attempts,
                total,
            }),
        }
    }

    /// InvokeEndpointWithResponseStream: `on_part` gets each payload part as it arrives.
    pub async fn invoke_stream(
        &self,
        spec: &InvokeSpec,
        mut on_part: impl FnMut(&[u8]),
    ) -> Result<StreamSummary, AwsError> {
        let start = Instant::now();
        let reader = InstanceReader::default();
        let out = self
            .runtime
            .invoke_endpoint_with_response_stream()
            .endpoint_name(&spec.endpoint)
            .content_type(&spec.content_type)
            .set_accept(spec.accept.clone())
            .set_target_variant(spec.target_variant.clone())
            .set_custom_attributes(spec.custom_attributes.clone())
            .set_inference_id(spec.inference_id.clone())
            .set_inference_component_name(spec.inference_component.clone())
            .set_session_id(spec.session_id.clone())
            .set_prefix_aware_id(spec.prefix_aware_id.clone())
            .body(Blob::new(spec.body.clone()))
            .customize()
            .interceptor(reader.clone())
            .send()
            .await
            .map_err(|e| AwsError::from_sdk(e).for_call(&spec.endpoint, spec.inference_component.as_deref()));
        let mut out = match out {
            Ok(out) => out,
            Err(e) => {
                return Err(self
                    .async_refusal(self.name_components(e, &spec.endpoint).await, &spec.endpoint)
                    .await);
            }
        };
        let mut summary = StreamSummary {
            instance: reader.instance(),
            invoked_variant: out.invoked_production_variant.clone(),
            content_type: out.content_type.clone(),
            parts: 0,
            bytes: 0,
            first_part: None,
            total: Duration::ZERO,
        };
        loop {
            match out.body.recv().await {
                Ok(Some(ResponseStream::PayloadPart(p))) => {
                    let bytes = p.bytes().map(|b| b.as_ref()).unwrap_or_default();
                    summary.first_part.get_or_insert_with(|| start.elapsed());
                    summary.parts += 1;
                    summary.bytes += bytes.len();
                    on_part(bytes);
                }
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => return Err(AwsError::from_sdk(e)),
            }
        }
        summary.total = start.elapsed();
        Ok(summary)
    }
}

impl Fleet {
    /// An endpoint called without a component: the error names the endpoint's components
    /// (one ListInferenceComponents page, 5 s at most; none when it does not answer).
    /// A ValidationError of a synchronous call on an endpoint whose configuration is
    /// asynchronous becomes [`AwsError::AsyncOnly`] (whatever SageMaker's message says).
    async fn async_refusal(&self, error: AwsError, endpoint: &str) -> AwsError {
        let AwsError::Validation(message) = error else {
            return error;
        };
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let info = tokio::time::timeout(Duration::from_secs(5), self.describe_endpoint_info(endpoint, &calls)).await;
        match info {
            Ok(Ok(info)) if info.kind.is_async() => AwsError::AsyncOnly {
                endpoint: endpoint.to_string(),
                message,
            },
            _ => AwsError::Validation(message),
        }
    }

    async fn name_components(&self, error: AwsError, endpoint: &str) -> AwsError {
        let AwsError::ComponentRequired { message, .. } = error else {
            return error;
        };
        let list = self
            .sagemaker
            .list_inference_components()
            .endpoint_name_equals(endpoint)
            .max_results(20)
            .send();
        let mut components: Vec<String> = match tokio::time::timeout(Duration::from_secs(5), list).await {
            Ok(Ok(out)) => out
                .inference_components()
                .iter()
                .filter_map(|c| c.inference_component_name().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        components.sort();
        AwsError::ComponentRequired { message, components }
    }
}

/// What a response stream delivered.
#[derive(Debug, Clone, Serialize)]
pub struct StreamSummary {
    /// The variant that served it.
    pub invoked_variant: Option<String>,
    /// The instance that answered, where the runtime names it (the sandbox does; AWS does not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// Content type of the parts.
    pub content_type: Option<String>,
    /// Payload parts received.
    pub parts: usize,
    /// Bytes received.
    pub bytes: usize,
    /// Time to the first part.
    #[serde(rename = "first_part_ms", serialize_with = "ser_opt_ms")]
    pub first_part: Option<Duration>,
    /// Time to the end of the stream.
    #[serde(rename = "total_ms", serialize_with = "ser_ms")]
    pub total: Duration,
}

fn ser_opt_ms<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => ser_ms(d, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_validation() {
        assert!(validate_body("application/json", br#"{"inputs": "x"}"#).is_ok());
        let e = validate_body("application/json; charset=utf-8", b"{\"inputs\": ").unwrap_err();
        assert!(e.contains("not valid JSON"), "{e}");
        assert!(validate_body("text/csv", b"1,2,{").is_ok());
        assert!(
            validate_body("application/jsonlines", b"{}\n{oops}\n")
                .unwrap_err()
                .contains("line 2")
        );
        assert!(validate_body("application/octet-stream", &vec![0; MAX_PAYLOAD + 1]).is_err());
    }
}
