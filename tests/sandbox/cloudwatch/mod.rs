//! CloudWatch over the wire: the real Rust SDK (Smithy RPC v2 CBOR), hand-built CBOR requests
//! for the encoding edge cases, and awsJson1_0 as boto3 speaks it, all against one metric store.

mod cw_wire;
mod encodings;
mod listing;

use crate::common;

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::error::ProvideErrorMetadata;
use aws_sdk_cloudwatch::operation::get_metric_data::{GetMetricDataError, GetMetricDataOutput};
use aws_sdk_cloudwatch::operation::put_metric_data::PutMetricDataError;
use aws_sdk_cloudwatch::types::{
    Dimension, DimensionFilter, Metric, MetricDataQuery, MetricDatum, MetricStat, RecentlyActive, ScanBy, StatisticSet,
    StatusCode,
};
use aws_smithy_types::DateTime;
use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::cloudwatch::metrics::SeriesKey;

/// Epoch seconds now, rounded down to a multiple of `align`.
fn now_aligned(align: i64) -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    (now as i64).div_euclid(align) * align
}

fn json_headers(target: &str) -> [(&str, &str); 2] {
    [("content-type", "application/x-amz-json-1.0"), ("x-amz-target", target)]
}

async fn client(handle: &SandboxHandle) -> Client {
    Client::new(&common::sdk_config(handle).await)
}

fn dim(name: &str, value: &str) -> Dimension {
    Dimension::builder().name(name).value(value).build()
}

fn query(id: &str, ns: &str, name: &str, dims: &[(&str, &str)], period: i32, stat: &str) -> MetricDataQuery {
    let mut metric = Metric::builder().namespace(ns).metric_name(name);
    for (n, v) in dims {
        metric = metric.dimensions(dim(n, v));
    }
    MetricDataQuery::builder()
        .id(id)
        .metric_stat(
            MetricStat::builder()
                .metric(metric.build())
                .period(period)
                .stat(stat)
                .build(),
        )
        .build()
}

async fn get(c: &Client, queries: Vec<MetricDataQuery>, start: i64, end: i64) -> GetMetricDataOutput {
    c.get_metric_data()
        .set_metric_data_queries(Some(queries))
        .start_time(DateTime::from_secs(start))
        .end_time(DateTime::from_secs(end))
        .send()
        .await
        .expect("GetMetricData succeeds")
}

/// (timestamps, values) of result `id`.
fn series_of(out: &GetMetricDataOutput, id: &str) -> (Vec<i64>, Vec<f64>) {
    let r = out
        .metric_data_results()
        .iter()
        .find(|r| r.id() == Some(id))
        .unwrap_or_else(|| panic!("no result {id}"));
    (r.timestamps().iter().map(DateTime::secs).collect(), r.values().to_vec())
}

fn status_of(out: &GetMetricDataOutput, id: &str) -> StatusCode {
    let r = out
        .metric_data_results()
        .iter()
        .find(|r| r.id() == Some(id))
        .expect("result");
    r.status_code().cloned().expect("status code")
}

