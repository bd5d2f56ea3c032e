//! What kind of endpoint a configuration makes: real-time (one model per variant), multi-model,
//! inference components (variants with instances but no model, the configuration naming an
//! execution role), serverless, or asynchronous. Read from the endpoint configuration and the
//! variants' models, which the inventory describes anyway.

use aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput;
use serde::{Deserialize, Serialize};

/// The kind of an endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndpointKind {
    /// Each variant serves the one model it names (also an endpoint not described yet).
    #[default]
    RealTime,
    /// A variant's container serves many models from one S3 prefix (`TargetModel`).
    MultiModel,
    /// Variants carry instances but no model; inference components bring the models.
    InferenceComponents,
    /// A variant runs serverless (ServerlessConfig).
    Serverless,
    /// The configuration has an AsyncInferenceConfig.
    Async,
}

impl EndpointKind {
    /// The kind `config` makes; `multi_model` says whether a variant's model is multi-model.
    /// Asynchronous and serverless win over the rest; inference components are a configuration
    /// with an ExecutionRoleArn whose variants name no model.
    pub fn of_config(config: &DescribeEndpointConfigOutput, multi_model: bool) -> EndpointKind {
        let variants = config.production_variants();
        if config.async_inference_config().is_some() {
            EndpointKind::Async
        } else if variants.iter().any(|v| v.serverless_config().is_some()) {
            EndpointKind::Serverless
        } else if config.execution_role_arn().is_some()
            && !variants.is_empty()
            && variants.iter().all(|v| v.model_name().is_none())
        {
            EndpointKind::InferenceComponents
        } else if multi_model {
            EndpointKind::MultiModel
        } else {
            EndpointKind::RealTime
        }
    }

    /// The short mark tables show: `RT`, `MME`, `IC`, `SLS`, `ASYNC`.
    pub fn mark(self) -> &'static str {
        match self {
            EndpointKind::RealTime => "RT",
            EndpointKind::MultiModel => "MME",
            EndpointKind::InferenceComponents => "IC",
            EndpointKind::Serverless => "SLS",
            EndpointKind::Async => "ASYNC",
        }
    }

    /// Whether the endpoint hosts inference components.
    pub fn is_components(self) -> bool {
        self == EndpointKind::InferenceComponents
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_sagemaker::types::{AsyncInferenceConfig, ProductionVariant, ProductionVariantServerlessConfig};

    fn variant(model: Option<&str>) -> ProductionVariant {
        ProductionVariant::builder()
            .variant_name("V")
            .set_model_name(model.map(str::to_string))
            .build()
    }

    #[test]
    fn each_kind_is_told_from_its_configuration() {
        let cfg = |role: bool, v: ProductionVariant| {
            DescribeEndpointConfigOutput::builder()
                .set_execution_role_arn(role.then(|| "arn:aws:iam::1:role/r".to_string()))
                .production_variants(v)
                .build()
        };
        assert_eq!(
            EndpointKind::of_config(&cfg(false, variant(Some("m"))), false),
            EndpointKind::RealTime
        );
        assert_eq!(
            EndpointKind::of_config(&cfg(false, variant(Some("m"))), true),
            EndpointKind::MultiModel
        );
        assert_eq!(
            EndpointKind::of_config(&cfg(true, variant(None)), false),
            EndpointKind::InferenceComponents
        );
        // A role alone does not make components: the variant still names its model.
        assert_eq!(
            EndpointKind::of_config(&cfg(true, variant(Some("m"))), false),
            EndpointKind::RealTime
        );
        let sls = ProductionVariant::builder()
            .variant_name("V")
            .model_name("m")
            .serverless_config(
                ProductionVariantServerlessConfig::builder()
                    .memory_size_in_mb(2048)
                    .max_concurrency(5)
                    .build(),
            )
            .build();
        assert_eq!(
            EndpointKind::of_config(&cfg(false, sls), false),
            EndpointKind::Serverless
        );
        let asynchronous = DescribeEndpointConfigOutput::builder()
            .production_variants(variant(Some("m")))
            .async_inference_config(AsyncInferenceConfig::builder().build())
            .build();
        assert_eq!(EndpointKind::of_config(&asynchronous, false), EndpointKind::Async);
        assert_eq!(EndpointKind::InferenceComponents.mark(), "IC");
    }
}
