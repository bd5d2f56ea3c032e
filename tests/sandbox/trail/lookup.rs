//! LookupEvents as AWS answers it: each of the eight attributes, the time window, pages of at
//! most 50 newest first with a NextToken bound to its query, the refusals, the delivery delay,
//! and throttling at 2 calls per second (configurable, and faultable).

use std::time::Duration;

use aws_sdk_cloudtrail::Client as Trail;
use aws_sdk_cloudtrail::config::retry::RetryConfig;
use aws_smithy_types::DateTime;
use sagedeck::sandbox::cloudtrail::identity::{BOB_KEY, CI_SESSION_KEY};
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::sandbox::{SandboxConfig, TrailConfig, now_epoch};

use super::{attr, lookup_all, signed_by, unthrottled};
use crate::common::{poll_until, sandbox_with, sdk_config};

/// `n` ListEndpoints calls signed with `key`.
async fn list_endpoints(sb: &sagedeck::sandbox::SandboxHandle, key: &str, n: usize) {
    let sm = aws_sdk_sagemaker::Client::new(&signed_by(sb, key).await);
    for _ in 0..n {
        sm.list_endpoints().send().await.unwrap();
    }
}

fn code<E: aws_sdk_cloudtrail::error::ProvideErrorMetadata>(e: &E) -> Option<&str> {
    e.code()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookup_pages_newest_first_and_filters_by_every_attribute() {
    let sb = sandbox_with(unthrottled(SandboxConfig::for_tests())).await;
    list_endpoints(&sb, "AKIDSANDBOX", 110).await;
    let middle = now_epoch();
    list_endpoints(&sb, BOB_KEY, 10).await;
    let sm = aws_sdk_sagemaker::Client::new(&signed_by(&sb, CI_SESSION_KEY).await);
    let _ = sm
        .describe_endpoint()
        .endpoint_name("missing-ep")
        .send()
        .await
        .expect_err("no such endpoint");
    let trail = Trail::new(&sdk_config(&sb).await);

    // Pages of 50, 50, 21 newest first, each event once.
    let mut pages = Vec::new();
    let mut token = None;
    loop {
        let page = trail.lookup_events().set_next_token(token).send().await.unwrap();
        pages.push(page.events().to_vec());
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
    assert_eq!(sizes, [50, 50, 21]);
    let all: Vec<_> = pages.concat();
    assert_eq!(all[0].event_name(), Some("DescribeEndpoint"), "the newest first");
    let times: Vec<f64> = all.iter().map(|e| e.event_time().unwrap().as_secs_f64()).collect();
    assert!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "time never increases down the list"
    );
    let mut ids: Vec<&str> = all.iter().filter_map(|e| e.event_id()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 121, "no event twice across pages");

    let count = |events: Vec<aws_sdk_cloudtrail::types::Event>| events.len();
    assert_eq!(
        count(lookup_all(&trail, Some(attr("EventName", "ListEndpoints"))).await),
        120
    );
    assert_eq!(count(lookup_all(&trail, Some(attr("Username", "bob"))).await), 10);
    assert_eq!(count(lookup_all(&trail, Some(attr("AccessKeyId", BOB_KEY))).await), 10);
    assert_eq!(count(lookup_all(&trail, Some(attr("ReadOnly", "true"))).await), 121);
    assert_eq!(count(lookup_all(&trail, Some(attr("ReadOnly", "false"))).await), 0);
    let by_id = lookup_all(&trail, Some(attr("EventId", all[7].event_id().unwrap()))).await;
    assert_eq!(by_id.len(), 1);
    assert_eq!(by_id[0].event_id(), all[7].event_id());
    let refused = lookup_all(&trail, Some(attr("ResourceName", "missing-ep"))).await;
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].username(), Some("ci-build"));
    let arn = "arn:aws:sagemaker:us-east-1:123456789012:endpoint/missing-ep";
    assert_eq!(
        count(lookup_all(&trail, Some(attr("ResourceName", arn))).await),
        1,
        "by ARN too"
    );
    let typed = lookup_all(&trail, Some(attr("ResourceType", "AWS::SageMaker::Endpoint"))).await;
    assert_eq!(typed.len(), 1);
    let source = lookup_all(&trail, Some(attr("EventSource", "sagemaker.amazonaws.com"))).await;
    assert_eq!(source.len(), 121);
    assert!(
        lookup_all(
            &trail,
            Some(attr("EventSource", "application-autoscaling.amazonaws.com"))
        )
        .await
        .is_empty()
    );

    // The window: from the middle on, only bob's and the session's calls.
    let later = trail
        .lookup_events()
        .start_time(DateTime::from_secs_f64(middle))
        .end_time(DateTime::from_secs_f64(now_epoch() + 1.0))
        .send()
        .await
        .unwrap();
    assert_eq!(later.events().len(), 11, "{:?}", later.events());
    let small = trail
        .lookup_events()
        .lookup_attributes(attr("Username", "bob"))
        .max_results(4)
        .send()
        .await
        .unwrap();
    assert_eq!(small.events().len(), 4);
    assert!(small.next_token().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookup_refuses_what_aws_refuses() {
    let sb = sandbox_with(unthrottled(SandboxConfig::for_tests())).await;
    list_endpoints(&sb, "AKIDSANDBOX", 3).await;
    let trail = Trail::new(&sdk_config(&sb).await);
    let two = trail
        .lookup_events()
        .lookup_attributes(attr("EventName", "ListEndpoints"))
        .lookup_attributes(attr("Username", "alice"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(&two), Some("InvalidLookupAttributesException"));
    assert!(two.into_service_error().is_invalid_lookup_attributes_exception());
    let unknown = trail
        .lookup_events()
        .lookup_attributes(attr("Nope", "x"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(&unknown), Some("InvalidLookupAttributesException"));
    let big = trail.lookup_events().max_results(51).send().await.unwrap_err();
    assert!(big.into_service_error().is_invalid_max_results_exception());
    let backwards = trail
        .lookup_events()
        .start_time(DateTime::from_secs(2_000))
        .end_time(DateTime::from_secs(1_000))
        .send()
        .await
        .unwrap_err();
    assert!(backwards.into_service_error().is_invalid_time_range_exception());
    let bogus = trail.lookup_events().next_token("bogus").send().await.unwrap_err();
    assert!(bogus.into_service_error().is_invalid_next_token_exception());
    let first = trail.lookup_events().max_results(1).send().await.unwrap();
    let token = first.next_token().expect("more than one event").to_string();
    let other_query = trail
        .lookup_events()
        .lookup_attributes(attr("Username", "alice"))
        .max_results(1)
        .next_token(token.clone())
        .send()
        .await
        .unwrap_err();
    assert!(
        other_query.into_service_error().is_invalid_next_token_exception(),
        "a token serves only the query that made it"
    );
    let next = trail
        .lookup_events()
        .max_results(1)
        .next_token(token)
        .send()
        .await
        .unwrap();
    assert_ne!(next.events()[0].event_id(), first.events()[0].event_id());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookup_is_throttled_at_two_calls_a_second_and_faultable() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let no_retries = sdk_config(&sb)
        .await
        .to_builder()
        .retry_config(RetryConfig::disabled())
        .build();
    let trail = Trail::new(&no_retries);
    let mut throttled = 0;
    for _ in 0..6 {
        if let Err(e) = trail.lookup_events().send().await {
            assert_eq!(code(&e), Some("ThrottlingException"), "{e:?}");
            throttled += 1;
        }
    }
    assert!(
        throttled >= 3,
        "six calls at once: at most the burst of two and one more pass ({throttled})"
    );
    // The bucket refills: a call goes through again within a second or so.
    poll_until("the bucket refills", Duration::from_secs(5), || async {
        trail.lookup_events().send().await.ok()
    })
    .await;

    let fast = sandbox_with(SandboxConfig {
        trail: TrailConfig {
            lookups_per_second: 20.0,
            ..TrailConfig::default()
        },
        ..SandboxConfig::for_tests()
    })
    .await;
    let no_retries = sdk_config(&fast)
        .await
        .to_builder()
        .retry_config(RetryConfig::disabled())
        .build();
    let trail = Trail::new(&no_retries);
    for _ in 0..10 {
        trail
            .lookup_events()
            .send()
            .await
            .expect("a burst of 20 admits 10 calls");
    }
    fast.sandbox
        .faults
        .add(FaultSpec::parse_short("kind=throttle,operation=LookupEvents,count=1").unwrap());
    let faulted = trail.lookup_events().send().await.unwrap_err();
    assert_eq!(code(&faulted), Some("ThrottlingException"));
    trail.lookup_events().send().await.expect("the fault was used up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_reach_lookup_after_the_delivery_delay() {
    let sb = sandbox_with(SandboxConfig {
        trail: TrailConfig {
            lookups_per_second: f64::INFINITY,
            delivery_delay: Duration::from_secs(600),
            ..TrailConfig::default()
        },
        ..SandboxConfig::for_tests()
    })
    .await;
    list_endpoints(&sb, "AKIDSANDBOX", 2).await;
    assert_eq!(sb.sandbox.trail.len(), 2, "recorded at once");
    let trail = Trail::new(&sdk_config(&sb).await);
    let seen = trail.lookup_events().send().await.unwrap();
    assert!(seen.events().is_empty(), "not delivered yet: {:?}", seen.events());
}
