//! The control plane's throttle as the Rust SDK meets it: ThrottlingException past the burst
//! with retries off, retried (as throttling) by the SDK's standard mode, per region, set at
//! start or through `/_sandbox/throttle`.

use std::time::Duration;

use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_smithy_types::retry::RetryConfig;
use sagedeck::aws::config::local_sdk_config_in;
use sagedeck::sandbox::calls::throttle::ThrottleSpec;
use sagedeck::sandbox::{RegionFleet, SandboxConfig};

use super::{admin, count_in};
use crate::common::sandbox_with;

/// A SageMaker client signing for `region` with the given retry configuration.
async fn client(url: &str, region: &str, retry: RetryConfig) -> aws_sdk_sagemaker::Client {
    let conf = local_sdk_config_in(url, region).await;
    aws_sdk_sagemaker::Client::from_conf(
        aws_sdk_sagemaker::config::Builder::from(&conf)
            .retry_config(retry)
            .build(),
    )
}

#[tokio::test]
async fn past_the_burst_the_sdk_without_retries_sees_throttling_exception() {
    let sb = sandbox_with(SandboxConfig {
        extra_regions: vec![RegionFleet::parse("eu-west-1=2").unwrap()],
        throttle: Some(ThrottleSpec {
            rate: 0.5,
            burst: Some(2),
        }),
        ..SandboxConfig::for_tests()
    })
    .await;
    let url = sb.endpoint_url();
    let sm = client(&url, "us-east-1", RetryConfig::disabled()).await;
    for i in 0..2 {
        sm.list_endpoints()
            .send()
            .await
            .unwrap_or_else(|e| panic!("call {i} within the burst: {e:?}"));
    }
    let err = sm.list_endpoints().send().await.expect_err("past the burst");
    assert_eq!(err.code(), Some("ThrottlingException"));
    assert_eq!(err.message(), Some("Rate exceeded"));
    assert_eq!(err.raw_response().map(|r| r.status().as_u16()), Some(400));
    let v = admin(&url, "GET", "/_sandbox/calls", "").await;
    assert_eq!(count_in(&v, "us-east-1", "sagemaker", "ListEndpoints"), (3, 1));

    // Each region has a bucket of its own; lifting the throttle admits at once.
    let eu = client(&url, "eu-west-1", RetryConfig::disabled()).await;
    eu.list_endpoints().send().await.expect("eu-west-1's bucket is full");
    admin(&url, "DELETE", "/_sandbox/throttle", "").await;
    sm.list_endpoints().send().await.expect("no throttle");
}

#[tokio::test]
async fn the_admin_route_sets_one_region_and_the_sdk_retries_it_as_throttling() {
    let sb = sandbox_with(SandboxConfig {
        extra_regions: vec![RegionFleet::parse("eu-west-1=2").unwrap()],
        ..SandboxConfig::for_tests()
    })
    .await;
    let url = sb.endpoint_url();
    let set = admin(
        &url,
        "POST",
        "/_sandbox/throttle",
        r#"{"rate": 20, "burst": 1, "region": "eu-west-1"}"#,
    )
    .await;
    assert_eq!(set["eu-west-1"]["rate"], 20.0);
    assert_eq!(set["eu-west-1"]["burst"], 1);
    assert!(set["us-east-1"].is_null());

    let retrying = RetryConfig::standard()
        .with_max_attempts(10)
        .with_initial_backoff(Duration::from_millis(20))
        .with_max_backoff(Duration::from_millis(200));
    let eu = client(&url, "eu-west-1", retrying).await;
    for i in 0..5 {
        eu.list_endpoints()
            .send()
            .await
            .unwrap_or_else(|e| panic!("call {i} retried through: {e:?}"));
    }
    let v = admin(&url, "GET", "/_sandbox/calls", "").await;
    let (calls, throttled) = count_in(&v, "eu-west-1", "sagemaker", "ListEndpoints");
    assert!(throttled >= 1, "five calls at once over a bucket of one: {v}");
    assert_eq!(calls, 5 + throttled, "every throttled attempt was retried");

    let us = client(&url, "us-east-1", RetryConfig::disabled()).await;
    for _ in 0..5 {
        us.list_endpoints().send().await.expect("us-east-1 is not throttled");
    }
    let headers: &[(&str, &str)] = &[("content-type", "application/json")];
    for bad in [
        r#"{"rate": 0}"#,
        r#"{"rate": 5, "burst": 0}"#,
        r#"{"rate": 5, "region": "mars-1"}"#,
        "{}",
    ] {
        let r = sagedeck::sandbox::http::raw_client::send(&url, "POST", "/_sandbox/throttle", headers, bad)
            .await
            .unwrap();
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
    }
}
