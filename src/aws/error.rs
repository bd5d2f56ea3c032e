//! One classification of every AWS failure the console and CLI can meet, with what to do next.

use aws_sdk_sagemaker::error::SdkError;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use serde::Serialize;

/// A classified AWS failure. `Display` is one line: what happened, then what to do.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum AwsError {
    /// The model container answered non-2xx (ModelError, HTTP 424).
    #[error("model error: the container answered {} ({}){}", status_text(*.original_status), .original_message.as_deref().unwrap_or(.message), log_hint(.log_stream_arn))]
    ModelError {
        /// The container's HTTP status.
        original_status: Option<i32>,
        /// The container's response body.
        original_message: Option<String>,
        /// SageMaker's full message.
        message: String,
        /// CloudWatch log group of the endpoint.
        log_stream_arn: Option<String>,
    },
    /// An MME model is still loading (ModelNotReadyException, 429).
    #[error("model not ready: {0} (it is still loading; retry in a few seconds)")]
    #[serde(serialize_with = "as_message")]
    ModelNotReady(String),
    /// The API throttled the call.
    #[error("throttled: {0} (slow down or raise the refresh interval)")]
    #[serde(serialize_with = "as_message")]
    Throttling(String),
    /// SageMaker infrastructure failure (500).
    #[error("internal failure: {0} (SageMaker-side; retrying is safe)")]
    #[serde(serialize_with = "as_message")]
    InternalFailure(String),
    /// The endpoint or service is unavailable (503).
    #[error("service unavailable: {0} (the endpoint may be starting or scaling; retry with backoff)")]
    #[serde(serialize_with = "as_message")]
    ServiceUnavailable(String),
    /// The request was refused as invalid.
    #[error("invalid request: {0}")]
    #[serde(serialize_with = "as_message")]
    Validation(String),
    /// An endpoint that hosts inference components was called without naming one.
    #[error("this endpoint hosts inference components: pass --inference-component{}", components_hint(.components))]
    ComponentRequired {
        /// SageMaker's message.
        message: String,
        /// The endpoint's components, when they could be listed.
        components: Vec<String>,
    },
    /// The inference component has no copies to serve the call: it is scaled to zero.
    #[error("inference component {} has no copies to serve the call (scaled to zero): pass --wait-for-capacity to wake it and retry, or wake it with `sagedeck components {} --wake {}`", .component.as_deref().unwrap_or("?"), .endpoint.as_deref().unwrap_or("ENDPOINT"), .component.as_deref().unwrap_or("IC"))]
    NoCapacity {
        /// SageMaker's message.
        message: String,
        /// The endpoint called, when known.
        endpoint: Option<String>,
        /// The component called, when known.
        component: Option<String>,
    },
    /// A synchronous invocation of an asynchronous endpoint (AWS refuses it).
    #[error("{endpoint} is an asynchronous endpoint: invoke it with `sagedeck invoke-async {endpoint}`")]
    AsyncOnly {
        /// The endpoint called.
        endpoint: String,
        /// SageMaker's message.
        message: String,
    },
    /// The resource does not exist.
    #[error("not found: {0}")]
    #[serde(serialize_with = "as_message")]
    NotFound(String),
    /// The credentials may not do this, are invalid, or expired.
    #[error("access denied: {0} (check the profile's permissions; for SSO run `aws sso login`)")]
    #[serde(serialize_with = "as_message")]
    AccessDenied(String),
    /// The call did not finish in time.
    #[error("timed out: {0}")]
    #[serde(serialize_with = "as_message")]
    Timeout(String),
    /// The endpoint URL could not be reached or the connection broke.
    #[error("network error: {0} (check --endpoint-url / --region and your connection)")]
    #[serde(serialize_with = "as_message")]
    Network(String),
    /// Configuration is missing (credentials, region).
    #[error("{0}")]
    #[serde(serialize_with = "as_message")]
    Config(String),
    /// Anything else, with its code.
    #[error("{code}: {message}")]
    Other {
        /// Error code.
        code: String,
        /// Message.
        message: String,
    },
}

