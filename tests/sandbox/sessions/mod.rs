//! Stateful sessions over the wire with the Rust SDK: `SessionId` `NEW_SESSION` answers
//! `NewSessionId` (`ID; Expires=…`, twenty minutes on), three calls with the id are answered by
//! the one instance that opened it (each instance writes its own log stream) while calls without
//! one spread over the three instances, `{"requestType": "CLOSE"}` answers `ClosedSessionId`, and
//! a closed, unknown or malformed id is a ValidationError, as is `NEW_SESSION` on the response
//! stream; boto3 in `boto3.rs`.

mod boto3;

use std::collections::BTreeMap;
use std::time::Duration;

use aws_sdk_cloudwatchlogs::Client as Logs;
use aws_sdk_sagemakerruntime::Client;
use aws_sdk_sagemakerruntime::error::ProvideErrorMetadata;
use aws_sdk_sagemakerruntime::primitives::Blob;
use serde_json::json;

use crate::common::{poll_until, sandbox, sdk_config};

pub use crate::common::deploy::{SESSIONS_ENDPOINT as ENDPOINT, three_instance_llm};

/// A chat request the LLM answers.
pub fn chat() -> String {
    json!({"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 8}).to_string()
}

async fn call(
    rt: &Client,
    session: Option<&str>,
    body: String,
) -> aws_sdk_sagemakerruntime::operation::invoke_endpoint::InvokeEndpointOutput {
    rt.invoke_endpoint()
        .endpoint_name(ENDPOINT)
        .content_type("application/json")
        .set_session_id(session.map(str::to_string))
        .body(Blob::new(body))
        .send()
        .await
        .expect("InvokeEndpoint")
}

/// Access lines per log stream (one stream per instance) of the endpoint's containers.
async fn answers_per_instance(logs: &Logs) -> BTreeMap<String, usize> {
    let out = logs
        .filter_log_events()
        .log_group_name(format!("/aws/sagemaker/Endpoints/{ENDPOINT}"))
        .filter_pattern("\"POST /invocations\"")
        .send()
        .await
        .expect("FilterLogEvents");
    let mut per = BTreeMap::new();
    for e in out.events() {
        *per.entry(e.log_stream_name().unwrap_or_default().to_string())
            .or_default() += 1;
    }
    per
}

#[tokio::test]
async fn a_session_stays_on_one_instance_until_closed() {
    let sb = sandbox().await;
    three_instance_llm(&sb).await;
    let config = sdk_config(&sb).await;
    let (rt, logs) = (Client::new(&config), Logs::new(&config));

    let opened = call(
        &rt,
        Some("NEW_SESSION"),
        json!({"requestType": "NEW_SESSION"}).to_string(),
    )
    .await;
    let header = opened.new_session_id().expect("NewSessionId").to_string();
    let (id, expires) = header.split_once("; Expires=").expect("ID; Expires=…");
    let expires = aws_smithy_types::DateTime::from_str(expires, aws_smithy_types::date_time::Format::DateTime)
        .expect("an ISO 8601 expiry");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(
        (expires.secs() - (now + 1200)).abs() <= 5,
        "twenty minutes on: {header}"
    );

    for _ in 0..3 {
        let out = call(&rt, Some(id), chat()).await;
        assert!(out.body().is_some_and(|b| !b.as_ref().is_empty()));
        assert_eq!(out.closed_session_id(), None);
    }
    let per = answers_per_instance(&logs).await;
    assert_eq!(
        per.values().copied().collect::<Vec<_>>(),
        vec![4],
        "one instance answered all: {per:?}"
    );

    for _ in 0..12 {
        call(&rt, None, chat()).await;
    }
    poll_until(
        "calls without a session on other instances",
        Duration::from_secs(5),
        || async { (answers_per_instance(&logs).await.len() > 1).then_some(()) },
    )
    .await;

    let closed = call(&rt, Some(id), json!({"requestType": "CLOSE"}).to_string()).await;
    assert_eq!(closed.closed_session_id(), Some(id));
    let refused = rt
        .invoke_endpoint()
        .endpoint_name(ENDPOINT)
        .content_type("application/json")
        .session_id(id)
        .body(Blob::new(chat()))
        .send()
        .await
        .expect_err("a closed session");
    assert_eq!(refused.code(), Some("ValidationError"));
    assert!(
        refused.message().unwrap_or_default().contains("not an open session"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn malformed_ids_and_sessions_opened_on_the_stream_are_refused() {
    let sb = sandbox().await;
    three_instance_llm(&sb).await;
    let rt = Client::new(&sdk_config(&sb).await);
    let send = |id: &'static str| {
        rt.invoke_endpoint()
            .endpoint_name(ENDPOINT)
            .content_type("application/json")
            .session_id(id)
            .body(Blob::new(chat()))
            .send()
    };
    let e = send("bad_id").await.expect_err("pattern");
    assert!(
        e.message().unwrap_or_default().contains("regular expression pattern"),
        "{e:?}"
    );
    let e = send("0f3c2a1e-unknown").await.expect_err("unknown");
    assert_eq!(e.code(), Some("ValidationError"));
    let e = rt
        .invoke_endpoint_with_response_stream()
        .endpoint_name(ENDPOINT)
        .content_type("application/json")
        .session_id("NEW_SESSION")
        .body(Blob::new(chat()))
        .send()
        .await
        .expect_err("no session is created on the stream");
    assert_eq!(e.code(), Some("ValidationError"));
}

#[tokio::test]
async fn a_session_opened_on_the_openai_path_keeps_its_instance() {
    let sb = sandbox().await;
    three_instance_llm(&sb).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let token = crate::openai::token(now, "us-east-1/sagemaker", 3600);
    let url = format!("{}/endpoints/{ENDPOINT}/openai/v1/chat/completions", sb.endpoint_url());
    let post = |session: &str| {
        reqwest::Client::new()
            .post(&url)
            .header("authorization", format!("Bearer {token}"))
            .header("x-amzn-sagemaker-session-id", session)
            .body(chat())
            .send()
    };
    let opened = post("NEW_SESSION").await.unwrap();
    assert_eq!(opened.status().as_u16(), 200);
    let header = |r: &reqwest::Response, name: &str| r.headers().get(name).map(|v| v.to_str().unwrap().to_string());
    let new = header(&opened, "x-amzn-sagemaker-new-session-id").expect("a session opened");
    let id = new.split(';').next().unwrap().to_string();
    let first = header(&opened, "x-sandbox-instance-id").expect("the instance");
    for _ in 0..3 {
        let r = post(&id).await.unwrap();
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(header(&r, "x-sandbox-instance-id").as_deref(), Some(first.as_str()));
    }
    let unknown = post("0f3c2a1e-unknown").await.unwrap();
    assert_eq!(unknown.status().as_u16(), 400);
}
