//! Invoking by inference component with the Rust SDK: the component's container answers, an IC
//! endpoint refuses a call without a component, a component at zero copies answers AWS's 400
//! and counts NoCapacityInvocationFailures, back at one copy it serves again; the stream by
//! component; the metrics with the `InferenceComponentName` dimension and the IC gauges.

use std::time::Duration;

use aws_sdk_cloudwatch::types::{Dimension, Metric, MetricDataQuery, MetricStat};
use aws_sdk_sagemaker::types::{InferenceComponentRuntimeConfig, InferenceComponentStatus};
use aws_sdk_sagemakerruntime::error::ProvideErrorMetadata;
use aws_sdk_sagemakerruntime::primitives::Blob;
use aws_smithy_types::DateTime;
use sagedeck::sandbox::runtime::component::NO_CAPACITY;
use serde_json::json;

use super::{create_component, create_ic_endpoint, sagemaker, wait_status};
use crate::common::{poll_until, sdk_config};

/// A chat request the tool-calling LLM container answers.
fn chat() -> Blob {
    Blob::new(json!({"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 20}).to_string())
}

/// A statistic of a metric over the last ten minutes in one-minute periods, summed over the
/// periods for Sum and the largest of them otherwise; None without data.
async fn metric(
    cw: &aws_sdk_cloudwatch::Client,
    (ns, name, stat): (&str, &str, &str),
    dims: &[(&str, &str)],
) -> Option<f64> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let dims: Vec<Dimension> = dims
        .iter()
        .map(|(k, v)| Dimension::builder().name(*k).value(*v).build())
        .collect();
    let metric = Metric::builder()
        .namespace(ns)
        .metric_name(name)
        .set_dimensions(Some(dims))
        .build();
    let query = MetricDataQuery::builder()
        .id("m")
        .metric_stat(MetricStat::builder().metric(metric).period(60).stat(stat).build())
        .build();
    let out = cw
        .get_metric_data()
        .metric_data_queries(query)
        .start_time(DateTime::from_secs(now - 600))
        .end_time(DateTime::from_secs(now + 60))
        .send()
        .await
        .expect("GetMetricData");
    let values = out.metric_data_results().first()?.values().to_vec();
    match stat {
        _ if values.is_empty() => None,
        "Sum" => Some(values.iter().sum()),
        _ => values.into_iter().reduce(f64::max),
    }
}

/// The Sum of an `AWS/SageMaker` metric of a component over the last ten minutes.
async fn component_sum(cw: &aws_sdk_cloudwatch::Client, name: &str, ic: &str) -> Option<f64> {
    metric(cw, ("AWS/SageMaker", name, "Sum"), &[("InferenceComponentName", ic)]).await
}

async fn set_copies(sm: &aws_sdk_sagemaker::Client, ic: &str, copies: i32) {
    sm.update_inference_component_runtime_config()
        .inference_component_name(ic)
        .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(copies).build())
        .send()
        .await
        .expect("UpdateInferenceComponentRuntimeConfig");
}

#[tokio::test]
async fn a_component_serves_by_name_answers_400_at_zero_copies_and_serves_again_at_one() {
    let (sb, sm) = sagemaker().await;
    let conf = sdk_config(&sb).await;
    let rt = aws_sdk_sagemakerruntime::Client::new(&conf);
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    create_ic_endpoint(&sm, "ic-rt", (0, 2)).await;
    create_component(&sm, "ic-rt", "chat-llm", 1.0, 1).await;
    wait_status(&sm, "chat-llm", InferenceComponentStatus::InService).await;
    let invoke = || {
        rt.invoke_endpoint()
            .endpoint_name("ic-rt")
            .inference_component_name("chat-llm")
            .content_type("application/json")
            .body(chat())
            .send()
    };
    let ok = invoke().await.expect("the component answers");
    assert_eq!(ok.invoked_production_variant(), Some("AllTraffic"));
    let text = String::from_utf8_lossy(ok.body().map(|b| b.as_ref()).unwrap_or_default()).to_string();
    assert!(text.contains("choices") || text.contains("generated_text"), "{text}");
    // Without a component, an IC endpoint refuses the call.
    let e = rt
        .invoke_endpoint()
        .endpoint_name("ic-rt")
        .content_type("application/json")
        .body(chat())
        .send()
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some("ValidationError"));
    assert!(
        e.message()
            .unwrap_or_default()
            .contains("Inference Component Name header is required"),
        "{e:?}"
    );
    // Scaled to zero: AWS's 400, counted.
    set_copies(&sm, "chat-llm", 0).await;
    assert_eq!(
        wait_status(&sm, "chat-llm", InferenceComponentStatus::InService).await,
        (0, 0)
    );
    let e = invoke().await.unwrap_err();
    assert_eq!(e.code(), Some("ValidationError"));
    assert_eq!(e.message(), Some(NO_CAPACITY));
    let failures = component_sum(&cw, "NoCapacityInvocationFailures", "chat-llm").await;
    assert_eq!(failures, Some(1.0));
    // Back to one copy: it serves again.
    set_copies(&sm, "chat-llm", 1).await;
    poll_until("the component serving again", Duration::from_secs(15), || async {
        invoke().await.ok()
    })
    .await;
    let calls = component_sum(&cw, "Invocations", "chat-llm").await.unwrap_or(0.0);
    assert_eq!(calls, 2.0, "the two served calls, by component");
    let per_copy = component_sum(&cw, "InvocationsPerCopy", "chat-llm")
        .await
        .unwrap_or(0.0);
    assert_eq!(per_copy, 2.0, "one copy each time");
}

