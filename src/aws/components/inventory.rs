//! The components inventory: ListInferenceComponents (every page, with AWS's filters), then
//! DescribeInferenceComponent per component with bounded concurrency — except for a settled
//! component whose LastModifiedTime has not moved since it was described (the describe cache
//! keeps it). A component deleted between the list and its describe is simply gone.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use aws_sdk_sagemaker::operation::describe_inference_component::DescribeInferenceComponentOutput;
use aws_sdk_sagemaker::types::{
    InferenceComponentCapacitySize, InferenceComponentDeploymentConfig, InferenceComponentSpecificationSummary,
    InferenceComponentStatus, InferenceComponentSummary,
};
use serde::Serialize;
use tokio::sync::Semaphore;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// Copies of a component: asked for, and placed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Copies {
    /// DesiredCopyCount.
    pub desired: i32,
    /// CurrentCopyCount (copies placed and serving).
    pub current: i32,
}

/// Copies placed on one instance type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// Instance type (`ml.g5.2xlarge`).
    pub instance_type: String,
    /// Copies placed on instances of that type.
    pub copies: i32,
}

/// What one copy reserves on its instance (ComputeResourceRequirements).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Reservation {
    /// The instance type this specification is for, when the component names one (a component
    /// with one specification per instance type).
    pub instance_type: Option<String>,
    /// NumberOfCpuCoresRequired.
    pub cpu_cores: Option<f32>,
    /// NumberOfAcceleratorDevicesRequired.
    pub accelerators: Option<f32>,
    /// AcceleratorPartitionType: a GPU partition profile instead of whole devices.
    pub partition_profile: Option<String>,
    /// MinMemoryRequiredInMb.
    pub memory_min_mb: Option<i32>,
    /// MaxMemoryRequiredInMb.
    pub memory_max_mb: Option<i32>,
}

/// The component's last deployment configuration (rolling update policy and alarms), in short.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DeploymentSummary {
    /// MaximumBatchSize: `2 copies` or `25% capacity`.
    pub batch: Option<String>,
    /// WaitIntervalInSeconds (the bake after each batch).
    pub bake_secs: Option<i32>,
    /// MaximumExecutionTimeoutInSeconds.
    pub timeout_secs: Option<i32>,
    /// RollbackMaximumBatchSize.
    pub rollback_batch: Option<String>,
    /// AutoRollbackConfiguration alarms.
    pub alarms: Vec<String>,
}

/// One inference component.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Component {
    /// InferenceComponentName.
    pub name: String,
    /// ARN.
    pub arn: String,
    /// The endpoint hosting it.
    pub endpoint: String,
    /// The endpoint's variant it runs on.
    pub variant: String,
    /// Creating, InService, Updating, Failed, Deleting.
    pub status: String,
    /// The model it serves (None for an adapter, which serves its base component's).
    pub model: Option<String>,
    /// The base component of an adapter.
    pub base_component: Option<String>,
    /// Container image, when the component names its own container.
    pub image: Option<String>,
    /// Copies desired and current.
    pub copies: Copies,
    /// Copies placed per instance type.
    pub placement: Vec<Placement>,
    /// What each copy reserves (None for an adapter: it has no compute of its own).
    pub reservation: Option<Reservation>,
    /// Why it failed.
    pub failure_reason: Option<String>,
    /// The last deployment configuration, when an update carried one.
    pub last_deployment: Option<DeploymentSummary>,
    /// Creation time (epoch seconds).
    pub created: f64,
    /// Last modification (epoch seconds).
    pub modified: f64,
}

impl Component {
    /// Whether it is an adapter on a base component.
    pub fn is_adapter(&self) -> bool {
        self.base_component.is_some()
    }

    /// The model, or `adapter of BASE`.
    pub fn model_text(&self) -> String {
        match (&self.model, &self.base_component) {
            (_, Some(base)) => format!("adapter of {base}"),
            (Some(m), None) => m.clone(),
            (None, None) => "-".into(),
        }
    }
}

/// Which components to list (ListInferenceComponents' filters); empty lists them all.
#[derive(Debug, Clone, Default)]
pub struct ComponentFilter {
    /// EndpointNameEquals.
    pub endpoint: Option<String>,
    /// VariantNameEquals.
    pub variant: Option<String>,
    /// StatusEquals (`InService`, `Failed`, ...).
    pub status: Option<String>,
    /// NameContains.
    pub name_contains: Option<String>,
    /// MaxResults of each page (1–100; 100 when None).
    pub page_size: Option<i32>,
    /// Describe calls in flight at once (8 when 0).
    pub concurrency: usize,
}

