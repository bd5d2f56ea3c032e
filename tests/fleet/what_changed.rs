//! A refresh that costs what changed, over the wire: with nothing changing, a refresh lists only
//! what moved (`LastModifiedTimeAfter`: one page) and describes only the selected endpoint and
//! those in a transitional status (counted by the sandbox per operation); a weight change and a
//! new endpoint show within one refresh; an endpoint deleted leaves the memory (at once when its
//! describe says so, else at the next full listing).

use std::time::Duration;

use aws_sdk_sagemaker::types::DesiredWeightAndCapacity;
use sagedeck::aws::Fleet;
use sagedeck::aws::endpoints::inventory::{Inventory, InventoryOptions};
use sagedeck::aws::endpoints::refresh::{RefreshMemory, RefreshPlan, TRANSITIONAL};
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};

use crate::common::{fleet, sandbox_with, sdk_config};

fn transitional(inv: &Inventory, except: &str) -> u64 {
    let moving = inv
        .endpoints
        .iter()
        .filter(|e| e.name != except && TRANSITIONAL.contains(&e.status.as_str()));
    moving.count() as u64
}

/// A sandbox of `n` generated endpoints, its fleet, and the plan of a refresh without
/// autoscaling whose sweep period is a week (no endpoint's turn comes between two refreshes of
/// these tests).
async fn quiet_fleet(n: usize) -> (SandboxHandle, Fleet, RefreshPlan) {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: n,
        ..SandboxConfig::for_tests()
    })
    .await;
    let f = fleet(&sb).await;
    let mut plan = RefreshPlan::full(InventoryOptions {
        autoscaling: false,
        ..Default::default()
    });
    plan.sweep = Duration::from_secs(7 * 86_400);
    (sb, f, plan)
}

#[tokio::test]
async fn nothing_changing_describes_only_the_selected_and_transitional_endpoints_and_a_weight_change_shows_at_once() {
    let (sb, f, mut plan) = quiet_fleet(300).await;
    let count = |op: &str| sb.sandbox.request_count(op);
    let mut memory = RefreshMemory::default();
    let first = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    assert_eq!((first.endpoints.len(), first.described), (300, 300));
    assert!(first.pending.is_empty() && first.failures.is_empty());
    assert_eq!(count("DescribeEndpoint"), 300);

    let selected = first.endpoints[7].name.clone();
    plan.selected = Some(selected.clone());
    let (lists, describes) = (count("ListEndpoints"), count("DescribeEndpoint"));
    let again = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    let described = count("DescribeEndpoint") - describes;
    assert_eq!(
        count("ListEndpoints") - lists,
        1,
        "only what moved is listed: one page, not three"
    );
    assert!(
        again.api_calls as u64 <= 2 + transitional(&again, &selected),
        "a page, the selected one and the moving ones: {} calls",
        again.api_calls
    );
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
    let (lists, describes) = (count("ListEndpoints"), count("DescribeEndpoint"));
    let third = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    assert_eq!(
        count("ListEndpoints") - lists,
        1,
        "picked up by the incremental listing"
    );
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
    let mut memory = RefreshMemory::default();
    let inv = unlimited.refresh(&mut memory, &full, &|_| {}).await;
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

    // The next refreshes list only what moved, keep every row, and describe those left waiting.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut pending = inv.pending.len();
    while pending > 0 {
        assert!(std::time::Instant::now() < deadline, "{pending} rows still waiting");
        let lists = sb.sandbox.request_count("ListEndpoints");
        let next = budgeted.refresh(&mut memory, &full, &|_| {}).await.unwrap();
        let pages = sb.sandbox.request_count("ListEndpoints") - lists;
        assert!(
            (1..=3).contains(&pages),
            "one page, what moved (a throttled try asked again): {pages}"
        );
        assert_eq!(next.endpoints.len(), 120, "the rows waiting are kept");
        assert!(next.pending.len() <= pending, "{} after {pending}", next.pending.len());
        pending = next.pending.len();
    }
    assert!(memory.len() == 120, "every endpoint described at last");
}

/// What an incremental listing cannot see: an endpoint deleted and gone between two refreshes
/// stays in the table (as last described) until the next full listing, which drops it; a new
/// endpoint is listed at once, first (the newest).
#[tokio::test]
async fn a_deleted_endpoint_leaves_at_the_full_listing_and_a_new_one_comes_at_once() {
    let (sb, f, mut plan) = quiet_fleet(150).await;
    let count = |op: &str| sb.sandbox.request_count(op);
    let mut memory = RefreshMemory::default();
    plan.full_listing = Duration::from_secs(86_400);
    let first = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    assert_eq!((first.endpoints.len(), count("ListEndpoints")), (150, 2));

    let victim = first.endpoints[3].name.clone();
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    sm.delete_endpoint().endpoint_name(&victim).send().await.unwrap();
    crate::common::poll_until("the endpoint is deleted", Duration::from_secs(30), || async {
        let r = sm.describe_endpoint().endpoint_name(&victim).send().await;
        r.is_err().then_some(())
    })
    .await;
    let model = first.endpoints[0].variants[0].model_name.clone().unwrap();
    let variant = aws_sdk_sagemaker::types::ProductionVariant::builder()
        .variant_name("AllTraffic")
        .model_name(&model)
        .instance_type(aws_sdk_sagemaker::types::ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(1)
        .build();
    let config = sm.create_endpoint_config().endpoint_config_name("newest-config");
    config.production_variants(variant).send().await.unwrap();
    let create = sm.create_endpoint().endpoint_name("newest");
    create.endpoint_config_name("newest-config").send().await.unwrap();

    let lists = count("ListEndpoints");
    let inc = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    assert_eq!(count("ListEndpoints") - lists, 1, "an incremental listing");
    assert_eq!(inc.endpoints[0].name, "newest", "the new endpoint, first");
    assert_eq!(inc.endpoints.len(), 151);
    assert!(
        inc.endpoints.iter().any(|e| e.name == victim),
        "gone before it was seen Deleting: kept until the full listing"
    );

    plan.full_listing = Duration::ZERO;
    let lists = count("ListEndpoints");
    let full = f.refresh(&mut memory, &plan, &|_| {}).await.unwrap();
    assert_eq!(count("ListEndpoints") - lists, 2, "a full listing: every page");
    assert!(!full.endpoints.iter().any(|e| e.name == victim), "gone");
    assert_eq!((full.endpoints.len(), memory.len()), (150, 150));
}
