//! Serverless variants with the Rust SDK: the ServerlessConfig checks, Current/Desired
//! ServerlessConfig in DescribeEndpoint, the throttle at MaxConcurrency, cold starts and warm
//! reuse, provisioned concurrency and its spillover, ServerlessUpdateConfig in place, and
//! Application Auto Scaling on the desired provisioned concurrency.

use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_sdk_applicationautoscaling::types::{
    MetricType, PolicyType, PredefinedMetricSpecification, ScalableDimension, ServiceNamespace,
    TargetTrackingScalingPolicyConfiguration,
};
use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    DesiredWeightAndCapacity, EndpointStatus, ProductionVariant, ProductionVariantServerlessConfig,
    ProductionVariantServerlessUpdateConfig,
};
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::SandboxConfig;

use super::{create_model, metric};
use crate::common::{poll_until, sandbox_with, sdk_config};
use crate::control::wait_status;

/// A serverless endpoint `name` on a model answering after `latency_ms`.
async fn serverless_endpoint(
    sm: &aws_sdk_sagemaker::Client,
    name: &str,
    latency_ms: u32,
    (max, provisioned): (i32, Option<i32>),
) {
    create_model(sm, name, latency_ms).await;
    let config = ProductionVariantServerlessConfig::builder()
        .memory_size_in_mb(2048)
        .max_concurrency(max)
        .set_provisioned_concurrency(provisioned)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(name)
        .production_variants(
            ProductionVariant::builder()
                .variant_name("AllTraffic")
                .model_name(name)
                .serverless_config(config)
                .build(),
        )
        .send()
        .await
        .expect("serverless config");
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(name)
        .send()
        .await
        .expect("create endpoint");
    wait_status(sm, name, EndpointStatus::InService).await;
}

/// A runtime client that does not retry (a throttle comes back as it is).
fn runtime(conf: &aws_config::SdkConfig) -> aws_sdk_sagemakerruntime::Client {
    let c = aws_sdk_sagemakerruntime::config::Builder::from(conf)
        .retry_config(RetryConfig::disabled())
        .build();
    aws_sdk_sagemakerruntime::Client::from_conf(c)
}

async fn invoke(
    smr: &aws_sdk_sagemakerruntime::Client,
    name: &str,
) -> Result<
    (),
    aws_sdk_sagemakerruntime::error::SdkError<
        aws_sdk_sagemakerruntime::operation::invoke_endpoint::InvokeEndpointError,
    >,
> {
    smr.invoke_endpoint()
        .endpoint_name(name)
        .content_type("text/csv")
        .body(Blob::new("1,2,3"))
        .send()
        .await
        .map(|_| ())
}

#[tokio::test]
async fn provisioned_concurrency_above_max_concurrency_is_refused() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    create_model(&sm, "m", 5).await;
    let err = sm
        .create_endpoint_config()
        .endpoint_config_name("too-many")
        .production_variants(
            ProductionVariant::builder()
                .variant_name("AllTraffic")
                .model_name("m")
                .serverless_config(
                    ProductionVariantServerlessConfig::builder()
                        .memory_size_in_mb(1024)
                        .max_concurrency(2)
                        .provisioned_concurrency(3)
                        .build(),
                )
                .build(),
        )
        .send()
        .await
        .expect_err("PC 3 > max 2");
    assert_eq!(err.code(), Some("ValidationException"), "{err:?}");
    assert!(
        err.message().unwrap_or("").contains("ProvisionedConcurrency (3)"),
        "{err:?}"
    );
}

#[tokio::test]
async fn describe_shows_the_serverless_config_and_no_instance_counts() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    serverless_endpoint(&sm, "sls", 5, (4, Some(2))).await;
    let d = sm.describe_endpoint().endpoint_name("sls").send().await.unwrap();
    let v = &d.production_variants()[0];
    assert_eq!(v.current_instance_count(), None);
    let current = v.current_serverless_config().expect("current");
    assert_eq!(
        (
            current.memory_size_in_mb(),
            current.max_concurrency(),
            current.provisioned_concurrency()
        ),
        (Some(2048), Some(4), Some(2))
    );
    assert_eq!(v.desired_serverless_config(), Some(current));
}

#[tokio::test]
async fn calls_beyond_max_concurrency_are_throttled() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    // Each call keeps its container for 30 s of simulated time.
    serverless_endpoint(&sm, "busy", 30_000, (2, None)).await;
    let smr = runtime(&conf);
    invoke(&smr, "busy").await.expect("first");
    invoke(&smr, "busy").await.expect("second");
    let err = invoke(&smr, "busy").await.expect_err("third is over MaxConcurrency 2");
    let raw = err.raw_response().expect("an HTTP answer");
    assert_eq!(raw.status().as_u16(), 429);
    assert_eq!(
        aws_sdk_sagemakerruntime::error::ProvideErrorMetadata::code(&err),
        Some("ThrottlingException")
    );
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let key = ("busy", Some("AllTraffic"));
    let util = metric(&cw, key, "ServerlessConcurrentExecutionsUtilization", "Maximum").await;
    assert_eq!(util, 1.0, "two of two running");
}

