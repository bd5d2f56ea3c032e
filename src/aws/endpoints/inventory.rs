//! Fleet inventory: what the console and the CLI know of each endpoint, and how one endpoint is
//! described (DescribeEndpoint, then DescribeEndpointConfig and DescribeModel from the describe
//! cache). The listing and the describes of a whole fleet are `progressive.rs`; partial failures
//! keep the rest and say which failed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Serialize;

use crate::aws::cache::ModelFacts;
use crate::aws::config::Fleet;
use crate::aws::endpoints::autoscaling::{ScalingInfo, fleet_scaling};
use crate::aws::endpoints::kind::EndpointKind;
use crate::aws::endpoints::routing::RoutingInfo;
use crate::aws::endpoints::shape::{AsyncInfo, ServerlessInfo, sampled_share};
use crate::aws::error::AwsError;

/// One production variant as the console shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct VariantInfo {
    /// Variant name.
    pub name: String,
    /// Model behind it.
    pub model_name: Option<String>,
    /// Instance type (None for serverless).
    pub instance_type: Option<String>,
    /// Its RoutingConfig, when the configuration sets one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<RoutingInfo>,
    /// Weight routing uses now.
    pub current_weight: f64,
    /// Weight being rolled out.
    pub desired_weight: f64,
    /// Share of traffic now: current weight / sum of current weights.
    pub traffic_share: f64,
    /// Instances serving now.
    pub current_instances: i32,
    /// Instances being rolled out.
    pub desired_instances: i32,
    /// In-flight variant statuses (Creating, Updating, ActivatingTraffic, Baking ...).
    pub statuses: Vec<String>,
    /// Container image.
    pub image: Option<String>,
    /// Whether the container serves many models.
    pub multi_model: bool,
    /// Model artifact (for an MME, the prefix TargetModel is relative to).
    pub model_data_url: Option<String>,
    /// A serverless variant's memory and concurrency (None: instance-backed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serverless: Option<ServerlessInfo>,
}

/// What an endpoint's shape adds to its production variants: its asynchronous configuration and
/// its shadow variants.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EndpointShape {
    /// The asynchronous configuration (None: a real-time endpoint).
    #[serde(skip_serializing_if = "Option::is_none", rename = "async")]
    pub asynchronous: Option<AsyncInfo>,
    /// Shadow variants: each receives a sampled copy of production traffic and never answers the
    /// caller. Their `traffic_share` is the share of production requests copied to them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shadow_variants: Vec<VariantInfo>,
}

impl EndpointShape {
    /// Whether the shape adds nothing: real-time without shadow.
    pub fn is_plain(&self) -> bool {
        self.asynchronous.is_none() && self.shadow_variants.is_empty()
    }

    /// Whether the endpoint has shadow variants (the SHADOW mark).
    pub fn has_shadow(&self) -> bool {
        !self.shadow_variants.is_empty()
    }
}

/// One endpoint with everything the console knows about it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EndpointInfo {
    /// Name.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// Status as AWS spells it.
    pub status: String,
    /// Why it failed.
    pub failure_reason: Option<String>,
    /// Creation time (epoch seconds).
    pub created: f64,
    /// Last modification (epoch seconds).
    pub modified: f64,
    /// Endpoint configuration.
    pub config_name: Option<String>,
    /// Production variants.
    pub variants: Vec<VariantInfo>,
    /// Whether any variant serves a multi-model container.
    pub multi_model: bool,
    /// Real-time, multi-model, inference components, serverless or asynchronous (read from the
    /// configuration; real-time until it is described).
    pub kind: EndpointKind,
    /// Its asynchronous configuration and shadow variants (left out of JSON when it has neither).
    #[serde(skip_serializing_if = "EndpointShape::is_plain")]
    pub shape: EndpointShape,
    /// Autoscaling per variant.
    pub autoscaling: Vec<ScalingInfo>,
    /// A deployment is in flight: a PendingDeploymentSummary, or Updating with a DeploymentConfig.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deploying: bool,
}

impl EndpointInfo {
    /// The variant with this name.
    pub fn variant(&self, name: &str) -> Option<&VariantInfo> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// The MME prefix (ModelDataUrl) of the endpoint, when it is one.
    pub fn mme_prefix(&self) -> Option<&str> {
        self.variants
            .iter()
            .find(|v| v.multi_model)
            .and_then(|v| v.model_data_url.as_deref())
    }
}

