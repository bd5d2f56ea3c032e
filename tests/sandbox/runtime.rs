//! SageMaker Runtime: invocation, routing by weights, typed errors, the response stream, and
//! the metrics every invocation feeds.

use aws_sdk_sagemakerruntime::Client;
use aws_sdk_sagemakerruntime::error::ProvideErrorMetadata;
use aws_sdk_sagemakerruntime::operation::invoke_endpoint::InvokeEndpointError;
use aws_sdk_sagemakerruntime::primitives::Blob;
use aws_sdk_sagemakerruntime::types::ResponseStream;

use crate::common::{demo_config, sandbox_with, sdk_config};

const SEED_PAYLOAD: &str =
    r#"{"inputs": "book me a flight to Lisbon", "parameters": {"max_length": 128, "return_all_scores": true}}"#;

#[tokio::test]
async fn invoke_classifier_returns_all_scores_and_the_variant() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let out = rt
        .invoke_endpoint()
        .endpoint_name("mcp-intent-classifier-prod")
        .content_type("application/json")
        .accept("application/json")
        .custom_attributes("trace=abc")
        .body(Blob::new(SEED_PAYLOAD))
        .send()
        .await
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(out.body().unwrap().as_ref()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 6);
    assert!(v[0]["label"].is_string() && v[0]["score"].is_f64());
    assert!(matches!(
        out.invoked_production_variant(),
        Some("Stable") | Some("Canary")
    ));
    assert_eq!(out.content_type(), Some("application/json"));
    assert_eq!(out.custom_attributes(), Some("trace=abc"));
}

