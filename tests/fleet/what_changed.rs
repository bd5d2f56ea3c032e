//! A refresh that costs what changed, over the wire: with nothing changing, a refresh lists every
//! page and describes only the selected endpoint and those in a transitional status (counted by
//! the sandbox per operation); a weight change shows within one refresh; an endpoint deleted
//! leaves the memory.

use std::time::Duration;

use aws_sdk_sagemaker::types::DesiredWeightAndCapacity;
use sagedeck::aws::endpoints::inventory::{Inventory, InventoryOptions};
use sagedeck::aws::endpoints::refresh::{RefreshMemory, RefreshPlan, TRANSITIONAL};
use sagedeck::sandbox::SandboxConfig;

use crate::common::{fleet, sandbox_with, sdk_config};

fn transitional(inv: &Inventory, except: &str) -> u64 {
    let moving = inv
        .endpoints
        .iter()
        .filter(|e| e.name != except && TRANSITIONAL.contains(&e.status.as_str()));
    moving.count() as u64
}

#[tokio::test]
async fn nothing_changing_describes_only_the_selected_and_transitional_endpoints_and_a_weight_change_shows_at_once() {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 300,
        ..SandboxConfig::for_tests()
    })
    .await;
    let f = fleet(&sb).await;
    let count = |op: &str| sb.sandbox.request_count(op);
    let mut memory = RefreshMemory::default();
    let mut plan = RefreshPlan::full(InventoryOptions {
        autoscaling: false,
        ..Default::default()
    });
    // A sweep period of a week: no endpoint's turn comes between two refreshes of this test.
    plan.sweep = Duration::from_secs(7 * 86_400);
    let first = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    assert_eq!((first.endpoints.len(), first.described), (300, 300));
    assert!(first.pending.is_empty() && first.failures.is_empty());
    assert_eq!(count("DescribeEndpoint"), 300);

    let selected = first.endpoints[7].name.clone();
    plan.selected = Some(selected.clone());
    let (lists, describes) = (count("ListEndpoints"), count("DescribeEndpoint"));
    let again = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    let described = count("DescribeEndpoint") - describes;
    assert_eq!(count("ListEndpoints") - lists, 3, "every page listed (100 a page)");
    assert_eq!(
        described,
        1 + transitional(&again, &selected),
        "the selected one and the moving ones"
    );
    assert_eq!(again.described as u64, described);
    assert_eq!(again.endpoints.len(), 300);
    assert!(
        again
            .endpoints
            .iter()
            .all(|e| !e.variants.is_empty() && e.config_name.is_some()),
        "the endpoints not described keep their last description"
    );

    // A weight change on one endpoint: the next refresh describes it and shows the new weights.
    let changed = first.endpoints[42].clone();
    let variant = changed.variants[0].name.clone();
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    sm.update_endpoint_weights_and_capacities()
        .endpoint_name(&changed.name)
        .desired_weights_and_capacities(
            DesiredWeightAndCapacity::builder()
                .variant_name(&variant)
                .desired_weight(0.25)
                .build(),
        )
        .send()
        .await
        .unwrap();
    let describes = count("DescribeEndpoint");
    let third = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    let row = third.endpoints.iter().find(|e| e.name == changed.name).unwrap();
    let v = row.variant(&variant).unwrap();
    assert!(
        v.desired_weight == 0.25 || v.current_weight == 0.25,
        "the weight change within one refresh: {v:?}"
    );
    assert!(
        count("DescribeEndpoint") - describes >= 2,
        "the selected one and the changed one"
    );
    assert!(count("DescribeEndpoint") - describes <= 2 + transitional(&third, &changed.name));

    // A deleted endpoint leaves the table and the memory.
    sm.delete_endpoint().endpoint_name(&changed.name).send().await.unwrap();
    crate::common::poll_until("the endpoint is gone", Duration::from_secs(30), || {
        let (f, plan) = (f.clone(), plan.clone());
        let mut m = std::mem::take(&mut memory);
        let name = changed.name.clone();
        async move {
            let inv = f.refresh(&mut m, &plan, &|_| {}).await.unwrap();
            let gone = !inv.endpoints.iter().any(|e| e.name == name);
            (gone && m.len() == 299).then_some(())
        }
    })
    .await;
}

/// A first load of 120 endpoints against a control plane throttled at 20 calls a second: a fleet
/// with a budget of 15 a second is never throttled; an unlimited one is (its throttled describes
/// keep their rows for the next refresh, never failed).
#[tokio::test]
async fn the_budget_keeps_a_refresh_under_the_sandboxs_throttle() {
    use sagedeck::sandbox::calls::throttle::ThrottleSpec;
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 120,
        throttle: Some(ThrottleSpec {
            rate: 20.0,
            burst: Some(20),
        }),
        ..SandboxConfig::for_tests()
    })
    .await;
    let opts = InventoryOptions {
        autoscaling: false,
        concurrency: 32,
        ..Default::default()
    };
    let full = RefreshPlan::full(opts);
    let budgeted = fleet(&sb).await.with_budget(15.0);
    let inv = budgeted
        .refresh(&mut RefreshMemory::default(), &full, &|_| {})
        .await
        .unwrap();
    assert_eq!(inv.throttled, 0, "15 calls a second stay under a throttle of 20");
    assert_eq!((inv.described, inv.pending.len()), (120, 0));

    let unlimited = fleet(&sb).await;
    let inv = unlimited.refresh(&mut RefreshMemory::default(), &full, &|_| {}).await;
    let inv = inv.expect("a throttled refresh still answers");
    assert!(inv.throttled > 0, "without a budget the control plane throttles");
    assert!(
        inv.failures.is_empty(),
        "a throttled describe is not a failure: {:?}",
        inv.failures
    );
    assert_eq!(inv.endpoints.len(), 120, "every row stays");
    assert_eq!(
        inv.described + inv.pending.len(),
        120,
        "the rest wait for the next refresh"
    );
}