#[tokio::test]
async fn the_stream_goes_to_the_component_and_an_unknown_component_is_refused() {
    let (sb, sm) = sagemaker().await;
    let conf = sdk_config(&sb).await;
    let rt = aws_sdk_sagemakerruntime::Client::new(&conf);
    create_ic_endpoint(&sm, "ic-stream", (1, 1)).await;
    create_component(&sm, "ic-stream", "stream-llm", 1.0, 1).await;
    wait_status(&sm, "stream-llm", InferenceComponentStatus::InService).await;
    let mut out = rt
        .invoke_endpoint_with_response_stream()
        .endpoint_name("ic-stream")
        .inference_component_name("stream-llm")
        .content_type("application/json")
        .body(Blob::new(
            json!({"inputs": "Say hello.", "parameters": {"max_new_tokens": 8}}).to_string(),
        ))
        .send()
        .await
        .expect("the stream by component");
    let mut parts = 0;
    while let Some(_event) = out.body.recv().await.expect("a well-formed stream") {
        parts += 1;
    }
    assert!(parts > 0, "the component's container streamed its answer");
    let e = rt
        .invoke_endpoint()
        .endpoint_name("ic-stream")
        .inference_component_name("no-such-component")
        .content_type("application/json")
        .body(chat())
        .send()
        .await
        .unwrap_err();
    assert!(e.message().unwrap_or_default().contains("no-such-component"), "{e:?}");
}

#[tokio::test]
async fn the_gauges_show_utilization_and_reservation() {
    let (sb, sm) = sagemaker().await;
    let conf = sdk_config(&sb).await;
    let cw = aws_sdk_cloudwatch::Client::new(&conf);
    create_ic_endpoint(&sm, "ic-gauge", (1, 1)).await;
    // Two copies of one GPU each on a four-GPU instance: half its GPUs reserved.
    create_component(&sm, "ic-gauge", "gauge-llm", 1.0, 2).await;
    wait_status(&sm, "gauge-llm", InferenceComponentStatus::InService).await;
    let host = [("EndpointName", "ic-gauge"), ("VariantName", "AllTraffic")];
    let reserved = poll_until("GPUReservation recorded", Duration::from_secs(10), || async {
        metric(&cw, ("/aws/sagemaker/Endpoints", "GPUReservation", "Maximum"), &host).await
    })
    .await;
    assert_eq!(reserved, 50.0);
    let dims = [("InferenceComponentName", "gauge-llm")];
    let utilization = (
        "/aws/sagemaker/InferenceComponents",
        "GPUUtilizationNormalized",
        "Maximum",
    );
    let gpu = metric(&cw, utilization, &dims).await;
    assert!(gpu.is_some(), "GPU utilization of the reservation recorded");
}
