//! SageMaker's OpenAI-compatible API over the wire: Chat Completions on an endpoint and on an
//! inference component (native tool calls, usage, server-sent events ending `data: [DONE]`),
//! counted in the endpoint's Invocations; the containers without Chat Completions answering a
//! ModelError that quotes their 404; the bearer token refused when missing, mangled, expired,
//! for another service or region; the official OpenAI Python client with a token from AWS's
//! own generator in `python.rs`.

mod python;

use std::time::Duration;

use aws_sdk_sagemaker::types::InferenceComponentStatus;
use aws_smithy_types::DateTime;
use aws_smithy_types::date_time::Format;
use base64::Engine;
use sagedeck::sandbox::runtime::component::NO_CAPACITY;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};
use serde_json::{Value, json};

use crate::common::{demo_config, poll_until, sandbox_with, sdk_config};
use crate::components::{create_component, create_ic_endpoint, sagemaker, wait_status};

const LLM: &str = "llm-tgi-chat";
const QUESTION: &str = "What is the most played song on WZPZ?";

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A token laid out as `sagemaker.core.token_generator` lays it out, signed at `signed_at`
/// (epoch seconds) for `scope` (`REGION/SERVICE`), lasting `expires` seconds.
pub fn token(signed_at: i64, scope: &str, expires: u64) -> String {
    let stamp = DateTime::from_secs(signed_at).fmt(Format::DateTime).unwrap();
    let stamp = stamp.replace(['-', ':'], "");
    let credential = format!("AKIDSANDBOX/{}/{scope}/aws4_request", &stamp[..8]);
    let url = format!(
        "sagemaker.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={}&X-Amz-Date={stamp}&X-Amz-Expires={expires}&X-Amz-SignedHeaders=host&X-Amz-Signature={}&Version=1",
        credential.replace('/', "%2F"),
        "0f".repeat(32)
    );
    format!(
        "sagemaker-api-key-{}",
        base64::engine::general_purpose::STANDARD.encode(url)
    )
}

/// A valid token for the sandbox's region.
fn good_token() -> String {
    token(now(), "us-east-1/sagemaker", 3600)
}

/// POSTs `body` to `…/endpoints/PATH` with `Authorization: Bearer TOKEN` (none when None).
async fn post(sb: &SandboxHandle, path: &str, token: Option<&str>, body: &Value) -> reqwest::Response {
    let mut req = reqwest::Client::new()
        .post(format!("{}/endpoints/{path}", sb.endpoint_url()))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    req.send().await.expect("the sandbox answers")
}

fn chat_path(endpoint: &str) -> String {
    format!("{endpoint}/openai/v1/chat/completions")
}

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "top_song",
        "description": "Get the most popular song played on a radio station.",
        "parameters": {"type": "object", "properties": {"sign": {"type": "string",
            "description": "The call sign for the radio station."}}, "required": ["sign"]}}}])
}

/// The status and JSON body of an answer.
async fn json_of(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

/// The Sum of the endpoint's `AllTraffic` Invocations over the last ten minutes, from CloudWatch.
async fn invocations(sb: &SandboxHandle, endpoint: &str) -> f64 {
    use aws_sdk_cloudwatch::types::{Dimension, Metric, MetricDataQuery, MetricStat};
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(sb).await);
    let metric = Metric::builder()
        .namespace("AWS/SageMaker")
        .metric_name("Invocations")
        .dimensions(Dimension::builder().name("EndpointName").value(endpoint).build())
        .dimensions(Dimension::builder().name("VariantName").value("AllTraffic").build())
        .build();
    let query = MetricDataQuery::builder()
        .id("m")
        .metric_stat(MetricStat::builder().metric(metric).period(60).stat("Sum").build())
        .build();
    let out = cw
        .get_metric_data()
        .metric_data_queries(query)
        .start_time(DateTime::from_secs(now() - 600))
        .end_time(DateTime::from_secs(now() + 60))
        .send()
        .await
        .expect("GetMetricData");
    out.metric_data_results()
        .first()
        .map_or(0.0, |r| r.values().iter().sum())
}

#[tokio::test]
async fn chat_completions_answer_native_tool_calls_with_usage_and_count_as_invocations() {
    let sb = sandbox_with(demo_config()).await;
    let before = invocations(&sb, LLM).await;
    let body = json!({"model": "", "messages": [{"role": "user", "content": QUESTION}], "tools": tools()});
    let resp = post(&sb, &chat_path(LLM), Some(&good_token()), &body).await;
    assert_eq!(
        resp.headers()["x-amzn-invoked-production-variant"].to_str().unwrap(),
        "AllTraffic"
    );
    let (status, v) = json_of(resp).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["object"], "chat.completion");
    let f = &v["choices"][0]["message"]["tool_calls"][0]["function"];
    assert_eq!(f["name"], "top_song");
    let arguments: Value = serde_json::from_str(f["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"sign": "WZPZ"}));
    assert!(v["usage"]["total_tokens"].as_u64().unwrap() > 0, "{v}");
    poll_until("the call in Invocations", Duration::from_secs(5), || async {
        (invocations(&sb, LLM).await >= before + 1.0).then_some(())
    })
    .await;
    assert_eq!(sb.sandbox.request_count("OpenAIChatCompletions"), 1);
}

/// The `data:` payloads of an event stream, and whether it ended with `data: [DONE]`.
fn stream_data(text: &str) -> (Vec<Value>, bool) {
    let events: Vec<&str> = text.split("\n\n").filter(|e| !e.trim().is_empty()).collect();
    let done = events.last().map(|e| e.trim()) == Some("data: [DONE]");
    let data = events
        .iter()
        .filter(|e| e.trim() != "data: [DONE]")
        .map(|e| serde_json::from_str(e.trim().strip_prefix("data: ").expect("data: lines")).unwrap())
        .collect();
    (data, done)
}

#[tokio::test]
async fn streamed_chat_completions_arrive_as_events_ending_done() {
    let sb = sandbox_with(demo_config()).await;
    let body = json!({"messages": [{"role": "user", "content": "Say hello to the operators."}],
        "stream": true, "max_tokens": 12, "stream_options": {"include_usage": true}});
    let resp = post(&sb, &chat_path(LLM), Some(&good_token()), &body).await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"].to_str().unwrap(), "text/event-stream");
    let (chunks, done) = stream_data(&resp.text().await.unwrap());
    assert!(done, "the stream ends with data: [DONE]");
    assert!(chunks.len() > 2, "{chunks:?}");
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert!(!text.trim().is_empty());
    assert!(chunks.iter().all(|c| c["object"] == "chat.completion.chunk"));
    assert!(chunks.last().unwrap()["usage"]["completion_tokens"].as_u64().unwrap() > 0);

    let body = json!({"messages": [{"role": "user", "content": QUESTION}], "tools": tools(), "stream": true});
    let resp = post(&sb, &chat_path(LLM), Some(&good_token()), &body).await;
    let (chunks, done) = stream_data(&resp.text().await.unwrap());
    assert!(done);
    let arguments: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&arguments).unwrap(),
        json!({"sign": "WZPZ"})
    );
}

