//! The control-plane world: models, endpoint configurations, endpoints and their lifecycles, and
//! the S3 objects behind multi-model endpoints (their records are in `resources.rs`). Lifecycles
//! are deadlines advanced lazily on every access and by a background ticker, so timing is real
//! without a timer per endpoint.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use parking_lot::Mutex;

use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::sandbox::cloudwatch::metrics::MetricStore;
use crate::sandbox::world::components::Components;
use crate::sandbox::world::config::SandboxConfig;
use crate::sandbox::world::containers::ContainerKind;
use crate::sandbox::world::deployment::{Capacity, Counts, Step};
use crate::sandbox::world::resources::{EndpointConfig, Model, S3Object, Tags};
use crate::sandbox::world::serverless::{ServerlessSettings, ServerlessSim};
use crate::sandbox::world::variant::VariantSim;

/// Endpoint status as AWS spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EndpointStatus {
    /// OutOfService.
    OutOfService,
    /// Creating.
    Creating,
    /// Updating.
    Updating,
    /// InService.
    InService,
    /// Deleting.
    Deleting,
    /// Failed.
    Failed,
    /// RollingBack: a failed deployment returning to the previous configuration.
    RollingBack,
    /// UpdateRollbackFailed: the deployment and its rollback both failed (both fleets serve).
    UpdateRollbackFailed,
}

impl EndpointStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EndpointStatus::OutOfService => "OutOfService",
            EndpointStatus::Creating => "Creating",
            EndpointStatus::Updating => "Updating",
            EndpointStatus::InService => "InService",
            EndpointStatus::Deleting => "Deleting",
            EndpointStatus::Failed => "Failed",
            EndpointStatus::RollingBack => "RollingBack",
            EndpointStatus::UpdateRollbackFailed => "UpdateRollbackFailed",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<Self> {
        [
            EndpointStatus::OutOfService,
            EndpointStatus::Creating,
            EndpointStatus::Updating,
            EndpointStatus::InService,
            EndpointStatus::Deleting,
            EndpointStatus::Failed,
            EndpointStatus::RollingBack,
            EndpointStatus::UpdateRollbackFailed,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }
}

/// A production variant of a live endpoint.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Variant name.
    pub name: String,
    /// Model behind it.
    pub model_name: String,
    /// Instance type.
    pub instance_type: Option<String>,
    /// Weight routing uses now.
    pub current_weight: f64,
    /// Weight being rolled out.
    pub desired_weight: f64,
    /// Instances serving now.
    pub current_instances: i32,
    /// Instances being rolled out.
    pub desired_instances: i32,
    /// In-flight variant statuses (`Creating`, `Updating`, ...), with start time.
    pub statuses: Vec<(String, f64)>,
    /// Simulation state shared with the runtime (latency profile, MME caches, metric handles).
    pub sim: Arc<VariantSim>,
}

/// A pending lifecycle step.
#[derive(Debug, Clone)]
pub enum Transition {
    /// Creating → InService (or Failed with a reason).
    Create {
        /// Completion time.
        until: f64,
        /// When set, the endpoint fails with this reason instead.
        fail: Option<String>,
    },
    /// Updating → InService, applying desired weights and counts.
    Update {
        /// Completion time.
        until: f64,
    },
    /// Updating → InService onto a new endpoint configuration through a deployment (or
    /// RollingBack → InService on the old one); walked by `sagemaker/deploy/`, never by `advance`.
    Deploy(Box<Deployment>),
    /// Deleting → gone.
    Delete {
        /// Completion time.
        until: f64,
    },
}

impl Transition {
    fn until(&self) -> f64 {
        match self {
            Transition::Create { until, .. } | Transition::Update { until } | Transition::Delete { until } => *until,
            Transition::Deploy(_) => f64::INFINITY,
        }
    }
}

/// Where a deployment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeployPhase {
    /// Walking the deployment's steps.
    Deploying,
    /// Walking the rollback's steps.
    RollingBack,
    /// The rollback failed part-way: both fleets stay, serving their shares.
    RollbackFailed,
}

