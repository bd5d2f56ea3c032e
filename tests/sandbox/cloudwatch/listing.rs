//! ListMetrics filters and pagination, and unknown operations in both protocols.

use super::cw_wire::{cbor_value, raw_post};
use super::*;

#[tokio::test]
async fn list_metrics_filters_and_pages() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let now = now_aligned(1);
    let store = &handle.sandbox.metrics;
    for i in 0..1203 {
        let ep = format!("ep-{i:04}");
        store.record(
            &SeriesKey::new(
                "Sandbox/List",
                "Invocations",
                &[("EndpointName", &ep), ("VariantName", "v")],
            ),
            "None",
            now as f64,
            1.0,
        );
    }
    store.record(
        &SeriesKey::new("Sandbox/List", "ModelLatency", &[("EndpointName", "ep-0007")]),
        "None",
        now as f64,
        1.0,
    );
    store.record(
        &SeriesKey::new("Sandbox/List", "Old", &[]),
        "None",
        (now - 5 * 3600) as f64,
        1.0,
    );
    store.record(
        &SeriesKey::new("Sandbox/Other", "Invocations", &[]),
        "None",
        now as f64,
        1.0,
    );

    let mut pages = c.list_metrics().namespace("Sandbox/List").into_paginator().send();
    let mut sizes = vec![];
    let mut names = std::collections::BTreeSet::new();
    while let Some(page) = pages.next().await {
        let page = page.expect("page");
        sizes.push(page.metrics().len());
        for m in page.metrics() {
            assert_eq!(m.namespace(), Some("Sandbox/List"));
            names.insert((
                m.metric_name().unwrap_or_default().to_string(),
                format!("{:?}", m.dimensions()),
            ));
        }
    }
    assert_eq!(sizes, vec![500, 500, 205]);
    assert_eq!(names.len(), 1205, "no duplicates across pages");

    let out = c
        .list_metrics()
        .metric_name("ModelLatency")
        .send()
        .await
        .expect("by name");
    assert_eq!(out.metrics().len(), 1);
    assert_eq!(out.metrics()[0].dimensions()[0].value(), Some("ep-0007"));
    let by_dim = |name: &str, value: Option<&str>| {
        let f = DimensionFilter::builder()
            .name(name)
            .set_value(value.map(str::to_string))
            .build();
        c.list_metrics().namespace("Sandbox/List").dimensions(f).send()
    };
    assert_eq!(
        by_dim("EndpointName", Some("ep-0007"))
            .await
            .expect("dim")
            .metrics()
            .len(),
        2
    );
    assert_eq!(by_dim("VariantName", None).await.expect("dim").metrics().len(), 500);
    assert!(by_dim("Nope", None).await.expect("dim").metrics().is_empty());
    let old = c.list_metrics().metric_name("Old").send().await.expect("old");
    assert_eq!(old.metrics().len(), 1);
    let recent = c
        .list_metrics()
        .metric_name("Old")
        .recently_active(RecentlyActive::Pt3H)
        .send()
        .await
        .expect("recent");
    assert!(
        recent.metrics().is_empty(),
        "data older than 3 h is not recently active"
    );
    let err = c
        .list_metrics()
        .next_token("bogus")
        .send()
        .await
        .expect_err("bad token")
        .into_service_error();
    assert_eq!(err.code(), Some("InvalidParameterValue"));
}

#[tokio::test]
async fn unknown_operations_in_both_protocols() {
    let handle = common::sandbox().await;
    let c = client(&handle).await;
    let err = c.list_dashboards().send().await.expect_err("not implemented");
    assert_eq!(err.code(), Some("UnknownOperationException"));
    assert!(err.message().unwrap_or_default().contains("ListDashboards"), "{err:?}");

    for (path, name) in [
        (
            "/service/GraniteServiceVersion20100801/operation/ListDashboards",
            "ListDashboards",
        ),
        ("/service/GraniteServiceVersion20100801/operation/", "(none)"),
        ("/service/GraniteServiceVersion20100801", "(none)"),
    ] {
        let r = raw_post(handle.addr, path, &[("content-type", "application/cbor")], &[0xa0]).await;
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.header("content-type"), Some("application/cbor"));
        let v = cbor_value(&r.body);
        let map = v.as_map().expect("map");
        let get = |k: &str| {
            map.iter()
                .find(|(key, _)| key.as_text() == Some(k))
                .and_then(|(_, v)| v.as_text())
                .unwrap_or_default()
        };
        assert_eq!(get("__type"), "smithy.framework#UnknownOperationException");
        assert!(get("message").contains(name), "{}", get("message"));
    }
    for (target, name) in [
        ("GraniteServiceVersion20100801.PutDashboard", "PutDashboard"),
        ("GraniteServiceVersion20100801.", "(none)"),
        ("GraniteServiceVersion20100801", "(none)"),
    ] {
        let r = raw_post(
            handle.addr,
            "/",
            &[("content-type", "application/x-amz-json-1.0"), ("x-amz-target", target)],
            b"{}",
        )
        .await;
        assert_eq!(r.status, 400, "{target}");
        assert_eq!(r.header("content-type"), Some("application/x-amz-json-1.0"));
        let body: serde_json::Value = serde_json::from_slice(&r.body).expect("json");
        assert_eq!(body["__type"], "UnknownOperationException");
        assert!(body["message"].as_str().unwrap_or_default().contains(name));
    }
}
