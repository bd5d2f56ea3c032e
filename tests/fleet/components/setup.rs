//! Inference-component endpoints created over the wire with the Rust SDK, the way AWS's
//! documentation does it: models, a configuration with an ExecutionRoleArn whose variant has
//! instances and ManagedInstanceScaling but no model, the endpoint, then components on it.

use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{
    ContainerDefinition, InferenceComponentComputeResourceRequirements, InferenceComponentRuntimeConfig,
    InferenceComponentSpecification, ManagedInstanceScalingStatus, ProductionVariant, ProductionVariantInstanceType,
    ProductionVariantManagedInstanceScaling,
};

use crate::common::poll_until;

/// The role every configuration and model names.
pub const ROLE: &str = "arn:aws:iam::123456789012:role/sagemaker";

/// Creates the model `name`.
pub async fn model(sm: &Client, name: &str) {
    sm.create_model()
        .model_name(name)
        .primary_container(
            ContainerDefinition::builder()
                .image("huggingface-pytorch-tgi-inference")
                .build(),
        )
        .execution_role_arn(ROLE)
        .send()
        .await
        .unwrap_or_else(|e| panic!("create model {name}: {e:?}"));
}

/// Creates an IC endpoint `name` (variant `AllTraffic`, `ml.g5.12xlarge`, one instance,
/// ManagedInstanceScaling from `min_instances` to 4) and waits until it is InService.
pub async fn ic_endpoint(sm: &Client, name: &str, min_instances: i32) {
    let scaling = ProductionVariantManagedInstanceScaling::builder()
        .status(ManagedInstanceScalingStatus::Enabled)
        .min_instance_count(min_instances)
        .max_instance_count(4)
        .build();
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .instance_type(ProductionVariantInstanceType::MlG512Xlarge)
        .initial_instance_count(1)
        .managed_instance_scaling(scaling)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(format!("{name}-config"))
        .execution_role_arn(ROLE)
        .production_variants(variant)
        .send()
        .await
        .unwrap_or_else(|e| panic!("create config of {name}: {e:?}"));
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(format!("{name}-config"))
        .send()
        .await
        .unwrap_or_else(|e| panic!("create endpoint {name}: {e:?}"));
    poll_until(&format!("{name} InService"), Duration::from_secs(20), || async {
        let d = sm.describe_endpoint().endpoint_name(name).send().await.ok()?;
        (d.endpoint_status().map(|s| s.as_str()) == Some("InService")).then_some(())
    })
    .await;
}

/// Creates the component `name` on `endpoint` serving `model` with `copies` copies of 1 CPU
/// core, 1 accelerator and 1,024 MiB each.
pub async fn component(sm: &Client, endpoint: &str, name: &str, model: &str, copies: i32) {
    let compute = InferenceComponentComputeResourceRequirements::builder()
        .number_of_cpu_cores_required(1.0)
        .number_of_accelerator_devices_required(1.0)
        .min_memory_required_in_mb(1024)
        .build();
    sm.create_inference_component()
        .inference_component_name(name)
        .endpoint_name(endpoint)
        .variant_name("AllTraffic")
        .specification(
            InferenceComponentSpecification::builder()
                .model_name(model)
                .compute_resource_requirements(compute)
                .build(),
        )
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(copies).build())
        .send()
        .await
        .unwrap_or_else(|e| panic!("create component {name}: {e:?}"));
}

/// Creates the adapter `name` on the base component `base` of `endpoint`.
pub async fn adapter(sm: &Client, endpoint: &str, name: &str, base: &str) {
    sm.create_inference_component()
        .inference_component_name(name)
        .endpoint_name(endpoint)
        .variant_name("AllTraffic")
        .specification(
            InferenceComponentSpecification::builder()
                .base_inference_component_name(base)
                .build(),
        )
        .send()
        .await
        .unwrap_or_else(|e| panic!("create adapter {name}: {e:?}"));
}

/// Waits until every named component is InService with its copies placed.
pub async fn wait_settled(sm: &Client, names: &[&str]) {
    for name in names {
        poll_until(&format!("{name} settled"), Duration::from_secs(30), || async {
            let d = sm
                .describe_inference_component()
                .inference_component_name(*name)
                .send()
                .await
                .ok()?;
            let r = d.runtime_config();
            let settled = d.inference_component_status().map(|s| s.as_str()) == Some("InService")
                && r.and_then(|r| r.current_copy_count()) == r.and_then(|r| r.desired_copy_count());
            settled.then_some(())
        })
        .await;
    }
}

/// Creates a real-time endpoint `name` (one variant serving its own model) and waits until it
/// is InService.
pub async fn real_time_endpoint(sm: &Client, name: &str) {
    model(sm, &format!("{name}-model")).await;
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .model_name(format!("{name}-model"))
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(1)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(format!("{name}-config"))
        .production_variants(variant)
        .send()
        .await
        .unwrap_or_else(|e| panic!("create config of {name}: {e:?}"));
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(format!("{name}-config"))
        .send()
        .await
        .unwrap_or_else(|e| panic!("create endpoint {name}: {e:?}"));
    poll_until(&format!("{name} InService"), Duration::from_secs(20), || async {
        let d = sm.describe_endpoint().endpoint_name(name).send().await.ok()?;
        (d.endpoint_status().map(|s| s.as_str()) == Some("InService")).then_some(())
    })
    .await;
}
