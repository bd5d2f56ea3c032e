//! `Specifications` (one per instance type) on Create/UpdateInferenceComponent: the one for the
//! variant's instance type runs, every one is shown back; a GPU partition profile
//! (`AcceleratorPartitionType`) reserves its share of one accelerator, and `DataCacheConfig` is
//! kept; the refusals of both members at once and of no specification for the variant's type.

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    InferenceComponentComputeResourceRequirements, InferenceComponentDataCacheConfig, InferenceComponentRuntimeConfig,
    InferenceComponentSpecification, InferenceComponentStatus, ProductionVariantInstanceType,
};

use super::{create_ic_endpoint, instances, llm_spec, sagemaker, wait_status};

/// A specification of the endpoint's model for `itype` taking the partition `profile`.
fn partitioned(endpoint: &str, itype: ProductionVariantInstanceType, profile: &str) -> InferenceComponentSpecification {
    InferenceComponentSpecification::builder()
        .instance_type(itype)
        .model_name(format!("{endpoint}-llm"))
        .compute_resource_requirements(
            InferenceComponentComputeResourceRequirements::builder()
                .number_of_cpu_cores_required(4.0)
                .number_of_accelerator_devices_required(1.0)
                .accelerator_partition_type(profile)
                .min_memory_required_in_mb(16_384)
                .build(),
        )
        .data_cache_config(
            InferenceComponentDataCacheConfig::builder()
                .enable_caching(true)
                .build(),
        )
        .build()
}

/// Creates `ic` on `endpoint` from `specs` with `copies` copies.
async fn create_from(sm: &Client, endpoint: &str, ic: &str, specs: Vec<InferenceComponentSpecification>, copies: i32) {
    sm.create_inference_component()
        .inference_component_name(ic)
        .endpoint_name(endpoint)
        .variant_name("AllTraffic")
        .set_specifications(Some(specs))
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(copies).build())
        .send()
        .await
        .expect("create inference component from Specifications");
}

#[tokio::test]
async fn the_specification_for_the_variants_type_runs_and_a_partition_takes_its_share() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-specs", (0, 3)).await;
    let specs = vec![
        partitioned("ic-specs", ProductionVariantInstanceType::MlG612Xlarge, "mig-1g.10gb"),
        partitioned("ic-specs", ProductionVariantInstanceType::MlG512Xlarge, "mig-3g.40gb"),
    ];
    // Ten copies of three sevenths of a GPU: 4.3 GPUs, two four-GPU instances (whole GPUs
    // would take three).
    create_from(&sm, "ic-specs", "llm-mig", specs, 10).await;
    assert_eq!(
        wait_status(&sm, "llm-mig", InferenceComponentStatus::InService).await,
        (10, 10)
    );
    assert_eq!(instances(&sm, "ic-specs").await, (2, 2));
    let d = sm
        .describe_inference_component()
        .inference_component_name("llm-mig")
        .send()
        .await
        .unwrap();
    let shown = d.specifications();
    assert_eq!(shown.len(), 2, "every specification shown back: {d:?}");
    let g5 = shown
        .iter()
        .find(|s| s.instance_type() == Some(&ProductionVariantInstanceType::MlG512Xlarge))
        .expect("the g5 specification");
    let compute = g5.compute_resource_requirements().unwrap();
    assert_eq!(compute.accelerator_partition_type(), Some("mig-3g.40gb"));
    assert_eq!(g5.data_cache_config().and_then(|c| c.enable_caching()), Some(true));
    let placed = d.runtime_config().unwrap().placement_status();
    assert_eq!(placed.len(), 1);
    assert_eq!(
        placed[0].instance_type(),
        Some(&ProductionVariantInstanceType::MlG512Xlarge)
    );
    assert_eq!(placed[0].current_copy_count(), Some(10));
}

#[tokio::test]
async fn both_members_and_no_specification_for_the_variants_type_are_refused() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-specs-bad", (0, 2)).await;
    let both = sm
        .create_inference_component()
        .inference_component_name("llm-both")
        .endpoint_name("ic-specs-bad")
        .variant_name("AllTraffic")
        .specification(llm_spec("ic-specs-bad", 1.0))
        .specifications(partitioned(
            "ic-specs-bad",
            ProductionVariantInstanceType::MlG512Xlarge,
            "mig-3g.40gb",
        ))
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(1).build())
        .send()
        .await
        .expect_err("both given");
    assert!(both.message().unwrap_or_default().contains("not both"), "{both:?}");
    let elsewhere = sm
        .create_inference_component()
        .inference_component_name("llm-elsewhere")
        .endpoint_name("ic-specs-bad")
        .variant_name("AllTraffic")
        .specifications(partitioned(
            "ic-specs-bad",
            ProductionVariantInstanceType::MlG612Xlarge,
            "mig-3g.40gb",
        ))
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(1).build())
        .send()
        .await
        .expect_err("no specification for ml.g5.12xlarge");
    let msg = elsewhere.message().unwrap_or_default();
    assert!(
        msg.contains("None of Specifications is for instance type ml.g5.12xlarge"),
        "{msg}"
    );
}