#[tokio::test]
async fn put_values_and_counts_then_get_every_statistic() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let base = now_aligned(300) - 1800;
    // 1..=1000 as 20 datums of 50 values, 10 s apart: one 5-minute period, and no slot holds
    // more samples than its reservoir, so percentiles are exact nearest ranks.
    let mut put = c.put_metric_data().namespace("Sandbox/Test");
    for k in 0..20 {
        let values: Vec<f64> = (0..50).map(|i| f64::from(k * 50 + i + 1)).collect();
        let datum = MetricDatum::builder()
            .metric_name("Latency")
            .dimensions(dim("Endpoint", "ep1"))
            .timestamp(DateTime::from_secs(base + i64::from(k) * 10))
            .set_values(Some(values))
            .unit(aws_sdk_cloudwatch::types::StandardUnit::Milliseconds)
            .build();
        put = put.metric_data(datum);
    }
    // Counts: 10 observed 30 times, 20 29 times, 1000 once (60 observations fit a reservoir).
    put = put.metric_data(
        MetricDatum::builder()
            .metric_name("Weighted")
            .timestamp(DateTime::from_secs(base))
            .set_values(Some(vec![10.0, 20.0, 1000.0]))
            .set_counts(Some(vec![30.0, 29.0, 1.0]))
            .build(),
    );
    put.send().await.expect("PutMetricData succeeds");

    let d = [("Endpoint", "ep1")];
    let stats = [
        ("sum", "Sum", 500_500.0),
        ("avg", "Average", 500.5),
        ("n", "SampleCount", 1000.0),
        ("lo", "Minimum", 1.0),
        ("hi", "Maximum", 1000.0),
        ("p50", "p50", 500.0),
        ("p99", "p99", 990.0),
        ("p99_9", "p99.9", 999.0),
    ];
    let mut queries: Vec<_> = stats
        .iter()
        .map(|(id, s, _)| query(id, "Sandbox/Test", "Latency", &d, 300, s))
        .collect();
    queries.push(query("w50", "Sandbox/Test", "Weighted", &[], 300, "p50"));
    queries.push(query("w90", "Sandbox/Test", "Weighted", &[], 300, "p90"));
    queries.push(query("w100", "Sandbox/Test", "Weighted", &[], 300, "p100"));
    queries.push(query("wsum", "Sandbox/Test", "Weighted", &[], 300, "Sum"));
    queries.push(query("wn", "Sandbox/Test", "Weighted", &[], 60, "SampleCount"));
    let out = get(&c, queries, base - 600, base + 600).await;
    for (id, _, want) in stats {
        assert_eq!(series_of(&out, id), (vec![base], vec![want]), "{id}");
        assert_eq!(status_of(&out, id), StatusCode::Complete);
    }
    assert_eq!(series_of(&out, "w50").1, vec![10.0]);
    assert_eq!(series_of(&out, "w90").1, vec![20.0]);
    assert_eq!(series_of(&out, "w100").1, vec![1000.0]);
    assert_eq!(series_of(&out, "wsum").1, vec![1880.0]);
    assert_eq!(series_of(&out, "wn"), (vec![base], vec![60.0]));
    let first = &out.metric_data_results()[0];
    assert_eq!(first.label(), Some("Latency"), "default label is the metric name");

    // The unit filter: matching unit answers, another unit has no data.
    let unit_q = |id: &str, unit| {
        let metric = Metric::builder()
            .namespace("Sandbox/Test")
            .metric_name("Latency")
            .dimensions(dim("Endpoint", "ep1"));
        let stat = MetricStat::builder()
            .metric(metric.build())
            .period(300)
            .stat("Sum")
            .unit(unit)
            .build();
        MetricDataQuery::builder().id(id).metric_stat(stat).build()
    };
    use aws_sdk_cloudwatch::types::StandardUnit;
    let out = get(
        &c,
        vec![
            unit_q("ms", StandardUnit::Milliseconds),
            unit_q("s", StandardUnit::Seconds),
        ],
        base,
        base + 300,
    )
    .await;
    assert_eq!(series_of(&out, "ms").1, vec![500_500.0]);
    assert!(series_of(&out, "s").1.is_empty());
}

#[tokio::test]
async fn statistic_sets_and_put_validation() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let base = now_aligned(60) - 600;
    let set = |n, s, lo, hi| {
        StatisticSet::builder()
            .sample_count(n)
            .sum(s)
            .minimum(lo)
            .maximum(hi)
            .build()
    };
    c.put_metric_data()
        .namespace("Sandbox/Sets")
        .metric_data(
            MetricDatum::builder()
                .metric_name("Batch")
                .timestamp(DateTime::from_secs(base))
                .statistic_values(set(4.0, 40.0, 5.0, 20.0))
                .build(),
        )
        .metric_data(
            MetricDatum::builder()
                .metric_name("Batch")
                .timestamp(DateTime::from_secs(base + 30))
                .statistic_values(set(2.0, 6.0, 3.0, 3.0))
                .build(),
        )
        .send()
        .await
        .expect("statistic sets accepted");
    let qs = ["SampleCount", "Sum", "Minimum", "Maximum", "Average"]
        .iter()
        .map(|s| query(&s.to_lowercase(), "Sandbox/Sets", "Batch", &[], 60, s))
        .collect();
    let out = get(&c, qs, base, base + 60).await;
    assert_eq!(series_of(&out, "samplecount").1, vec![6.0]);
    assert_eq!(series_of(&out, "sum").1, vec![46.0]);
    assert_eq!(series_of(&out, "minimum").1, vec![3.0]);
    assert_eq!(series_of(&out, "maximum").1, vec![20.0]);
    assert_eq!(series_of(&out, "average").1, vec![46.0 / 6.0]);

    // Validation errors decode to the SDK's typed errors with CloudWatch's awsQuery codes.
    let err = c
        .put_metric_data()
        .namespace("AWS/SageMaker")
        .metric_data(MetricDatum::builder().metric_name("X").value(1.0).build())
        .send()
        .await
        .expect_err("AWS/ namespaces are reserved")
        .into_service_error();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    assert!(
        matches!(err, PutMetricDataError::InvalidParameterValueException(_)),
        "{err:?}"
    );
    let err = c
        .put_metric_data()
        .namespace("Sandbox/Sets")
        .metric_data(
            MetricDatum::builder()
                .metric_name("X")
                .values(1.0)
                .values(2.0)
                .counts(1.0)
                .build(),
        )
        .send()
        .await
        .expect_err("values and counts of different sizes")
        .into_service_error();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
    let err = c
        .put_metric_data()
        .namespace("Sandbox/Sets")
        .metric_data(MetricDatum::builder().metric_name("X").build())
        .send()
        .await
        .expect_err("no value")
        .into_service_error();
    assert_eq!(err.code(), Some("MissingParameter"));
    assert!(
        matches!(err, PutMetricDataError::MissingRequiredParameterException(_)),
        "{err:?}"
    );
    let err = c
        .put_metric_data()
        .namespace("Sandbox/Sets")
        .metric_data(
            MetricDatum::builder()
                .metric_name("X")
                .value(1.0)
                .statistic_values(set(1.0, 1.0, 1.0, 1.0))
                .build(),
        )
        .send()
        .await
        .expect_err("value and statistic set")
        .into_service_error();
    assert_eq!(err.code(), Some("InvalidParameterCombination"));
}

