//! CloudWatch Logs over the wire with the Rust SDK: groups and streams per variant and instance,
//! FilterLogEvents (patterns, pagination, empty pages), GetLogEvents tokens, and what the
//! containers write (cold starts, tracebacks, MME loads and evictions).

use std::time::Duration;

use aws_sdk_cloudwatchlogs::Client;
use aws_sdk_cloudwatchlogs::types::OrderBy;
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;

use crate::common::{demo_config, invoke_times, poll_until, sandbox_with, sdk_config};

const CLASSIFIER: &str = "mcp-intent-classifier-prod";
const GROUP: &str = "/aws/sagemaker/Endpoints/mcp-intent-classifier-prod";

async fn all_filtered(logs: &Client, pattern: Option<&str>, limit: Option<i32>) -> (Vec<(String, i64, String)>, usize) {
    let mut out = Vec::new();
    let mut token = None;
    let mut pages = 0;
    loop {
        let resp = logs
            .filter_log_events()
            .log_group_name(GROUP)
            .set_filter_pattern(pattern.map(str::to_string))
            .set_limit(limit)
            .set_next_token(token)
            .send()
            .await
            .unwrap();
        pages += 1;
        for e in resp.events() {
            out.push((
                e.log_stream_name().unwrap().to_string(),
                e.timestamp().unwrap(),
                e.message().unwrap().to_string(),
            ));
        }
        token = resp.next_token().map(str::to_string);
        if token.is_none() {
            return (out, pages);
        }
    }
}

async fn logs_sandbox() -> (SandboxHandle, Client) {
    let sb = sandbox_with(demo_config()).await;
    let logs = Client::new(&sdk_config(&sb).await);
    let want = 3;
    poll_until(
        "cold starts of the classifier's 3 instances",
        Duration::from_secs(10),
        || async {
            let r = logs.describe_log_streams().log_group_name(GROUP).send().await.ok()?;
            (r.log_streams().len() == want).then_some(())
        },
    )
    .await;
    (sb, logs)
}

#[tokio::test]
async fn one_stream_per_variant_instance_with_a_cold_start() {
    let (_sb, logs) = logs_sandbox().await;
    let groups = logs
        .describe_log_groups()
        .log_group_name_prefix("/aws/sagemaker/Endpoints/")
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = groups.log_groups().iter().filter_map(|g| g.log_group_name()).collect();
    assert!(names.contains(&GROUP), "{names:?}");
    let stable = logs
        .describe_log_streams()
        .log_group_name(GROUP)
        .log_stream_name_prefix("Stable/")
        .send()
        .await
        .unwrap();
    let streams: Vec<&str> = stable
        .log_streams()
        .iter()
        .filter_map(|s| s.log_stream_name())
        .collect();
    assert_eq!(streams.len(), 2, "{streams:?}");
    assert!(
        streams
            .iter()
            .all(|s| s.starts_with("Stable/i-0") && s.len() == "Stable/i-0".len() + 16)
    );
    // Paging one stream at a time, newest event first, walks every stream once.
    let (mut seen, mut token) = (Vec::new(), None);
    loop {
        let page = logs
            .describe_log_streams()
            .log_group_name(GROUP)
            .order_by(OrderBy::LastEventTime)
            .descending(true)
            .limit(1)
            .set_next_token(token)
            .send()
            .await
            .unwrap();
        seen.extend(page.log_streams().iter().map(|s| s.last_event_timestamp().unwrap()));
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    assert_eq!(seen.len(), 3);
    assert!(seen.windows(2).all(|w| w[0] >= w[1]), "{seen:?}");
    let bad = logs
        .describe_log_streams()
        .log_group_name(GROUP)
        .order_by(OrderBy::LastEventTime)
        .log_stream_name_prefix("Stable/")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        bad.as_service_error().map(|e| e.is_invalid_parameter_exception()),
        Some(true)
    );
    let (lines, _) = all_filtered(&logs, Some("\"Model server started\""), None).await;
    assert_eq!(lines.len(), 3, "one cold start per instance: {lines:?}");
}

