//! Shadow variants with the Rust SDK: one production and one shadow, DescribeEndpoint's
//! ShadowProductionVariants, the caller always answered by production, and the shadow's sampled
//! copy of the traffic in its own VariantName's metrics, and the shadow following an
//! UpdateEndpoint to a configuration with another shadow or none.

use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{EndpointStatus, ProductionVariant, ProductionVariantInstanceType};
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::SandboxConfig;

use super::{create_model, metric};
use crate::common::{sandbox_with, sdk_config};
use crate::control::wait_status;

fn variant(name: &str, model: &str, weight: f32) -> ProductionVariant {
    ProductionVariant::builder()
        .variant_name(name)
        .model_name(model)
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(1)
        .initial_variant_weight(weight)
        .build()
}

/// An endpoint `name` with production `Prod` (fast) and shadow `Shadow` (ten times slower) at
/// `shadow_weight` against production's 1.
async fn shadow_endpoint(sm: &aws_sdk_sagemaker::Client, name: &str, shadow_weight: f32) {
    create_model(sm, &format!("{name}-prod"), 10).await;
    create_model(sm, &format!("{name}-shadow"), 100).await;
    sm.create_endpoint_config()
        .endpoint_config_name(name)
        .production_variants(variant("Prod", &format!("{name}-prod"), 1.0))
        .shadow_production_variants(variant("Shadow", &format!("{name}-shadow"), shadow_weight))
        .send()
        .await
        .expect("config with a shadow");
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(name)
        .send()
        .await
        .expect("endpoint");
    wait_status(sm, name, EndpointStatus::InService).await;
}

#[tokio::test]
async fn the_shadow_gets_every_call_and_answers_none() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    shadow_endpoint(&sm, "shadowed", 1.0).await;
    let d = sm.describe_endpoint().endpoint_name("shadowed").send().await.unwrap();
    let names: Vec<_> = d
        .shadow_production_variants()
        .iter()
        .filter_map(|v| v.variant_name())
        .collect();
    assert_eq!(names, ["Shadow"]);
    assert_eq!(d.production_variants().len(), 1);
    let smr = aws_sdk_sagemakerruntime::Client::new(&conf);
    for _ in 0..20 {
        let out = smr
            .invoke_endpoint()
            .endpoint_name("shadowed")
            .content_type("text/csv")
            .body(Blob::new("1,2,3"))
            .send()
            .await
            .expect("invoke");
        assert_eq!(
            out.invoked_production_variant(),
            Some("Prod"),
            "the caller is answered by production"
        );
    }
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let shadow_calls = metric(&cw, ("shadowed", Some("Shadow")), "Invocations", "Sum").await;
    assert_eq!(shadow_calls, 20.0, "weight 1 of 1: every call copied");
    let prod = metric(&cw, ("shadowed", Some("Prod")), "ModelLatency", "Average").await;
    let shadow = metric(&cw, ("shadowed", Some("Shadow")), "ModelLatency", "Average").await;
    assert!(shadow > prod * 3.0, "the shadow's own latency: {shadow} vs {prod}");
}

#[tokio::test]
async fn the_shadow_weight_samples_its_share_of_production() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    shadow_endpoint(&sm, "sampled", 0.25).await;
    let smr = aws_sdk_sagemakerruntime::Client::new(&conf);
    for _ in 0..200 {
        let call = smr.invoke_endpoint().endpoint_name("sampled").content_type("text/csv");
        call.body(Blob::new("1,2,3")).send().await.expect("invoke");
    }
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let copied = metric(&cw, ("sampled", Some("Shadow")), "Invocations", "Sum").await;
    assert!((20.0..=90.0).contains(&copied), "about a quarter of 200: {copied}");
}

#[tokio::test]
async fn two_shadows_are_refused() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    create_model(&sm, "m", 5).await;
    let err = sm
        .create_endpoint_config()
        .endpoint_config_name("two")
        .production_variants(variant("Prod", "m", 1.0))
        .shadow_production_variants(variant("S1", "m", 1.0))
        .shadow_production_variants(variant("S2", "m", 1.0))
        .send()
        .await
        .expect_err("one shadow at most");
    assert_eq!(err.code(), Some("ValidationException"));
    assert!(err.message().unwrap_or("").contains("one shadow variant"), "{err:?}");
}

/// A configuration `config` of `Prod` (the endpoint's production model) with `shadow`, and an
/// UpdateEndpoint of `endpoint` to it, followed to InService.
async fn update_to(
    sm: &aws_sdk_sagemaker::Client,
    (endpoint, config): (&str, &str),
    shadow: Option<ProductionVariant>,
) {
    sm.create_endpoint_config()
        .endpoint_config_name(config)
        .production_variants(variant("Prod", &format!("{endpoint}-prod"), 1.0))
        .set_shadow_production_variants(shadow.map(|s| vec![s]))
        .send()
        .await
        .expect("the new configuration");
    let update = sm.update_endpoint().endpoint_name(endpoint);
    update.endpoint_config_name(config).send().await.expect("update");
    wait_status(sm, endpoint, EndpointStatus::InService).await;
}

/// The names of `name`'s live shadow variants, as DescribeEndpoint lists them.
async fn shadow_names(sm: &aws_sdk_sagemaker::Client, name: &str) -> Vec<String> {
    let d = sm.describe_endpoint().endpoint_name(name).send().await.unwrap();
    d.shadow_production_variants()
        .iter()
        .filter_map(|v| v.variant_name().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn the_shadow_follows_an_update_endpoint_to_a_config_that_changes_it() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    shadow_endpoint(&sm, "moving", 1.0).await;
    create_model(&sm, "moving-next", 20).await;
    let next = Some(variant("Next", "moving-next", 1.0));
    update_to(&sm, ("moving", "moving-next"), next).await;
    assert_eq!(shadow_names(&sm, "moving").await, ["Next"]);
    let smr = aws_sdk_sagemakerruntime::Client::new(&conf);
    for _ in 0..5 {
        let call = smr.invoke_endpoint().endpoint_name("moving").content_type("text/csv");
        call.body(Blob::new("1,2,3")).send().await.expect("invoke");
    }
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let copied = metric(&cw, ("moving", Some("Next")), "Invocations", "Sum").await;
    assert_eq!(copied, 5.0, "the new shadow gets the copies");

    update_to(&sm, ("moving", "moving-plain"), None).await;
    assert!(shadow_names(&sm, "moving").await.is_empty(), "the shadow is gone");
}
