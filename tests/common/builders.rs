//! Builders for the inventory the tests hand to the console and the fleet layer: a variant and an
//! endpoint with plain defaults, changed by chained setters, so that each test names only what
//! it cares about.
#![allow(dead_code)]

use sagedeck::aws::endpoints::autoscaling::ScalingInfo;
use sagedeck::aws::endpoints::inventory::{EndpointInfo, VariantInfo};
use sagedeck::aws::endpoints::kind::EndpointKind;
use sagedeck::aws::endpoints::shape::{AsyncInfo, ServerlessInfo};

/// The account every built ARN names.
pub const ACCOUNT: &str = "123456789012";

/// A production variant being built: see [`variant`].
#[derive(Debug, Clone)]
pub struct VariantBuilder(VariantInfo);

/// A variant named `name` serving `{name}-model` on one `ml.m5.large` instance at weight 1 and
/// the whole traffic, nothing in flight, no image, not multi-model.
pub fn variant(name: &str) -> VariantBuilder {
    VariantBuilder(VariantInfo {
        name: name.into(),
        model_name: Some(format!("{name}-model")),
        instance_type: Some("ml.m5.large".into()),
        routing: None,
        current_weight: 1.0,
        desired_weight: 1.0,
        traffic_share: 1.0,
        current_instances: 1,
        desired_instances: 1,
        statuses: vec![],
        image: None,
        multi_model: false,
        model_data_url: None,
        serverless: None,
    })
}

impl VariantBuilder {
    /// The model behind it.
    pub fn model(mut self, model: &str) -> Self {
        self.0.model_name = Some(model.into());
        self
    }

    /// No model name known.
    pub fn no_model(mut self) -> Self {
        self.0.model_name = None;
        self
    }

    /// The instance type.
    pub fn instance_type(mut self, instance_type: &str) -> Self {
        self.0.instance_type = Some(instance_type.into());
        self
    }

    /// No instance type (serverless).
    pub fn no_instance_type(mut self) -> Self {
        self.0.instance_type = None;
        self
    }

    /// The weight, current and desired.
    pub fn weight(mut self, weight: f64) -> Self {
        self.0.current_weight = weight;
        self.0.desired_weight = weight;
        self
    }

    /// The share of traffic now (0..=1).
    pub fn share(mut self, share: f64) -> Self {
        self.0.traffic_share = share;
        self
    }

    /// The instance count, current and desired.
    pub fn instances(mut self, count: i32) -> Self {
        self.0.current_instances = count;
        self.0.desired_instances = count;
        self
    }

    /// The container image.
    pub fn image(mut self, image: &str) -> Self {
        self.0.image = Some(image.into());
        self
    }

    /// A multi-model container whose models live under `prefix`.
    pub fn mme(mut self, prefix: &str) -> Self {
        self.0.multi_model = true;
        self.0.model_data_url = Some(prefix.into());
        self
    }

    /// A serverless variant of `memory_mb` with `max` concurrency and `provisioned` (no instance
    /// type, no instances).
    pub fn serverless(mut self, memory_mb: i32, max: i32, provisioned: Option<i32>) -> Self {
        self.0.instance_type = None;
        self.0.current_instances = 0;
        self.0.desired_instances = 0;
        self.0.serverless = Some(ServerlessInfo {
            memory_mb,
            max_concurrency: max,
            desired_max_concurrency: max,
            provisioned,
            desired_provisioned: provisioned,
        });
        self
    }

    /// The variant.
    pub fn build(self) -> VariantInfo {
        self.0
    }
}

/// An endpoint being built: see [`endpoint`].
#[derive(Debug, Clone)]
pub struct EndpointBuilder(EndpointInfo);

/// An InService endpoint named `name` in us-east-1 of [`ACCOUNT`], created and last modified at
/// 1_700_000_000 (epoch seconds), configuration `{name}-config`, no variants, no autoscaling.
pub fn endpoint(name: &str) -> EndpointBuilder {
    EndpointBuilder(EndpointInfo {
        name: name.into(),
        arn: format!("arn:aws:sagemaker:us-east-1:{ACCOUNT}:endpoint/{name}"),
        status: "InService".into(),
        failure_reason: None,
        created: 1_700_000_000.0,
        modified: 1_700_000_000.0,
        config_name: Some(format!("{name}-config")),
        variants: vec![],
        multi_model: false,
        kind: EndpointKind::RealTime,
        shape: Default::default(),
        autoscaling: vec![],
        deploying: false,
    })
}

impl EndpointBuilder {
    /// The ARN.
    pub fn arn(mut self, arn: &str) -> Self {
        self.0.arn = arn.into();
        self
    }

    /// The status as AWS spells it.
    pub fn status(mut self, status: &str) -> Self {
        self.0.status = status.into();
        self
    }

    /// Why it failed.
    pub fn failure(mut self, reason: &str) -> Self {
        self.0.failure_reason = Some(reason.into());
        self
    }

    /// When it was created (epoch seconds).
    pub fn created(mut self, at: f64) -> Self {
        self.0.created = at;
        self
    }

    /// When it was last modified (epoch seconds).
    pub fn modified(mut self, at: f64) -> Self {
        self.0.modified = at;
        self
    }

    /// The endpoint configuration's name.
    pub fn config(mut self, name: &str) -> Self {
        self.0.config_name = Some(name.into());
        self
    }

    /// No endpoint configuration known.
    pub fn no_config(mut self) -> Self {
        self.0.config_name = None;
        self
    }

    /// The production variants; the endpoint is multi-model (of that kind) when one of them is.
    pub fn variants(mut self, variants: impl IntoIterator<Item = VariantBuilder>) -> Self {
        self.0.variants = variants.into_iter().map(VariantBuilder::build).collect();
        self.0.multi_model = self.0.variants.iter().any(|v| v.multi_model);
        if self.0.multi_model {
            self.0.kind = EndpointKind::MultiModel;
        }
        self
    }

    /// The kind (an inference-components endpoint: `EndpointKind::InferenceComponents`).
    pub fn kind(mut self, kind: EndpointKind) -> Self {
        self.0.kind = kind;
        self
    }

    /// Asynchronous: the kind and its configuration.
    pub fn asynchronous(mut self, config: AsyncInfo) -> Self {
        self.0.kind = EndpointKind::Async;
        self.0.shape.asynchronous = Some(config);
        self
    }

    /// A shadow variant (its share: the share of production requests copied to it).
    pub fn shadow(mut self, shadow: VariantBuilder) -> Self {
        self.0.shape.shadow_variants.push(shadow.build());
        self
    }

    /// The autoscaling of its variants.
    pub fn autoscaling(mut self, scaling: Vec<ScalingInfo>) -> Self {
        self.0.autoscaling = scaling;
        self
    }

    /// The endpoint.
    pub fn build(self) -> EndpointInfo {
        self.0
    }
}

/// Endpoints as the console's inventory holds them (each description shared).
pub fn shared(endpoints: Vec<EndpointInfo>) -> Vec<std::sync::Arc<EndpointInfo>> {
    endpoints.into_iter().map(std::sync::Arc::new).collect()
}