#[tokio::test]
async fn invocation_errors_write_tracebacks_and_filters_find_them() {
    let (sb, logs) = logs_sandbox().await;
    sb.sandbox.faults.add(
        FaultSpec::parse_short(&format!(
            "kind=model_error,status=500,endpoint={CLASSIFIER},count=3,message=CUDA out of memory"
        ))
        .unwrap(),
    );
    assert_eq!(invoke_times(&sb, CLASSIFIER, 40).await, 3);
    let (posts, _) = all_filtered(&logs, Some("\"POST /invocations\" 200"), None).await;
    assert_eq!(posts.len(), 37);
    let (traces, _) = all_filtered(&logs, Some("Traceback"), None).await;
    assert_eq!(traces.len(), 3);
    let (errors, _) = all_filtered(&logs, Some("RuntimeError \"CUDA out of memory\""), None).await;
    assert_eq!(errors.len(), 3, "{errors:?}");
    let (either, _) = all_filtered(&logs, Some("?Traceback ?RuntimeError"), None).await;
    assert_eq!(either.len(), 6);
    let (not_ok, _) = all_filtered(&logs, Some("ACCESS_LOG POST -200"), None).await;
    assert_eq!(not_ok.len(), 3, "the three 500 access lines: {not_ok:?}");
    // The traceback's lines sit together in one stream, in order.
    let (all, _) = all_filtered(&logs, None, None).await;
    let at = all.iter().position(|l| l.2.starts_with("Traceback")).unwrap();
    assert!(all[at + 1].2.starts_with("  File \""));
    assert_eq!(all[at].0, all[at + 1].0);
    // Pages of 7 give the same lines, in the same order, as one page.
    let (paged, pages) = all_filtered(&logs, None, Some(7)).await;
    assert_eq!(paged, all);
    assert!(pages >= all.len() / 7, "{pages} pages for {}", all.len());
    assert!(all.windows(2).all(|w| w[0].1 <= w[1].1));
    let invalid = logs
        .filter_log_events()
        .log_group_name(GROUP)
        .filter_pattern("\"unbalanced")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        invalid.as_service_error().map(|e| e.is_invalid_parameter_exception()),
        Some(true)
    );
    let missing = logs
        .filter_log_events()
        .log_group_name("/aws/sagemaker/Endpoints/nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        missing.as_service_error().map(|e| e.is_resource_not_found_exception()),
        Some(true)
    );
}

#[tokio::test]
async fn json_patterns_match_tgi_lines() {
    let (sb, logs) = logs_sandbox().await;
    let group = "/aws/sagemaker/Endpoints/llm-tgi-chat";
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short("kind=model_error,status=500,endpoint=llm-tgi-chat,count=1").unwrap());
    invoke_times(&sb, "llm-tgi-chat", 3).await;
    let count = |pattern: &'static str| {
        let logs = logs.clone();
        async move {
            logs.filter_log_events()
                .log_group_name(group)
                .filter_pattern(pattern)
                .send()
                .await
                .unwrap()
                .events()
                .len()
        }
    };
    assert_eq!(count("{ $.level = \"ERROR\" }").await, 1);
    assert_eq!(count("{ $.fields.message = \"POST /invocations 200*\" }").await, 2);
    assert_eq!(
        count("{ $.level = \"ERROR\" || $.fields.message = \"Connected\" }").await,
        2
    );
}

#[tokio::test]
async fn a_rare_match_in_a_large_group_comes_after_empty_pages() {
    let (sb, logs) = logs_sandbox().await;
    let filler: Vec<String> = (0..12_000).map(|i| format!("GET /ping 200 #{i}")).collect();
    let now = sagedeck::sandbox::now_epoch();
    sb.sandbox.logs.append(GROUP, "Stable/i-0bulk", now, &filler);
    sb.sandbox
        .logs
        .append(GROUP, "Stable/i-0bulk", now, &["needle in the haystack".to_string()]);
    let first = logs
        .filter_log_events()
        .log_group_name(GROUP)
        .filter_pattern("needle")
        .send()
        .await
        .unwrap();
    assert!(
        first.events().is_empty() && first.next_token().is_some(),
        "an empty page with a token"
    );
    let (found, pages) = all_filtered(&logs, Some("needle"), None).await;
    assert_eq!(found.len(), 1);
    assert!(pages >= 3, "{pages}");
}

