//! Asynchronous endpoints with the Rust SDK: S3 CreateBucket/PutObject/GetObject, InvokeEndpointAsync
//! from an InputLocation and inline, the output and failure objects, the synchronous invoke
//! refused, TTL expiry, and the queue metrics with EndpointName only.

use std::time::Duration;

use aws_sdk_sagemaker::types::{
    AsyncInferenceClientConfig, AsyncInferenceConfig, AsyncInferenceOutputConfig, EndpointStatus, ProductionVariant,
    ProductionVariantInstanceType,
};
use aws_sdk_sagemakerruntime::error::ProvideErrorMetadata;
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::world::queue::{AsyncInput, AsyncRequest};
use sagedeck::sandbox::{SandboxConfig, SandboxHandle, now_epoch};

use super::{create_model, metric};
use crate::common::{poll_until, sandbox_with, sdk_config};
use crate::control::wait_status;

const BUCKET: &str = "async-io";

async fn s3_client(conf: &aws_config::SdkConfig) -> aws_sdk_s3::Client {
    aws_sdk_s3::Client::from_conf(aws_sdk_s3::config::Builder::from(conf).force_path_style(true).build())
}

/// An async endpoint `name` (one instance, one request at a time) writing to `BUCKET`.
async fn async_endpoint(sb: &SandboxHandle, name: &str) -> aws_config::SdkConfig {
    let conf = sdk_config(sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    create_model(&sm, name, 20).await;
    let config = AsyncInferenceConfig::builder()
        .client_config(
            AsyncInferenceClientConfig::builder()
                .max_concurrent_invocations_per_instance(1)
                .build(),
        )
        .output_config(
            AsyncInferenceOutputConfig::builder()
                .s3_output_path(format!("s3://{BUCKET}/output"))
                .s3_failure_path(format!("s3://{BUCKET}/failure"))
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
    wait_status(&sm, name, EndpointStatus::InService).await;
    s3_client(&conf)
        .await
        .create_bucket()
        .bucket(BUCKET)
        .send()
        .await
        .expect("bucket");
    conf
}

/// The object at an `s3://BUCKET/KEY` location, once it exists.
async fn object_at(s3: &aws_sdk_s3::Client, location: &str) -> Vec<u8> {
    let key = location
        .strip_prefix(&format!("s3://{BUCKET}/"))
        .expect("in the bucket")
        .to_string();
    poll_until(&format!("{location} to appear"), Duration::from_secs(10), || async {
        let out = s3.get_object().bucket(BUCKET).key(&key).send().await.ok()?;
        Some(out.body.collect().await.ok()?.into_bytes().to_vec())
    })
    .await
}

#[tokio::test]
async fn a_request_from_s3_is_answered_in_its_output_object() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = async_endpoint(&sb, "async-ep").await;
    let s3 = s3_client(&conf).await;
    s3.put_object()
        .bucket(BUCKET)
        .key("input/one.csv")
        .body(aws_sdk_s3::primitives::ByteStream::from_static(b"1,2,3"))
        .send()
        .await
        .expect("PutObject");
    let smr = aws_sdk_sagemakerruntime::Client::new(&conf);
    let out = smr
        .invoke_endpoint_async()
        .endpoint_name("async-ep")
        .content_type("text/csv")
        .inference_id("req-1")
        .input_location(format!("s3://{BUCKET}/input/one.csv"))
        .send()
        .await
        .expect("accepted");
    assert_eq!(out.inference_id(), Some("req-1"));
    assert_eq!(out.output_location(), Some("s3://async-io/output/req-1.out"));
    assert_eq!(out.failure_location(), Some("s3://async-io/failure/req-1-error.out"));
    let answer = object_at(&s3, out.output_location().unwrap()).await;
    assert!(!answer.is_empty(), "the model's answer");

    let inline = smr
        .invoke_endpoint_async()
        .endpoint_name("async-ep")
        .content_type("text/csv")
        .body(Blob::new("4,5,6"))
        .send()
        .await
        .expect("inline body accepted");
    assert!(
        inline.inference_id().is_some_and(|id| id.len() == 36),
        "a generated UUID"
    );
    object_at(&s3, inline.output_location().unwrap()).await;

    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let processed = metric(&cw, ("async-ep", Some("AllTraffic")), "InvocationsProcessed", "Sum").await;
    assert_eq!(processed, 2.0);
    let backlog = metric(&cw, ("async-ep", None), "ApproximateBacklogSize", "SampleCount").await;
    assert!(backlog >= 1.0, "the queue gauge carries EndpointName only");
}

#[tokio::test]
async fn a_missing_input_fails_into_the_failure_object_and_sync_invoke_is_refused() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = async_endpoint(&sb, "async-fail").await;
    let smr = aws_sdk_sagemakerruntime::Client::new(&conf);
    let out = smr
        .invoke_endpoint_async()
        .endpoint_name("async-fail")
        .input_location(format!("s3://{BUCKET}/input/missing.csv"))
        .send()
        .await
        .expect("accepted");
    let failure = object_at(&s3_client(&conf).await, out.failure_location().unwrap()).await;
    assert!(String::from_utf8_lossy(&failure).contains("DownloadFailure"));
    let err = smr
        .invoke_endpoint()
        .endpoint_name("async-fail")
        .content_type("text/csv")
        .body(Blob::new("1,2,3"))
        .send()
        .await
        .expect_err("a synchronous invoke of an async endpoint");
    assert_eq!(err.code(), Some("ValidationError"));
    assert!(err.message().unwrap_or("").contains("InvokeEndpointAsync"), "{err:?}");
    let err = smr
        .invoke_endpoint_async()
        .endpoint_name("async-fail")
        .input_location("s3://async-io/x")
        .request_ttl_seconds(10)
        .send()
        .await
        .expect_err("TTL below 60");
    assert_eq!(err.code(), Some("ValidationError"));
}