/// A deployment in flight: the green fleet beside the blue one and the schedule it walks.
#[derive(Debug, Clone)]
pub struct Deployment {
    /// The new endpoint configuration.
    pub config_name: String,
    /// When UpdateEndpoint was accepted.
    pub started: f64,
    /// The green fleet: the new configuration's variants (counts are their full size).
    pub green: Vec<Variant>,
    /// Whether it is a rolling deployment (blue instances leave as green ones arrive).
    pub rolling: bool,
    /// The steps being walked (the deployment's, or the rollback's once it rolls back).
    pub steps: Vec<Step>,
    /// The step in progress.
    pub at: usize,
    /// When that step started.
    pub step_started: f64,
    /// Where it is.
    pub phase: DeployPhase,
    /// The AutoRollbackConfiguration alarms, watched during bakes.
    pub alarms: Vec<String>,
    /// Past this time (MaximumExecutionTimeoutInSeconds, scaled) it rolls back.
    pub deadline: f64,
    /// Set when the green fleet fails to launch (an injected fault or SAGEDECK_DEPLOY_FAILS).
    pub launch_failure: Option<String>,
    /// Whether the rollback fails part-way (an injected fault): UpdateRollbackFailed.
    pub rollback_fails: bool,
    /// The FailureReason once rolled back.
    pub failure: Option<String>,
    /// RollbackMaximumBatchSize of a rolling deployment (absent = the whole fleet at once).
    pub rollback_batch: Option<Capacity>,
}

impl Deployment {
    /// The step in progress.
    pub fn step(&self) -> Option<&Step> {
        self.steps.get(self.at)
    }

    /// A variant's counts now (`total` = its green fleet's full size).
    pub fn counts(&self, variant: &str) -> Option<Counts> {
        let g = self.green.iter().find(|g| g.name == variant)?;
        Some(self.step()?.counts(g.desired_instances, self.rolling))
    }
}

/// A SageMaker endpoint.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// Name.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// Current endpoint configuration.
    pub config_name: String,
    /// Status.
    pub status: EndpointStatus,
    /// Why it failed.
    pub failure_reason: Option<String>,
    /// Creation time.
    pub creation_time: f64,
    /// Last modification time.
    pub last_modified: f64,
    /// Production variants.
    pub variants: Vec<Variant>,
    /// The lifecycle step in progress.
    pub transition: Option<Transition>,
    /// The DeploymentConfig of the last UpdateEndpoint that gave one.
    pub last_deployment_config: Option<serde_json::Value>,
}

impl Endpoint {
    /// The variant with this name.
    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// The deployment in flight (or stuck in UpdateRollbackFailed), if any.
    pub fn deployment(&self) -> Option<&Deployment> {
        match &self.transition {
            Some(Transition::Deploy(d)) => Some(d),
            _ => None,
        }
    }

    /// The simulation that answers one request routed to variant `v`: during a deployment, the
    /// green fleet's for its share of the variant's traffic.
    pub fn serving_sim(&self, v: &Variant) -> Arc<VariantSim> {
        let green = self.deployment().and_then(|d| {
            let share = d.counts(&v.name)?.green_share;
            let g = d.green.iter().find(|g| g.name == v.name)?;
            (share > 0.0 && rand::random::<f64>() < share).then(|| g.sim.clone())
        });
        green.unwrap_or_else(|| v.sim.clone())
    }
}

/// The endpoints' `(CreationTime, name)` in ascending order: ListEndpoints' index.
pub type CreationIndex = Vec<(f64, String)>;