/// The components listed, and what it cost.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ComponentInventory {
    /// Components, sorted by endpoint then name.
    pub components: Vec<Component>,
    /// API calls made (list pages and describes).
    pub api_calls: usize,
    /// Describes answered from the cache.
    pub cached: usize,
    /// Wall time in milliseconds.
    pub elapsed_ms: u64,
}

fn epoch(t: Option<&aws_smithy_types::DateTime>) -> f64 {
    t.map(|t| t.as_secs_f64()).unwrap_or(0.0)
}

/// `2 copies` or `25% capacity`.
pub fn capacity_text(size: &InferenceComponentCapacitySize) -> String {
    let value = size.value().unwrap_or(0);
    match size.r#type().map(|t| t.as_str()).unwrap_or_default() {
        "CAPACITY_PERCENT" => format!("{value}% capacity"),
        _ if value == 1 => "1 copy".into(),
        _ => format!("{value} copies"),
    }
}

fn deployment_summary(d: &InferenceComponentDeploymentConfig) -> DeploymentSummary {
    let rolling = d.rolling_update_policy();
    DeploymentSummary {
        batch: rolling.and_then(|r| r.maximum_batch_size()).map(capacity_text),
        bake_secs: rolling.and_then(|r| r.wait_interval_in_seconds()),
        timeout_secs: rolling.and_then(|r| r.maximum_execution_timeout_in_seconds()),
        rollback_batch: rolling.and_then(|r| r.rollback_maximum_batch_size()).map(capacity_text),
        alarms: d
            .auto_rollback_configuration()
            .map(|a| {
                a.alarms()
                    .iter()
                    .filter_map(|a| a.alarm_name().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn reservation_of(spec: &InferenceComponentSpecificationSummary) -> Option<Reservation> {
    let c = spec.compute_resource_requirements()?;
    Some(Reservation {
        instance_type: spec.instance_type().map(|t| t.as_str().to_string()),
        cpu_cores: c.number_of_cpu_cores_required(),
        accelerators: c.number_of_accelerator_devices_required(),
        partition_profile: c.accelerator_partition_type().map(str::to_string),
        memory_min_mb: c.min_memory_required_in_mb(),
        memory_max_mb: c.max_memory_required_in_mb(),
    })
}

/// A component as DescribeInferenceComponent gives it.
pub fn component_of(d: &DescribeInferenceComponentOutput) -> Component {
    let runtime = d.runtime_config();
    let placed_type = runtime
        .and_then(|r| r.placement_status().first())
        .and_then(|p| p.instance_type());
    // With one specification per instance type, the one for where its copies are placed.
    let spec = d.specification().or_else(|| {
        let all = d.specifications();
        all.iter()
            .find(|s| placed_type.is_some() && s.instance_type() == placed_type)
            .or(all.first())
    });
    let container = spec.and_then(|s| s.container());
    Component {
        name: d.inference_component_name().unwrap_or_default().to_string(),
        arn: d.inference_component_arn().unwrap_or_default().to_string(),
        endpoint: d.endpoint_name().unwrap_or_default().to_string(),
        variant: d.variant_name().unwrap_or_default().to_string(),
        status: d
            .inference_component_status()
            .map(|s| s.as_str().to_string())
            .unwrap_or_default(),
        model: spec.and_then(|s| s.model_name()).map(str::to_string),
        base_component: spec.and_then(|s| s.base_inference_component_name()).map(str::to_string),
        image: container
            .and_then(|c| c.deployed_image())
            .and_then(|i| i.resolved_image().or(i.specified_image()))
            .map(str::to_string),
        copies: Copies {
            desired: runtime.and_then(|r| r.desired_copy_count()).unwrap_or(0),
            current: runtime.and_then(|r| r.current_copy_count()).unwrap_or(0),
        },
        placement: runtime
            .map(|r| r.placement_status())
            .unwrap_or_default()
            .iter()
            .map(|p| Placement {
                instance_type: p.instance_type().map(|t| t.as_str().to_string()).unwrap_or_default(),
                copies: p.current_copy_count().unwrap_or(0),
            })
            .collect(),
        reservation: spec.and_then(reservation_of),
        failure_reason: d.failure_reason().map(str::to_string),
        last_deployment: d.last_deployment_config().map(deployment_summary),
        created: epoch(d.creation_time()),
        modified: epoch(d.last_modified_time()),
    }
}

impl Fleet {
    /// The components of `endpoint` (every endpoint's when None), described.
    pub async fn list_components(&self, endpoint: Option<&str>) -> Result<Vec<Component>, AwsError> {
        let filter = ComponentFilter {
            endpoint: endpoint.map(str::to_string),
            ..Default::default()
        };
        Ok(self.component_inventory(&filter).await?.components)
    }

    /// DescribeInferenceComponent, always on the wire (the guard and the followers use it).
    pub async fn describe_component(&self, name: &str) -> Result<Component, AwsError> {
        let out = self.describe_component_now(name).await?;
        Ok(component_of(&out))
    }

    /// DescribeInferenceComponent as AWS answers it now (never from the cache; a settled answer
    /// is kept for the next listing).
    pub async fn describe_component_now(&self, name: &str) -> Result<Arc<DescribeInferenceComponentOutput>, AwsError> {
        let out = self
            .sagemaker
            .describe_inference_component()
            .inference_component_name(name)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let out = Arc::new(out);
        self.describe_cache.keep_component(name, out.clone());
        Ok(out)
    }

    /// Every summary ListInferenceComponents gives for `filter`, following NextToken.
    pub async fn list_component_summaries(
        &self,
        filter: &ComponentFilter,
        calls: &AtomicUsize,
    ) -> Result<Vec<InferenceComponentSummary>, AwsError> {
        let mut out = Vec::new();
        let mut token = None;
        loop {
            calls.fetch_add(1, Ordering::Relaxed);
            let page = self
                .sagemaker
                .list_inference_components()
                .set_endpoint_name_equals(filter.endpoint.clone())
                .set_variant_name_equals(filter.variant.clone())
                .set_status_equals(filter.status.as_deref().map(InferenceComponentStatus::from))
                .set_name_contains(filter.name_contains.clone())
                .max_results(filter.page_size.unwrap_or(100))
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            out.extend(page.inference_components().iter().cloned());
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                return Ok(out);
            }
        }
    }

    /// The components `filter` selects, each described (or taken from the cache when settled and
    /// unmodified since), sorted by endpoint then name.
    pub async fn component_inventory(&self, filter: &ComponentFilter) -> Result<ComponentInventory, AwsError> {
        let start = Instant::now();
        let calls = Arc::new(AtomicUsize::new(0));
        let summaries = self.list_component_summaries(filter, &calls).await?;
        let sem = Arc::new(Semaphore::new(if filter.concurrency == 0 {
            8
        } else {
            filter.concurrency
        }));
        let mut tasks = tokio::task::JoinSet::new();
        let mut components = Vec::with_capacity(summaries.len());
        let mut cached = 0;
        for s in &summaries {
            let Some(name) = s.inference_component_name() else {
                continue;
            };
            if let Some(kept) = self.describe_cache.component(name, epoch(s.last_modified_time())) {
                cached += 1;
                components.push(component_of(&kept));
                continue;
            }
            let (fleet, sem, calls, name) = (self.clone(), sem.clone(), calls.clone(), name.to_string());
            tasks.spawn(async move {
                let _permit = sem.acquire_owned().await;
                calls.fetch_add(1, Ordering::Relaxed);
                fleet.describe_component_now(&name).await
            });
        }
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok(Ok(d)) => components.push(component_of(&d)),
                // Deleted between the list and the describe: gone.
                Ok(Err(AwsError::NotFound(_))) => {}
                Ok(Err(e)) => return Err(e),
                Err(e) => {
                    return Err(AwsError::Other {
                        code: "TaskFailed".into(),
                        message: format!("a describe task failed: {e}"),
                    });
                }
            }
        }
        components.sort_by(|a, b| (&a.endpoint, &a.name).cmp(&(&b.endpoint, &b.name)));
        Ok(ComponentInventory {
            components,
            api_calls: calls.load(Ordering::Relaxed),
            cached,
            elapsed_ms: start.elapsed().as_millis() as u64,
        })
    }
}
