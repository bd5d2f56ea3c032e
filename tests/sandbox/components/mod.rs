//! Inference components over the wire with the Rust SDK: an IC endpoint (a configuration with an
//! execution role and a variant without a model), components created, described, listed with
//! filters and pages, placed on instances by their reservation, failed placement, refused
//! deletes; the runtime by component in `runtime.rs`, UpdateEndpoint onto another IC configuration
//! in `reconfigure.rs`, `Specifications` per instance type and GPU partitions in `specifications.rs`,
//! rolling updates in `rolling.rs`, boto3 in
//! `boto3.rs`.

mod boto3;
mod demo;
mod reconfigure;
mod rolling;
mod runtime;
mod specifications;

use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    ContainerDefinition, InferenceComponentComputeResourceRequirements, InferenceComponentRuntimeConfig,
    InferenceComponentSpecification, InferenceComponentStatus, ManagedInstanceScalingStatus, ProductionVariant,
    ProductionVariantInstanceType, ProductionVariantManagedInstanceScaling,
};
use sagedeck::sandbox::SandboxHandle;

use crate::common::{poll_until, sandbox, sdk_config};

/// The role an IC endpoint configuration names.
pub const ROLE: &str = "arn:aws:iam::123456789012:role/sagemaker-ic";

/// Creates the LLM model `NAME-llm`, an IC configuration (one `ml.g5.12xlarge` variant `AllTraffic`,
/// ManagedInstanceScaling `min..=max`, 1 initial instance) and the endpoint `NAME`, and waits until
/// it is InService.
pub async fn create_ic_endpoint(sm: &Client, name: &str, (min, max): (i32, i32)) {
    sm.create_model()
        .model_name(format!("{name}-llm"))
        .primary_container(ContainerDefinition::builder().image("tgi-llm-inference:2.4").build())
        .execution_role_arn(ROLE)
        .send()
        .await
        .expect("create model");
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .instance_type(ProductionVariantInstanceType::MlG512Xlarge)
        .initial_instance_count(1)
        .managed_instance_scaling(
            ProductionVariantManagedInstanceScaling::builder()
                .status(ManagedInstanceScalingStatus::Enabled)
                .min_instance_count(min)
                .max_instance_count(max)
                .build(),
        )
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(format!("{name}-config"))
        .execution_role_arn(ROLE)
        .production_variants(variant)
        .send()
        .await
        .expect("create IC endpoint config");
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(format!("{name}-config"))
        .send()
        .await
        .expect("create endpoint");
    poll_until("the IC endpoint in service", Duration::from_secs(10), || async {
        let d = sm.describe_endpoint().endpoint_name(name).send().await.ok()?;
        (d.endpoint_status().map(|s| s.as_str()) == Some("InService")).then_some(())
    })
    .await;
}

/// A specification of the endpoint's model with a reservation of `gpus` GPUs.
pub fn llm_spec(endpoint: &str, gpus: f32) -> InferenceComponentSpecification {
    InferenceComponentSpecification::builder()
        .model_name(format!("{endpoint}-llm"))
        .compute_resource_requirements(
            InferenceComponentComputeResourceRequirements::builder()
                .number_of_cpu_cores_required(4.0)
                .number_of_accelerator_devices_required(gpus)
                .min_memory_required_in_mb(16_384)
                .build(),
        )
        .build()
}

/// Creates component `ic` on `endpoint` with `copies` copies of [`llm_spec`].
pub async fn create_component(sm: &Client, endpoint: &str, ic: &str, gpus: f32, copies: i32) {
    sm.create_inference_component()
        .inference_component_name(ic)
        .endpoint_name(endpoint)
        .variant_name("AllTraffic")
        .specification(llm_spec(endpoint, gpus))
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(copies).build())
        .send()
        .await
        .expect("create inference component");
}