#[tokio::test]
async fn traffic_follows_weights_and_target_variant_overrides() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let (mut served, mut canary) = (0, 0);
    for _ in 0..1500 {
        let sent = rt
            .invoke_endpoint()
            .endpoint_name("mcp-intent-classifier-prod")
            .content_type("application/json")
            .body(Blob::new(r#"{"inputs": "hi"}"#))
            .send()
            .await;
        // The demo variants fail a small fraction of requests on purpose (ModelError 500).
        let Ok(out) = sent else { continue };
        served += 1;
        if out.invoked_production_variant() == Some("Canary") {
            canary += 1;
        }
    }
    assert!(served > 1400);
    let share = canary as f64 / served as f64;
    assert!(
        (0.07..=0.13).contains(&share),
        "Canary share {share} should be near 0.10"
    );
    for _ in 0..20 {
        let out = rt
            .invoke_endpoint()
            .endpoint_name("mcp-intent-classifier-prod")
            .target_variant("Canary")
            .content_type("application/json")
            .body(Blob::new(r#"{"inputs": "hi"}"#))
            .send()
            .await
            .unwrap();
        assert_eq!(out.invoked_production_variant(), Some("Canary"));
    }
}

#[tokio::test]
async fn container_and_validation_errors_decode_as_typed_errors() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let err = rt
        .invoke_endpoint()
        .endpoint_name("mcp-intent-classifier-prod")
        .content_type("text/csv")
        .body(Blob::new("1,2,3"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let InvokeEndpointError::ModelError(me) = &err else {
        panic!("expected ModelError, got {err:?}")
    };
    assert_eq!(me.original_status_code(), Some(415));
    assert!(me.original_message().unwrap().contains("text/csv"));
    assert!(
        me.log_stream_arn()
            .unwrap()
            .starts_with("arn:aws:logs:us-east-1:123456789012:log-group:/aws/sagemaker/Endpoints/")
    );
    assert!(
        me.message()
            .unwrap()
            .starts_with("Received client error (415) from primary with message")
    );

    let big = vec![b'x'; 6 * 1024 * 1024 + 1];
    let err = rt
        .invoke_endpoint()
        .endpoint_name("mcp-intent-classifier-prod")
        .content_type("application/json")
        .body(Blob::new(big))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(matches!(err, InvokeEndpointError::ValidationError(_)), "{err:?}");

    let err = rt
        .invoke_endpoint()
        .endpoint_name("mcp-intent-classifier-prod")
        .target_model("a.tar.gz")
        .content_type("application/json")
        .body(Blob::new(r#"{"inputs": "x"}"#))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationError"));
    assert_eq!(
        err.message(),
        Some(
            "Endpoint mcp-intent-classifier-prod is not a multi-model endpoint and does not support target model header."
        )
    );

    let err = rt
        .invoke_endpoint()
        .endpoint_name("nope")
        .content_type("application/json")
        .body(Blob::new("{}"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.message(), Some("Endpoint nope of account 123456789012 not found."));
    let err = rt
        .invoke_endpoint()
        .endpoint_name("mcp-embeddings-failed")
        .content_type("application/json")
        .body(Blob::new("{}"))
        .send()
        .await
        .unwrap_err();
    assert!(err.message().unwrap().contains("status Failed"));
    let err = rt
        .invoke_endpoint_async()
        .endpoint_name("llm-tgi-chat")
        .input_location("s3://b/k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationError"));
    assert!(err.message().unwrap().contains("InvokeEndpointAsync"));
}

#[tokio::test]
async fn other_containers_answer_in_their_own_formats() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let out = rt
        .invoke_endpoint()
        .endpoint_name("xgboost-churn-csv")
        .content_type("text/csv")
        .accept("text/csv")
        .body(Blob::new("0.5,1.0,3,12.5,0\n1,2,3,4,5\n"))
        .send()
        .await
        .unwrap();
    assert_eq!(out.content_type(), Some("text/csv"));
    assert_eq!(
        std::str::from_utf8(out.body().unwrap().as_ref())
            .unwrap()
            .lines()
            .count(),
        2
    );
    let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0, 1];
    let out = rt
        .invoke_endpoint()
        .endpoint_name("resnet-image-classifier")
        .content_type("image/jpeg")
        .accept("application/json")
        .body(Blob::new(jpeg.to_vec()))
        .send()
        .await
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(out.body().unwrap().as_ref()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 5);
    let out = rt
        .invoke_endpoint()
        .endpoint_name("llm-tgi-chat")
        .content_type("application/json")
        .body(Blob::new(
            r#"{"inputs": "hello", "parameters": {"max_new_tokens": 7, "temperature": 0.7, "return_full_text": false}}"#,
        ))
        .send()
        .await
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(out.body().unwrap().as_ref()).unwrap();
    assert_eq!(v[0]["generated_text"].as_str().unwrap().split_whitespace().count(), 7);
}

#[tokio::test]
async fn response_stream_delivers_one_payload_part_per_token() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let mut out = rt
        .invoke_endpoint_with_response_stream()
        .endpoint_name("llm-tgi-chat")
        .content_type("application/json")
        .body(Blob::new(
            r#"{"inputs": "hello", "parameters": {"max_new_tokens": 12, "return_full_text": false}}"#,
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(out.invoked_production_variant(), Some("AllTraffic"));
    let mut parts = Vec::new();
    while let Some(ev) = out.body.recv().await.unwrap() {
        if let ResponseStream::PayloadPart(p) = ev {
            parts.push(String::from_utf8(p.bytes().unwrap().as_ref().to_vec()).unwrap());
        }
    }
    assert_eq!(parts.len(), 12);
    assert!(parts.iter().all(|p| p.starts_with("data: {")));
    let last: serde_json::Value = serde_json::from_str(parts[11].trim_start_matches("data: ").trim()).unwrap();
    assert_eq!(last["generated_text"].as_str().unwrap().split_whitespace().count(), 12);
}

#[tokio::test]
async fn invocations_land_in_cloudwatch() {
    use aws_sdk_cloudwatch::types::{Dimension, Metric, MetricDataQuery, MetricStat};
    let sb = sandbox_with(demo_config()).await;
    let conf = sdk_config(&sb).await;
    let rt = Client::new(&conf);
    for _ in 0..25 {
        rt.invoke_endpoint()
            .endpoint_name("xgboost-churn-csv")
            .content_type("text/csv")
            .body(Blob::new("1,2,3"))
            .send()
            .await
            .unwrap();
    }
    let _ = rt
        .invoke_endpoint()
        .endpoint_name("xgboost-churn-csv")
        .content_type("application/json")
        .body(Blob::new("{}"))
        .send()
        .await;
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    let query = |id: &str, name: &str, stat: &str| {
        MetricDataQuery::builder()
            .id(id)
            .metric_stat(
                MetricStat::builder()
                    .metric(
                        Metric::builder()
                            .namespace("AWS/SageMaker")
                            .metric_name(name)
                            .dimensions(
                                Dimension::builder()
                                    .name("EndpointName")
                                    .value("xgboost-churn-csv")
                                    .build(),
                            )
                            .dimensions(Dimension::builder().name("VariantName").value("AllTraffic").build())
                            .build(),
                    )
                    .period(3600)
                    .stat(stat)
                    .build(),
            )
            .build()
    };
    let now = std::time::SystemTime::now();
    let out = cw
        .get_metric_data()
        .metric_data_queries(query("inv", "Invocations", "Sum"))
        .metric_data_queries(query("lat", "ModelLatency", "SampleCount"))
        .metric_data_queries(query("e4", "Invocation4XXErrors", "Sum"))
        .start_time((now - std::time::Duration::from_secs(7200)).into())
        .end_time((now + std::time::Duration::from_secs(60)).into())
        .send()
        .await
        .unwrap();
    let sum = |id: &str| -> f64 {
        out.metric_data_results()
            .iter()
            .find(|r| r.id() == Some(id))
            .unwrap()
            .values()
            .iter()
            .sum()
    };
    assert_eq!(sum("inv"), 26.0);
    assert_eq!(sum("lat"), 26.0);
    assert_eq!(sum("e4"), 1.0);
}
