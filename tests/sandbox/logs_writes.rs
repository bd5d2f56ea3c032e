//! CloudWatch Logs' writes with the Rust SDK: CreateLogGroup, CreateLogStream and PutLogEvents
//! with AWS's limits and ordering rules, read back by FilterLogEvents and GetLogEvents.

use aws_sdk_cloudwatchlogs::Client;
use aws_sdk_cloudwatchlogs::types::InputLogEvent;
use sagedeck::sandbox::now_epoch;

use crate::common::{sandbox, sdk_config};

const GROUP: &str = "/sagedeck/audit";
const STREAM: &str = "alice/host-a";
const HOUR_MS: i64 = 3_600_000;

fn event(ts: i64, message: &str) -> InputLogEvent {
    InputLogEvent::builder().timestamp(ts).message(message).build().unwrap()
}

fn now_ms() -> i64 {
    (now_epoch() * 1000.0) as i64
}

async fn put(
    logs: &Client,
    events: Vec<InputLogEvent>,
) -> Result<aws_sdk_cloudwatchlogs::operation::put_log_events::PutLogEventsOutput, String> {
    logs.put_log_events()
        .log_group_name(GROUP)
        .log_stream_name(STREAM)
        .set_log_events(Some(events))
        .send()
        .await
        .map_err(|e| {
            let e = e.into_service_error();
            format!(
                "{}: {}",
                aws_sdk_cloudwatchlogs::error::ProvideErrorMetadata::code(&e).unwrap_or("?"),
                e
            )
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_log_events_is_read_back_by_filter_and_get() {
    let sb = sandbox().await;
    let logs = Client::new(&sdk_config(&sb).await);
    let missing = put(&logs, vec![event(now_ms(), "x")]).await.unwrap_err();
    assert!(missing.starts_with("ResourceNotFoundException"), "{missing}");
    logs.create_log_group().log_group_name(GROUP).send().await.unwrap();
    let again = logs.create_log_group().log_group_name(GROUP).send().await.unwrap_err();
    assert!(again.into_service_error().is_resource_already_exists_exception());
    let no_stream = put(&logs, vec![event(now_ms(), "x")]).await.unwrap_err();
    assert!(
        no_stream.contains("The specified log stream does not exist."),
        "{no_stream}"
    );
    let create_stream = || {
        logs.create_log_stream()
            .log_group_name(GROUP)
            .log_stream_name(STREAM)
            .send()
    };
    create_stream().await.unwrap();
    assert!(
        create_stream()
            .await
            .unwrap_err()
            .into_service_error()
            .is_resource_already_exists_exception()
    );
    let orphan = logs
        .create_log_stream()
        .log_group_name("/nope")
        .log_stream_name("s")
        .send()
        .await;
    assert!(
        orphan
            .unwrap_err()
            .into_service_error()
            .is_resource_not_found_exception()
    );

    let t = now_ms();
    let out = put(
        &logs,
        vec![
            event(t - 3_000, "weights.set Canary=2"),
            event(t - 2_000, "promote step 2/4"),
            event(t - 1_000, "result ok"),
        ],
    )
    .await
    .unwrap();
    assert!(out.rejected_log_events_info().is_none());
    // A later batch with an older event is merged by time.
    put(&logs, vec![event(t - 2_500, "tool call radio")]).await.unwrap();

    let filtered = logs
        .filter_log_events()
        .log_group_name(GROUP)
        .filter_pattern("\"weights.set\"")
        .send()
        .await
        .unwrap();
    let found: Vec<(&str, i64)> = filtered
        .events()
        .iter()
        .map(|e| (e.message().unwrap(), e.timestamp().unwrap()))
        .collect();
    assert_eq!(found, [("weights.set Canary=2", t - 3_000)]);
    assert_eq!(filtered.events()[0].log_stream_name(), Some(STREAM));
    let got = logs
        .get_log_events()
        .log_group_name(GROUP)
        .log_stream_name(STREAM)
        .start_from_head(true)
        .send()
        .await
        .unwrap();
    let messages: Vec<&str> = got.events().iter().filter_map(|e| e.message()).collect();
    assert_eq!(
        messages,
        [
            "weights.set Canary=2",
            "tool call radio",
            "promote step 2/4",
            "result ok"
        ]
    );
    let streams = logs.describe_log_streams().log_group_name(GROUP).send().await.unwrap();
    assert_eq!(streams.log_streams()[0].log_stream_name(), Some(STREAM));
    assert_eq!(streams.log_streams()[0].last_event_timestamp(), Some(t - 1_000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_log_events_keeps_aws_limits_and_order() {
    let sb = sandbox().await;
    let logs = Client::new(&sdk_config(&sb).await);
    logs.create_log_group().log_group_name(GROUP).send().await.unwrap();
    logs.create_log_stream()
        .log_group_name(GROUP)
        .log_stream_name(STREAM)
        .send()
        .await
        .unwrap();
    let t = now_ms();
    let order = put(&logs, vec![event(t, "b"), event(t - 1, "a")]).await.unwrap_err();
    assert!(order.starts_with("InvalidParameterException"), "{order}");
    assert!(
        order.contains("Log events in a single PutLogEvents request must be in chronological order."),
        "{order}"
    );
    let span = put(&logs, vec![event(t - 25 * HOUR_MS, "a"), event(t, "b")])
        .await
        .unwrap_err();
    assert!(span.contains("cannot span more than 24 hours"), "{span}");
    let many = (0..10_001).map(|_| event(t, "m")).collect();
    assert!(
        put(&logs, many)
            .await
            .unwrap_err()
            .starts_with("InvalidParameterException")
    );
    // 1,000 events of 1,024 bytes are 1,050,000 bytes with 26 each: over 1,048,576.
    let kb = "k".repeat(1_024);
    let over = (0..1_000).map(|_| event(t, &kb)).collect();
    let too_big = put(&logs, over).await.unwrap_err();
    assert!(too_big.contains("Upload too large"), "{too_big}");
    let just = "j".repeat(1_022);
    let under = (0..1_000).map(|_| event(t, &just)).collect();
    put(&logs, under).await.expect("1,048,000 bytes fit");

    // Too new and too old events are rejected one by one; the rest are stored.
    let fresh = put(&logs, vec![event(t, "now"), event(t + 3 * HOUR_MS, "future")])
        .await
        .unwrap();
    let info = fresh.rejected_log_events_info().expect("a rejection");
    assert_eq!(info.too_new_log_event_start_index(), Some(1));
    assert_eq!(info.too_old_log_event_end_index(), None);
    let old = put(&logs, vec![event(t - 15 * 24 * HOUR_MS, "stale")]).await.unwrap();
    assert_eq!(
        old.rejected_log_events_info().unwrap().too_old_log_event_end_index(),
        Some(1)
    );
    let stored = logs
        .filter_log_events()
        .log_group_name(GROUP)
        .filter_pattern("?now ?future ?stale")
        .send()
        .await
        .unwrap();
    let messages: Vec<&str> = stored.events().iter().filter_map(|e| e.message()).collect();
    assert_eq!(messages, ["now"]);
    // Sequence tokens are accepted and ignored.
    logs.put_log_events()
        .log_group_name(GROUP)
        .log_stream_name(STREAM)
        .sequence_token("49039859613988223834")
        .log_events(event(t, "with a token"))
        .send()
        .await
        .expect("a stale sequence token is no error");
}