/// Waits until a component reaches `status` and returns its `(desired, current)` copies.
pub async fn wait_status(sm: &Client, ic: &str, status: InferenceComponentStatus) -> (i32, i32) {
    poll_until(&format!("{ic} {status:?}"), Duration::from_secs(15), || async {
        let d = sm
            .describe_inference_component()
            .inference_component_name(ic)
            .send()
            .await
            .ok()?;
        let rc = d.runtime_config()?;
        (d.inference_component_status() == Some(&status)).then(|| {
            (
                rc.desired_copy_count().unwrap_or(-1),
                rc.current_copy_count().unwrap_or(-1),
            )
        })
    })
    .await
}

/// A sandbox and a SageMaker client on it.
pub async fn sagemaker() -> (SandboxHandle, Client) {
    let sb = sandbox().await;
    let sm = Client::new(&sdk_config(&sb).await);
    (sb, sm)
}

/// The instance count DescribeEndpoint reports for `AllTraffic`: `(current, desired)`.
pub async fn instances(sm: &Client, endpoint: &str) -> (i32, i32) {
    let d = sm
        .describe_endpoint()
        .endpoint_name(endpoint)
        .send()
        .await
        .expect("describe endpoint");
    let v = &d.production_variants()[0];
    (
        v.current_instance_count().unwrap_or(-1),
        v.desired_instance_count().unwrap_or(-1),
    )
}

#[tokio::test]
async fn an_ic_endpoint_hosts_components_placed_by_their_reservation() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-place", (0, 3)).await;
    let config = sm
        .describe_endpoint_config()
        .endpoint_config_name("ic-place-config")
        .send()
        .await
        .unwrap();
    let v = &config.production_variants()[0];
    assert_eq!(v.model_name(), None, "an IC variant has no model");
    assert_eq!(config.execution_role_arn(), Some(ROLE));
    // Two GPUs a copy on a four-GPU instance: three copies need two instances.
    create_component(&sm, "ic-place", "llm-a", 2.0, 3).await;
    let d = sm
        .describe_inference_component()
        .inference_component_name("llm-a")
        .send()
        .await
        .unwrap();
    assert_eq!(
        d.inference_component_status(),
        Some(&InferenceComponentStatus::Creating)
    );
    assert_eq!(
        wait_status(&sm, "llm-a", InferenceComponentStatus::InService).await,
        (3, 3)
    );
    let d = sm
        .describe_inference_component()
        .inference_component_name("llm-a")
        .send()
        .await
        .unwrap();
    let placement = d.runtime_config().unwrap().placement_status();
    assert_eq!(placement.len(), 1);
    assert_eq!(placement[0].instance_type().map(|t| t.as_str()), Some("ml.g5.12xlarge"));
    assert_eq!(placement[0].current_copy_count(), Some(3));
    assert_eq!(d.specification().unwrap().model_name(), Some("ic-place-llm"));
    assert_eq!(instances(&sm, "ic-place").await, (2, 2));
    let ep = sm.describe_endpoint().endpoint_name("ic-place").send().await.unwrap();
    let mis = ep.production_variants()[0]
        .managed_instance_scaling()
        .expect("ManagedInstanceScaling shown");
    assert_eq!((mis.min_instance_count(), mis.max_instance_count()), (Some(0), Some(3)));
    // Fewer copies: one instance is released.
    sm.update_inference_component_runtime_config()
        .inference_component_name("llm-a")
        .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(1).build())
        .send()
        .await
        .unwrap();
    wait_status(&sm, "llm-a", InferenceComponentStatus::InService).await;
    poll_until("one instance left", Duration::from_secs(10), || async {
        (instances(&sm, "ic-place").await == (1, 1)).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_reservation_larger_than_the_instance_fails_with_a_reason() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-fail", (1, 2)).await;
    create_component(&sm, "ic-fail", "too-big", 8.0, 1).await;
    wait_status(&sm, "too-big", InferenceComponentStatus::Failed).await;
    let d = sm
        .describe_inference_component()
        .inference_component_name("too-big")
        .send()
        .await
        .unwrap();
    let reason = d.failure_reason().unwrap_or_default();
    assert!(
        reason.contains("ml.g5.12xlarge") && reason.contains("8 accelerator devices"),
        "{reason}"
    );
    // A failed component can be deleted; the endpoint can go once it has none.
    let e = sm.delete_endpoint().endpoint_name("ic-fail").send().await.unwrap_err();
    assert!(e.message().unwrap_or_default().contains("too-big"), "{e:?}");
    sm.delete_inference_component()
        .inference_component_name("too-big")
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn creating_refuses_zero_copies_and_a_model_endpoint() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-refuse", (0, 1)).await;
    let e = sm
        .create_inference_component()
        .inference_component_name("zero")
        .endpoint_name("ic-refuse")
        .variant_name("AllTraffic")
        .specification(llm_spec("ic-refuse", 1.0))
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(0).build())
        .send()
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some("ValidationException"));
    assert!(e.message().unwrap_or_default().contains("CopyCount"), "{e:?}");
    // A variant without a model needs the configuration's execution role.
    let e = sm
        .create_endpoint_config()
        .endpoint_config_name("no-role")
        .production_variants(
            ProductionVariant::builder()
                .variant_name("AllTraffic")
                .instance_type(ProductionVariantInstanceType::MlG5Xlarge)
                .initial_instance_count(1)
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    assert!(e.message().unwrap_or_default().contains("ExecutionRoleArn"), "{e:?}");
}