/// A fleet inventory: every endpoint that could be described, and the ones that could not.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Inventory {
    /// Endpoints, in ListEndpoints order (newest first).
    pub endpoints: Vec<std::sync::Arc<EndpointInfo>>,
    /// Endpoints whose description failed, and why.
    pub failures: Vec<InventoryFailure>,
    /// API calls made.
    pub api_calls: usize,
    /// Wall time in milliseconds.
    pub elapsed_ms: u64,
    /// Endpoints described by this read (a refresh describes only what changed).
    #[serde(skip)]
    pub described: usize,
    /// Listed endpoints never described yet (throttled, or past the refresh's deadline): their
    /// rows hold only what ListEndpoints gave.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// Control-plane calls AWS throttled during the read (after the SDK's own retries): a
    /// throttled describe's row keeps what it had.
    #[serde(skip_serializing_if = "is_zero")]
    pub throttled: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One endpoint the inventory could not describe.
#[derive(Debug, Clone, Serialize)]
pub struct InventoryFailure {
    /// Endpoint name.
    pub endpoint: String,
    /// What went wrong.
    pub error: AwsError,
}

/// How an inventory is taken.
#[derive(Debug, Clone, Copy)]
pub struct InventoryOptions {
    /// Describe calls in flight at once (default 8).
    pub concurrency: usize,
    /// Deadline of each describe call (default 10 s).
    pub call_deadline: Duration,
    /// Whether to load autoscaling targets and policies too.
    pub autoscaling: bool,
}

impl Default for InventoryOptions {
    fn default() -> Self {
        InventoryOptions {
            concurrency: 8,
            call_deadline: Duration::from_secs(10),
            autoscaling: true,
        }
    }
}

fn epoch(t: Option<&aws_smithy_types::DateTime>) -> f64 {
    t.map(|t| t.as_secs_f64()).unwrap_or(0.0)
}

impl Fleet {
    /// Describes one endpoint, its configuration and its models.
    pub async fn describe_endpoint_info(&self, name: &str, calls: &AtomicUsize) -> Result<EndpointInfo, AwsError> {
        calls.fetch_add(1, Ordering::Relaxed);
        let call = self.sagemaker.describe_endpoint().endpoint_name(name).send();
        let ep = self
            .budget
            .metered(async { call.await.map_err(AwsError::from_sdk) })
            .await?;
        let config = match ep.endpoint_config_name() {
            Some(c) => Some(self.endpoint_config(c, calls).await?),
            None => None,
        };
        let config_variants = config.as_ref().map(|c| c.production_variants()).unwrap_or_default();
        let models = self.models_of(config_variants, calls).await;
        let mut variants = live_variants(ep.production_variants(), config_variants, &models);
        if variants.is_empty() {
            // Creating endpoints may not list live variants yet: show the configured ones.
            variants = configured_variants(config_variants, &models);
        }
        let shape = match config.as_deref() {
            Some(c) => self.shape_of(&ep, c, &variants, calls).await,
            None => EndpointShape::default(),
        };
        let multi_model = variants.iter().any(|v| v.multi_model);
        let mut kind = config
            .as_deref()
            .map(|c| EndpointKind::of_config(c, multi_model))
            .unwrap_or_default();
        // Provisioned concurrency changed in place shows in the variants, not the configuration.
        if kind.is_serverless() {
            let provisioned = variants
                .iter()
                .filter_map(|v| v.serverless.as_ref())
                .any(|s| s.provisioned.or(s.desired_provisioned).is_some_and(|n| n > 0));
            kind = if provisioned {
                EndpointKind::ServerlessProvisioned
            } else {
                EndpointKind::Serverless
            };
        }
        Ok(EndpointInfo {
            name: ep.endpoint_name().unwrap_or(name).to_string(),
            arn: ep.endpoint_arn().unwrap_or_default().to_string(),
            status: ep.endpoint_status().map(|s| s.as_str().to_string()).unwrap_or_default(),
            failure_reason: ep.failure_reason().map(str::to_string),
            created: epoch(ep.creation_time()),
            modified: epoch(ep.last_modified_time()),
            config_name: ep.endpoint_config_name().map(str::to_string),
            multi_model,
            kind,
            variants,
            shape,
            autoscaling: Vec::new(),
            deploying: ep.pending_deployment_summary().is_some()
                || (ep.endpoint_status().map(|s| s.as_str()) == Some("Updating")
                    && ep.last_deployment_config().is_some()),
        })
    }