#[tokio::test]
async fn get_log_events_pages_forward_and_backward_until_the_token_repeats() {
    let (sb, logs) = logs_sandbox().await;
    invoke_times(&sb, CLASSIFIER, 30).await;
    let streams = logs.describe_log_streams().log_group_name(GROUP).send().await.unwrap();
    // A Stable instance's stream: it takes 90 % of the calls (a Canary stream may hold no more
    // than its start-up lines).
    let stream = streams
        .log_streams()
        .iter()
        .filter_map(|s| s.log_stream_name())
        .find(|n| n.contains("Stable"))
        .unwrap()
        .to_string();
    let page = |token: Option<String>, head: bool| {
        logs.get_log_events()
            .log_group_name(GROUP)
            .log_stream_name(&stream)
            .start_from_head(head)
            .limit(4)
            .set_next_token(token)
            .send()
    };
    let (mut forward, mut token, mut calls) = (Vec::new(), None::<String>, 0);
    loop {
        let r = page(token.clone(), true).await.unwrap();
        calls += 1;
        forward.extend(r.events().iter().map(|e| e.message().unwrap().to_string()));
        let next = r.next_forward_token().unwrap().to_string();
        if token.as_deref() == Some(next.as_str()) {
            break;
        }
        token = Some(next);
    }
    assert!(
        forward.len() > 5 && calls > 2,
        "{} lines in {calls} calls",
        forward.len()
    );
    assert!(forward[0].contains("Initializing plugins manager"), "{}", forward[0]);
    let (mut backward, mut token) = (Vec::new(), None::<String>);
    loop {
        let r = page(token.clone(), false).await.unwrap();
        let mut chunk: Vec<String> = r.events().iter().map(|e| e.message().unwrap().to_string()).collect();
        chunk.append(&mut backward);
        backward = chunk;
        let next = r.next_backward_token().unwrap().to_string();
        if token.as_deref() == Some(next.as_str()) {
            break;
        }
        token = Some(next);
    }
    assert_eq!(backward, forward);
    // Following: the forward token of the last page sees a new line once it is written.
    let last = page(None, false).await.unwrap();
    let follow = last.next_forward_token().unwrap().to_string();
    let quiet = page(Some(follow.clone()), true).await.unwrap();
    assert!(quiet.events().is_empty());
    assert_eq!(quiet.next_forward_token(), Some(follow.as_str()));
    sb.sandbox.logs.append(
        GROUP,
        &stream,
        sagedeck::sandbox::now_epoch(),
        &["fresh line".to_string()],
    );
    let fresh = page(Some(follow), true).await.unwrap();
    assert_eq!(fresh.events().len(), 1);
    assert_eq!(fresh.events()[0].message(), Some("fresh line"));
}

#[tokio::test]
async fn mme_loads_and_evictions_are_logged() {
    let sb = sandbox_with(sagedeck::sandbox::SandboxConfig {
        mme_models_per_instance: 1,
        ..demo_config()
    })
    .await;
    let logs = Client::new(&sdk_config(&sb).await);
    let rt = aws_sdk_sagemakerruntime::Client::new(&sdk_config(&sb).await);
    let group = "/aws/sagemaker/Endpoints/mcp-multi-model-endpoint";
    let invoke = |model: &'static str| {
        rt.invoke_endpoint()
            .endpoint_name("mcp-multi-model-endpoint")
            .target_model(model)
            .content_type("application/json")
            .body(Blob::new(r#"{"inputs": "hi"}"#))
            .send()
    };
    let count = |pattern: &'static str| {
        let logs = logs.clone();
        async move {
            let r = logs
                .filter_log_events()
                .log_group_name(group)
                .filter_pattern(pattern)
                .send()
                .await
                .ok()?;
            Some(r.events().len())
        }
    };
    let models = [
        "tenant-acme-finetuned-v1.tar.gz",
        "tenant-acme-finetuned-v2.tar.gz",
        "tenant-globex-finetuned-v1.tar.gz",
    ];
    poll_until("an eviction", Duration::from_secs(20), || async {
        for m in models {
            let _ = invoke(m).await;
        }
        (count("Unloading model").await? > 0).then_some(())
    })
    .await;
    assert!(count("\"loaded in\"").await.unwrap() >= 2);
}
