//! Encodings: gzip bodies (from the SDK and by hand), CBOR edge cases by hand, and the
//! awsJson1_0 path serving the same store as CBOR.

use std::sync::{Arc, Mutex};

use aws_sdk_cloudwatch::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_cloudwatch::config::{ConfigBag, Intercept, RuntimeComponents};

use super::cw_wire::{Cbor, cbor_value, gzip, raw_post};
use super::*;

/// Records the Content-Encoding of every request the SDK sends.
#[derive(Debug, Default, Clone)]
struct SeenEncodings(Arc<Mutex<Vec<Option<String>>>>);

impl Intercept for SeenEncodings {
    fn name(&self) -> &'static str {
        "SeenEncodings"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _rc: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let enc = context.request().headers().get("content-encoding").map(str::to_string);
        self.0.lock().map_err(|e| e.to_string())?.push(enc);
        Ok(())
    }
}

#[tokio::test]
async fn gzip_bodies_from_the_sdk_and_by_hand() {
    let handle = common::sandbox().await;
    let seen = SeenEncodings::default();
    let conf = aws_sdk_cloudwatch::config::Builder::from(&common::sdk_config(&handle).await)
        .request_min_compression_size_bytes(1)
        .interceptor(seen.clone())
        .build();
    let c = Client::from_conf(conf);
    let base = now_aligned(60) - 300;
    c.put_metric_data()
        .namespace("Sandbox/Gzip")
        .metric_data(
            MetricDatum::builder()
                .metric_name("Sdk")
                .timestamp(DateTime::from_secs(base))
                .set_values(Some((1..=100).map(f64::from).collect()))
                .build(),
        )
        .send()
        .await
        .expect("gzipped PutMetricData accepted");
    assert_eq!(
        seen.0.lock().unwrap().first().cloned().flatten().as_deref(),
        Some("gzip"),
        "the SDK gzipped"
    );

    // By hand: CBOR and JSON, gzipped.
    let datum = |name: &str, v: f64| {
        Cbor::Map(vec![
            ("MetricName".into(), Cbor::Text(name.into())),
            ("Value".into(), Cbor::F64(v)),
            ("Timestamp".into(), Cbor::Tag1Int(base as u64)),
        ])
    };
    let body = Cbor::Map(vec![
        ("Namespace".into(), Cbor::Text("Sandbox/Gzip".into())),
        ("MetricData".into(), Cbor::Array(vec![datum("Cbor", 7.0)])),
    ])
    .encode();
    let r = raw_post(
        handle.addr,
        "/service/GraniteServiceVersion20100801/operation/PutMetricData",
        &[
            ("content-type", "application/cbor"),
            ("smithy-protocol", "rpc-v2-cbor"),
            ("content-encoding", "gzip"),
        ],
        &gzip(&body),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.body, vec![0xa0], "an empty CBOR map");
    let json = serde_json::json!({"Namespace": "Sandbox/Gzip", "MetricData": [{"MetricName": "Json", "Value": 9.0, "Timestamp": base}]});
    let r = raw_post(
        handle.addr,
        "/",
        &[
            ("content-type", "application/x-amz-json-1.0"),
            ("x-amz-target", "GraniteServiceVersion20100801.PutMetricData"),
            ("content-encoding", "gzip"),
        ],
        &gzip(json.to_string().as_bytes()),
    )
    .await;
    assert_eq!((r.status, r.body.as_slice()), (200, &b"{}"[..]));
    // A corrupt gzip body is a client error, not a crash.
    let r = raw_post(
        handle.addr,
        "/service/GraniteServiceVersion20100801/operation/PutMetricData",
        &[("content-type", "application/cbor"), ("content-encoding", "gzip")],
        b"not gzip at all",
    )
    .await;
    assert_eq!(r.status, 400);

    let qs = ["Sdk", "Cbor", "Json"]
        .iter()
        .map(|n| query(&n.to_lowercase(), "Sandbox/Gzip", n, &[], 60, "Sum"))
        .collect();
    let out = get(&c, qs, base, base + 60).await;
    assert_eq!(series_of(&out, "sdk").1, vec![5050.0]);
    assert_eq!(series_of(&out, "cbor").1, vec![7.0]);
    assert_eq!(series_of(&out, "json").1, vec![9.0]);
}