#[tokio::test]
async fn deleting_a_component_while_it_is_creating_is_refused() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-del", (1, 2)).await;
    create_component(&sm, "ic-del", "busy", 1.0, 1).await;
    let e = sm
        .delete_inference_component()
        .inference_component_name("busy")
        .send()
        .await
        .unwrap_err();
    assert!(
        e.message().unwrap_or_default().contains("while it is Creating"),
        "{e:?}"
    );
    wait_status(&sm, "busy", InferenceComponentStatus::InService).await;
    sm.delete_inference_component()
        .inference_component_name("busy")
        .send()
        .await
        .unwrap();
    let d = sm
        .describe_inference_component()
        .inference_component_name("busy")
        .send()
        .await
        .unwrap();
    assert_eq!(
        d.inference_component_status(),
        Some(&InferenceComponentStatus::Deleting)
    );
    poll_until("the component gone", Duration::from_secs(10), || async {
        sm.describe_inference_component()
            .inference_component_name("busy")
            .send()
            .await
            .err()
            .filter(|e| {
                e.message()
                    .unwrap_or_default()
                    .contains("Could not find inference component")
            })
    })
    .await;
}

#[tokio::test]
async fn list_filters_by_endpoint_status_and_name_and_pages() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-list-a", (1, 4)).await;
    create_ic_endpoint(&sm, "ic-list-b", (1, 4)).await;
    for i in 0..3 {
        create_component(&sm, "ic-list-a", &format!("alpha-{i}"), 1.0, 1).await;
    }
    create_component(&sm, "ic-list-b", "beta-0", 1.0, 1).await;
    let on_a = sm
        .list_inference_components()
        .endpoint_name_equals("ic-list-a")
        .send()
        .await
        .unwrap();
    assert_eq!(on_a.inference_components().len(), 3);
    let named = sm
        .list_inference_components()
        .name_contains("BETA")
        .send()
        .await
        .unwrap();
    let names: Vec<_> = named
        .inference_components()
        .iter()
        .filter_map(|c| c.inference_component_name())
        .collect();
    assert_eq!(names, vec!["beta-0"]);
    let mut pages = 0;
    let mut seen = Vec::new();
    let mut token = None;
    loop {
        let page = sm
            .list_inference_components()
            .max_results(3)
            .set_next_token(token.clone())
            .send()
            .await
            .unwrap();
        pages += 1;
        seen.extend(
            page.inference_components()
                .iter()
                .filter_map(|c| c.inference_component_name().map(str::to_string)),
        );
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    assert_eq!((pages, seen.len()), (2, 4));
    wait_status(&sm, "beta-0", InferenceComponentStatus::InService).await;
    let serving = sm
        .list_inference_components()
        .status_equals(InferenceComponentStatus::InService)
        .variant_name_equals("AllTraffic")
        .endpoint_name_equals("ic-list-b")
        .send()
        .await
        .unwrap();
    assert_eq!(serving.inference_components().len(), 1);
}