/// Everything the control plane knows.
pub struct World {
    /// Models by name.
    pub models: BTreeMap<String, Model>,
    /// Endpoint configurations by name.
    pub configs: BTreeMap<String, EndpointConfig>,
    /// Endpoints by name.
    pub endpoints: BTreeMap<String, Endpoint>,
    /// S3 buckets: bucket → key → object.
    pub buckets: BTreeMap<String, BTreeMap<String, S3Object>>,
    /// The bytes of objects written by PutObject or by asynchronous inference, by (bucket, key);
    /// objects without bytes here (the MME catalog) read as zeros of their size.
    pub object_bodies: BTreeMap<(String, String), Vec<u8>>,
    /// Tags by resource ARN (`sagemaker/tags.rs`).
    pub tags: BTreeMap<String, Tags>,
    /// The shadow variants of endpoints that have them, by endpoint name.
    pub shadows: BTreeMap<String, Vec<Variant>>,
    /// Inference components and the IC endpoints' variants hosting them.
    pub components: Components,
    /// Random source for the simulation (seeded).
    pub rng: StdRng,
    /// The endpoints with a lifecycle step in progress, the only ones `advance` and the
    /// deployments' walk look at ([`World::track`] adds one; steps that end are pruned).
    pub in_flight: BTreeSet<String>,
    /// Bumped whenever an endpoint appears or goes, or a lifecycle step starts or ends (when
    /// instance counts change): readers that only act on such changes (the log writer's cold
    /// starts) compare it with the last one they saw.
    pub revision: u64,
    /// The endpoints by (CreationTime, name), built on first use after the set changed.
    creation_order: Mutex<Option<Arc<CreationIndex>>>,
}

impl World {
    /// An empty world with a seeded random source.
    pub fn new(seed: u64) -> Self {
        World {
            models: BTreeMap::new(),
            configs: BTreeMap::new(),
            endpoints: BTreeMap::new(),
            buckets: BTreeMap::new(),
            object_bodies: BTreeMap::new(),
            shadows: BTreeMap::new(),
            tags: BTreeMap::new(),
            components: Components::default(),
            rng: StdRng::seed_from_u64(seed),
            in_flight: BTreeSet::new(),
            revision: 0,
            creation_order: Mutex::new(None),
        }
    }

    /// Adds an endpoint, tracking its lifecycle step if it has one.
    pub fn insert_endpoint(&mut self, ep: Endpoint) {
        if ep.transition.is_some() {
            self.in_flight.insert(ep.name.clone());
        }
        *self.creation_order.get_mut() = None;
        self.revision += 1;
        self.endpoints.insert(ep.name.clone(), ep);
    }

    /// Tracks an endpoint whose lifecycle step was just set, so that `advance` (and the
    /// deployments' walk) find it without looking at every endpoint.
    pub fn track(&mut self, name: &str) {
        self.revision += 1;
        self.in_flight.insert(name.to_string());
    }

    /// Forgets the tracked endpoints whose step has ended, or that are gone.
    pub fn settle(&mut self) {
        let (endpoints, before) = (&self.endpoints, self.in_flight.len());
        self.in_flight
            .retain(|n| endpoints.get(n).is_some_and(|e| e.transition.is_some()));
        if self.in_flight.len() != before {
            self.revision += 1;
        }
    }

    /// Whether [`World::advance`] has anything to do at `now`: a tracked step due, or
    /// inference components (whose lifecycles it walks whenever there are any). Lets callers
    /// skip the write lock when nothing is due.
    pub fn needs_advance(&self, now: f64) -> bool {
        !self.components.items.is_empty() || !self.components.hosts.is_empty() || self.due(now).next().is_some()
    }

    /// The tracked endpoints whose timed step is due at `now`.
    fn due(&self, now: f64) -> impl Iterator<Item = &String> {
        self.in_flight.iter().filter(move |n| {
            self.endpoints
                .get(*n)
                .and_then(|e| e.transition.as_ref())
                .is_some_and(|t| t.until() <= now)
        })
    }

    /// The endpoints sorted by (CreationTime, name) ascending: ListEndpoints' index.
    pub fn creation_index(&self) -> Arc<CreationIndex> {
        let mut cached = self.creation_order.lock();
        cached
            .get_or_insert_with(|| {
                let mut order: Vec<(f64, String)> = self
                    .endpoints
                    .values()
                    .map(|e| (e.creation_time, e.name.clone()))
                    .collect();
                order.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
                Arc::new(order)
            })
            .clone()
    }