#[tokio::test]
async fn max_datapoints_paginates_with_partial_data() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let base = now_aligned(60) - 3600;
    let store = &handle.sandbox.metrics;
    for m in 0..30 {
        for name in ["A", "B"] {
            store.record(
                &SeriesKey::new("Sandbox/Pages", name, &[]),
                "None",
                (base + m * 60) as f64,
                m as f64,
            );
        }
    }
    let qs = || {
        vec![
            query("a", "Sandbox/Pages", "A", &[], 60, "Sum"),
            query("b", "Sandbox/Pages", "B", &[], 60, "Sum"),
        ]
    };
    let page = |token: Option<String>| {
        c.get_metric_data()
            .set_metric_data_queries(Some(qs()))
            .start_time(DateTime::from_secs(base))
            .end_time(DateTime::from_secs(base + 1800))
            .max_datapoints(20)
            .set_next_token(token)
            .send()
    };
    let p1 = page(None).await.expect("page 1");
    assert_eq!(series_of(&p1, "a").0.len(), 20);
    assert_eq!(series_of(&p1, "a").0[0], base + 29 * 60, "newest first by default");
    assert_eq!(status_of(&p1, "a"), StatusCode::PartialData);
    assert_eq!(status_of(&p1, "b"), StatusCode::PartialData);
    let p2 = page(p1.next_token().map(str::to_string)).await.expect("page 2");
    assert_eq!((series_of(&p2, "a").0.len(), series_of(&p2, "b").0.len()), (10, 10));
    assert_eq!(status_of(&p2, "a"), StatusCode::Complete);
    assert_eq!(status_of(&p2, "b"), StatusCode::PartialData);
    let p3 = page(p2.next_token().map(str::to_string)).await.expect("page 3");
    assert_eq!((series_of(&p3, "a").0.len(), series_of(&p3, "b").0.len()), (0, 20));
    assert_eq!(status_of(&p3, "b"), StatusCode::Complete);
    assert!(p3.next_token().is_none());
    let mut all_a: Vec<i64> = series_of(&p1, "a").0;
    all_a.extend(series_of(&p2, "a").0);
    let want: Vec<i64> = (0..30).rev().map(|m| base + m * 60).collect();
    assert_eq!(all_a, want);
    let b_vals: Vec<f64> = [&p2, &p3].iter().flat_map(|p| series_of(p, "b").1).collect();
    assert_eq!(b_vals, (0..30).rev().map(f64::from).collect::<Vec<_>>());

    // Ascending order.
    let asc = c
        .get_metric_data()
        .set_metric_data_queries(Some(qs()))
        .start_time(DateTime::from_secs(base))
        .end_time(DateTime::from_secs(base + 1800))
        .scan_by(ScanBy::TimestampAscending)
        .send()
        .await
        .expect("ascending");
    assert_eq!(series_of(&asc, "a").0, want.iter().rev().copied().collect::<Vec<_>>());

    // Garbage and foreign tokens.
    let err = page(Some("garbage".into()))
        .await
        .expect_err("invalid token")
        .into_service_error();
    assert_eq!(err.code(), Some("InvalidNextToken"));
    assert!(matches!(err, GetMetricDataError::InvalidNextToken(_)), "{err:?}");
    let foreign = c
        .get_metric_data()
        .metric_data_queries(query("a", "Sandbox/Pages", "A", &[], 60, "Sum"))
        .start_time(DateTime::from_secs(base))
        .end_time(DateTime::from_secs(base + 1800))
        .set_next_token(p1.next_token().map(str::to_string))
        .send()
        .await
        .expect_err("token of another request")
        .into_service_error();
    assert_eq!(foreign.code(), Some("InvalidNextToken"));
}

