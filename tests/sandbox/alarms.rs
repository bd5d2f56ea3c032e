//! CloudWatch alarms over Smithy RPC v2 CBOR with the Rust SDK: metric alarms evaluated over the
//! sandbox's metric store (threshold, period, evaluation periods, datapoints to alarm, missing
//! data) with AWS-like reasons, composite alarms, describe filters and pages, manual states,
//! deletion, history, errors, and the in-process alarm API.

use std::time::Duration;

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::error::ProvideErrorMetadata;
use aws_sdk_cloudwatch::types::{
    AlarmType, ComparisonOperator, Dimension, HistoryItemType, MetricAlarm, MetricDatum, StateValue, Statistic,
};
use aws_smithy_types::DateTime;
use sagedeck::sandbox::cloudwatch::alarms::{Comparison, MetricAlarmSpec, StateValue as SbState, TreatMissing};
use sagedeck::sandbox::{SandboxHandle, now_epoch};

use crate::common::{self, poll_until};

const NS: &str = "Sandbox/Alarms";
const WAIT: Duration = Duration::from_secs(20);

async fn client(handle: &SandboxHandle) -> Client {
    Client::new(&common::sdk_config(handle).await)
}

fn endpoint_dim() -> Dimension {
    Dimension::builder().name("EndpointName").value("ep-a").build()
}

/// Records `values` on metric `name` (dimension EndpointName=ep-a), one datum per timestamp.
async fn put_points(c: &Client, name: &str, points: &[(f64, f64)]) {
    let mut put = c.put_metric_data().namespace(NS);
    for (ts, v) in points {
        put = put.metric_data(
            MetricDatum::builder()
                .metric_name(name)
                .dimensions(endpoint_dim())
                .timestamp(DateTime::from_secs_f64(*ts))
                .value(*v)
                .build(),
        );
    }
    put.send().await.expect("PutMetricData succeeds");
}

/// A p99 alarm: 2 of 3 one-minute periods above 100.
async fn put_latency_alarm(c: &Client, name: &str, metric: &str) {
    c.put_metric_alarm()
        .alarm_name(name)
        .namespace(NS)
        .metric_name(metric)
        .dimensions(endpoint_dim())
        .extended_statistic("p99")
        .period(60)
        .evaluation_periods(3)
        .datapoints_to_alarm(2)
        .threshold(100.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .treat_missing_data("missing")
        .send()
        .await
        .expect("PutMetricAlarm succeeds");
}

async fn metric_alarm(c: &Client, name: &str) -> MetricAlarm {
    let out = c
        .describe_alarms()
        .alarm_names(name)
        .send()
        .await
        .expect("DescribeAlarms succeeds");
    out.metric_alarms().first().cloned().expect("the alarm is listed")
}

async fn wait_state(c: &Client, name: &str, want: StateValue) -> MetricAlarm {
    poll_until(&format!("{name} in {want:?}"), WAIT, || async {
        let a = metric_alarm(c, name).await;
        (a.state_value() == Some(&want)).then_some(a)
    })
    .await
}

#[tokio::test]
async fn metric_alarm_starts_insufficient_then_fires_on_breaching_datapoints() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    put_latency_alarm(&c, "latency-high", "Latency").await;

    let fresh = metric_alarm(&c, "latency-high").await;
    assert_eq!(fresh.state_value(), Some(&StateValue::InsufficientData));
    assert_eq!(fresh.state_reason(), Some("Unchecked: Initial alarm creation"));
    assert_eq!(fresh.extended_statistic(), Some("p99"));
    assert_eq!(fresh.period(), Some(60));
    assert_eq!(fresh.evaluation_periods(), Some(3));
    assert_eq!(fresh.datapoints_to_alarm(), Some(2));
    assert_eq!(fresh.threshold(), Some(100.0));
    assert_eq!(
        fresh.alarm_arn(),
        Some("arn:aws:cloudwatch:us-east-1:123456789012:alarm:latency-high")
    );
    assert!(fresh.state_updated_timestamp().is_some());

    // One breaching minute is not enough (2 of 3 needed): with data present, the alarm is OK.
    let now = now_epoch();
    put_points(&c, "Latency", &[(now, 250.0)]).await;
    let ok = wait_state(&c, "latency-high", StateValue::Ok).await;
    let reason = ok.state_reason().unwrap_or_default();
    assert!(
        reason.starts_with("Threshold Crossed: 1 out of the last 3 datapoints [250.0 (")
            && reason.contains("fewer than the minimum 2 datapoints"),
        "{reason}"
    );

    // A second breaching minute: ALARM, with the datapoints in the reason.
    put_points(&c, "Latency", &[(now - 60.0, 300.0)]).await;
    let fired = wait_state(&c, "latency-high", StateValue::Alarm).await;
    let reason = fired.state_reason().unwrap_or_default();
    assert!(
        reason.starts_with("Threshold Crossed: 2 out of the last 3 datapoints [")
            && reason.contains("was greater than the threshold (100.0)")
            && reason.contains("(minimum 2 datapoints for OK -> ALARM transition)"),
        "{reason}"
    );
    let data: serde_json::Value =
        serde_json::from_str(fired.state_reason_data().expect("reason data")).expect("reason data is JSON");
    assert_eq!(data["extendedStatistic"], "p99");
    assert_eq!(data["threshold"], 100.0);
    assert!(fired.state_updated_timestamp() > fresh.state_updated_timestamp());
}

