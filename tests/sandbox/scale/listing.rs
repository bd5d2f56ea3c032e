//! ListEndpoints read from the sorted indexes: every order and filter pages through exactly the
//! endpoints a full sort gives, in its order, and an endpoint created mid-listing moves nothing.

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{EndpointSortKey, EndpointStatus, OrderKey};
use sagedeck::sandbox::SandboxConfig;

use crate::common::{sandbox_with, sdk_config};

/// Every name ListEndpoints gives in pages of 7, and the number of pages.
async fn paged(
    sm: &Client,
    by: Option<EndpointSortKey>,
    order: Option<OrderKey>,
    contains: Option<&str>,
) -> (Vec<String>, usize) {
    let (mut names, mut token, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let page = sm
            .list_endpoints()
            .max_results(7)
            .set_sort_by(by.clone())
            .set_sort_order(order.clone())
            .set_name_contains(contains.map(str::to_string))
            .set_next_token(token.take())
            .send()
            .await
            .expect("list");
        pages += 1;
        names.extend(
            page.endpoints()
                .iter()
                .filter_map(|e| e.endpoint_name().map(str::to_string)),
        );
        match page.next_token() {
            Some(t) => token = Some(t.to_string()),
            None => return (names, pages),
        }
    }
}

#[tokio::test]
async fn every_order_pages_through_what_a_full_sort_gives() {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 60,
        ..SandboxConfig::for_tests()
    })
    .await;
    let sm = Client::new(&sdk_config(&sb).await);
    let by_creation: Vec<String> = {
        let world = sb.sandbox.world.read();
        let mut all: Vec<(f64, String)> = world
            .endpoints
            .values()
            .map(|e| (e.creation_time, e.name.clone()))
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        all.into_iter().map(|(_, n)| n).collect()
    };
    let mut by_name = by_creation.clone();
    by_name.sort();
    let rev = |v: &[String]| v.iter().rev().cloned().collect::<Vec<_>>();

    let (names, pages) = paged(&sm, None, None, None).await;
    assert_eq!(names, rev(&by_creation), "the default: CreationTime descending");
    assert_eq!(pages, 60usize.div_ceil(7));
    let asc = paged(
        &sm,
        Some(EndpointSortKey::CreationTime),
        Some(OrderKey::Ascending),
        None,
    )
    .await;
    assert_eq!(asc.0, by_creation);
    let name_asc = paged(&sm, Some(EndpointSortKey::Name), Some(OrderKey::Ascending), None).await;
    assert_eq!(name_asc.0, by_name);
    let name_desc = paged(&sm, Some(EndpointSortKey::Name), None, None).await;
    assert_eq!(name_desc.0, rev(&by_name));
    let status = paged(&sm, Some(EndpointSortKey::Status), Some(OrderKey::Ascending), None).await;
    assert_eq!(status.0.len(), 60, "by Status: every endpoint once");

    let filtered = paged(&sm, None, None, Some("EP-001")).await;
    let expected: Vec<String> = rev(&by_creation).into_iter().filter(|n| n.contains("ep-001")).collect();
    assert_eq!(
        filtered.0, expected,
        "NameContains, case-insensitive, read while paging"
    );
    assert_eq!(filtered.1, 2, "10 matches in pages of 7, no empty last page");

    let failed = sm
        .list_endpoints()
        .status_equals(EndpointStatus::Failed)
        .send()
        .await
        .expect("list");
    assert!(
        failed
            .endpoints()
            .iter()
            .all(|e| e.endpoint_status() == Some(&EndpointStatus::Failed))
    );
    assert_eq!(failed.endpoints().len(), 1, "fleet-ep-0013 is the one failed of 60");
}

#[tokio::test]
async fn an_endpoint_created_mid_listing_shifts_no_page() {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 20,
        ..SandboxConfig::for_tests()
    })
    .await;
    let sm = Client::new(&sdk_config(&sb).await);
    let first = sm.list_endpoints().max_results(7).send().await.expect("list");
    let token = first.next_token().expect("more").to_string();
    let mut names: Vec<String> = first
        .endpoints()
        .iter()
        .filter_map(|e| e.endpoint_name().map(str::to_string))
        .collect();
    sagedeck::sandbox::world::fleet::deploy::deploy(
        &sb.sandbox,
        &mut sb.sandbox.world.write(),
        "newest-endpoint",
        "newest-config",
        &[("AllTraffic", "fleet-model-0", "ml.m5.large", 1, 1.0)],
        0.0,
    );
    let mut token = Some(token);
    while let Some(t) = token.take() {
        let page = sm
            .list_endpoints()
            .max_results(7)
            .next_token(t)
            .send()
            .await
            .expect("list");
        names.extend(
            page.endpoints()
                .iter()
                .filter_map(|e| e.endpoint_name().map(str::to_string)),
        );
        token = page.next_token().map(str::to_string);
    }
    assert_eq!(names.len(), 20, "no endpoint twice, none skipped: {names:?}");
    assert!(
        !names.contains(&"newest-endpoint".to_string()),
        "newer than the first page"
    );
}