#[tokio::test]
async fn invalid_requests_are_rejected_with_cloudwatch_codes() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let t = now_aligned(60);
    let code = |r: Result<GetMetricDataOutput, aws_sdk_cloudwatch::error::SdkError<GetMetricDataError, _>>| {
        r.expect_err("rejected").into_service_error().code().map(str::to_string)
    };
    let q = |id: &str| query(id, "Sandbox/V", "M", &[], 60, "Sum");
    let send = |qs: Vec<MetricDataQuery>, start: i64, end: i64| {
        c.get_metric_data()
            .set_metric_data_queries(Some(qs))
            .start_time(DateTime::from_secs(start))
            .end_time(DateTime::from_secs(end))
            .send()
    };
    // Id pattern: CloudWatch answers ValidationError ("... is not matching the expected pattern").
    let err = send(vec![q("Bad")], t - 60, t)
        .await
        .expect_err("bad id")
        .into_service_error();
    assert_eq!(err.code(), Some("ValidationError"));
    assert!(
        err.message().unwrap_or_default().contains("^[a-z][a-zA-Z0-9_]*$"),
        "{err:?}"
    );
    assert_eq!(
        code(send(vec![q("a-b")], t - 60, t).await).as_deref(),
        Some("ValidationError")
    );
    assert_eq!(
        code(send(vec![q("a"), q("a")], t - 60, t).await).as_deref(),
        Some("InvalidParameterValue")
    );
    let many: Vec<_> = (0..501).map(|i| q(&format!("q{i}"))).collect();
    assert_eq!(
        code(send(many, t - 60, t).await).as_deref(),
        Some("InvalidParameterValue")
    );
    let max: Vec<_> = (0..500).map(|i| q(&format!("q{i}"))).collect();
    assert_eq!(
        send(max, t - 60, t)
            .await
            .expect("500 queries are fine")
            .metric_data_results()
            .len(),
        500
    );
    assert_eq!(
        code(send(vec![q("a")], t, t - 60).await).as_deref(),
        Some("InvalidParameterValue")
    );
    assert_eq!(
        code(send(vec![query("a", "N", "M", &[], 61, "Sum")], t - 60, t).await).as_deref(),
        Some("InvalidParameterValue")
    );
    let none = MetricDataQuery::builder().id("a").build();
    assert_eq!(
        code(send(vec![none], t - 60, t).await).as_deref(),
        Some("InvalidParameterCombination")
    );

    // Expressions and unsupported statistics fail per query, not the call.
    let store = &handle.sandbox.metrics;
    store.record(&SeriesKey::new("Sandbox/V", "M", &[]), "None", (t - 120) as f64, 3.0);
    let expr = MetricDataQuery::builder().id("e").expression("SUM(METRICS())").build();
    let hidden = MetricDataQuery::builder()
        .id("hidden")
        .return_data(false)
        .metric_stat(
            MetricStat::builder()
                .metric(Metric::builder().namespace("Sandbox/V").metric_name("M").build())
                .period(60)
                .stat("Sum")
                .build(),
        )
        .build();
    let out = get(
        &c,
        vec![q("ok"), expr, query("tm", "Sandbox/V", "M", &[], 60, "TM99"), hidden],
        t - 600,
        t,
    )
    .await;
    assert_eq!(out.metric_data_results().len(), 3, "ReturnData=false is not returned");
    assert_eq!(series_of(&out, "ok"), (vec![t - 120], vec![3.0]));
    for id in ["e", "tm"] {
        assert_eq!(status_of(&out, id), StatusCode::InternalError);
        let r = out
            .metric_data_results()
            .iter()
            .find(|r| r.id() == Some(id))
            .expect("result");
        assert!(r.messages()[0].value().unwrap_or_default().contains("sandbox"), "{r:?}");
    }
}
