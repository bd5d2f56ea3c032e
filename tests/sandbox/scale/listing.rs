//! ListEndpoints read from the sorted indexes: every order and filter pages through exactly the
//! endpoints a full sort gives, in its order, and an endpoint created mid-listing moves nothing;
//! LastModifiedTimeAfter is strict at the millisecond the answers give, and pages.

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{EndpointSortKey, EndpointStatus, OrderKey};
use sagedeck::sandbox::SandboxConfig;

use crate::common::{sandbox_with, sdk_config};

/// Every name ListEndpoints gives in pages of 7 (modified after a time, when given), and the
/// number of pages.
async fn paged(
    sm: &Client,
    (by, order): (Option<EndpointSortKey>, Option<OrderKey>),
    contains: Option<&str>,
    after: Option<f64>,
) -> (Vec<String>, usize) {
    let (mut names, mut token, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let page = sm
            .list_endpoints()
            .max_results(7)
            .set_sort_by(by.clone())
            .set_sort_order(order.clone())
            .set_name_contains(contains.map(str::to_string))
            .set_last_modified_time_after(after.map(aws_smithy_types::DateTime::from_secs_f64))
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

    let (names, pages) = paged(&sm, (None, None), None, None).await;
    assert_eq!(names, rev(&by_creation), "the default: CreationTime descending");
    assert_eq!(pages, 60usize.div_ceil(7));
    let asc = paged(
        &sm,
        (Some(EndpointSortKey::CreationTime), Some(OrderKey::Ascending)),
        None,
        None,
    )
    .await;
    assert_eq!(asc.0, by_creation);
    let name_asc = paged(
        &sm,
        (Some(EndpointSortKey::Name), Some(OrderKey::Ascending)),
        None,
        None,
    )
    .await;
    assert_eq!(name_asc.0, by_name);
    let name_desc = paged(&sm, (Some(EndpointSortKey::Name), None), None, None).await;
    assert_eq!(name_desc.0, rev(&by_name));
    let status = paged(
        &sm,
        (Some(EndpointSortKey::Status), Some(OrderKey::Ascending)),
        None,
        None,
    )
    .await;
    assert_eq!(status.0.len(), 60, "by Status: every endpoint once");

    let filtered = paged(&sm, (None, None), Some("EP-001"), None).await;
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

/// LastModifiedTimeAfter an endpoint's own LastModifiedTime, as an answer gave it, leaves that
/// endpoint out and keeps every later one, read while paging; a millisecond earlier keeps it.
#[tokio::test]
async fn modified_after_is_strict_at_the_millisecond_and_pages() {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 40,
        ..SandboxConfig::for_tests()
    })
    .await;
    let sm = Client::new(&sdk_config(&sb).await);
    let base = 1_790_000_000.0;
    {
        let mut world = sb.sandbox.world.write();
        for (i, e) in world.endpoints.values_mut().enumerate() {
            // 1.7 ms apart, off the millisecond by a few hundred nanoseconds.
            e.last_modified = base + i as f64 * 0.0017 + 0.000_000_4;
        }
    }
    let d = sm
        .describe_endpoint()
        .endpoint_name("fleet-ep-0020")
        .send()
        .await
        .expect("describe");
    let pivot = d.last_modified_time().expect("LastModifiedTime").as_secs_f64();
    let later: Vec<String> = {
        let world = sb.sandbox.world.read();
        let mine = world.endpoints["fleet-ep-0020"].last_modified;
        let mut v: Vec<(f64, String)> = world
            .endpoints
            .values()
            .filter(|e| e.last_modified > mine)
            .map(|e| (e.creation_time, e.name.clone()))
            .collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
        v.into_iter().map(|(_, n)| n).collect()
    };
    assert_eq!(later.len(), 19);
    let (names, pages) = paged(&sm, (None, None), None, Some(pivot)).await;
    assert_eq!(names, later, "strictly after, in CreationTime order");
    assert_eq!(pages, 3, "19 in pages of 7");
    let (with_it, _) = paged(&sm, (None, None), None, Some(pivot - 0.001)).await;
    assert_eq!(with_it.len(), 20);
    assert!(with_it.contains(&"fleet-ep-0020".to_string()));
}
