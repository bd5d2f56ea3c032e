//! Asynchronous invocations: InvokeEndpointAsync with the input inline (a small body), uploaded
//! first to a given S3 prefix (a larger one), or already in S3; and the status call AWS lacks —
//! a request is done when its output object (or its failure object) appears, so it is followed
//! by looking for both with backoff.

use std::time::{Duration, Instant};

use aws_sdk_sagemakerruntime::primitives::Blob;
use serde::Serialize;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// The largest body InvokeEndpointAsync takes inline; a larger one goes through S3.
pub const MAX_INLINE_BODY: usize = 128_000;

/// Where the input of an asynchronous request comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum AsyncInput {
    /// A body: inline when it is small and no prefix is given, else uploaded under the prefix.
    Body {
        /// The bytes.
        body: Vec<u8>,
        /// `s3://bucket/prefix/` to upload it under first.
        upload_prefix: Option<String>,
    },
    /// An object already in S3 (`s3://…` or `https://…`).
    Location(String),
}

/// An asynchronous request to send.
#[derive(Debug, Clone)]
pub struct AsyncSpec {
    /// Endpoint.
    pub endpoint: String,
    /// The input.
    pub input: AsyncInput,
    /// Content-Type of the input.
    pub content_type: String,
    /// Accept.
    pub accept: Option<String>,
    /// InferenceId (SageMaker makes one up when None).
    pub inference_id: Option<String>,
    /// RequestTTLSeconds (60–21600; SageMaker's default 6 hours).
    pub request_ttl_s: Option<i32>,
    /// InvocationTimeoutSeconds (1–3600; SageMaker's default 15 minutes).
    pub invocation_timeout_s: Option<i32>,
}

/// What InvokeEndpointAsync answered (202 Accepted).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AsyncAccepted {
    /// Endpoint.
    pub endpoint: String,
    /// InferenceId.
    pub inference_id: String,
    /// Where the output will be written.
    pub output_location: Option<String>,
    /// Where a failure will be written.
    pub failure_location: Option<String>,
    /// Where the input was uploaded, when sagedeck uploaded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uploaded_input: Option<String>,
}

/// How an asynchronous request ended, as its S3 objects tell: the output object, or the failure
/// object — which SageMaker also writes for a request whose RequestTTLSeconds passed while it
/// waited in the queue, told apart by its message ([`is_expiry`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AsyncOutcome {
    /// The output object appeared.
    Succeeded {
        /// Its location.
        location: String,
        /// Its content.
        #[serde(skip)]
        body: Vec<u8>,
        /// Its content type.
        content_type: Option<String>,
    },
    /// The failure object appeared.
    Failed {
        /// Its location.
        location: String,
        /// Its content (the error SageMaker wrote).
        #[serde(skip)]
        body: Vec<u8>,
    },
    /// The failure object appeared, saying the request expired in the queue (its
    /// RequestTTLSeconds passed before an instance took it): never run, so sending it again
    /// may work once the endpoint has capacity.
    Expired {
        /// Its location.
        location: String,
        /// Its content (the message SageMaker wrote).
        #[serde(skip)]
        body: Vec<u8>,
    },
}

impl AsyncOutcome {
    /// The object's content.
    pub fn body(&self) -> &[u8] {
        match self {
            AsyncOutcome::Succeeded { body, .. }
            | AsyncOutcome::Failed { body, .. }
            | AsyncOutcome::Expired { body, .. } => body,
        }
    }
}

/// Whether a failure object's message says the request expired in the queue (its
/// RequestTTLSeconds passed) rather than failed while it ran: it speaks of expiry and of the
/// queue or the TTL. An invocation that timed out (InvocationTimeoutSeconds) is a failure.
pub fn is_expiry(message: &[u8]) -> bool {
    let text = String::from_utf8_lossy(message).to_ascii_lowercase();
    text.contains("expired") && (text.contains("queue") || text.contains("requestttl"))
}

/// `s3://bucket/key` as (bucket, key); `https://bucket.s3.region.amazonaws.com/key` and
/// path-style `https://host/bucket/key` too.
pub fn split_s3(uri: &str) -> Option<(String, String)> {
    if let Some(rest) = uri.strip_prefix("s3://") {
        let (bucket, key) = rest.split_once('/')?;
        return (!bucket.is_empty()).then(|| (bucket.to_string(), key.to_string()));
    }
    let rest = uri.strip_prefix("https://").or_else(|| uri.strip_prefix("http://"))?;
    let (host, path) = rest.split_once('/')?;
    match host.split_once(".s3") {
        Some((bucket, _)) => Some((bucket.to_string(), path.to_string())),
        None => {
            let (bucket, key) = path.split_once('/')?;
            Some((bucket.to_string(), key.to_string()))
        }
    }
}

/// The key an uploaded input gets under `prefix`: `PREFIX/ID.input`.
fn upload_location(prefix: &str, id: &str) -> String {
    format!("{}/{id}.input", prefix.trim_end_matches('/'))
}

/// A request id sagedeck makes up for an upload when none is given (16 hex digits): the
/// uploaded input's name and the request's InferenceId.
fn fresh_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

