//! SageMaker control plane: lifecycles, validation texts, ListEndpoints paging and filters.

use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    ContainerDefinition, DesiredWeightAndCapacity, EndpointStatus, OrderKey, ProductionVariant,
    ProductionVariantInstanceType,
};
use sagedeck::sandbox::SandboxConfig;

use crate::common::{poll_until, sandbox, sandbox_with, sdk_config};

/// Creates two models, a two-variant config (Stable 9 × 2, Canary 1 × 1) and an endpoint.
pub async fn create_ab_endpoint(sm: &Client, name: &str) {
    for m in ["v3", "v4"] {
        sm.create_model()
            .model_name(format!("{name}-{m}"))
            .primary_container(
                ContainerDefinition::builder()
                    .image("huggingface-pytorch-inference")
                    .build(),
            )
            .execution_role_arn("arn:aws:iam::123456789012:role/x")
            .send()
            .await
            .expect("create model");
    }
    let variant = |v: &str, model: &str, count: i32, weight: f32| {
        ProductionVariant::builder()
            .variant_name(v)
            .model_name(model)
            .instance_type(ProductionVariantInstanceType::MlM5Large)
            .initial_instance_count(count)
            .initial_variant_weight(weight)
            .build()
    };
    sm.create_endpoint_config()
        .endpoint_config_name(format!("{name}-config"))
        .production_variants(variant("Stable", &format!("{name}-v3"), 2, 9.0))
        .production_variants(variant("Canary", &format!("{name}-v4"), 1, 1.0))
        .send()
        .await
        .expect("create endpoint config");
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(format!("{name}-config"))
        .send()
        .await
        .expect("create");
}

/// Polls DescribeEndpoint until the endpoint reaches `status`.
pub async fn wait_status(
    sm: &Client,
    name: &str,
    status: EndpointStatus,
) -> aws_sdk_sagemaker::operation::describe_endpoint::DescribeEndpointOutput {
    poll_until(&format!("{name} to be {status:?}"), Duration::from_secs(10), || async {
        let d = sm.describe_endpoint().endpoint_name(name).send().await.ok()?;
        (d.endpoint_status() == Some(&status)).then_some(d)
    })
    .await
}

