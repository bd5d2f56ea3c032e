//! A variant's RoutingConfig over the wire with the Rust SDK: PREFIX_AWARE with its
//! PrefixAwareRoutingConfig accepted, kept and echoed by DescribeEndpointConfig and
//! DescribeEndpoint; calls with the same prefix and `PrefixAwareId` answered by one instance (each
//! instance writes its own log stream); the refusals of a PREFIX_AWARE variant without its
//! configuration, of a configuration under another strategy and of a PrefixLength out of bounds.

use std::collections::BTreeSet;
use std::time::Duration;

use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    ContainerDefinition, PrefixAwareRoutingConfig, ProductionVariant, ProductionVariantInstanceType,
    ProductionVariantRoutingConfig, RoutingStrategy,
};
use aws_sdk_sagemakerruntime::primitives::Blob;
use serde_json::json;

use crate::common::{poll_until, sandbox, sdk_config};

fn variant(routing: ProductionVariantRoutingConfig) -> ProductionVariant {
    ProductionVariant::builder()
        .variant_name("AllTraffic")
        .model_name("routed-llm")
        .instance_type(ProductionVariantInstanceType::MlG5Xlarge)
        .initial_instance_count(3)
        .routing_config(routing)
        .build()
}

fn prefix_aware(length: i32) -> ProductionVariantRoutingConfig {
    ProductionVariantRoutingConfig::builder()
        .routing_strategy(RoutingStrategy::PrefixAware)
        .prefix_aware_routing_config(
            PrefixAwareRoutingConfig::builder()
                .prefix_length(length)
                .concurrency_threshold(8)
                .build(),
        )
        .build()
}

#[tokio::test]
async fn prefix_aware_routing_is_kept_echoed_and_sends_one_prefix_to_one_instance() {
    let sb = sandbox().await;
    let config = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&config);
    sm.create_model()
        .model_name("routed-llm")
        .primary_container(ContainerDefinition::builder().image("tgi-llm-inference:2.4").build())
        .execution_role_arn("arn:aws:iam::123456789012:role/sagemaker")
        .send()
        .await
        .expect("create model");
    sm.create_endpoint_config()
        .endpoint_config_name("routed-config")
        .production_variants(variant(prefix_aware(2048)))
        .send()
        .await
        .expect("a PREFIX_AWARE configuration");
    let described = sm
        .describe_endpoint_config()
        .endpoint_config_name("routed-config")
        .send()
        .await
        .unwrap();
    let routing = described.production_variants()[0]
        .routing_config()
        .expect("RoutingConfig echoed");
    assert_eq!(routing, &prefix_aware(2048));
    sm.create_endpoint()
        .endpoint_name("routed")
        .endpoint_config_name("routed-config")
        .send()
        .await
        .unwrap();
    let summary = poll_until("routed in service", Duration::from_secs(10), || async {
        let d = sm.describe_endpoint().endpoint_name("routed").send().await.ok()?;
        (d.endpoint_status().map(|s| s.as_str()) == Some("InService")).then(|| d.production_variants()[0].clone())
    })
    .await;
    assert_eq!(summary.routing_config(), Some(&prefix_aware(2048)));

    let rt = aws_sdk_sagemakerruntime::Client::new(&config);
    let body = json!({"messages": [{"role": "system", "content": "You are the radio station's assistant."},
        {"role": "user", "content": "Say hello."}], "max_tokens": 6});
    for _ in 0..10 {
        rt.invoke_endpoint()
            .endpoint_name("routed")
            .content_type("application/json")
            .prefix_aware_id("radio-app")
            .body(Blob::new(body.to_string()))
            .send()
            .await
            .expect("PrefixAwareId accepted");
    }
    let logs = aws_sdk_cloudwatchlogs::Client::new(&config);
    let out = logs
        .filter_log_events()
        .log_group_name("/aws/sagemaker/Endpoints/routed")
        .filter_pattern("\"POST /invocations\"")
        .send()
        .await
        .unwrap();
    let streams: BTreeSet<&str> = out.events().iter().filter_map(|e| e.log_stream_name()).collect();
    assert_eq!(out.events().len(), 10);
    assert_eq!(streams.len(), 1, "one prefix, one instance: {streams:?}");
}

#[tokio::test]
async fn routing_configs_aws_refuses_are_refused() {
    let sb = sandbox().await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    sm.create_model()
        .model_name("routed-llm")
        .primary_container(ContainerDefinition::builder().image("tgi-llm-inference:2.4").build())
        .execution_role_arn("arn:aws:iam::123456789012:role/sagemaker")
        .send()
        .await
        .unwrap();
    let without = ProductionVariantRoutingConfig::builder()
        .routing_strategy(RoutingStrategy::PrefixAware)
        .build();
    let under_random = ProductionVariantRoutingConfig::builder()
        .routing_strategy(RoutingStrategy::Random)
        .prefix_aware_routing_config(PrefixAwareRoutingConfig::builder().prefix_length(2048).build())
        .build();
    let cases = [
        ("required", without),
        ("only valid", under_random),
        ("greater than or equal to 1024", prefix_aware(10)),
    ];
    for (i, (expected, routing)) in cases.into_iter().enumerate() {
        let e = sm
            .create_endpoint_config()
            .endpoint_config_name(format!("refused-{i}"))
            .production_variants(variant(routing))
            .send()
            .await
            .expect_err(expected);
        assert_eq!(e.code(), Some("ValidationException"));
        assert!(e.message().unwrap_or_default().contains(expected), "{expected}: {e:?}");
    }
}
