//! The demo fleet's endpoint of each shape, with traffic: the serverless embedder's settings, the
//! async summarizer's outputs landing in its bucket, the intent router's shadow counting its
//! copies.

use std::time::Duration;

use sagedeck::sandbox::SandboxConfig;

use super::metric;
use crate::common::{demo_config, poll_until, sandbox_with, sdk_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_has_one_endpoint_of_each_shape_with_traffic() {
    let sb = sandbox_with(SandboxConfig {
        demo_shapes: true,
        traffic_rate: Some(150.0),
        ..demo_config()
    })
    .await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    let d = sm
        .describe_endpoint()
        .endpoint_name("mcp-serverless-embedder")
        .send()
        .await
        .unwrap();
    let pc = d.production_variants()[0]
        .current_serverless_config()
        .and_then(|c| c.provisioned_concurrency());
    assert_eq!(pc, Some(2));
    let d = sm
        .describe_endpoint()
        .endpoint_name("mcp-intent-router")
        .send()
        .await
        .unwrap();
    assert_eq!(d.shadow_production_variants().len(), 1);

    let s3 = aws_sdk_s3::Client::from_conf(aws_sdk_s3::config::Builder::from(&conf).force_path_style(true).build());
    let written = poll_until("async outputs in the demo bucket", Duration::from_secs(30), || async {
        let out = s3
            .list_objects_v2()
            .bucket("sagedeck-demo-async")
            .prefix("summaries/output/")
            .send()
            .await
            .ok()?;
        (out.key_count().unwrap_or(0) > 0).then_some(out.key_count())
    })
    .await;
    assert!(written.unwrap_or(0) > 0);
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let copies = metric(&cw, ("mcp-intent-router", Some("Shadow")), "Invocations", "Sum").await;
    assert!(copies > 0.0, "the shadow runs its copies");
    let on_pc = metric(
        &cw,
        ("mcp-serverless-embedder", Some("AllTraffic")),
        "ServerlessProvisionedConcurrencyInvocations",
        "Sum",
    )
    .await;
    assert!(
        on_pc > 0.0,
        "the serverless embedder serves on its provisioned concurrency"
    );
}

#[tokio::test]
async fn the_tests_demo_has_no_shape_endpoints() {
    let sb = sandbox_with(demo_config()).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let err = sm
        .describe_endpoint()
        .endpoint_name("mcp-async-summarizer")
        .send()
        .await;
    assert!(err.is_err(), "demo_shapes is off in SandboxConfig::for_tests");
}