#[tokio::test]
async fn a_request_past_its_ttl_expires_in_the_queue() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = async_endpoint(&sb, "async-ttl").await;
    // A request whose TTL has passed, as if it had waited a day in the queue.
    let now = now_epoch();
    sb.sandbox
        .async_queues
        .lock()
        .by_endpoint
        .entry("async-ttl".into())
        .or_default()
        .waiting
        .push_back(AsyncRequest {
            inference_id: "old".into(),
            input: AsyncInput::Inline(b"1".to_vec()),
            content_type: "text/csv".into(),
            accept: None,
            received: now - 86_400.0,
            expires: now - 1.0,
            timeout_secs: 900.0,
            output: (BUCKET.into(), "output/old.out".into()),
            failure: Some((BUCKET.into(), "failure/old-error.out".into())),
        });
    let failure = object_at(&s3_client(&conf).await, "s3://async-io/failure/old-error.out").await;
    assert!(String::from_utf8_lossy(&failure).contains("expired"));
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let expired = metric(&cw, ("async-ttl", Some("AllTraffic")), "ExpiredRequests", "Sum").await;
    assert_eq!(expired, 1.0);
}

#[tokio::test]
async fn a_backlog_without_capacity_wakes_a_variant_scaled_to_zero() {
    use aws_sdk_applicationautoscaling::types::{
        AdjustmentType, PolicyType, ScalableDimension, ServiceNamespace, StepAdjustment, StepScalingPolicyConfiguration,
    };
    use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, Statistic};
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let conf = async_endpoint(&sb, "async-zero").await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    sm.update_endpoint_weights_and_capacities()
        .endpoint_name("async-zero")
        .desired_weights_and_capacities(
            aws_sdk_sagemaker::types::DesiredWeightAndCapacity::builder()
                .variant_name("AllTraffic")
                .desired_instance_count(0)
                .build(),
        )
        .send()
        .await
        .expect("to zero");
    wait_status(&sm, "async-zero", EndpointStatus::InService).await;
    let aas = aws_sdk_applicationautoscaling::Client::new(&conf);
    let (resource, dim) = (
        "endpoint/async-zero/variant/AllTraffic",
        ScalableDimension::from("sagemaker:variant:DesiredInstanceCount"),
    );
    aas.register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(resource)
        .scalable_dimension(dim.clone())
        .min_capacity(0)
        .max_capacity(2)
        .send()
        .await
        .expect("register");
    let step = StepAdjustment::builder()
        .metric_interval_lower_bound(0.0)
        .scaling_adjustment(1)
        .build()
        .unwrap();
    let arn = aas
        .put_scaling_policy()
        .policy_name("wake-on-backlog")
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(resource)
        .scalable_dimension(dim)
        .policy_type(PolicyType::StepScaling)
        .step_scaling_policy_configuration(
            StepScalingPolicyConfiguration::builder()
                .adjustment_type(AdjustmentType::ChangeInCapacity)
                .cooldown(60)
                .step_adjustments(step)
                .build(),
        )
        .send()
        .await
        .expect("step policy")
        .policy_arn()
        .to_string();
    aws_sdk_cloudwatch::Client::new(&conf)
        .put_metric_alarm()
        .alarm_name("async-zero-backlog")
        .namespace("AWS/SageMaker")
        .metric_name("HasBacklogWithoutCapacity")
        .dimensions(Dimension::builder().name("EndpointName").value("async-zero").build())
        .statistic(Statistic::Average)
        .period(10)
        .evaluation_periods(1)
        .threshold(1.0)
        .comparison_operator(ComparisonOperator::GreaterThanOrEqualToThreshold)
        .alarm_actions(arn)
        .send()
        .await
        .expect("alarm");
    let out = aws_sdk_sagemakerruntime::Client::new(&conf)
        .invoke_endpoint_async()
        .endpoint_name("async-zero")
        .content_type("text/csv")
        .body(Blob::new("1,2,3"))
        .send()
        .await
        .expect("queued with no instance");
    let s3 = s3_client(&conf).await;
    let location = out.output_location().unwrap().to_string();
    let key = location.strip_prefix("s3://async-io/").unwrap().to_string();
    poll_until("the woken variant to answer", Duration::from_secs(40), || async {
        s3.head_object().bucket(BUCKET).key(&key).send().await.ok()
    })
    .await;
    let d = sm.describe_endpoint().endpoint_name("async-zero").send().await.unwrap();
    assert_eq!(d.production_variants()[0].current_instance_count(), Some(1));
}