#[tokio::test]
async fn a_warm_container_is_reused_and_an_idle_one_released() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    // A call of no latency: its container is free once its cold start is waited.
    serverless_endpoint(&sm, "warm", 0, (2, None)).await;
    let smr = runtime(&conf);
    invoke(&smr, "warm").await.expect("cold");
    invoke(&smr, "warm").await.expect("warm");
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let setups = metric(&cw, ("warm", Some("AllTraffic")), "ModelSetupTime", "SampleCount").await;
    assert_eq!(setups, 1.0, "one cold start, then the warm container");

    let mut config = SandboxConfig::for_tests();
    config.timing.serverless_idle = Duration::ZERO;
    let sb = sandbox_with(config).await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    serverless_endpoint(&sm, "idle", 0, (2, None)).await;
    let smr = runtime(&conf);
    invoke(&smr, "idle").await.expect("cold");
    invoke(&smr, "idle").await.expect("cold again");
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let setups = poll_until("two cold starts", Duration::from_secs(10), || async {
        let n = metric(&cw, ("idle", Some("AllTraffic")), "ModelSetupTime", "SampleCount").await;
        (n == 2.0).then_some(n)
    })
    .await;
    assert_eq!(setups, 2.0);
}

#[tokio::test]
async fn provisioned_concurrency_is_warm_and_the_rest_spills_over() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    serverless_endpoint(&sm, "pc", 30_000, (3, Some(1))).await;
    let smr = runtime(&conf);
    invoke(&smr, "pc").await.expect("on provisioned concurrency");
    invoke(&smr, "pc").await.expect("spilled over");
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let key = ("pc", Some("AllTraffic"));
    let on_pc = metric(&cw, key, "ServerlessProvisionedConcurrencyInvocations", "Sum").await;
    let spill = metric(&cw, key, "ServerlessProvisionedConcurrencySpilloverInvocations", "Sum").await;
    let setups = metric(&cw, key, "ModelSetupTime", "SampleCount").await;
    assert_eq!(
        (on_pc, spill, setups),
        (1.0, 1.0, 1.0),
        "only the spillover starts cold"
    );
}

#[tokio::test]
async fn serverless_update_config_changes_the_variant_in_place() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    serverless_endpoint(&sm, "upd", 5, (2, Some(1))).await;
    let update = |max: i32, pc: i32| {
        sm.update_endpoint_weights_and_capacities()
            .endpoint_name("upd")
            .desired_weights_and_capacities(
                DesiredWeightAndCapacity::builder()
                    .variant_name("AllTraffic")
                    .serverless_update_config(
                        ProductionVariantServerlessUpdateConfig::builder()
                            .max_concurrency(max)
                            .provisioned_concurrency(pc)
                            .build(),
                    )
                    .build(),
            )
            .send()
    };
    let err = update(5, 6).await.expect_err("PC 6 > max 5");
    assert_eq!(err.code(), Some("ValidationException"), "{err:?}");
    update(5, 3).await.expect("update");
    let d = sm.describe_endpoint().endpoint_name("upd").send().await.unwrap();
    assert_eq!(d.endpoint_status(), Some(&EndpointStatus::Updating));
    let v = &d.production_variants()[0];
    assert_eq!(v.current_serverless_config().and_then(|c| c.max_concurrency()), Some(2));
    assert_eq!(
        v.desired_serverless_config().and_then(|c| c.provisioned_concurrency()),
        Some(3)
    );
    let d = wait_status(&sm, "upd", EndpointStatus::InService).await;
    let current = d.production_variants()[0].current_serverless_config().cloned().unwrap();
    assert_eq!(
        (current.max_concurrency(), current.provisioned_concurrency()),
        (Some(5), Some(3))
    );
}

#[tokio::test]
async fn autoscaling_raises_provisioned_concurrency_on_its_utilization() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    serverless_endpoint(&sm, "auto", 60_000, (4, Some(1))).await;
    let aas = aws_sdk_applicationautoscaling::Client::new(&conf);
    let resource = "endpoint/auto/variant/AllTraffic";
    let dimension = ScalableDimension::from("sagemaker:variant:DesiredProvisionedConcurrency");
    aas.register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(resource)
        .scalable_dimension(dimension.clone())
        .min_capacity(1)
        .max_capacity(3)
        .send()
        .await
        .expect("register");
    aas.put_scaling_policy()
        .policy_name("pc-utilization")
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(resource)
        .scalable_dimension(dimension)
        .policy_type(PolicyType::TargetTrackingScaling)
        .target_tracking_scaling_policy_configuration(
            TargetTrackingScalingPolicyConfiguration::builder()
                .target_value(0.5)
                .predefined_metric_specification(
                    PredefinedMetricSpecification::builder()
                        .predefined_metric_type(MetricType::from("SageMakerVariantProvisionedConcurrencyUtilization"))
                        .build()
                        .unwrap(),
                )
                .scale_out_cooldown(0)
                .scale_in_cooldown(600)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("policy");
    // The one provisioned container busy for a minute: utilization 1.0, twice the target.
    invoke(&runtime(&conf), "auto").await.expect("invoke");
    let pc = poll_until("provisioned concurrency 2", Duration::from_secs(20), || async {
        let d = sm.describe_endpoint().endpoint_name("auto").send().await.ok()?;
        let c = d.production_variants()[0]
            .current_serverless_config()?
            .provisioned_concurrency();
        (c == Some(2)).then_some(c)
    })
    .await;
    assert_eq!(pc, Some(2));
}