    /// Completes every lifecycle step whose deadline has passed (of the tracked endpoints).
    pub fn advance(&mut self, now: f64) {
        let due: Vec<String> = self.due(now).cloned().collect();
        for name in due {
            let Some(ep) = self.endpoints.get_mut(&name) else {
                continue;
            };
            let Some(t) = ep.transition.take() else {
                continue;
            };
            ep.last_modified = t.until();
            match t {
                Transition::Create { fail: Some(reason), .. } => {
                    ep.status = EndpointStatus::Failed;
                    ep.failure_reason = Some(reason);
                    for v in &mut ep.variants {
                        v.statuses.clear();
                    }
                }
                Transition::Create { fail: None, .. } | Transition::Update { .. } => {
                    ep.status = EndpointStatus::InService;
                    for v in &mut ep.variants {
                        v.current_weight = v.desired_weight;
                        v.current_instances = v.desired_instances;
                        v.statuses.clear();
                        v.sim.set_instances(v.current_instances.max(0) as usize);
                        if let Some(s) = v.sim.serverless.get() {
                            s.settle();
                        }
                    }
                }
                Transition::Deploy(d) => ep.transition = Some(Transition::Deploy(d)),
                Transition::Delete { .. } => {
                    self.endpoints.remove(&name);
                    *self.creation_order.get_mut() = None;
                    self.components.forget_endpoint(&name);
                }
            }
        }
        self.settle();
        self.components.advance(now);
    }

    /// Sets an inference component's desired copies (what UpdateInferenceComponentRuntimeConfig
    /// and Application Auto Scaling do): the component is Updating until its copies get there,
    /// the variant's instances following within its ManagedInstanceScaling. Returns the previous
    /// desired count, or why it is refused (unknown, adapter, negative, Creating/Deleting/Failed).
    pub fn set_component_desired_copies(&mut self, name: &str, copies: i32, now: f64) -> Result<i32, String> {
        self.components.advance(now);
        self.components.set_desired_copies(name, copies, now)
    }

    /// An inference component's copies as `(desired, current)` (an adapter's are its base's).
    pub fn component_copies(&self, name: &str) -> Option<(i32, i32)> {
        self.components.copies(name)
    }

    /// The MME artifact prefix of a model, split into `(bucket, key prefix)`.
    pub fn split_s3_url(url: &str) -> Option<(String, String)> {
        let rest = url.strip_prefix("s3://")?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        Some((bucket.to_string(), prefix.to_string()))
    }

    /// Builds the live variants of a configuration (current = desired = initial).
    pub fn variants_for(
        &self,
        (settings, metrics): (&SandboxConfig, &MetricStore),
        endpoint: &str,
        config: &EndpointConfig,
        now: f64,
    ) -> Vec<Variant> {
        config
            .variants
            .iter()
            .map(|cv| {
                let model = self.models.get(&cv.model_name);
                let kind = model
                    .map(|m| ContainerKind::of(&m.container))
                    .unwrap_or(ContainerKind::Classifier);
                let env = model.map(|m| m.container.environment.clone()).unwrap_or_default();
                let mme = model.is_some_and(|m| m.container.is_multi_model());
                let count = if cv.serverless.is_some() {
                    1
                } else {
                    cv.initial_instance_count.max(0)
                };
                let sim = VariantSim::new((settings, metrics), endpoint, &cv.name, kind, &env, mme, count as usize);
                if let Some(s) = cv.serverless.as_ref().and_then(ServerlessSettings::from_json) {
                    let _ = sim.serverless.set(ServerlessSim::new(metrics, (endpoint, &cv.name), s));
                }
                Variant {
                    name: cv.name.clone(),
                    model_name: cv.model_name.clone(),
                    instance_type: cv.instance_type.clone(),
                    current_weight: cv.initial_weight,
                    desired_weight: cv.initial_weight,
                    current_instances: count,
                    desired_instances: count,
                    statuses: vec![("Creating".to_string(), now)],
                    sim: Arc::new(sim),
                }
            })
            .collect()
    }
}
