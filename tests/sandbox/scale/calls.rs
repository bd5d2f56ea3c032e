//! `/_sandbox/calls`: every call counted by region, service and operation, readable in-process,
//! reset by DELETE.

use sagedeck::aws::config::local_sdk_config_in;
use sagedeck::sandbox::{RegionFleet, SandboxConfig};

use super::{admin, count_in};
use crate::common::{sandbox_with, sdk_config};

fn two_regions() -> SandboxConfig {
    SandboxConfig {
        extra_endpoints: 3,
        extra_regions: vec![RegionFleet::parse("eu-west-1=5").unwrap()],
        ..SandboxConfig::for_tests()
    }
}

#[tokio::test]
async fn calls_are_counted_by_region_service_and_operation_and_reset() {
    let sb = sandbox_with(two_regions()).await;
    let url = sb.endpoint_url();
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let eu = aws_sdk_sagemaker::Client::new(&local_sdk_config_in(&url, "eu-west-1").await);
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(&sb).await);
    for _ in 0..3 {
        sm.list_endpoints().send().await.expect("list");
    }
    eu.describe_endpoint()
        .endpoint_name("fleet-ep-0001")
        .send()
        .await
        .expect("describe");
    eu.describe_endpoint()
        .endpoint_name("no-such")
        .send()
        .await
        .expect_err("not found");
    cw.list_metrics().send().await.expect("list metrics");

    let v = admin(&url, "GET", "/_sandbox/calls", "").await;
    assert_eq!(count_in(&v, "us-east-1", "sagemaker", "ListEndpoints"), (3, 0));
    assert_eq!(
        count_in(&v, "eu-west-1", "sagemaker", "DescribeEndpoint"),
        (2, 0),
        "errors count too"
    );
    assert_eq!(count_in(&v, "us-east-1", "sagemaker", "DescribeEndpoint"), (0, 0));
    assert_eq!(count_in(&v, "us-east-1", "cloudwatch", "ListMetrics"), (1, 0));
    assert_eq!(v["total"], 6);

    let in_process = sb.sandbox.all_call_counts();
    assert_eq!(in_process[0].0, "us-east-1");
    let eu_counts = &in_process.iter().find(|(r, _)| r == "eu-west-1").unwrap().1;
    assert_eq!(eu_counts.len(), 1);
    assert_eq!(eu_counts[0].operation, "DescribeEndpoint");
    assert_eq!(eu_counts[0].calls, 2);

    let cleared = admin(&url, "DELETE", "/_sandbox/calls", "").await;
    assert_eq!(cleared["total"], 6, "DELETE answers what it cleared");
    let after = admin(&url, "GET", "/_sandbox/calls", "").await;
    assert_eq!(after["total"], 0);
    assert!(after["calls"].as_array().unwrap().is_empty());
    assert!(after["since"].as_f64().unwrap() >= v["since"].as_f64().unwrap());
    sm.list_endpoints().send().await.expect("list");
    let again = admin(&url, "GET", "/_sandbox/calls", "").await;
    assert_eq!(count_in(&again, "us-east-1", "sagemaker", "ListEndpoints"), (1, 0));
}
