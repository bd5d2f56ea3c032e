//! SageMaker Runtime's own errors: the payload limit, and ModelError as it reports a container's
//! non-2xx answer.

use axum::http::StatusCode;

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::sandbox::Sandbox;

/// SageMaker's payload limit for real-time invocations.
pub const MAX_PAYLOAD: usize = 6 * 1024 * 1024;

/// ModelError (424) as SageMaker reports a container's non-2xx answer.
pub fn model_error(sb: &Sandbox, endpoint: &str, status: u16, original: &str) -> ApiError {
    let region = &sb.config.region;
    let account = &sb.config.account;
    let class = if status < 500 { "client" } else { "server" };
    let log_group = format!("/aws/sagemaker/Endpoints/{endpoint}");
    ApiError::new(
        StatusCode::FAILED_DEPENDENCY,
        "ModelError",
        format!(
            "Received {class} error ({status}) from primary with message \"{original}\". See https://{region}.console.aws.amazon.com/cloudwatch/home?region={region}#logEventViewer:group={log_group} in account {account} for more information."
        ),
    )
    .with_field("OriginalStatusCode", status)
    .with_field("OriginalMessage", original)
    .with_field("LogStreamArn", format!("arn:aws:logs:{region}:{account}:log-group:{log_group}"))
}

/// The ValidationError SageMaker Runtime answers a payload of `len` bytes over [`MAX_PAYLOAD`].
pub fn payload_too_large(len: usize) -> ApiError {
    validation_error(format!(
        "Received payload of {len} bytes, which exceeds the maximum payload size of {MAX_PAYLOAD} bytes."
    ))
}

/// A ValidationError with this message.
pub(super) fn validation_error(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "ValidationError", message)
}
