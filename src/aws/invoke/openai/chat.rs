//! Chat Completions on the OpenAI-compatible path: one call under the fleet layer's retry policy
//! (its body read whole), or a stream of server-sent events delivered as they arrive; the bearer
//! token from a [`TokenSource`] in the `Authorization` header and nowhere else; the session and
//! routing headers of InvokeEndpoint; HTTP failures classified as InvokeEndpoint's are, with 401
//! and 403 naming the permission that is missing.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::token::{MintGate, MintNotice, TokenSource};
use crate::aws::config::Fleet;
use crate::aws::error::AwsError;
use crate::aws::invoke::call::{InvokeFailure, StreamSummary};
use crate::aws::invoke::instance::INSTANCE_HEADER;
use crate::aws::invoke::session::{
    CLOSED_SESSION_HEADER, NEW_SESSION_HEADER, PREFIX_AWARE_HEADER, SESSION_HEADER, SessionInfo,
};
use crate::aws::retry::RetryPolicy;

/// The header naming the variant that answered.
const INVOKED_VARIANT_HEADER: &str = "X-Amzn-Invoked-Production-Variant";

/// A Chat Completions client for one endpoint (or one of its inference components).
#[derive(Clone, Debug)]
pub struct OpenAiClient {
    http: reqwest::Client,
    base_url: String,
    endpoint: String,
    component: Option<String>,
    tokens: TokenSource,
}

/// One call: the JSON body and the runtime's own headers.
#[derive(Debug, Clone, Default)]
pub struct ChatCall {
    /// The Chat Completions request (`messages`, `tools`, `stream`, …).
    pub body: Vec<u8>,
    /// `SessionId`: `NEW_SESSION` or an id.
    pub session_id: Option<String>,
    /// `PrefixAwareId`, the prefix-aware routing hint.
    pub prefix_aware_id: Option<String>,
}

/// What a whole call returned.
#[derive(Debug, Clone)]
pub struct ChatOutcome {
    /// The response body (a `chat.completion`, or the events of a stream read whole).
    pub body: Vec<u8>,
    /// The variant that served it.
    pub invoked_variant: Option<String>,
    /// The session it opened, kept or closed.
    pub session: SessionInfo,
    /// The instance that answered, where the runtime names it (AWS does not).
    pub instance: Option<String>,
    /// Client-side latency of the successful attempt.
    pub latency: Duration,
    /// Attempts made.
    pub attempts: u32,
}

impl OpenAiClient {
    /// A client of `endpoint` (or its `component`) through the fleet's runtime host, minting
    /// tokens of `token_life` from the fleet's credentials.
    pub async fn new(
        fleet: &Fleet,
        endpoint: &str,
        component: Option<&str>,
        token_life: Duration,
    ) -> Result<OpenAiClient, AwsError> {
        let base_url = fleet.openai_base_url(endpoint, component).await?;
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(3))
            .read_timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| AwsError::Config(format!("no HTTP client: {e}")))?;
        Ok(OpenAiClient {
            http,
            base_url,
            endpoint: endpoint.to_string(),
            component: component.map(str::to_string),
            tokens: TokenSource::new(fleet.clone(), token_life),
        })
    }

    /// The client with every token mint asked of `gate` first (the audit log's record).
    pub fn with_mint_gate(mut self, gate: MintGate) -> OpenAiClient {
        let notice = MintNotice {
            endpoint: self.endpoint.clone(),
            component: self.component.clone(),
            base_url: self.base_url.clone(),
            until: std::time::SystemTime::now(),
        };
        self.tokens = self.tokens.gated(gate, notice);
        self
    }

    /// The base URL (`…/openai/v1`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Sends the request; a non-2xx answer is read whole and classified.
    async fn send(&self, call: &ChatCall) -> Result<reqwest::Response, AwsError> {
        let token = self.tokens.token().await?;
        let mut request = self
            .http
            .post(format!("{}/chat/completions", self.base_url))
            .bearer_auth(token.expose())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(call.body.clone());
        if let Some(s) = &call.session_id {
            request = request.header(SESSION_HEADER, s);
        }
        if let Some(p) = &call.prefix_aware_id {
            request = request.header(PREFIX_AWARE_HEADER, p);
        }
        let response = request.send().await.map_err(|e| {
            if e.is_timeout() {
                AwsError::Timeout(format!("Chat Completions on {}: {e}", self.endpoint))
            } else {
                AwsError::Network(format!("Chat Completions on {}: {}", self.endpoint, error_chain(&e)))
            }
        })?;
        let status = response.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(response);
        }
        let code = header(&response, "x-amzn-ErrorType");
        let body = response.bytes().await.unwrap_or_default();
        if refuses_token(status, &message_of(&body)) {
            self.tokens.forget().await;
        }
        Err(classify(
            status,
            code.as_deref(),
            &body,
            &self.endpoint,
            self.component.as_deref(),
        ))
    }

    /// One call under `policy`, its body read to the end.
    pub async fn chat(&self, call: &ChatCall, policy: &RetryPolicy) -> Result<ChatOutcome, InvokeFailure> {
        let start = Instant::now();
        let run = policy
            .run(|_| async {
                let t = Instant::now();
                let response = self.send(call).await?;
                let invoked_variant = header(&response, INVOKED_VARIANT_HEADER);
                let session = session_of(&response, call);
                let instance = header(&response, INSTANCE_HEADER);
                let body = response
                    .bytes()
                    .await
                    .map_err(|e| AwsError::Network(format!("the answer could not be read: {e}")))?;
                Ok(ChatOutcome {
                    body: body.to_vec(),
                    invoked_variant,
                    session,
                    instance,
                    latency: t.elapsed(),
                    attempts: 0,
                })
            })
            .await;
        match run.result {
            Ok(mut outcome) => {
                outcome.attempts = run.attempts;
                Ok(outcome)
            }
            Err(error) => Err(InvokeFailure {
                error,
                attempts: run.attempts,
                total: start.elapsed(),
            }),
        }
    }

    /// One streamed call (`"stream": true` in the body): `on_part` gets the bytes of the
    /// server-sent events as they arrive.
    pub async fn chat_stream(
        &self,
        call: &ChatCall,
        mut on_part: impl FnMut(&[u8]),
    ) -> Result<(StreamSummary, SessionInfo), AwsError> {
        let start = Instant::now();
        let mut response = self.send(call).await?;
        let session = session_of(&response, call);
        let mut summary = StreamSummary {
            instance: header(&response, INSTANCE_HEADER),
            invoked_variant: header(&response, INVOKED_VARIANT_HEADER),
            content_type: header(&response, "content-type"),
            parts: 0,
            bytes: 0,
            first_part: None,
            total: Duration::ZERO,
        };
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| AwsError::Network(format!("the stream broke: {}", error_chain(&e))))?
        {
            summary.first_part.get_or_insert_with(|| start.elapsed());
            summary.parts += 1;
            summary.bytes += chunk.len();
            on_part(&chunk);
        }
        summary.total = start.elapsed();
        Ok((summary, session))
    }
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn session_of(response: &reqwest::Response, call: &ChatCall) -> SessionInfo {
    SessionInfo::from_headers(
        call.session_id.as_deref(),
        header(response, NEW_SESSION_HEADER).as_deref(),
        header(response, CLOSED_SESSION_HEADER).as_deref(),
    )
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// The message of an error body: `message`, `Message`, OpenAI's `error.message`, or the text.
fn message_of(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        for pointer in ["/message", "/Message", "/error/message", "/OriginalMessage"] {
            if let Some(m) = v.pointer(pointer).and_then(Value::as_str) {
                return m.to_string();
            }
        }
    }
    String::from_utf8_lossy(body).trim().chars().take(300).collect()
}

