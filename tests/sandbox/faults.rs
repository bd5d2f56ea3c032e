//! Fault injection as the SDK experiences it: typed errors, the SDK's own retries on
//! throttling/500/503, slow answers, hangs, dropped connections, control-plane faults.

use std::time::Duration;

use aws_sdk_sagemakerruntime::Client;
use aws_sdk_sagemakerruntime::error::ProvideErrorMetadata;
use aws_sdk_sagemakerruntime::operation::invoke_endpoint::InvokeEndpointError;
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::sandbox::http::raw_client;

use crate::common::{demo_config, sandbox_with, sdk_config};

const EP: &str = "xgboost-churn-csv";

async fn call(
    rt: &Client,
) -> Result<
    aws_sdk_sagemakerruntime::operation::invoke_endpoint::InvokeEndpointOutput,
    aws_sdk_sagemakerruntime::error::SdkError<InvokeEndpointError>,
> {
    rt.invoke_endpoint()
        .endpoint_name(EP)
        .content_type("text/csv")
        .body(Blob::new("1,2,3"))
        .send()
        .await
}

async fn hits(url: &str) -> Vec<u64> {
    let r = raw_client::send(url, "GET", "/_sandbox/faults", &[], "").await.unwrap();
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| f["hits"].as_u64().unwrap())
        .collect()
}

fn add(sb: &sagedeck::sandbox::SandboxHandle, spec: &str) {
    sb.sandbox.faults.clear();
    sb.sandbox.faults.add(FaultSpec::parse_short(spec).unwrap());
}

#[tokio::test]
async fn sdk_retries_throttling_and_server_errors_but_not_model_errors() {
    let sb = sandbox_with(demo_config()).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let url = sb.endpoint_url();
    for kind in ["throttle", "internal", "unavailable"] {
        add(&sb, &format!("kind={kind},endpoint={EP},count=2"));
        call(&rt)
            .await
            .unwrap_or_else(|e| panic!("{kind}: the SDK's third attempt should succeed: {e:?}"));
        assert_eq!(hits(&url).await, vec![2], "{kind}: two failed attempts were retried");
    }
    add(&sb, &format!("kind=throttle,endpoint={EP}"));
    let err = call(&rt).await.unwrap_err();
    assert_eq!(err.code(), Some("ThrottlingException"));
    add(&sb, &format!("kind=unavailable,endpoint={EP}"));
    let err = call(&rt).await.unwrap_err().into_service_error();
    assert!(matches!(err, InvokeEndpointError::ServiceUnavailable(_)), "{err:?}");
    add(&sb, &format!("kind=internal,endpoint={EP}"));
    let err = call(&rt).await.unwrap_err().into_service_error();
    assert!(matches!(err, InvokeEndpointError::InternalFailure(_)), "{err:?}");

    add(
        &sb,
        &format!("kind=model_error,status=503,message=worker busy,endpoint={EP}"),
    );
    let err = call(&rt).await.unwrap_err().into_service_error();
    let InvokeEndpointError::ModelError(me) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(me.original_status_code(), Some(503));
    assert_eq!(me.original_message(), Some("worker busy"));
    assert_eq!(hits(&url).await, vec![1], "a ModelError is not retried");

    add(&sb, &format!("kind=not_ready,endpoint={EP},count=1"));
    let err = call(&rt).await.unwrap_err().into_service_error();
    assert!(matches!(err, InvokeEndpointError::ModelNotReadyException(_)), "{err:?}");
    assert_eq!(hits(&url).await, vec![1], "count=1 fault fired once and no more");
    call(&rt).await.expect("a used-up fault no longer fires");
}

#[tokio::test]
async fn slow_hang_and_drop() {
    let sb = sandbox_with(demo_config()).await;
    let conf = sdk_config(&sb).await;
    let rt = Client::new(&conf);
    let quick = Client::from_conf(
        aws_sdk_sagemakerruntime::config::Builder::from(&conf)
            .timeout_config(
                aws_sdk_sagemakerruntime::config::timeout::TimeoutConfig::builder()
                    .operation_attempt_timeout(Duration::from_millis(300))
                    .build(),
            )
            .retry_config(aws_sdk_sagemakerruntime::config::retry::RetryConfig::disabled())
            .build(),
    );
    // A slow answer (3 s) outlasts a 300 ms attempt; the same call without the fault answers.
    add(&sb, &format!("kind=slow,ms=3000,endpoint={EP},count=1"));
    let err = call(&quick).await.unwrap_err();
    assert!(
        matches!(err, aws_sdk_sagemakerruntime::error::SdkError::TimeoutError(_)),
        "{err:?}"
    );
    call(&rt).await.expect("the slow fault was used up");

    add(&sb, &format!("kind=hang,endpoint={EP},count=1"));
    let err = call(&quick).await.unwrap_err();
    assert!(
        matches!(err, aws_sdk_sagemakerruntime::error::SdkError::TimeoutError(_)),
        "{err:?}"
    );

    add(&sb, &format!("kind=drop,endpoint={EP},count=1"));
    let err = call(&quick).await.unwrap_err();
    assert!(
        matches!(
            err,
            aws_sdk_sagemakerruntime::error::SdkError::ResponseError(_)
                | aws_sdk_sagemakerruntime::error::SdkError::DispatchFailure(_)
        ),
        "{err:?}"
    );
    call(&quick)
        .await
        .expect("the endpoint answers again once the fault is used up");
}

#[tokio::test]
async fn control_plane_faults_and_the_admin_route() {
    let sb = sandbox_with(demo_config()).await;
    let url = sb.endpoint_url();
    let body =
        serde_json::json!({"operation": "DescribeEndpoint", "endpoint": EP, "kind": {"type": "throttle"}}).to_string();
    let r = raw_client::send(
        &url,
        "POST",
        "/_sandbox/faults",
        &[("content-type", "application/json")],
        body,
    )
    .await
    .unwrap();
    assert_eq!(r.status, 201, "{}", r.text());
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::from_conf(
        aws_sdk_sagemaker::config::Builder::from(&conf)
            .retry_config(aws_sdk_sagemaker::config::retry::RetryConfig::disabled())
            .build(),
    );
    let err = sm.describe_endpoint().endpoint_name(EP).send().await.unwrap_err();
    assert_eq!(
        aws_sdk_sagemaker::error::ProvideErrorMetadata::code(&err),
        Some("ThrottlingException")
    );
    sm.describe_endpoint()
        .endpoint_name("llm-tgi-chat")
        .send()
        .await
        .expect("other endpoints unaffected");
    let r = raw_client::send(&url, "DELETE", "/_sandbox/faults", &[], "")
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    sm.describe_endpoint().endpoint_name(EP).send().await.expect("cleared");
    let json = [("content-type", "application/json")];
    let r = raw_client::send(&url, "POST", "/_sandbox/faults", &json, "{\"kind\": 3}")
        .await
        .unwrap();
    assert_eq!(r.status, 400);
}
