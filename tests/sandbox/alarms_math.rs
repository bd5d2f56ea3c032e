//! Metric-math alarms (PutMetricAlarm with `Metrics`) with the Rust SDK over Smithy RPC v2 CBOR:
//! a 5XX rate over Invocations, as `sagedeck deploy --gate-alarms` writes it, echoed by
//! DescribeAlarms and evaluated on every tick into ALARM with AWS-like reasons and history;
//! malformed Metrics refused with CloudWatch's codes. boto3's side is `tests/compat/math_alarm_calls.py`.

use std::path::Path;
use std::time::Duration;

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::error::ProvideErrorMetadata;
use aws_sdk_cloudwatch::operation::put_metric_alarm::builders::PutMetricAlarmFluentBuilder;
use aws_sdk_cloudwatch::types::{
    ComparisonOperator, Dimension, HistoryItemType, Metric, MetricAlarm, MetricDataQuery, MetricDatum, MetricStat,
    StateValue,
};
use aws_smithy_types::DateTime;
use sagedeck::sandbox::{SandboxHandle, now_epoch};

use crate::common::{self, peer_setup::show, poll_until};
use crate::compat_boto3::{ClientEnv, venv_async};

const NS: &str = "Sandbox/MathAlarms";
const WAIT: Duration = Duration::from_secs(20);
const RATE: &str = "IF(invocations > 0, 100 * errors / invocations, 0)";

async fn client(handle: &SandboxHandle) -> Client {
    Client::new(&common::sdk_config(handle).await)
}

fn dims() -> Vec<Dimension> {
    vec![
        Dimension::builder().name("EndpointName").value("ep-m").build(),
        Dimension::builder().name("VariantName").value("AllTraffic").build(),
    ]
}

/// Records `(timestamp, value)` sums on metric `name` of ep-m/AllTraffic.
async fn put_points(c: &Client, name: &str, points: &[(f64, f64)]) {
    let mut put = c.put_metric_data().namespace(NS);
    for (ts, v) in points {
        put = put.metric_data(
            MetricDatum::builder()
                .metric_name(name)
                .set_dimensions(Some(dims()))
                .timestamp(DateTime::from_secs_f64(*ts))
                .value(*v)
                .build(),
        );
    }
    put.send().await.expect("PutMetricData succeeds");
}

/// A MetricStat query of `metric`'s Sum over `period` seconds, not returned.
fn sum_query(id: &str, metric: &str, period: i32) -> MetricDataQuery {
    let metric = Metric::builder()
        .namespace(NS)
        .metric_name(metric)
        .set_dimensions(Some(dims()))
        .build();
    let stat = MetricStat::builder().metric(metric).period(period).stat("Sum").build();
    MetricDataQuery::builder()
        .id(id)
        .metric_stat(stat)
        .return_data(false)
        .build()
}

fn expression(id: &str, text: &str, returned: bool) -> MetricDataQuery {
    MetricDataQuery::builder()
        .id(id)
        .expression(text)
        .label("5XX per 100 Invocations")
        .return_data(returned)
        .build()
}