#[tokio::test]
async fn cbor_edge_cases_by_hand() {
    let handle = common::sandbox().await;
    let t = now_aligned(60) - 600;
    handle.sandbox.metrics.record(
        &SeriesKey::new("Sandbox/Cbor", "M", &[("D", "x")]),
        "None",
        t as f64 + 1.0,
        2.0,
    );
    handle.sandbox.metrics.record(
        &SeriesKey::new("Sandbox/Cbor", "M", &[("D", "x")]),
        "None",
        t as f64 + 61.0,
        2.5,
    );
    // Indefinite-length maps, arrays and chunked strings; StartTime a tag-1 integer, EndTime a
    // tag-1 float.
    let metric = Cbor::MapIndef(vec![
        ("Namespace".into(), Cbor::TextIndef(vec!["Sandbox/", "Cbor"])),
        ("MetricName".into(), Cbor::Text("M".into())),
        (
            "Dimensions".into(),
            Cbor::ArrayIndef(vec![Cbor::MapIndef(vec![
                ("Name".into(), Cbor::TextIndef(vec!["D"])),
                ("Value".into(), Cbor::Text("x".into())),
            ])]),
        ),
    ]);
    let query = Cbor::MapIndef(vec![
        ("Id".into(), Cbor::TextIndef(vec!["q", "1"])),
        (
            "MetricStat".into(),
            Cbor::Map(vec![
                ("Metric".into(), metric),
                ("Period".into(), Cbor::Uint(60)),
                ("Stat".into(), Cbor::Text("Sum".into())),
            ]),
        ),
    ]);
    let body = Cbor::MapIndef(vec![
        ("MetricDataQueries".into(), Cbor::ArrayIndef(vec![query])),
        ("StartTime".into(), Cbor::Tag1Int(t as u64)),
        ("EndTime".into(), Cbor::Tag1F64(t as f64 + 600.5)),
        ("ScanBy".into(), Cbor::Text("TimestampAscending".into())),
    ])
    .encode();
    let r = raw_post(
        handle.addr,
        "/service/GraniteServiceVersion20100801/operation/GetMetricData",
        &[
            ("content-type", "application/cbor"),
            ("accept", "application/cbor"),
            ("smithy-protocol", "rpc-v2-cbor"),
        ],
        &body,
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("content-type"), Some("application/cbor"));
    assert_eq!(r.header("smithy-protocol"), Some("rpc-v2-cbor"));
    let v = cbor_value(&r.body); // asserts exactly one data item
    let results = v
        .as_map()
        .and_then(|m| m.iter().find(|(k, _)| k.as_text() == Some("MetricDataResults")));
    let result = results
        .and_then(|(_, r)| r.as_array())
        .and_then(|a| a.first())
        .and_then(|r| r.as_map())
        .expect("a result");
    let field = |name: &str| {
        result
            .iter()
            .find(|(k, _)| k.as_text() == Some(name))
            .map(|(_, v)| v.clone())
            .expect(name)
    };
    let values = field("Values");
    let values = values.as_array().expect("values");
    assert_eq!(values.len(), 2);
    // 2.0 is integral but still a CBOR float: the SDK rejects integers for doubles.
    assert!(
        values.iter().all(|x| matches!(x, ciborium::Value::Float(_))),
        "{values:?}"
    );
    let stamps = field("Timestamps");
    let stamps = stamps.as_array().expect("timestamps");
    assert!(
        stamps.iter().all(|x| matches!(x, ciborium::Value::Tag(1, _))),
        "{stamps:?}"
    );
    assert_eq!(field("StatusCode").as_text(), Some("Complete"));

    // The same through the SDK, which decodes the floats and tag-1 timestamps itself.
    let c = client(&handle).await;
    let out = get(
        &c,
        vec![self::query("q1", "Sandbox/Cbor", "M", &[("D", "x")], 60, "Sum")],
        t,
        t + 600,
    )
    .await;
    assert_eq!(series_of(&out, "q1"), (vec![t + 60, t], vec![2.5, 2.0]));

    // Invalid CBOR is a client error in CBOR.
    let r = raw_post(
        handle.addr,
        "/service/GraniteServiceVersion20100801/operation/GetMetricData",
        &[("content-type", "application/cbor")],
        &[0xbf, 0x61],
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.header("content-type"), Some("application/cbor"));
    // Wrong member types are validation errors, not panics.
    let bad = Cbor::Map(vec![("MetricDataQueries".into(), Cbor::Text("nope".into()))]).encode();
    let r = raw_post(
        handle.addr,
        "/service/GraniteServiceVersion20100801/operation/GetMetricData",
        &[("content-type", "application/cbor")],
        &bad,
    )
    .await;
    assert_eq!(
        (r.status, r.header("x-amzn-query-error")),
        (400, Some("ValidationError;Sender"))
    );
}

