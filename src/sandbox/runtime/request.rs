//! What an invocation is asked (the request's relevant parts) and what it produced.

use std::sync::Arc;

use crate::sandbox::faults::FaultKind;
use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::containers::answer::Reply;
use crate::sandbox::world::containers::llm::LlmFault;
use crate::sandbox::world::variant::VariantSim;

/// The invocation-relevant parts of a request.
#[derive(Debug, Clone, Default)]
pub struct InvokeRequest<'a> {
    /// Endpoint name.
    pub endpoint: &'a str,
    /// Content-Type of the body.
    pub content_type: &'a str,
    /// Accept.
    pub accept: Option<&'a str>,
    /// Request body.
    pub body: &'a [u8],
    /// X-Amzn-SageMaker-Target-Variant.
    pub target_variant: Option<&'a str>,
    /// X-Amzn-SageMaker-Target-Model.
    pub target_model: Option<&'a str>,
    /// X-Amzn-SageMaker-Inference-Component (InvokeEndpoint's `InferenceComponentName`).
    pub inference_component: Option<&'a str>,
    /// X-Amzn-SageMaker-Custom-Attributes.
    pub custom_attributes: Option<&'a str>,
    /// Whether this is the response-stream call.
    pub stream: bool,
    /// X-Amzn-SageMaker-Session-Id (`SessionId`): `NEW_SESSION` or an open session's id.
    pub session_id: Option<&'a str>,
    /// The instance a session pins the call to (index within the routed variant).
    pub instance: Option<usize>,
    /// X-Amzn-SageMaker-Prefix-Aware-Id (`PrefixAwareId`), the prefix-aware routing hint.
    pub prefix_aware_id: Option<&'a str>,
    /// Whether the call came on the OpenAI-compatible paths.
    pub openai: bool,
}

/// What an invocation produced, and how long the answer takes.
pub struct Outcome {
    /// The variant that served it (when routing got that far).
    pub variant: Option<String>,
    /// The simulation of that variant.
    pub sim: Option<Arc<VariantSim>>,
    /// The index of the variant's instance that answered (0 when routing did not get that far).
    pub instance: usize,
    /// The answer.
    pub result: Result<Reply, ApiError>,
    /// Seconds of model and loading latency the answer takes.
    pub model_wait: f64,
    /// Seconds that must pass regardless of `sleep_model_latency` (MME loads, slow faults).
    pub forced_wait: f64,
    /// Injected transport fault (hang or drop).
    pub transport_fault: Option<FaultKind>,
    /// Injected model fault (a generator's malformed or unknown tool call).
    pub llm_fault: Option<LlmFault>,
}

impl Outcome {
    /// An outcome that ends before the container: the error, and the variant if routed.
    pub(super) fn early(variant: Option<String>, error: ApiError) -> Outcome {
        Outcome {
            variant,
            sim: None,
            instance: 0,
            result: Err(error),
            model_wait: 0.0,
            forced_wait: 0.0,
            transport_fault: None,
            llm_fault: None,
        }
    }
}
