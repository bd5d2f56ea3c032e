//! Multi-model endpoints: TargetModel against the S3 catalog, cold and warm loads, LRU eviction,
//! ModelNotReadyException while a long load continues, and the ValidationError texts.

use std::time::Duration;

use aws_sdk_sagemaker::types::{
    ContainerDefinition, ContainerMode, EndpointStatus, ProductionVariant, ProductionVariantInstanceType,
};
use aws_sdk_sagemakerruntime::error::ProvideErrorMetadata;
use aws_sdk_sagemakerruntime::operation::invoke_endpoint::InvokeEndpointError;
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::world::resources::S3Object;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};

use crate::common::{poll_until, sandbox_with, sdk_config};
use crate::control::wait_status;

async fn mme_sandbox() -> (SandboxHandle, aws_config::SdkConfig) {
    let mut config = SandboxConfig {
        mme_models_per_instance: 2,
        ..SandboxConfig::for_tests()
    };
    config.timing.mme_not_ready_after = Duration::from_millis(300);
    let sb = sandbox_with(config).await;
    {
        let mut world = sb.sandbox.world.write();
        let bucket = world.buckets.entry("tenant-models".into()).or_default();
        for (key, size) in [
            ("a.tar.gz", 500_000_000u64),
            ("b.tar.gz", 500_000_000),
            ("c.tar.gz", 500_000_000),
            ("huge.tar.gz", 5_000_000_000),
        ] {
            bucket.insert(
                format!("mme/{key}"),
                S3Object {
                    size,
                    last_modified: 1.7e9,
                    etag: "\"x\"".into(),
                },
            );
        }
    }
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    sm.create_model()
        .model_name("tenants")
        .primary_container(
            ContainerDefinition::builder()
                .image("huggingface-pytorch-inference")
                .mode(ContainerMode::MultiModel)
                .model_data_url("s3://tenant-models/mme/")
                .build(),
        )
        .execution_role_arn("arn:aws:iam::123456789012:role/x")
        .send()
        .await
        .unwrap();
    sm.create_endpoint_config()
        .endpoint_config_name("mme-config")
        .production_variants(
            ProductionVariant::builder()
                .variant_name("AllTraffic")
                .model_name("tenants")
                .instance_type(ProductionVariantInstanceType::MlM5Xlarge)
                .initial_instance_count(1)
                .build(),
        )
        .send()
        .await
        .unwrap();
    sm.create_endpoint()
        .endpoint_name("mme")
        .endpoint_config_name("mme-config")
        .send()
        .await
        .unwrap();
    wait_status(&sm, "mme", EndpointStatus::InService).await;
    (sb, conf)
}

async fn invoke(rt: &aws_sdk_sagemakerruntime::Client, model: &str) -> Result<(), InvokeEndpointError> {
    rt.invoke_endpoint()
        .endpoint_name("mme")
        .target_model(model)
        .content_type("application/json")
        .body(Blob::new(r#"{"inputs": "warmup"}"#))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| e.into_service_error())
}

fn loaded(sb: &SandboxHandle) -> Vec<String> {
    let world = sb.sandbox.world.read();
    world.endpoints["mme"].variants[0].sim.loaded_models().concat()
}

#[tokio::test]
async fn cold_then_warm_then_evicted() {
    let (sb, conf) = mme_sandbox().await;
    let rt = aws_sdk_sagemakerruntime::Client::new(&conf);
    assert!(loaded(&sb).is_empty(), "nothing is loaded before the first call");
    invoke(&rt, "a.tar.gz").await.unwrap();
    assert_eq!(loaded(&sb), vec!["a.tar.gz"], "the first call loaded it (cold)");
    invoke(&rt, "a.tar.gz").await.unwrap();
    assert_eq!(loaded(&sb), vec!["a.tar.gz"], "the second found it loaded (warm)");
    invoke(&rt, "b.tar.gz").await.unwrap();
    invoke(&rt, "a.tar.gz").await.unwrap(); // a is now more recent than b
    invoke(&rt, "c.tar.gz").await.unwrap(); // capacity 2: b (least recently used) goes
    let mut now_loaded = loaded(&sb);
    now_loaded.sort();
    assert_eq!(now_loaded, vec!["a.tar.gz", "c.tar.gz"]);
    invoke(&rt, "b.tar.gz").await.unwrap();
    assert!(
        loaded(&sb).contains(&"b.tar.gz".to_string()),
        "the evicted model loads again"
    );

    // The cache metrics saw it: 4 misses, 2 hits.
    let sim = sb.sandbox.world.read().endpoints["mme"].variants[0].sim.clone();
    let now = sagedeck::sandbox::now_epoch();
    let ratio = sb.sandbox.metrics.window_stat(
        &sagedeck::sandbox::cloudwatch::metrics::SeriesKey::new(
            "AWS/SageMaker",
            "ModelCacheHit",
            &[("EndpointName", "mme"), ("VariantName", "AllTraffic")],
        ),
        now - 600.0,
        now + 10.0,
        "Average",
    );
    assert_eq!(ratio, Some(2.0 / 6.0));
    assert!(sim.multi_model);
}

#[tokio::test]
async fn long_load_answers_model_not_ready_and_keeps_loading() {
    let (_sb, conf) = mme_sandbox().await;
    let rt = aws_sdk_sagemakerruntime::Client::new(&conf);
    let err = invoke(&rt, "huge.tar.gz").await.unwrap_err();
    assert!(matches!(err, InvokeEndpointError::ModelNotReadyException(_)), "{err:?}");
    poll_until("the huge model to finish loading", Duration::from_secs(10), || async {
        invoke(&rt, "huge.tar.gz").await.ok()
    })
    .await;
}

#[tokio::test]
async fn target_model_errors_name_the_problem() {
    let (_sb, conf) = mme_sandbox().await;
    let rt = aws_sdk_sagemakerruntime::Client::new(&conf);
    let err = rt
        .invoke_endpoint()
        .endpoint_name("mme")
        .target_model("missing.tar.gz")
        .content_type("application/json")
        .body(Blob::new("{}"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationError"));
    assert!(err.message().unwrap().contains("key: mme/missing.tar.gz"));
    let err = rt
        .invoke_endpoint()
        .endpoint_name("mme")
        .content_type("application/json")
        .body(Blob::new("{}"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationError"));
    assert!(err.message().unwrap().contains("multi-model endpoint"));
}