/// A one-string variant as `{"class": …, "message": …}` (an internally tagged enum cannot write a
/// bare string beside its tag).
fn as_message<S: serde::Serializer>(message: &str, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut fields = s.serialize_struct("AwsError", 1)?;
    fields.serialize_field("message", message)?;
    fields.end()
}

/// Whether a ValidationError refuses a synchronous call because the endpoint is asynchronous.
fn is_async_refusal(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("invokeendpointasync") || m.contains("asynchronous endpoint") || m.contains("async endpoint")
}

fn status_text(s: Option<i32>) -> String {
    s.map(|s| format!("HTTP {s}")).unwrap_or_else(|| "an error".into())
}

fn components_hint(names: &[String]) -> String {
    match names {
        [] => String::new(),
        names => format!(" (one of: {})", names.join(", ")),
    }
}

fn log_hint(arn: &Option<String>) -> String {
    match arn {
        Some(a) => format!("; logs: {}", a.rsplit(':').next().unwrap_or(a)),
        None => String::new(),
    }
}

impl AwsError {
    /// Whether retrying the same call may succeed: InternalFailure, ServiceUnavailable,
    /// ModelNotReady and Throttling only — never ModelError or Validation.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            AwsError::InternalFailure(_)
                | AwsError::ServiceUnavailable(_)
                | AwsError::ModelNotReady(_)
                | AwsError::Throttling(_)
        )
    }

    /// Short class name (`model_error`, `throttling`, ...), as in `--json` output.
    pub fn class(&self) -> &'static str {
        match self {
            AwsError::ModelError { .. } => "model_error",
            AwsError::ModelNotReady(_) => "model_not_ready",
            AwsError::Throttling(_) => "throttling",
            AwsError::InternalFailure(_) => "internal_failure",
            AwsError::ServiceUnavailable(_) => "service_unavailable",
            AwsError::Validation(_) => "validation",
            AwsError::ComponentRequired { .. } => "component_required",
            AwsError::NoCapacity { .. } => "no_capacity",
            AwsError::AsyncOnly { .. } => "async_only",
            AwsError::NotFound(_) => "not_found",
            AwsError::AccessDenied(_) => "access_denied",
            AwsError::Timeout(_) => "timeout",
            AwsError::Network(_) => "network",
            AwsError::Config(_) => "config",
            AwsError::Other { .. } => "other",
        }
    }

    /// Names the endpoint and component of the call that failed, for the errors that say what to
    /// do with them (a component at zero copies).
    pub fn for_call(self, endpoint: &str, component: Option<&str>) -> AwsError {
        match self {
            AwsError::NoCapacity { message, .. } => AwsError::NoCapacity {
                message,
                endpoint: Some(endpoint.to_string()),
                component: component.map(str::to_string),
            },
            AwsError::AsyncOnly { message, .. } => AwsError::AsyncOnly {
                message,
                endpoint: endpoint.to_string(),
            },
            other => other,
        }
    }

    /// Classifies a service error by its code and message.
    pub fn from_code(code: Option<&str>, message: Option<&str>) -> AwsError {
        let message = message.unwrap_or("").to_string();
        let code = code.unwrap_or("Unknown");
        match code {
            "ModelError" => AwsError::ModelError {
                original_status: None,
                original_message: None,
                message,
                log_stream_arn: None,
            },
            "ModelNotReadyException" => AwsError::ModelNotReady(message),
            "ThrottlingException"
            | "Throttling"
            | "ThrottledException"
            | "TooManyRequestsException"
            | "RequestLimitExceeded"
            | "SlowDown"
            | "LimitExceededException" => AwsError::Throttling(message),
            "InternalFailure"
            | "InternalServerError"
            | "InternalServerException"
            | "InternalError"
            | "InternalServiceError"
            | "InternalServiceException"
            | "InternalDependencyException"
            | "InternalStreamFailure" => AwsError::InternalFailure(message),
            "ServiceUnavailable" | "ServiceUnavailableException" => AwsError::ServiceUnavailable(message),
            "ValidationError"
            | "ValidationException"
            | "InvalidParameterValue"
            | "InvalidParameterValueException"
            | "InvalidArgument"
            | "SerializationException" => {
                if message.starts_with("Could not find") || message.contains(" not found.") {
                    AwsError::NotFound(message)
                } else if message.contains("Inference Component Name header is required") {
                    AwsError::ComponentRequired {
                        message,
                        components: Vec::new(),
                    }
                } else if is_async_refusal(&message) {
                    AwsError::AsyncOnly {
                        endpoint: String::new(),
                        message,
                    }
                } else if message.contains("has no capacity to process this request") {
                    AwsError::NoCapacity {
                        message,
                        endpoint: None,
                        component: None,
                    }
                } else {
                    AwsError::Validation(message)
                }
            }
            "ResourceNotFound"
            | "ResourceNotFoundException"
            | "ObjectNotFoundException"
            | "NoSuchBucket"
            | "NoSuchKey"
            | "NotFound" => AwsError::NotFound(message),
            "AccessDenied"
            | "AccessDeniedException"
            | "UnrecognizedClientException"
            | "InvalidSignatureException"
            | "ExpiredToken"
            | "ExpiredTokenException"
            | "InvalidClientTokenId"
            | "SignatureDoesNotMatch" => {
                AwsError::AccessDenied(if message.is_empty() { code.to_string() } else { message })
            }
            other => AwsError::Other {
                code: other.to_string(),
                message,
            },
        }
    }

    /// Classifies any SDK error.
    pub fn from_sdk<E, R>(err: SdkError<E, R>) -> AwsError
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
        R: std::fmt::Debug + 'static,
    {
        match &err {
            SdkError::ServiceError(se) if se.err().code().is_none() && se.err().message().is_none() => {
                AwsError::Other {
                    code: "Unknown".into(),
                    message: unexplained_error_text(se.raw()),
                }
            }
            SdkError::ServiceError(se) => AwsError::from_code(se.err().code(), se.err().message()),
            SdkError::TimeoutError(_) => AwsError::Timeout("the call exceeded its deadline".into()),
            SdkError::DispatchFailure(df) => {
                let text = chain_text(&err);
                if df.is_timeout() {
                    AwsError::Timeout(text)
                } else if text.contains("credential") || text.contains("identity") {
                    AwsError::Config(no_credentials_text(&text))
                } else {
                    AwsError::Network(text)
                }
            }
            SdkError::ConstructionFailure(_) => {
                let text = chain_text(&err);
                if text.contains("region") {
                    AwsError::Config(NO_REGION.into())
                } else {
                    AwsError::Other {
                        code: "RequestConstruction".into(),
                        message: text,
                    }
                }
            }
            SdkError::ResponseError(_) => {
                AwsError::Network(format!("the answer could not be read: {}", chain_text(&err)))
            }
            _ => AwsError::Other {
                code: "Unknown".into(),
                message: chain_text(&err),
            },
        }
    }
}