#[tokio::test]
async fn json_protocol_serves_the_same_store() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let t = now_aligned(600) - 1200;
    let key = SeriesKey::new(
        "AWS/SageMaker",
        "ModelLatency",
        &[("EndpointName", "ep"), ("VariantName", "AllTraffic")],
    );
    for m in 0..10 {
        for i in 0..20 {
            handle
                .sandbox
                .metrics
                .record(&key, "Microseconds", (t + m * 60 + i) as f64, (1000 * m + i * 7) as f64);
        }
    }
    let d = [("EndpointName", "ep"), ("VariantName", "AllTraffic")];
    let cbor = get(
        &c,
        vec![
            query("p", "AWS/SageMaker", "ModelLatency", &d, 60, "p90"),
            query("s", "AWS/SageMaker", "ModelLatency", &d, 120, "Average"),
        ],
        t,
        t + 600,
    )
    .await;
    let req = serde_json::json!({
        "MetricDataQueries": [
            {"Id": "p", "MetricStat": {"Metric": {"Namespace": "AWS/SageMaker", "MetricName": "ModelLatency",
                "Dimensions": [{"Name": "VariantName", "Value": "AllTraffic"}, {"Name": "EndpointName", "Value": "ep"}]},
                "Period": 60, "Stat": "p90"}},
            {"Id": "s", "MetricStat": {"Metric": {"Namespace": "AWS/SageMaker", "MetricName": "ModelLatency",
                "Dimensions": [{"Name": "EndpointName", "Value": "ep"}, {"Name": "VariantName", "Value": "AllTraffic"}]},
                "Period": 120, "Stat": "Average"}, "ReturnData": true}
        ],
        "StartTime": t, "EndTime": t + 600
    });
    let r = raw_post(
        handle.addr,
        "/",
        &json_headers("GraniteServiceVersion20100801.GetMetricData"),
        req.to_string().as_bytes(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("content-type"), Some("application/x-amz-json-1.0"));
    let body: serde_json::Value = serde_json::from_slice(&r.body).expect("json");
    for id in ["p", "s"] {
        let res = body["MetricDataResults"]
            .as_array()
            .and_then(|a| a.iter().find(|r| r["Id"] == id))
            .expect("result");
        let ts: Vec<i64> = res["Timestamps"]
            .as_array()
            .expect("ts")
            .iter()
            .map(|x| x.as_f64().unwrap_or(-1.0) as i64)
            .collect();
        let vals: Vec<f64> = res["Values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|x| x.as_f64().unwrap_or(f64::NAN))
            .collect();
        assert_eq!((ts, vals), series_of(&cbor, id), "{id}: JSON and CBOR agree");
        assert_eq!(res["StatusCode"], "Complete");
    }
    assert_eq!(series_of(&cbor, "p").0.len(), 10);
    assert_eq!(series_of(&cbor, "s").0.len(), 5);

    // JSON errors: awsJson1_0 envelope plus the awsQuery code header boto3 maps.
    let bad =
        serde_json::json!({"MetricDataQueries": [{"Id": "Bad", "Expression": "1"}], "StartTime": t, "EndTime": t + 60});
    let r = raw_post(
        handle.addr,
        "/",
        &json_headers("GraniteServiceVersion20100801.GetMetricData"),
        bad.to_string().as_bytes(),
    )
    .await;
    assert_eq!(r.status, 400);
    let body: serde_json::Value = serde_json::from_slice(&r.body).expect("json error");
    assert_eq!(body["__type"], "ValidationError");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("MetricDataQueries.member.1.Id")
    );
    assert_eq!(r.header("x-amzn-query-error"), Some("ValidationError;Sender"));
    // ListMetrics over JSON.
    let r = raw_post(
        handle.addr,
        "/",
        &json_headers("GraniteServiceVersion20100801.ListMetrics"),
        b"{\"MetricName\": \"ModelLatency\"}",
    )
    .await;
    let body: serde_json::Value = serde_json::from_slice(&r.body).expect("json");
    assert_eq!(
        body["Metrics"][0]["Dimensions"][1],
        serde_json::json!({"Name": "VariantName", "Value": "AllTraffic"})
    );
}