/// An HTTP failure as InvokeEndpoint's would be classified; 401 and 403 name the permission.
pub fn classify(status: u16, code: Option<&str>, body: &[u8], endpoint: &str, component: Option<&str>) -> AwsError {
    let message = message_of(body);
    let code = code.map(|c| c.split(':').next().unwrap_or(c).to_string()).or_else(|| {
        serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v["__type"].as_str().or(v["code"].as_str()).map(str::to_string))
    });
    let target = match component {
        Some(ic) => format!("endpoint {endpoint} (inference component {ic})"),
        None => format!("endpoint {endpoint}"),
    };
    match status {
        401 | 403 if refuses_token(status, &message) => AwsError::AccessDenied(format!(
            "the bearer token was refused ({message}): it is minted from credentials that need `sagemaker:CallWithBearerToken`, and lives 12 h at most"
        )),
        403 => AwsError::AccessDenied(format!(
            "{message}: the credentials that minted the token need `sagemaker:InvokeEndpoint` on {target}"
        )),
        _ => match code.as_deref() {
            Some(c) if !c.is_empty() => AwsError::from_code(Some(c), Some(&message)),
            _ => by_status(status, message),
        },
    }
    .for_call(endpoint, component)
}

/// Whether a 401 or 403 refuses the token itself (missing, malformed, expired, or its minting
/// not allowed) rather than the call.
pub fn refuses_token(status: u16, message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    status == 401 || m.contains("callwithbearertoken") || m.contains("api key") || m.contains("token")
}

fn by_status(status: u16, message: String) -> AwsError {
    match status {
        404 => AwsError::NotFound(message),
        424 => AwsError::ModelError {
            original_status: None,
            original_message: Some(message.clone()),
            message,
            log_stream_arn: None,
        },
        429 => AwsError::Throttling(message),
        500 => AwsError::InternalFailure(message),
        502..=504 => AwsError::ServiceUnavailable(message),
        400..=499 => AwsError::Validation(message),
        _ => AwsError::Other {
            code: format!("HTTP {status}"),
            message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_missing_permission() {
        let e = classify(401, None, br#"{"message":"Token expired"}"#, "llm", None);
        assert!(e.to_string().contains("sagemaker:CallWithBearerToken"), "{e}");
        let expired = br#"{"message":"Authentication failed: Please make sure your API Key is valid. (the token expired at 2026-12-04T21:00:00Z)"}"#;
        let e = classify(403, Some("AccessDeniedException"), expired, "llm", None);
        assert!(
            e.to_string().contains("sagemaker:CallWithBearerToken") && e.to_string().contains("expired"),
            "{e}"
        );
        let e = classify(
            403,
            Some("AccessDeniedException"),
            br#"{"message":"not authorized"}"#,
            "llm",
            Some("ic"),
        );
        assert!(
            e.to_string()
                .contains("`sagemaker:InvokeEndpoint` on endpoint llm (inference component ic)"),
            "{e}"
        );
        assert_eq!(e.class(), "access_denied");
    }

    #[test]
    fn other_failures_keep_invoke_endpoints_classes() {
        let e = classify(503, None, b"busy", "llm", None);
        assert!(e.retryable() && e.class() == "service_unavailable");
        let e = classify(424, None, br#"{"error":{"message":"boom"}}"#, "llm", None);
        assert_eq!(e.class(), "model_error");
        let e = classify(
            400,
            Some("ValidationError:http://x"),
            br#"{"message":"bad"}"#,
            "llm",
            None,
        );
        assert_eq!(e.class(), "validation");
        assert!(!e.retryable());
    }
}
