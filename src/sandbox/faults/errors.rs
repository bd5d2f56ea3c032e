//! The error an injected fault answers with, in the shape of the service it is injected into.

use axum::http::StatusCode;

use crate::sandbox::faults::FaultKind;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::runtime::errors::model_error;
use crate::sandbox::world::sandbox::Sandbox;

/// The runtime error a fault kind answers with, if it is an error.
pub fn fault_error(kind: &FaultKind, sb: &Sandbox, endpoint: &str) -> Option<ApiError> {
    Some(match kind {
        FaultKind::Throttle => ApiError::throttling(),
        FaultKind::InternalFailure => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalFailure",
            "An internal failure occurred while processing the request (injected by the sandbox).",
        ),
        FaultKind::ServiceUnavailable => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceUnavailable",
            "The service is unavailable. Try your request again (injected by the sandbox).",
        ),
        FaultKind::ModelNotReady => ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "ModelNotReadyException",
            format!("Model for endpoint {endpoint} is not ready yet. Please retry later."),
        ),
        FaultKind::ModelError { status, message } => {
            let original = message
                .clone()
                .unwrap_or_else(|| format!("injected container failure ({status})"));
            model_error(sb, endpoint, *status, &original)
        }
        FaultKind::ExpiredToken => ApiError::new(
            StatusCode::BAD_REQUEST,
            "ExpiredTokenException",
            "The security token included in the request is expired",
        ),
        FaultKind::Slow { .. }
        | FaultKind::Hang
        | FaultKind::Drop
        | FaultKind::DeploymentFailure { .. }
        | FaultKind::RollbackFailure { .. }
        | FaultKind::MalformedToolCall
        | FaultKind::UnknownTool
        | FaultKind::QueueExpiry => return None,
    })
}
