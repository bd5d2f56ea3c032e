//! The records of inference components: a component, its specification and reservation, the
//! variant instances hosting it, and a rolling update in progress.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::sandbox::world::variant::VariantSim;

/// A compute reservation (one copy's) or an instance's capacity.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Resources {
    /// CPU cores.
    pub cpus: f64,
    /// Accelerator devices (GPUs, Neuron devices).
    pub accelerators: f64,
    /// Memory in MB.
    pub memory_mb: f64,
}

impl Resources {
    /// Whether `need` fits in what is left of `self`.
    pub fn holds(&self, need: &Resources) -> bool {
        need.cpus <= self.cpus + 1e-9
            && need.accelerators <= self.accelerators + 1e-9
            && need.memory_mb <= self.memory_mb + 1e-9
    }

    /// `self` less `used`.
    pub fn minus(&self, used: &Resources) -> Resources {
        Resources {
            cpus: self.cpus - used.cpus,
            accelerators: self.accelerators - used.accelerators,
            memory_mb: self.memory_mb - used.memory_mb,
        }
    }
}

/// An inference component's status as AWS spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentStatus {
    /// Creating: copies being placed and started.
    Creating,
    /// InService.
    InService,
    /// Updating: copies changing, or a rolling update of the specification.
    Updating,
    /// Deleting.
    Deleting,
    /// Failed (FailureReason says why).
    Failed,
}

impl ComponentStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ComponentStatus::Creating => "Creating",
            ComponentStatus::InService => "InService",
            ComponentStatus::Updating => "Updating",
            ComponentStatus::Deleting => "Deleting",
            ComponentStatus::Failed => "Failed",
        }
    }

    /// Whether a change is in progress (Creating, Updating, Deleting).
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            ComponentStatus::Creating | ComponentStatus::Updating | ComponentStatus::Deleting
        )
    }
}

/// What a component runs: its model (or base component) and its reservation.
#[derive(Debug, Clone)]
pub struct ComponentSpec {
    /// The specification as sent (echoed by DescribeInferenceComponent).
    pub raw: Value,
    /// ModelName, when given.
    pub model_name: Option<String>,
    /// BaseInferenceComponentName: an adapter rides on this component's copies.
    pub base: Option<String>,
    /// The image that serves it (the model's, or the specification's own container).
    pub image: String,
    /// The environment its container sees.
    pub environment: BTreeMap<String, String>,
    /// One copy's reservation (none for an adapter).
    pub reservation: Option<Resources>,
    /// `Specifications` as sent (one per instance type; empty when one `Specification` was):
    /// `raw` is the one for the variant's instance type.
    pub specifications: Vec<Value>,
}

/// An inference component.
#[derive(Debug, Clone)]
pub struct InferenceComponent {
    /// Name.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// The endpoint that hosts it.
    pub endpoint: String,
    /// Its ARN.
    pub endpoint_arn: String,
    /// The variant whose instances host it.
    pub variant: String,
    /// What it runs.
    pub spec: ComponentSpec,
    /// Status.
    pub status: ComponentStatus,
    /// Why it failed (or why its last rolling update was rolled back).
    pub failure_reason: Option<String>,
    /// Creation time (epoch seconds).
    pub creation_time: f64,
    /// Last modification time.
    pub last_modified: f64,
    /// Copies asked for (RuntimeConfig.CopyCount, scaling).
    pub desired_copies: i32,
    /// Copies serving now.
    pub current_copies: i32,
    /// When copies being started become ready (set while current < what can be placed).
    pub copies_ready_at: Option<f64>,
    /// Seconds a copy takes to start once placed.
    pub copy_seconds: f64,
    /// When a Creating component that cannot run fails, or a Deleting one is gone.
    pub deadline: Option<f64>,
    /// The reason it fails at `deadline` while Creating.
    pub fail_reason: Option<String>,
    /// A rolling update of its specification in progress.
    pub rollout: Option<Rollout>,
    /// The DeploymentConfig of its last UpdateInferenceComponent that gave one.
    pub last_deployment_config: Option<Value>,
    /// The runtime simulation (container, latency, its series).
    pub sim: Arc<VariantSim>,
}

/// An IC endpoint's variant: the instances the components are placed on.
#[derive(Debug, Clone)]
pub struct Host {
    /// Instance type.
    pub instance_type: String,
    /// One instance's capacity.
    pub capacity: Resources,
    /// Instances running.
    pub current_instances: i32,
    /// Instances being provisioned or released towards.
    pub desired_instances: i32,
    /// When the instance count reaches `desired_instances`.
    pub instances_ready_at: Option<f64>,
    /// ManagedInstanceScaling enabled: the count follows the copies within min/max.
    pub managed: bool,
    /// MinInstanceCount.
    pub min_instances: i32,
    /// MaxInstanceCount.
    pub max_instances: i32,
    /// Seconds an instance takes to come up.
    pub instance_seconds: f64,
}

/// Where a rolling update stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// A batch of new copies starting.
    Provisioning,
    /// Waiting `WaitIntervalInSeconds` after a batch.
    Baking,
    /// New copies being replaced by old ones, for this reason.
    RollingBack(String),
}

/// A rolling update in progress.
#[derive(Debug, Clone)]
pub struct Rollout {
    /// The specification being rolled out.
    pub new_spec: ComponentSpec,
    /// Its runtime simulation (the same series as the component's).
    pub new_sim: Arc<VariantSim>,
    /// Copies per batch.
    pub batch: i32,
    /// Copies per rollback batch.
    pub rollback_batch: i32,
    /// Seconds of bake after each batch.
    pub wait: f64,
    /// When the update times out and rolls back.
    pub timeout_at: f64,
    /// Alarms that roll it back when they fire.
    pub alarms: Vec<String>,
    /// The DeploymentConfig as sent, if any (LastDeploymentConfig afterwards).
    pub config: Option<Value>,
    /// Copies already on the new specification.
    pub new_copies: i32,
    /// Copies of the batch being started.
    pub in_flight: i32,
    /// The phase and when it ends.
    pub phase: Phase,
    /// When the phase ends.
    pub phase_until: f64,
}

impl Rollout {
    /// Copies placed beside the component's desired count (the batch being started).
    pub fn extra_copies(&self) -> i32 {
        match self.phase {
            Phase::Provisioning => self.in_flight,
            _ => 0,
        }
    }

    /// The share of the component's traffic the new specification serves.
    pub fn new_share(&self, desired: i32) -> f64 {
        match self.phase {
            Phase::RollingBack(_) => 0.0,
            _ if desired <= 0 => 0.0,
            _ => self.new_copies as f64 / desired as f64,
        }
    }
}
