//! UpdateEndpoint onto another IC endpoint configuration: the variant's hosts registered again
//! (instance type, ManagedInstanceScaling, RoutingConfig) while its components stay placed on
//! them; an update that would drop a variant hosting a component is refused.

use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    InferenceComponentStatus, ManagedInstanceScalingStatus, ProductionVariant, ProductionVariantInstanceType,
    ProductionVariantManagedInstanceScaling, ProductionVariantRoutingConfig, RoutingStrategy,
};

use super::{ROLE, create_component, create_ic_endpoint, sagemaker, wait_status};
use crate::common::poll_until;

/// Creates IC configuration `name` with one variant `variant` of `itype`, managed `min..=max`
/// and random routing.
async fn ic_config(
    sm: &Client,
    name: &str,
    variant: &str,
    itype: ProductionVariantInstanceType,
    (min, max): (i32, i32),
) {
    let v = ProductionVariant::builder()
        .variant_name(variant)
        .instance_type(itype)
        .initial_instance_count(1)
        .managed_instance_scaling(
            ProductionVariantManagedInstanceScaling::builder()
                .status(ManagedInstanceScalingStatus::Enabled)
                .min_instance_count(min)
                .max_instance_count(max)
                .build(),
        )
        .routing_config(
            ProductionVariantRoutingConfig::builder()
                .routing_strategy(RoutingStrategy::Random)
                .build(),
        )
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(name)
        .execution_role_arn(ROLE)
        .production_variants(v)
        .send()
        .await
        .expect("create IC endpoint config");
}

/// The copies of a component placed per instance type.
async fn placement(sm: &Client, ic: &str) -> Vec<(String, i32)> {
    let d = sm
        .describe_inference_component()
        .inference_component_name(ic)
        .send()
        .await
        .expect("describe component");
    d.runtime_config()
        .map(|rc| rc.placement_status())
        .unwrap_or_default()
        .iter()
        .map(|p| {
            (
                p.instance_type().map(|t| t.as_str().to_string()).unwrap_or_default(),
                p.current_copy_count().unwrap_or(-1),
            )
        })
        .collect()
}

#[tokio::test]
async fn update_endpoint_onto_an_ic_config_rehosts_the_variant_and_keeps_its_components() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-move", (1, 2)).await;
    create_component(&sm, "ic-move", "llm-move", 2.0, 2).await;
    wait_status(&sm, "llm-move", InferenceComponentStatus::InService).await;
    assert_eq!(placement(&sm, "llm-move").await, [("ml.g5.12xlarge".to_string(), 2)]);

    ic_config(
        &sm,
        "ic-move-48x",
        "AllTraffic",
        ProductionVariantInstanceType::MlG548Xlarge,
        (0, 4),
    )
    .await;
    sm.update_endpoint()
        .endpoint_name("ic-move")
        .endpoint_config_name("ic-move-48x")
        .send()
        .await
        .expect("UpdateEndpoint onto an IC config");
    let ep = poll_until("the endpoint on its new config", Duration::from_secs(15), || async {
        let d = sm.describe_endpoint().endpoint_name("ic-move").send().await.ok()?;
        let done = d.endpoint_status().map(|s| s.as_str()) == Some("InService")
            && d.endpoint_config_name() == Some("ic-move-48x");
        done.then_some(d)
    })
    .await;
    let v = &ep.production_variants()[0];
    let mis = v.managed_instance_scaling().expect("ManagedInstanceScaling shown");
    assert_eq!(
        (mis.min_instance_count(), mis.max_instance_count()),
        (Some(0), Some(4)),
        "the new config's scaling"
    );
    assert_eq!(
        v.routing_config().and_then(|r| r.routing_strategy()),
        Some(&RoutingStrategy::Random)
    );
    assert_eq!(
        placement(&sm, "llm-move").await,
        [("ml.g5.48xlarge".to_string(), 2)],
        "the component stays, on the new instance type"
    );
    let d = sm
        .describe_inference_component()
        .inference_component_name("llm-move")
        .send()
        .await
        .unwrap();
    assert_eq!(
        d.inference_component_status(),
        Some(&InferenceComponentStatus::InService)
    );
    assert_eq!(d.variant_name(), Some("AllTraffic"));
}

#[tokio::test]
async fn update_endpoint_that_drops_a_hosting_variant_is_refused() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-drop", (1, 2)).await;
    create_component(&sm, "ic-drop", "llm-drop", 1.0, 1).await;
    ic_config(
        &sm,
        "ic-drop-other",
        "Other",
        ProductionVariantInstanceType::MlG512Xlarge,
        (1, 2),
    )
    .await;
    let err = sm
        .update_endpoint()
        .endpoint_name("ic-drop")
        .endpoint_config_name("ic-drop-other")
        .send()
        .await
        .expect_err("the component's variant would be gone");
    assert_eq!(err.code(), Some("ValidationException"));
    let msg = err.message().unwrap_or_default();
    assert!(
        msg.contains("variant \"AllTraffic\" hosts inference component llm-drop"),
        "{msg}"
    );
    let ep = sm.describe_endpoint().endpoint_name("ic-drop").send().await.unwrap();
    assert_eq!(ep.endpoint_config_name(), Some("ic-drop-config"));
}
