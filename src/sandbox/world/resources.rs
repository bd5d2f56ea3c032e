//! The control plane's records as they were created: models and their containers, endpoint
//! configurations and their variants, and the S3 objects behind multi-model endpoints.

use std::collections::BTreeMap;

/// One container of a model.
#[derive(Debug, Clone)]
pub struct Container {
    /// Image URI.
    pub image: String,
    /// S3 artifact (for an MME, the prefix TargetModel is relative to).
    pub model_data_url: Option<String>,
    /// `SingleModel` or `MultiModel`.
    pub mode: String,
    /// Environment variables (the sandbox reads `SAGEDECK_*` behaviour overrides from here).
    pub environment: BTreeMap<String, String>,
    /// Container hostname, when given.
    pub hostname: Option<String>,
}

impl Container {
    /// Whether this container serves many models.
    pub fn is_multi_model(&self) -> bool {
        self.mode == "MultiModel"
    }
}

/// A SageMaker model.
#[derive(Debug, Clone)]
pub struct Model {
    /// Name.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// Creation time (epoch seconds).
    pub creation_time: f64,
    /// Execution role.
    pub execution_role_arn: String,
    /// The primary container (or the first of `Containers`).
    pub container: Container,
    /// Whether the request used `Containers` rather than `PrimaryContainer`.
    pub uses_container_list: bool,
}

/// One production variant of an endpoint configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigVariant {
    /// Variant name.
    pub name: String,
    /// Model name.
    pub model_name: String,
    /// Instance type (absent for serverless).
    pub instance_type: Option<String>,
    /// Initial instance count.
    pub initial_instance_count: i32,
    /// Initial weight (default 1.0).
    pub initial_weight: f64,
    /// Serverless configuration as sent.
    pub serverless: Option<serde_json::Value>,
    /// The variant's other settings as sent (VolumeSizeInGB, RoutingConfig, ...), echoed by
    /// DescribeEndpointConfig.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// An endpoint configuration.
#[derive(Debug, Clone)]
pub struct EndpointConfig {
    /// Name.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// Creation time.
    pub creation_time: f64,
    /// Production variants (1-10).
    pub variants: Vec<ConfigVariant>,
    /// Shadow variants (ShadowProductionVariants): a sampled copy of production traffic.
    pub shadow_variants: Vec<ConfigVariant>,
    /// The configuration's other settings as sent (DataCaptureConfig, KmsKeyId, ...), echoed by
    /// DescribeEndpointConfig.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// One object in the emulated S3 (MME model artifacts).
#[derive(Debug, Clone)]
pub struct S3Object {
    /// Size in bytes.
    pub size: u64,
    /// Last modified (epoch seconds).
    pub last_modified: f64,
    /// ETag (quoted hex).
    pub etag: String,
}

/// A resource's tags, in the order they were first added (kept by `sagemaker/tags.rs`).
pub type Tags = Vec<(String, String)>;