/// The gate alarm's shape without its Metrics: 2 of 3 minutes above 1 %, missing data as `treat`.
fn rate_alarm_treating(c: &Client, name: &str, treat: &str) -> PutMetricAlarmFluentBuilder {
    c.put_metric_alarm()
        .alarm_name(name)
        .evaluation_periods(3)
        .datapoints_to_alarm(2)
        .threshold(1.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .treat_missing_data(treat)
}

/// The gate alarm's shape exactly (missing data not breaching), without its Metrics.
fn rate_alarm(c: &Client, name: &str) -> PutMetricAlarmFluentBuilder {
    rate_alarm_treating(c, name, "notBreaching")
}

async fn metric_alarm(c: &Client, name: &str) -> MetricAlarm {
    let out = c
        .describe_alarms()
        .alarm_names(name)
        .send()
        .await
        .expect("DescribeAlarms");
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
async fn error_rate_alarm_goes_to_alarm_when_5xx_over_traffic_breaches() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    // Missing data kept missing, so the first state change is the one the data causes; and the
    // gate's own shape (not breaching), which is OK until the errors come.
    for (name, treat) in [("ep-m-5xx-rate", "missing"), ("ep-m-5xx-gate", "notBreaching")] {
        rate_alarm_treating(&c, name, treat)
            .metrics(sum_query("errors", "Invocation5XXErrors", 60))
            .metrics(sum_query("invocations", "Invocations", 60))
            .metrics(expression("rate", RATE, true))
            .send()
            .await
            .expect("a metric-math alarm is accepted");
    }
    let fresh = metric_alarm(&c, "ep-m-5xx-rate").await;
    assert_eq!(fresh.state_value(), Some(&StateValue::InsufficientData));
    assert_eq!(fresh.metric_name(), None);
    assert_eq!(fresh.period(), None);
    let queries = fresh.metrics();
    assert_eq!(queries.len(), 3);
    assert_eq!(queries[2].expression(), Some(RATE));
    assert_eq!(queries[2].return_data(), Some(true));
    let stat = queries[0].metric_stat().expect("errors is a MetricStat");
    assert_eq!((stat.period(), stat.stat()), (Some(60), Some("Sum")));
    assert_eq!(stat.metric().and_then(|m| m.metric_name()), Some("Invocation5XXErrors"));
    assert_eq!(stat.metric().map(|m| m.dimensions().len()), Some(2));

    // Traffic without errors: the rate is 0 %, within the threshold.
    let now = now_epoch();
    put_points(&c, "Invocations", &[(now, 200.0), (now - 60.0, 200.0)]).await;
    put_points(&c, "Invocation5XXErrors", &[(now, 0.0)]).await;
    let ok = wait_state(&c, "ep-m-5xx-rate", StateValue::Ok).await;
    assert!(
        ok.state_reason()
            .unwrap_or_default()
            .contains("was not greater than the threshold (1.0)"),
        "{:?}",
        ok.state_reason()
    );

    // 5XX errors in two of the minutes: 5 % and 10 % of traffic, 2 of 3 breach.
    put_points(&c, "Invocation5XXErrors", &[(now, 10.0), (now - 60.0, 20.0)]).await;
    let fired = wait_state(&c, "ep-m-5xx-rate", StateValue::Alarm).await;
    let reason = fired.state_reason().unwrap_or_default();
    assert!(
        reason.starts_with("Threshold Crossed: 2 out of the last 3 datapoints [")
            && reason.contains("5.0 (")
            && reason.contains("10.0 (")
            && reason.contains("(minimum 2 datapoints for OK -> ALARM transition)"),
        "{reason}"
    );
    let data: serde_json::Value =
        serde_json::from_str(fired.state_reason_data().expect("reason data")).expect("reason data is JSON");
    assert_eq!(data["period"], 60);
    assert_eq!(data["threshold"], 1.0);
    wait_state(&c, "ep-m-5xx-gate", StateValue::Alarm).await;

    let history = c
        .describe_alarm_history()
        .alarm_name("ep-m-5xx-rate")
        .history_item_type(HistoryItemType::StateUpdate)
        .send()
        .await
        .expect("DescribeAlarmHistory");
    assert!(
        history
            .alarm_history_items()
            .iter()
            .any(|i| i.history_summary() == Some("Alarm updated from OK to ALARM")),
        "{history:?}"
    );
}

/// Puts an alarm with `queries` and answers the error code and message.
async fn refused(put: PutMetricAlarmFluentBuilder, queries: Vec<MetricDataQuery>) -> (String, String) {
    let err = put
        .set_metrics(Some(queries))
        .send()
        .await
        .expect_err("malformed Metrics are refused");
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn malformed_metric_math_alarms_are_refused() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let stats = || {
        vec![
            sum_query("errors", "Invocation5XXErrors", 60),
            sum_query("invocations", "Invocations", 60),
        ]
    };
    let with = |extra: Vec<MetricDataQuery>| [stats(), extra].concat();
    let cases: Vec<(&str, Vec<MetricDataQuery>, &str, &str)> = vec![
        (
            "two returned",
            with(vec![expression("rate", RATE, true), expression("r2", "errors", true)]),
            "InvalidParameterValue",
            "ReturnData",
        ),
        (
            "none returned",
            with(vec![expression("rate", RATE, false)]),
            "InvalidParameterValue",
            "ReturnData",
        ),
        (
            "bad id",
            with(vec![expression("Rate", RATE, true)]),
            "InvalidParameterValue",
            "pattern",
        ),
        (
            "duplicate id",
            with(vec![expression("errors", RATE, true)]),
            "InvalidParameterValue",
            "unique",
        ),
        (
            "unknown id",
            with(vec![expression("rate", "100 * errors / calls", true)]),
            "InvalidParameterValue",
            "calls",
        ),
        (
            "unparsable",
            with(vec![expression("rate", "100 * (errors / invocations", true)]),
            "InvalidParameterValue",
            "expression",
        ),
        (
            "unemulated function",
            with(vec![expression("rate", "SUM(METRICS())", true)]),
            "InvalidParameterValue",
            "SUM",
        ),
        (
            "cycle",
            with(vec![
                expression("rate", "loop + 1", true),
                expression("loop", "rate * 2", false),
            ]),
            "InvalidParameterValue",
            "cycle",
        ),
        (
            "periods differ",
            vec![
                sum_query("errors", "Invocation5XXErrors", 60),
                sum_query("invocations", "Invocations", 300),
                expression("rate", RATE, true),
            ],
            "InvalidParameterValue",
            "Period",
        ),
        (
            "bad stat period",
            vec![
                sum_query("errors", "Invocation5XXErrors", 45),
                expression("rate", "errors", true),
            ],
            "InvalidParameterValue",
            "Period",
        ),
    ];
    for (what, queries, code, mentions) in cases {
        let (got, message) = refused(rate_alarm(&c, "bad-math"), queries).await;
        assert_eq!(got, code, "{what}: {message}");
        assert!(message.contains(mentions), "{what}: {message}");
    }
    let (got, message) = refused(
        rate_alarm(&c, "bad-math").namespace(NS).metric_name("Invocations"),
        with(vec![expression("rate", RATE, true)]),
    )
    .await;
    assert_eq!(got, "InvalidParameterCombination", "{message}");
    let listed = c
        .describe_alarms()
        .alarm_names("bad-math")
        .send()
        .await
        .expect("DescribeAlarms");
    assert!(listed.metric_alarms().is_empty(), "nothing refused is stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_puts_and_evaluates_metric_math_alarms() {
    let venv = venv_async().await;
    let sb = common::sandbox().await;
    let env = ClientEnv::new(sb.endpoint_url());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/math_alarm_calls.py");
    let out = env
        .run(
            venv,
            "math_alarm_calls.py",
            &[script.to_str().expect("utf-8 path"), &sb.endpoint_url()],
        )
        .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "boto3 math alarm calls failed\n{}", show(&out));
    assert!(stdout.contains("math alarm checks passed"), "{stdout}");
    let state = sb.sandbox.alarms.state("boto3-error-ratio").expect("the alarm is kept");
    assert_eq!(state.value, sagedeck::sandbox::cloudwatch::alarms::StateValue::Alarm);
}
