//! Invoking an inference component (`X-Amzn-SageMaker-Inference-Component`): the call goes to
//! the component's container (an adapter's, on its base's copies; during a rolling update, the
//! new specification's for its share of the copies). AWS's 400 ValidationErrors: an IC endpoint
//! called without a component, a component header on an endpoint that hosts none, a component at
//! zero copies (which counts a NoCapacityInvocationFailure).
//!
//! The texts for a missing or unexpected header are as AWS answers them as far as known
//! (UNVERIFIED); an unknown component's is the sandbox's; the zero-copy text is AWS's.

use std::sync::Arc;

use crate::sandbox::cloudwatch::metrics::SeriesKey;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::runtime::errors::validation_error;
use crate::sandbox::runtime::request::InvokeRequest;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::World;
use crate::sandbox::world::variant::{NS_SAGEMAKER, VariantSim};

/// AWS's answer to a call on a component with no copies.
pub const NO_CAPACITY: &str = "Inference Component has no capacity to process this request. ApplicationAutoScaling may be in-progress (if configured) or try to increase the capacity by invoking UpdateInferenceComponentRuntimeConfig API.";

/// The component a call goes to, as `(variant, simulation)`; None when neither the endpoint
/// hosts components nor the call names one (an ordinary endpoint).
pub fn route(
    sb: &Sandbox,
    world: &World,
    req: &InvokeRequest<'_>,
    now: f64,
) -> Option<Result<(String, Arc<VariantSim>), ApiError>> {
    let components = &world.components;
    let hosts = components.is_ic_endpoint(req.endpoint);
    let name = match (hosts, req.inference_component) {
        (false, None) => return None,
        (false, Some(_)) => {
            return Some(Err(validation_error(
                "Inference Component Name header is not allowed for endpoints to which you dont plan to deploy inference components. Please remove the Inference Component Name header and try again.",
            )));
        }
        (true, None) => {
            return Some(Err(validation_error(
                "Inference Component Name header is required for endpoints to which you plan to deploy inference components. Please include Inference Component Name header or consider using SageMaker models.",
            )));
        }
        (true, Some(name)) => name,
    };
    let Some(ic) = components.items.get(name).filter(|c| c.endpoint == req.endpoint) else {
        return Some(Err(validation_error(format!(
            "Inference Component {name} not found for endpoint {}.",
            req.endpoint
        ))));
    };
    let (_, current) = components.copies(name).unwrap_or((0, 0));
    if current < 1 {
        let key = SeriesKey::new(
            NS_SAGEMAKER,
            "NoCapacityInvocationFailures",
            &[("InferenceComponentName", name)],
        );
        sb.metrics.record(&key, "None", now, 1.0);
        return Some(Err(validation_error(NO_CAPACITY)));
    }
    let sim = match &ic.rollout {
        Some(r) if rand::random::<f64>() < r.new_share(ic.desired_copies) => r.new_sim.clone(),
        _ => ic.sim.clone(),
    };
    Some(Ok((ic.variant.clone(), sim)))
}