#[tokio::test]
async fn missing_data_treatments_decide_an_alarm_without_data() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    for (name, treat) in [
        ("gap-breaching", "breaching"),
        ("gap-not", "notBreaching"),
        ("gap-missing", "missing"),
    ] {
        c.put_metric_alarm()
            .alarm_name(name)
            .namespace(NS)
            .metric_name("Silent")
            .statistic(Statistic::Sum)
            .period(60)
            .evaluation_periods(2)
            .threshold(1.0)
            .comparison_operator(ComparisonOperator::GreaterThanOrEqualToThreshold)
            .treat_missing_data(treat)
            .send()
            .await
            .expect("PutMetricAlarm succeeds");
    }
    let breaching = wait_state(&c, "gap-breaching", StateValue::Alarm).await;
    assert!(
        breaching
            .state_reason()
            .unwrap_or_default()
            .contains("treated as [Breaching]"),
        "{:?}",
        breaching.state_reason()
    );
    wait_state(&c, "gap-not", StateValue::Ok).await;
    // `missing` with no data at all stays INSUFFICIENT_DATA (checked after the others moved, so
    // evaluation has run).
    assert_eq!(
        metric_alarm(&c, "gap-missing").await.state_value(),
        Some(&StateValue::InsufficientData)
    );
}

#[tokio::test]
async fn composite_alarm_follows_its_rule_and_names_the_trigger() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    for name in ["child-a", "child-b"] {
        put_latency_alarm(&c, name, "Unused").await;
    }
    c.put_composite_alarm()
        .alarm_name("any-child")
        .alarm_rule("ALARM(child-a) OR (ALARM(\"child-b\") AND NOT OK(child-a))")
        .send()
        .await
        .expect("PutCompositeAlarm succeeds");
    let composite = |c: Client| async move {
        let out = c
            .describe_alarms()
            .alarm_names("any-child")
            .alarm_types(AlarmType::CompositeAlarm)
            .send()
            .await
            .expect("DescribeAlarms succeeds");
        out.composite_alarms().first().cloned().expect("composite listed")
    };
    let settled = poll_until("composite evaluated to OK", WAIT, || async {
        let a = composite(c.clone()).await;
        (a.state_value() == Some(&StateValue::Ok)).then_some(a)
    })
    .await;
    assert_eq!(
        settled.alarm_rule(),
        Some("ALARM(child-a) OR (ALARM(\"child-b\") AND NOT OK(child-a))")
    );

    c.set_alarm_state()
        .alarm_name("child-a")
        .state_value(StateValue::Alarm)
        .state_reason("drill")
        .send()
        .await
        .expect("SetAlarmState succeeds");
    let fired = poll_until("composite in ALARM", WAIT, || async {
        let a = composite(c.clone()).await;
        (a.state_value() == Some(&StateValue::Alarm)).then_some(a)
    })
    .await;
    let reason = fired.state_reason().unwrap_or_default();
    assert!(
        reason.starts_with("arn:aws:cloudwatch:us-east-1:123456789012:alarm:child-a transitioned to ALARM at "),
        "{reason}"
    );

    let children = c
        .describe_alarms()
        .children_of_alarm_name("any-child")
        .send()
        .await
        .expect("DescribeAlarms children");
    let mut names: Vec<&str> = children.metric_alarms().iter().filter_map(|a| a.alarm_name()).collect();
    names.sort_unstable();
    assert_eq!(names, ["child-a", "child-b"]);
    // Metric alarms only unless composite is asked for.
    let default = c.describe_alarms().send().await.expect("DescribeAlarms");
    assert!(default.composite_alarms().is_empty());
    assert_eq!(default.metric_alarms().len(), 2);
}

