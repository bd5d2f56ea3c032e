//! Cheap refresh: endpoint configurations and models are described once per name, so a refresh
//! of an unchanged fleet costs one DescribeEndpoint per endpoint, and a new endpoint costs only
//! what is new about it. Counted by the sandbox per operation.

use aws_sdk_sagemaker::types::{ProductionVariant, ProductionVariantInstanceType};
use sagedeck::aws::endpoints::inventory::InventoryOptions;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};

use crate::common::{fleet, sandbox_with, sdk_config};

fn counts(sb: &SandboxHandle) -> [u64; 3] {
    ["DescribeEndpoint", "DescribeEndpointConfig", "DescribeModel"].map(|op| sb.sandbox.request_count(op))
}

#[tokio::test]
async fn refresh_of_an_unchanged_fleet_costs_one_call_per_endpoint() {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 1000,
        ..SandboxConfig::for_tests()
    })
    .await;
    let f = fleet(&sb).await;
    let opts = InventoryOptions {
        autoscaling: false,
        ..Default::default()
    };
    let first = f.inventory(opts).await.unwrap();
    assert_eq!(first.endpoints.len(), 1000);
    let after_first = counts(&sb);
    assert_eq!(after_first[0], 1000);
    assert_eq!(after_first[1], 1000);
    assert!(after_first[2] >= 1, "{after_first:?}");
    let again = f.clone().inventory(opts).await.unwrap();
    let delta: Vec<u64> = counts(&sb).iter().zip(after_first).map(|(a, b)| a - b).collect();
    assert_eq!(delta, [1000, 0, 0]);
    // ListEndpoints pages (10) + one DescribeEndpoint per endpoint.
    assert_eq!(again.api_calls, 1010);
    assert_eq!(again.endpoints.len(), 1000);
    let same = |i: usize| {
        let (a, b) = (&first.endpoints[i], &again.endpoints[i]);
        (a.name == b.name
            && a.variants[0].model_name == b.variants[0].model_name
            && a.variants[0].image == b.variants[0].image)
            .then_some(())
    };
    assert!((0..1000).all(|i| same(i).is_some()));

    // A new endpoint on a new configuration of an existing model: one config described, no model.
    let model = first.endpoints[0].variants[0].model_name.clone().unwrap();
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .model_name(&model)
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(1)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name("fresh-config")
        .production_variants(variant)
        .send()
        .await
        .unwrap();
    sm.create_endpoint()
        .endpoint_name("fresh")
        .endpoint_config_name("fresh-config")
        .send()
        .await
        .unwrap();
    let before = counts(&sb);
    let third = f.inventory(opts).await.unwrap();
    let delta: Vec<u64> = counts(&sb).iter().zip(before).map(|(a, b)| a - b).collect();
    assert_eq!(delta, [1001, 1, 0]);
    let fresh = third.endpoints.iter().find(|e| e.name == "fresh").unwrap();
    assert_eq!(fresh.variants[0].model_name.as_deref(), Some(model.as_str()));
}