#[tokio::test]
async fn containers_without_chat_completions_answer_a_model_error_quoting_their_404() {
    let sb = sandbox_with(demo_config()).await;
    let body = json!({"messages": [{"role": "user", "content": "hello"}]});
    for endpoint in ["xgboost-churn-csv", "resnet-image-classifier"] {
        let (status, v) = json_of(post(&sb, &chat_path(endpoint), Some(&good_token()), &body).await).await;
        assert_eq!(status, 424, "{endpoint}: {v}");
        assert_eq!(v["error"]["code"], "ModelError");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("Received client error (404) from primary with message"),
            "{message}"
        );
        assert!(!message.contains('\n'), "one line: {message}");
    }
    let (status, v) = json_of(post(&sb, "xgboost-churn-csv/openai/v1/models", Some(&good_token()), &body).await).await;
    assert_eq!(status, 404, "only chat/completions is routed: {v}");
}

#[tokio::test]
async fn the_component_path_serves_the_component_and_refuses_the_component_header() {
    let (sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "oa-ic", (1, 2)).await;
    create_component(&sm, "oa-ic", "oa-chat", 1.0, 1).await;
    wait_status(&sm, "oa-chat", InferenceComponentStatus::InService).await;
    let body = json!({"messages": [{"role": "user", "content": QUESTION}], "tools": tools()});
    let path = "oa-ic/inference-components/oa-chat/openai/v1/chat/completions";
    let (status, v) = json_of(post(&sb, path, Some(&good_token()), &body).await).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "top_song"
    );

    let refused = reqwest::Client::new()
        .post(format!("{}/endpoints/{path}", sb.endpoint_url()))
        .header("authorization", format!("Bearer {}", good_token()))
        .header("x-amzn-sagemaker-inference-component", "oa-chat")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let (status, v) = json_of(refused).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (400, Some("ValidationError")),
        "{v}"
    );

    let (status, v) = json_of(post(&sb, &chat_path("oa-ic"), Some(&good_token()), &body).await).await;
    assert_eq!(status, 400, "an IC endpoint without a component in the path: {v}");
}

#[tokio::test]
async fn a_component_at_zero_copies_answers_aws_no_capacity_text() {
    let sb = sandbox_with(SandboxConfig {
        demo_components: true,
        ..demo_config()
    })
    .await;
    let path = "llm-ic-endpoint/inference-components/llm-ic-chat/openai/v1/chat/completions";
    let body = json!({"messages": [{"role": "user", "content": "hi"}]});
    let (status, v) = json_of(post(&sb, path, Some(&good_token()), &body).await).await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["error"]["message"], NO_CAPACITY);
}

#[tokio::test]
async fn tokens_missing_mangled_expired_or_for_another_scope_are_refused() {
    let sb = sandbox_with(demo_config()).await;
    let body = json!({"messages": [{"role": "user", "content": "hi"}]});
    let path = chat_path(LLM);
    let refused = |status: u16, v: &Value, what: &str| {
        assert!(matches!(status, 401 | 403), "{what}: {status} {v}");
        assert!(
            v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{what}: {v}"
        );
    };
    let (status, v) = json_of(post(&sb, &path, None, &body).await).await;
    assert_eq!(status, 401, "missing: {v}");
    let good = good_token();
    let mangled = format!("{}x{}", &good[..40], &good[41..]);
    let cases = [
        ("mangled", mangled),
        ("not base64", "sagemaker-api-key-%%%".to_string()),
        ("no prefix", good["sagemaker-api-key-".len()..].to_string()),
        ("expired", token(now() - 7200, "us-east-1/sagemaker", 3600)),
        ("over 12 hours", token(now(), "us-east-1/sagemaker", 43_201)),
        ("another service", token(now(), "us-east-1/bedrock", 3600)),
        ("another region", token(now(), "eu-west-1/sagemaker", 3600)),
    ];
    for (what, t) in &cases {
        let (status, v) = json_of(post(&sb, &path, Some(t), &body).await).await;
        refused(status, &v, what);
        assert_eq!(status, 403, "{what}: {v}");
    }
    let (_, v) = json_of(post(&sb, &path, Some(&cases[3].1), &body).await).await;
    assert!(v["error"]["message"].as_str().unwrap().contains("expired"), "{v}");
    let (status, _) = json_of(post(&sb, &path, Some(&good), &body).await).await;
    assert_eq!(status, 200, "the unmangled token");
}