    /// The asynchronous configuration and the shadow variants of a described endpoint: the live
    /// shadow summaries, else the configured ones; each with the share of production traffic
    /// copied to it.
    async fn shape_of(
        &self,
        ep: &aws_sdk_sagemaker::operation::describe_endpoint::DescribeEndpointOutput,
        config: &aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput,
        production: &[VariantInfo],
        calls: &AtomicUsize,
    ) -> EndpointShape {
        let configured = config.shadow_production_variants();
        let mut shadow_variants = if configured.is_empty() && ep.shadow_production_variants().is_empty() {
            Vec::new()
        } else {
            let models = self.models_of(configured, calls).await;
            let live = live_variants(ep.shadow_production_variants(), configured, &models);
            if live.is_empty() {
                configured_variants(configured, &models)
            } else {
                live
            }
        };
        let production_weight: f64 = production.iter().map(|v| v.current_weight).sum();
        for v in &mut shadow_variants {
            v.traffic_share = sampled_share(v.current_weight, production_weight);
        }
        EndpointShape {
            asynchronous: AsyncInfo::of(config),
            shadow_variants,
        }
    }

    /// The facts of each model the configuration's variants name (a model deleted behind the
    /// endpoint is left out, not fatal: its variant still shows).
    async fn models_of(&self, config_variants: &[ConfigVariant], calls: &AtomicUsize) -> HashMap<String, ModelFacts> {
        let mut models = HashMap::new();
        for cv in config_variants {
            let Some(m) = cv.model_name() else { continue };
            if models.contains_key(m) {
                continue;
            }
            if let Some(facts) = self.model_facts(m, calls).await {
                models.insert(m.to_string(), facts);
            }
        }
        models
    }

    /// One endpoint with its autoscaling (for `describe` and the weights commands).
    pub async fn endpoint(&self, name: &str) -> Result<EndpointInfo, AwsError> {
        let calls = AtomicUsize::new(0);
        let mut info = self.describe_endpoint_info(name, &calls).await?;
        if let Ok(scaling) = fleet_scaling(self, Some(name), &calls).await {
            info.autoscaling = scaling.get(name).cloned().unwrap_or_default();
        }
        Ok(info)
    }
}

type ConfigVariant = aws_sdk_sagemaker::types::ProductionVariant;

/// The facts of a variant's model, when it names one that was described.
fn facts_of(model_name: Option<&String>, models: &HashMap<String, ModelFacts>) -> ModelFacts {
    model_name.and_then(|m| models.get(m)).cloned().unwrap_or_default()
}

/// The endpoint's live variants, with their configuration's instance type and model facts.
fn live_variants(
    live: &[aws_sdk_sagemaker::types::ProductionVariantSummary],
    config_variants: &[ConfigVariant],
    models: &HashMap<String, ModelFacts>,
) -> Vec<VariantInfo> {
    let total: f64 = live.iter().map(|v| v.current_weight().unwrap_or(0.0) as f64).sum();
    live.iter()
        .map(|v| {
            let name = v.variant_name().unwrap_or_default().to_string();
            let cv = config_variants.iter().find(|c| c.variant_name() == Some(&name));
            let model_name = cv.and_then(|c| c.model_name().map(str::to_string));
            let m = facts_of(model_name.as_ref(), models);
            let current = v.current_weight().unwrap_or(0.0) as f64;
            VariantInfo {
                instance_type: cv.and_then(|c| c.instance_type()).map(|t| t.as_str().to_string()),
                routing: cv.and_then(RoutingInfo::of),
                model_name,
                current_weight: current,
                desired_weight: v.desired_weight().map(f64::from).unwrap_or(current),
                traffic_share: if total > 0.0 { current / total } else { 0.0 },
                current_instances: v.current_instance_count().unwrap_or(0),
                desired_instances: v.desired_instance_count().unwrap_or(0),
                statuses: v
                    .variant_status()
                    .iter()
                    .filter_map(|s| s.status().map(|s| s.as_str().to_string()))
                    .collect(),
                image: m.0,
                multi_model: m.1,
                model_data_url: m.2,
                serverless: ServerlessInfo::of(Some(v), cv),
                name,
            }
        })
        .collect()
}

/// The configured variants of an endpoint that lists no live ones yet (Creating).
fn configured_variants(config_variants: &[ConfigVariant], models: &HashMap<String, ModelFacts>) -> Vec<VariantInfo> {
    config_variants
        .iter()
        .map(|c| {
            let model_name = c.model_name().map(str::to_string);
            let m = facts_of(model_name.as_ref(), models);
            let w = c.initial_variant_weight().unwrap_or(1.0) as f64;
            VariantInfo {
                name: c.variant_name().unwrap_or_default().to_string(),
                model_name,
                instance_type: c.instance_type().map(|t| t.as_str().to_string()),
                routing: RoutingInfo::of(c),
                current_weight: w,
                desired_weight: w,
                traffic_share: 0.0,
                current_instances: 0,
                desired_instances: c.initial_instance_count().unwrap_or(0),
                statuses: vec!["Creating".into()],
                image: m.0,
                multi_model: m.1,
                model_data_url: m.2,
                serverless: ServerlessInfo::of(None, Some(c)),
            }
        })
        .collect()
}
