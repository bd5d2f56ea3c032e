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
    /// A variant runs serverless (ServerlessConfig), without provisioned concurrency: a call
    /// after a quiet spell starts cold.
    Serverless,
    /// A serverless variant with ProvisionedConcurrency: that many executions are kept warm.
    ServerlessProvisioned,
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
            let provisioned = variants
                .iter()
                .filter_map(|v| v.serverless_config())
                .any(|s| s.provisioned_concurrency().is_some_and(|n| n > 0));
            if provisioned {
                EndpointKind::ServerlessProvisioned
            } else {
                EndpointKind::Serverless
            }
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

    /// Every kind, in the order tables list them.
    pub const ALL: [EndpointKind; 6] = [
        EndpointKind::RealTime,
        EndpointKind::MultiModel,
        EndpointKind::InferenceComponents,
        EndpointKind::Serverless,
        EndpointKind::ServerlessProvisioned,
        EndpointKind::Async,
    ];

    /// The short mark tables show: `RT`, `MME`, `IC`, `SLS`, `SLS+PC`, `ASYNC`.
    pub fn mark(self) -> &'static str {
        match self {
            EndpointKind::RealTime => "RT",
            EndpointKind::MultiModel => "MME",
            EndpointKind::InferenceComponents => "IC",
            EndpointKind::Serverless => "SLS",
            EndpointKind::ServerlessProvisioned => "SLS+PC",
            EndpointKind::Async => "ASYNC",
        }
    }

    /// The name the CLI prints and `--kind`/`kind:` filters take: `real-time`, `multi-model`,
    /// `components`, `serverless`, `serverless-provisioned`, `async`.
    pub fn name(self) -> &'static str {
        match self {
            EndpointKind::RealTime => "real-time",
            EndpointKind::MultiModel => "multi-model",
            EndpointKind::InferenceComponents => "components",
            EndpointKind::Serverless => "serverless",
            EndpointKind::ServerlessProvisioned => "serverless-provisioned",
            EndpointKind::Async => "async",
        }
    }

    /// Whether `word` names this kind: its name, its mark or a prefix of its name of three
    /// letters or more (`async`, `sls`, `server`, `ic`, `rt`, `mme`), case-insensitive;
    /// `serverless` also names the provisioned kind.
    pub fn answers_to(self, word: &str) -> bool {
        let w = word.to_ascii_lowercase();
        let name = self.name();
        w == name
            || w == self.mark().to_ascii_lowercase()
            || (w.len() >= 3 && name.starts_with(&w))
            || (self == EndpointKind::ServerlessProvisioned && (w == "sls" || w == "pc"))
            || (self == EndpointKind::InferenceComponents && w.len() >= 3 && "inference-components".starts_with(&w))
    }

    /// Whether the endpoint runs serverless (provisioned or not): no instances to count.
    pub fn is_serverless(self) -> bool {
        matches!(self, EndpointKind::Serverless | EndpointKind::ServerlessProvisioned)
    }

    /// Whether the endpoint is asynchronous (InvokeEndpointAsync only).
    pub fn is_async(self) -> bool {
        self == EndpointKind::Async
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
        let provisioned = ProductionVariant::builder()
            .variant_name("V")
            .model_name("m")
            .serverless_config(
                ProductionVariantServerlessConfig::builder()
                    .memory_size_in_mb(2048)
                    .max_concurrency(5)
                    .provisioned_concurrency(2)
                    .build(),
            )
            .build();
        assert_eq!(
            EndpointKind::of_config(&cfg(false, provisioned), false),
            EndpointKind::ServerlessProvisioned
        );
    }

    #[test]
    fn a_kind_answers_to_its_name_mark_and_prefixes() {
        assert!(EndpointKind::Async.answers_to("ASYNC"));
        assert!(EndpointKind::Async.answers_to("asy"));
        assert!(!EndpointKind::Async.answers_to("a"));
        assert!(EndpointKind::ServerlessProvisioned.answers_to("serverless"));
        assert!(EndpointKind::ServerlessProvisioned.answers_to("sls"));
        assert!(EndpointKind::Serverless.answers_to("sls"));
        assert!(!EndpointKind::Serverless.answers_to("serverless-provisioned"));
        assert!(EndpointKind::InferenceComponents.answers_to("ic"));
        assert!(EndpointKind::InferenceComponents.answers_to("inference"));
        assert!(EndpointKind::RealTime.answers_to("real-time"));
        assert!(!EndpointKind::RealTime.answers_to("serverless"));
    }
}
