//! Every endpoint shape through sagedeck's CLI and fleet layer against the sandbox: serverless
//! (its kind and figures, a change of concurrency in place, the throttle at max concurrency) and
//! asynchronous (`invoke-async` followed to success and to failure, the synchronous invoke
//! refused in one line) and shadow (judged against production).

mod asynchronous;
mod provisioned;
mod serverless;
mod shadow;

use std::time::Duration;

use aws_sdk_sagemaker::types::{ContainerDefinition, ProductionVariant, ProductionVariantServerlessConfig};

use crate::common::poll_until;

/// A model whose container answers after `latency_ms` of simulated time.
pub async fn create_model(sm: &aws_sdk_sagemaker::Client, name: &str, latency_ms: u32) {
    sm.create_model()
        .model_name(name)
        .primary_container(
            ContainerDefinition::builder()
                .image("683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1")
                .environment("SAGEDECK_LATENCY_MS", latency_ms.to_string())
                .environment("SAGEDECK_LATENCY_SIGMA", "0.01")
                .build(),
        )
        .execution_role_arn("arn:aws:iam::123456789012:role/SageMakerExecutionRole")
        .send()
        .await
        .expect("create model");
}

/// Creates endpoint `name` on configuration `name` with `variant`, and waits for InService.
pub async fn create_endpoint(sm: &aws_sdk_sagemaker::Client, name: &str, variant: ProductionVariant) {
    sm.create_endpoint_config()
        .endpoint_config_name(name)
        .production_variants(variant)
        .send()
        .await
        .expect("endpoint config");
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(name)
        .send()
        .await
        .expect("create endpoint");
    wait_in_service(sm, name).await;
}

/// Waits until `name` is InService.
pub async fn wait_in_service(sm: &aws_sdk_sagemaker::Client, name: &str) {
    poll_until(&format!("{name} InService"), Duration::from_secs(20), || async {
        let d = sm.describe_endpoint().endpoint_name(name).send().await.ok()?;
        (d.endpoint_status().map(|s| s.as_str()) == Some("InService")).then_some(())
    })
    .await;
}

/// A serverless endpoint `name` (2 GB) on a model answering after `latency_ms`.
pub async fn serverless_endpoint(
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
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .model_name(name)
        .serverless_config(config)
        .build();
    create_endpoint(sm, name, variant).await;
}

/// The bucket asynchronous endpoints write to.
pub const ASYNC_BUCKET: &str = "async-io";

/// An asynchronous endpoint `name` (one ml.m5.large, one request at a time) writing its outputs
/// and failures under [`ASYNC_BUCKET`], which is created.
pub async fn async_endpoint(conf: &aws_config::SdkConfig, name: &str) {
    use aws_sdk_sagemaker::types::{
        AsyncInferenceClientConfig, AsyncInferenceConfig, AsyncInferenceOutputConfig, ProductionVariantInstanceType,
    };
    let sm = aws_sdk_sagemaker::Client::new(conf);
    create_model(&sm, name, 20).await;
    let config = AsyncInferenceConfig::builder()
        .client_config(
            AsyncInferenceClientConfig::builder()
                .max_concurrent_invocations_per_instance(1)
                .build(),
        )
        .output_config(
            AsyncInferenceOutputConfig::builder()
                .s3_output_path(format!("s3://{ASYNC_BUCKET}/output"))
                .s3_failure_path(format!("s3://{ASYNC_BUCKET}/failure"))
                .build(),
        )
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(name)
        .production_variants(
            ProductionVariant::builder()
                .variant_name("AllTraffic")
                .model_name(name)
                .instance_type(ProductionVariantInstanceType::MlM5Large)
                .initial_instance_count(1)
                .build(),
        )
        .async_inference_config(config)
        .send()
        .await
        .expect("async config");
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(name)
        .send()
        .await
        .expect("create endpoint");
    wait_in_service(&sm, name).await;
    let s3 = aws_sdk_s3::Client::from_conf(aws_sdk_s3::config::Builder::from(conf).force_path_style(true).build());
    s3.create_bucket().bucket(ASYNC_BUCKET).send().await.expect("bucket");
}