/// What to say of an error answer that names neither a code nor a message: its HTTP status.
fn unexplained_error_text(raw: &dyn std::any::Any) -> String {
    let status = raw
        .downcast_ref::<aws_sdk_sagemaker::config::http::HttpResponse>()
        .map(|r| r.status().as_u16());
    match status {
        Some(s) => format!("the service refused the call with HTTP {s} and no error code or message"),
        None => "the service refused the call with no error code or message".into(),
    }
}

/// The line printed when no region is configured.
pub const NO_REGION: &str = "no AWS region: pass --region, set AWS_REGION, or set `region` in your AWS profile";

/// The line printed when no credentials can be found.
pub fn no_credentials_text(detail: &str) -> String {
    let detail = if detail.contains("no credentials found in chain") {
        "none found in the environment, profiles, SSO cache, web identity, container or instance metadata"
    } else {
        detail.lines().next().unwrap_or(detail)
    };
    format!(
        "no usable AWS credentials ({detail}): set AWS_PROFILE or pass --profile (run `aws sso login` for SSO profiles), or set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"
    )
}

/// The error and its sources on one line, without debug dumps.
pub fn chain_text(err: &dyn std::error::Error) -> String {
    let mut parts = vec![err.to_string()];
    let mut src = err.source();
    while let Some(s) = src {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        src = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_error_is_written_as_json_with_its_class_and_message() {
        let timeout = serde_json::to_value(AwsError::Timeout("the call exceeded its deadline".into())).unwrap();
        assert_eq!(
            timeout,
            serde_json::json!({"class": "timeout", "message": "the call exceeded its deadline"})
        );
        let other = AwsError::Other {
            code: "X".into(),
            message: "m".into(),
        };
        let other = serde_json::to_value(other).unwrap();
        assert_eq!(
            other,
            serde_json::json!({"class": "other", "code": "X", "message": "m"})
        );
    }

    #[test]
    fn classification_and_retryability() {
        assert!(AwsError::from_code(Some("ThrottlingException"), None).retryable());
        assert!(AwsError::from_code(Some("ServiceUnavailable"), None).retryable());
        assert!(AwsError::from_code(Some("InternalFailure"), None).retryable());
        assert!(AwsError::from_code(Some("ModelNotReadyException"), None).retryable());
        assert!(!AwsError::from_code(Some("ModelError"), None).retryable());
        assert!(!AwsError::from_code(Some("ValidationError"), Some("bad")).retryable());
        assert_eq!(
            AwsError::from_code(Some("ValidationException"), Some("Could not find endpoint \"x\".")).class(),
            "not_found"
        );
        assert_eq!(
            AwsError::from_code(Some("ExpiredTokenException"), None).class(),
            "access_denied"
        );
    }

    #[test]
    fn component_classes() {
        let missing = AwsError::from_code(
            Some("ValidationError"),
            Some(
                "Inference Component Name header is required for endpoints to which you plan to deploy inference components. Please include Inference Component Name header or consider using SageMaker models.",
            ),
        );
        assert_eq!(missing.class(), "component_required");
        let missing = match missing {
            AwsError::ComponentRequired { message, .. } => AwsError::ComponentRequired {
                message,
                components: vec!["llm".into(), "adapter".into()],
            },
            other => other,
        };
        assert_eq!(
            missing.to_string(),
            "this endpoint hosts inference components: pass --inference-component (one of: llm, adapter)"
        );
        let zero = AwsError::from_code(
            Some("ValidationError"),
            Some("Inference Component has no capacity to process this request. ApplicationAutoScaling may be in-progress (if configured) or try to increase the capacity by invoking UpdateInferenceComponentRuntimeConfig API."),
        )
        .for_call("ep", Some("llm"));
        assert_eq!(zero.class(), "no_capacity");
        assert!(!zero.retryable());
        let text = zero.to_string();
        assert!(
            text.contains("--wait-for-capacity") && text.contains("components ep --wake llm"),
            "{text}"
        );
    }

    #[test]
    fn display_is_one_line() {
        let e = AwsError::ModelError {
            original_status: Some(415),
            original_message: Some("unsupported".into()),
            message: "m".into(),
            log_stream_arn: Some("arn:aws:logs:r:a:log-group:/aws/sagemaker/Endpoints/x".into()),
        };
        let s = e.to_string();
        assert!(!s.contains('\n'));
        assert!(s.contains("HTTP 415") && s.contains("/aws/sagemaker/Endpoints/x"));
    }
}
