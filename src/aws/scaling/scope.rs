//! What a scaling change acts on: a variant's instance count
//! (`endpoint/E/variant/V`, `sagemaker:variant:DesiredInstanceCount`), a serverless variant's
//! provisioned concurrency (`endpoint/E/variant/V`, `sagemaker:variant:DesiredProvisionedConcurrency`)
//! or an inference component's copy count (`inference-component/IC`,
//! `sagemaker:inference-component:DesiredCopyCount`).

use aws_sdk_applicationautoscaling::types::ScalableDimension;

use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::scaling::spec::{VARIANT_DIMENSION, variant_resource_id};

/// The scalable dimension of a serverless variant's provisioned concurrency.
pub const PROVISIONED_DIMENSION: &str = "sagemaker:variant:DesiredProvisionedConcurrency";
/// The predefined metric of provisioned concurrency (concurrent executions over provisioned
/// concurrency, 0 to 1).
pub const PROVISIONED_UTILIZATION: &str = "SageMakerVariantProvisionedConcurrencyUtilization";

/// The scalable dimension of an inference component.
pub const COMPONENT_DIMENSION: &str = "sagemaker:inference-component:DesiredCopyCount";
/// The predefined metric of inference components (invocations per copy per minute).
pub const INVOCATIONS_PER_COPY: &str = "SageMakerInferenceComponentInvocationsPerCopy";
/// The high-resolution (10 s) predefined metric of inference components.
pub const CONCURRENT_REQUESTS_PER_COPY: &str = "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution";
/// The metric a call to a component at zero copies adds to (`AWS/SageMaker`, dimension
/// `InferenceComponentName`): what wakes a component scaled to zero.
pub const NO_CAPACITY_METRIC: &str = "NoCapacityInvocationFailures";

/// `inference-component/IC`.
pub fn component_resource_id(component: &str) -> String {
    format!("inference-component/{component}")
}

/// The component of `inference-component/IC`.
pub fn split_component_resource(id: &str) -> Option<&str> {
    id.strip_prefix("inference-component/")
}

/// The scaled resource of a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScalingScope {
    /// A variant of an endpoint (its instance count).
    Variant {
        /// Endpoint.
        endpoint: String,
        /// Variant.
        variant: String,
    },
    /// A serverless variant of an endpoint (its provisioned concurrency).
    Provisioned {
        /// Endpoint.
        endpoint: String,
        /// Variant.
        variant: String,
    },
    /// An inference component of an endpoint (its copy count).
    Component {
        /// Endpoint hosting it.
        endpoint: String,
        /// Component.
        component: String,
    },
}

impl ScalingScope {
    /// The scope of `variant` of `info`: its provisioned concurrency when it is serverless, else
    /// its instance count.
    pub fn of_variant(info: &EndpointInfo, variant: &str) -> ScalingScope {
        let (endpoint, variant) = (info.name.clone(), variant.to_string());
        let serverless = info.variant(&variant).is_some_and(|v| v.serverless.is_some());
        if serverless {
            ScalingScope::Provisioned { endpoint, variant }
        } else {
            ScalingScope::Variant { endpoint, variant }
        }
    }

    /// The endpoint.
    pub fn endpoint(&self) -> &str {
        match self {
            ScalingScope::Variant { endpoint, .. }
            | ScalingScope::Provisioned { endpoint, .. }
            | ScalingScope::Component { endpoint, .. } => endpoint,
        }
    }

    /// The variant's or the component's name.
    pub fn name(&self) -> &str {
        match self {
            ScalingScope::Variant { variant, .. } | ScalingScope::Provisioned { variant, .. } => variant,
            ScalingScope::Component { component, .. } => component,
        }
    }

    /// Application Auto Scaling's ResourceId.
    pub fn resource_id(&self) -> String {
        match self {
            ScalingScope::Variant { endpoint, variant } | ScalingScope::Provisioned { endpoint, variant } => {
                variant_resource_id(endpoint, variant)
            }
            ScalingScope::Component { component, .. } => component_resource_id(component),
        }
    }

    /// The scalable dimension, as text.
    pub fn dimension_text(&self) -> &'static str {
        match self {
            ScalingScope::Variant { .. } => VARIANT_DIMENSION,
            ScalingScope::Provisioned { .. } => PROVISIONED_DIMENSION,
            ScalingScope::Component { .. } => COMPONENT_DIMENSION,
        }
    }

    /// The scalable dimension, for the SDK.
    pub fn dimension(&self) -> ScalableDimension {
        ScalableDimension::from(self.dimension_text())
    }

    /// What a count of this resource is called (`instances`, `provisioned concurrency`, `copies`).
    pub fn unit(&self) -> &'static str {
        match self {
            ScalingScope::Variant { .. } => "instances",
            ScalingScope::Provisioned { .. } => "provisioned concurrency",
            ScalingScope::Component { .. } => "copies",
        }
    }
}