#[tokio::test]
async fn describe_pages_filters_deletes_and_keeps_history() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    for i in 0..7 {
        put_latency_alarm(&c, &format!("page-{i}"), "Latency").await;
    }
    put_latency_alarm(&c, "other", "Latency").await;
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let out = c
            .describe_alarms()
            .alarm_name_prefix("page-")
            .max_records(3)
            .set_next_token(token.clone())
            .send()
            .await
            .expect("DescribeAlarms page");
        pages += 1;
        seen.extend(
            out.metric_alarms()
                .iter()
                .filter_map(|a| a.alarm_name().map(str::to_string)),
        );
        token = out.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, (0..7).map(|i| format!("page-{i}")).collect::<Vec<_>>());

    c.set_alarm_state()
        .alarm_name("page-3")
        .state_value(StateValue::Alarm)
        .state_reason("manual test")
        .state_reason_data("{\"by\":\"test\"}")
        .send()
        .await
        .expect("SetAlarmState succeeds");
    let alarming = c
        .describe_alarms()
        .state_value(StateValue::Alarm)
        .send()
        .await
        .expect("DescribeAlarms by state");
    let names: Vec<&str> = alarming.metric_alarms().iter().filter_map(|a| a.alarm_name()).collect();
    assert_eq!(names, ["page-3"]);
    assert_eq!(alarming.metric_alarms()[0].state_reason(), Some("manual test"));

    c.delete_alarms()
        .alarm_names("page-0")
        .alarm_names("no-such-alarm")
        .send()
        .await
        .expect("DeleteAlarms skips unknown names");
    let left = c
        .describe_alarms()
        .alarm_names("page-0")
        .send()
        .await
        .expect("describe");
    assert!(left.metric_alarms().is_empty());

    let history = c
        .describe_alarm_history()
        .alarm_name("page-3")
        .send()
        .await
        .expect("DescribeAlarmHistory succeeds");
    let items = history.alarm_history_items();
    assert_eq!(
        items.first().and_then(|i| i.history_item_type()),
        Some(&HistoryItemType::StateUpdate)
    );
    assert_eq!(
        items[0].history_summary(),
        Some("Alarm updated from INSUFFICIENT_DATA to ALARM")
    );
    assert!(
        items
            .iter()
            .any(|i| i.history_summary() == Some("Alarm \"page-3\" created"))
    );
    let deleted = c
        .describe_alarm_history()
        .alarm_name("page-0")
        .history_item_type(HistoryItemType::ConfigurationUpdate)
        .scan_by(aws_sdk_cloudwatch::types::ScanBy::TimestampAscending)
        .send()
        .await
        .expect("history of a deleted alarm");
    let summaries: Vec<&str> = deleted
        .alarm_history_items()
        .iter()
        .filter_map(|i| i.history_summary())
        .collect();
    assert_eq!(summaries, ["Alarm \"page-0\" created", "Alarm \"page-0\" deleted"]);
}

#[tokio::test]
async fn invalid_alarm_requests_answer_cloudwatch_codes() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let err = c
        .set_alarm_state()
        .alarm_name("ghost")
        .state_value(StateValue::Ok)
        .state_reason("x")
        .send()
        .await
        .expect_err("unknown alarm");
    assert_eq!(err.code(), Some("ResourceNotFound"));
    let err = c
        .put_metric_alarm()
        .alarm_name("bad-period")
        .namespace(NS)
        .metric_name("Latency")
        .statistic(Statistic::Average)
        .period(45)
        .evaluation_periods(1)
        .threshold(1.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .send()
        .await
        .expect_err("period 45");
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    assert!(err.message().unwrap_or_default().contains("Period"), "{err:?}");
    let err = c
        .put_metric_alarm()
        .alarm_name("both-stats")
        .namespace(NS)
        .metric_name("Latency")
        .statistic(Statistic::Average)
        .extended_statistic("p99")
        .period(60)
        .evaluation_periods(1)
        .threshold(1.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .send()
        .await
        .expect_err("both statistics");
    assert_eq!(err.code(), Some("InvalidParameterCombination"));
    let err = c
        .put_composite_alarm()
        .alarm_name("orphan")
        .alarm_rule("ALARM(nobody)")
        .send()
        .await
        .expect_err("missing child");
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    assert!(err.message().unwrap_or_default().contains("nobody"), "{err:?}");
    put_latency_alarm(&c, "set-bad-json", "Latency").await;
    let err = c
        .set_alarm_state()
        .alarm_name("set-bad-json")
        .state_value(StateValue::Alarm)
        .state_reason("x")
        .state_reason_data("not json")
        .send()
        .await
        .expect_err("reason data must be JSON");
    assert_eq!(err.code(), Some("InvalidFormat"));
}

#[tokio::test]
async fn in_process_alarm_api_is_what_the_wire_shows() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let mut spec = MetricAlarmSpec::new(
        "TargetTracking-endpoint/ep-a/variant/AllTraffic-AlarmHigh-1",
        NS,
        "Calls",
    );
    spec.dimensions = vec![("EndpointName".into(), "ep-a".into())];
    spec.statistic = Some("Sum".into());
    spec.threshold = 10.0;
    spec.comparison = Comparison::Greater;
    spec.treat_missing = TreatMissing::Missing;
    handle
        .sandbox
        .alarms
        .put_metric_alarm(spec.clone(), now_epoch())
        .expect("in-process put");
    let listed = metric_alarm(&c, &spec.name).await;
    assert_eq!(listed.statistic(), Some(&Statistic::Sum));
    assert_eq!(listed.threshold(), Some(10.0));
    let bad = MetricAlarmSpec {
        period: 7,
        ..spec.clone()
    };
    assert_eq!(
        handle
            .sandbox
            .alarms
            .put_metric_alarm(bad, now_epoch())
            .map_err(|e| e.code),
        Err("InvalidParameterValue")
    );
    put_points(&c, "Calls", &[(now_epoch(), 50.0)]).await;
    let state = poll_until("in-process state ALARM", WAIT, || async {
        handle
            .sandbox
            .alarms
            .state(&spec.name)
            .filter(|s| s.value == SbState::Alarm)
    })
    .await;
    assert!(
        state.reason.contains("was greater than the threshold (10.0)"),
        "{}",
        state.reason
    );
}