#[tokio::test]
async fn endpoint_lifecycle_create_update_delete() {
    let sb = sandbox().await;
    let sm = Client::new(&sdk_config(&sb).await);
    create_ab_endpoint(&sm, "ab").await;
    let d = sm.describe_endpoint().endpoint_name("ab").send().await.unwrap();
    assert_eq!(d.endpoint_status(), Some(&EndpointStatus::Creating));
    let d = wait_status(&sm, "ab", EndpointStatus::InService).await;
    let v = d.production_variants();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].current_weight(), Some(9.0));
    assert_eq!(v[0].current_instance_count(), Some(2));

    sm.update_endpoint_weights_and_capacities()
        .endpoint_name("ab")
        .desired_weights_and_capacities(
            DesiredWeightAndCapacity::builder()
                .variant_name("Stable")
                .desired_weight(0.0)
                .build(),
        )
        .desired_weights_and_capacities(
            DesiredWeightAndCapacity::builder()
                .variant_name("Canary")
                .desired_weight(1.0)
                .desired_instance_count(3)
                .build(),
        )
        .send()
        .await
        .unwrap();
    let d = sm.describe_endpoint().endpoint_name("ab").send().await.unwrap();
    assert_eq!(d.endpoint_status(), Some(&EndpointStatus::Updating));
    let stable = &d.production_variants()[0];
    assert_eq!(
        (stable.current_weight(), stable.desired_weight()),
        (Some(9.0), Some(0.0))
    );
    assert!(!stable.variant_status().is_empty(), "variant status shows the update");

    // A second update while Updating is refused with AWS's text.
    let err = sm
        .update_endpoint_weights_and_capacities()
        .endpoint_name("ab")
        .desired_weights_and_capacities(
            DesiredWeightAndCapacity::builder()
                .variant_name("Stable")
                .desired_weight(1.0)
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    assert_eq!(
        err.message(),
        Some("Cannot update in-progress endpoint \"arn:aws:sagemaker:us-east-1:123456789012:endpoint/ab\".")
    );

    let d = wait_status(&sm, "ab", EndpointStatus::InService).await;
    let canary = &d.production_variants()[1];
    assert_eq!(
        (canary.current_weight(), canary.current_instance_count()),
        (Some(1.0), Some(3))
    );
    assert_eq!(d.production_variants()[0].current_weight(), Some(0.0));

    sm.delete_endpoint().endpoint_name("ab").send().await.unwrap();
    let d = sm.describe_endpoint().endpoint_name("ab").send().await.unwrap();
    assert_eq!(d.endpoint_status(), Some(&EndpointStatus::Deleting));
    poll_until("endpoint gone", Duration::from_secs(10), || async {
        let e = sm.describe_endpoint().endpoint_name("ab").send().await.err()?;
        (e.message() == Some("Could not find endpoint \"arn:aws:sagemaker:us-east-1:123456789012:endpoint/ab\"."))
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn weight_updates_are_validated() {
    let sb = sandbox().await;
    let sm = Client::new(&sdk_config(&sb).await);
    create_ab_endpoint(&sm, "val").await;
    wait_status(&sm, "val", EndpointStatus::InService).await;
    let w = |v: &str, x: f32| {
        DesiredWeightAndCapacity::builder()
            .variant_name(v)
            .desired_weight(x)
            .build()
    };
    let cases: Vec<(Vec<DesiredWeightAndCapacity>, &str)> = vec![
        (
            vec![w("Nope", 1.0)],
            "The variant(s) \"Nope\" are not production variants",
        ),
        (
            vec![w("Stable", 1.0), w("Stable", 2.0)],
            "Variant \"Stable\" appears more than once",
        ),
        (
            vec![w("Stable", -1.0)],
            "at 'desiredWeightsAndCapacities.1.member.desiredWeight' failed to satisfy constraint: Member must have value greater than or equal to 0",
        ),
        (vec![w("Stable", 0.0), w("Canary", 0.0)], "would all be 0"),
    ];
    for (desired, expected) in cases {
        let err = sm
            .update_endpoint_weights_and_capacities()
            .endpoint_name("val")
            .set_desired_weights_and_capacities(Some(desired))
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some("ValidationException"));
        assert!(
            err.message().unwrap_or("").contains(expected),
            "{:?} should contain {expected}",
            err.message()
        );
    }
    // Nothing was applied.
    let d = sm.describe_endpoint().endpoint_name("val").send().await.unwrap();
    assert_eq!(d.endpoint_status(), Some(&EndpointStatus::InService));
    let err = sm
        .describe_endpoint()
        .endpoint_name("missing")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        Some("Could not find endpoint \"arn:aws:sagemaker:us-east-1:123456789012:endpoint/missing\".")
    );
    let err = sm
        .describe_endpoint_config()
        .endpoint_config_name("missing")
        .send()
        .await
        .unwrap_err();
    assert!(
        err.message()
            .unwrap()
            .starts_with("Could not find endpoint configuration")
    );
    let err = sm.describe_model().model_name("missing").send().await.unwrap_err();
    assert!(err.message().unwrap().starts_with("Could not find model"));
    // Duplicate creation is refused.
    let err = sm
        .create_endpoint()
        .endpoint_name("val")
        .endpoint_config_name("val-config")
        .send()
        .await
        .unwrap_err();
    assert!(
        err.message()
            .unwrap()
            .starts_with("Cannot create already existing endpoint")
    );
}

#[tokio::test]
async fn list_endpoints_pages_past_one_hundred_with_aws_defaults() {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 150,
        ..SandboxConfig::for_tests()
    })
    .await;
    let sm = Client::new(&sdk_config(&sb).await);
    let first = sm.list_endpoints().send().await.unwrap();
    assert_eq!(first.endpoints().len(), 10, "default MaxResults is 10");
    assert!(first.next_token().is_some());
    let times: Vec<_> = first
        .endpoints()
        .iter()
        .map(|e| e.creation_time().unwrap().as_secs_f64())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "CreationTime descending by default"
    );

    let all: Vec<_> = sm
        .list_endpoints()
        .max_results(100)
        .into_paginator()
        .items()
        .send()
        .collect::<Vec<_>>()
        .await;
    assert_eq!(all.len(), 150);
    assert!(all.iter().all(|e| e.is_ok()));

    let asc = sm
        .list_endpoints()
        .sort_by("Name".into())
        .sort_order(OrderKey::Ascending)
        .max_results(5)
        .send()
        .await
        .unwrap();
    assert_eq!(asc.endpoints()[0].endpoint_name(), Some("fleet-ep-0000"));
    let filtered = sm
        .list_endpoints()
        .name_contains("EP-012")
        .max_results(100)
        .send()
        .await
        .unwrap();
    assert_eq!(filtered.endpoints().len(), 10, "fleet-ep-0120..0129, case-insensitive");
    let failed = sm
        .list_endpoints()
        .status_equals(EndpointStatus::Failed)
        .max_results(100)
        .send()
        .await
        .unwrap();
    assert!(!failed.endpoints().is_empty());
    assert!(
        failed
            .endpoints()
            .iter()
            .all(|e| e.endpoint_status() == Some(&EndpointStatus::Failed))
    );
    let err = sm.list_endpoints().max_results(101).send().await.unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
}

#[tokio::test]
async fn unknown_operation_answers_the_protocol_error_naming_it() {
    let sb = sandbox().await;
    let r = sagedeck::sandbox::http::raw_client::send(
        &sb.endpoint_url(),
        "POST",
        "/",
        &[
            ("x-amz-target", "SageMaker.CreateTrainingJob"),
            ("content-type", "application/x-amz-json-1.1"),
        ],
        "{}",
    )
    .await
    .unwrap();
    assert_eq!(r.status, 400);
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["__type"], "UnknownOperationException");
    assert!(v["Message"].as_str().unwrap().contains("CreateTrainingJob"));
    let r = sagedeck::sandbox::http::raw_client::send(&sb.endpoint_url(), "PUT", "/nothing-here", &[], "")
        .await
        .unwrap();
    assert!(r.header("content-type").unwrap().contains("json"), "never an HTML page");
}
