//! Invoking a serverless variant: the call is admitted on a container (provisioned, warm, or a
//! new one that starts cold, its ModelSetupTime added to the wait and to OverheadLatency) or
//! throttled at MaxConcurrency with a 429 ThrottlingException, which the SDKs retry.
//!
//! The throttle's message is the sandbox's (UNVERIFIED against AWS; the code and status are
//! AWS's for a serverless endpoint past its max concurrency).

use axum::http::StatusCode;

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::runtime::request::InvokeRequest;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::serverless::Admitted;
use crate::sandbox::world::variant::VariantSim;

/// Admits the call on a serverless variant (None for any other variant), or the throttle.
pub fn admit(sb: &Sandbox, req: &InvokeRequest<'_>, sim: &VariantSim, now: f64) -> Result<Option<Admitted>, ApiError> {
    let Some(serverless) = sim.serverless.get() else {
        return Ok(None);
    };
    let t = &sb.config.timing;
    let timing = (t.serverless_cold_start.as_secs_f64(), t.serverless_idle.as_secs_f64());
    match serverless.admit(now, timing, rand::random::<f64>()) {
        Some(a) => Ok(Some(a)),
        None => Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "ThrottlingException",
            format!(
                "Endpoint {} has reached its maximum concurrency of {} invocations; retry later.",
                req.endpoint,
                serverless.current().max_concurrency
            ),
        )),
    }
}

/// The admitted call ends at `until` (its container is free, and warm, from then).
pub fn finish(sim: &VariantSim, admitted: Option<Admitted>, until: f64) {
    if let (Some(a), Some(serverless)) = (admitted, sim.serverless.get()) {
        serverless.finish(a.container, until);
    }
}