impl Fleet {
    /// Sends one asynchronous request; a body too large to go inline is uploaded under its
    /// prefix first (refused with the reason when there is none).
    pub async fn invoke_async(&self, spec: &AsyncSpec) -> Result<AsyncAccepted, AwsError> {
        let mut uploaded_input = None;
        let mut request = self
            .runtime
            .invoke_endpoint_async()
            .endpoint_name(&spec.endpoint)
            .content_type(&spec.content_type)
            .set_accept(spec.accept.clone())
            .set_inference_id(spec.inference_id.clone())
            .set_request_ttl_seconds(spec.request_ttl_s)
            .set_invocation_timeout_seconds(spec.invocation_timeout_s);
        request = match &spec.input {
            AsyncInput::Location(uri) => request.input_location(uri),
            AsyncInput::Body {
                body,
                upload_prefix: None,
            } if body.len() <= MAX_INLINE_BODY => request.body(Blob::new(body.clone())),
            AsyncInput::Body {
                body,
                upload_prefix: None,
            } => {
                return Err(AwsError::Validation(format!(
                    "the body is {} bytes; InvokeEndpointAsync takes at most {MAX_INLINE_BODY} inline: give --input-prefix s3://BUCKET/PREFIX/ to upload it first",
                    body.len()
                )));
            }
            AsyncInput::Body {
                body,
                upload_prefix: Some(prefix),
            } => {
                // The request takes the upload's id, so that its input and output share a name.
                let id = spec.inference_id.clone().unwrap_or_else(fresh_id);
                let location = upload_location(prefix, &id);
                self.put_object(&location, body, &spec.content_type).await?;
                uploaded_input = Some(location.clone());
                request.inference_id(id).input_location(location)
            }
        };
        let out = request.send().await.map_err(AwsError::from_sdk)?;
        Ok(AsyncAccepted {
            endpoint: spec.endpoint.clone(),
            inference_id: out.inference_id().unwrap_or_default().to_string(),
            output_location: out.output_location().map(str::to_string),
            failure_location: out.failure_location().map(str::to_string),
            uploaded_input,
        })
    }

    /// PutObject of `body` at `location` (`s3://bucket/key`).
    pub async fn put_object(&self, location: &str, body: &[u8], content_type: &str) -> Result<(), AwsError> {
        let (bucket, key) = split_s3(location)
            .ok_or_else(|| AwsError::Validation(format!("{location} is not an s3://BUCKET/KEY location")))?;
        self.s3
            .put_object()
            .bucket(bucket)
            .key(key)
            .content_type(content_type)
            .body(aws_sdk_s3::primitives::ByteStream::from(body.to_vec()))
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        Ok(())
    }

    /// The object at `location` with its content type, None when it does not exist (yet).
    async fn object_if_any(&self, location: &str) -> Result<Option<(Vec<u8>, Option<String>)>, AwsError> {
        let Some((bucket, key)) = split_s3(location) else {
            return Ok(None);
        };
        let head = self.s3.head_object().bucket(&bucket).key(&key).send().await;
        match head.map_err(AwsError::from_sdk) {
            Err(AwsError::NotFound(_)) => return Ok(None),
            Err(AwsError::Other { code, .. }) if code == "NotFound" || code == "404" => return Ok(None),
            Err(e) => return Err(e),
            Ok(_) => {}
        }
        let out = self
            .s3
            .get_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let content_type = out.content_type().map(str::to_string);
        let body = out
            .body
            .collect()
            .await
            .map_err(|e| AwsError::Network(format!("reading {location}: {e}")))?
            .into_bytes()
            .to_vec();
        Ok(Some((body, content_type)))
    }

    /// One look at a request: its output, else its failure, else None (still queued or running).
    pub async fn async_outcome(&self, accepted: &AsyncAccepted) -> Result<Option<AsyncOutcome>, AwsError> {
        if let Some(location) = &accepted.output_location
            && let Some((body, content_type)) = self.object_if_any(location).await?
        {
            let location = location.clone();
            return Ok(Some(AsyncOutcome::Succeeded {
                location,
                body,
                content_type,
            }));
        }
        if let Some(location) = &accepted.failure_location
            && let Some((body, _)) = self.object_if_any(location).await?
        {
            let location = location.clone();
            return Ok(Some(if is_expiry(&body) {
                AsyncOutcome::Expired { location, body }
            } else {
                AsyncOutcome::Failed { location, body }
            }));
        }
        Ok(None)
    }

    /// Follows a request until its output or failure object appears, looking again after 0.5 s,
    /// then twice as long each time up to 10 s; `on_look` is told each look's number. None when
    /// `timeout` passes first.
    pub async fn wait_async(
        &self,
        accepted: &AsyncAccepted,
        timeout: Duration,
        mut on_look: impl FnMut(u32),
    ) -> Result<Option<AsyncOutcome>, AwsError> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(500);
        let mut looks = 0;
        loop {
            looks += 1;
            on_look(looks);
            if let Some(done) = self.async_outcome(accepted).await? {
                return Ok(Some(done));
            }
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Ok(None);
            }
            tokio::time::sleep(pause.min(left)).await;
            pause = (pause * 2).min(Duration::from_secs(10));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_locations_split_in_every_style() {
        let pair = |b: &str, k: &str| Some((b.to_string(), k.to_string()));
        assert_eq!(split_s3("s3://bucket/out/a.out"), pair("bucket", "out/a.out"));
        assert_eq!(
            split_s3("https://bucket.s3.us-east-1.amazonaws.com/out/a.out"),
            pair("bucket", "out/a.out")
        );
        assert_eq!(
            split_s3("http://127.0.0.1:4566/bucket/out/a.out"),
            pair("bucket", "out/a.out")
        );
        assert_eq!(split_s3("s3:///key"), None);
        assert_eq!(split_s3("file:///x"), None);
        assert_eq!(upload_location("s3://b/in/", "id1"), "s3://b/in/id1.input");
    }

    #[test]
    fn an_expiry_in_the_queue_is_told_from_a_failure() {
        assert!(is_expiry(
            b"Request expired: it waited in the queue longer than its RequestTTLSeconds (60 s)."
        ));
        assert!(!is_expiry(
            b"Inference timed out after 5 seconds (InvocationTimeoutSeconds)."
        ));
        assert!(!is_expiry(b"Received client error (415) from model: the queue is full"));
    }
}
