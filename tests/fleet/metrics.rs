//! The metrics plan over the wire: a big fleet split into ceil(Q/500) GetMetricData calls,
//! values matching what was invoked, NextToken paging, the MME cache metrics from backfilled
//! history, and `sagedeck metrics` with its JSON shape and exit codes.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use sagedeck::aws::RetryPolicy;
use sagedeck::aws::endpoints::inventory::{EndpointInfo, InventoryOptions};
use sagedeck::aws::invoke::call::InvokeSpec;
use sagedeck::aws::observe::metrics::{
    MAX_QUERIES_PER_CALL, Metric, MetricsPlan, NS_ENDPOINTS, NS_INFERENCE_COMPONENTS, Series, VariantMetrics,
    VariantSummary, summarize, summarize_until,
};
use sagedeck::sandbox::SandboxConfig;

use crate::common::builders::{self, variant};
use crate::common::{fleet, run_cli, sandbox_with};

fn spec(endpoint: &str, variant: Option<&str>) -> InvokeSpec {
    InvokeSpec {
        endpoint: endpoint.into(),
        body: br#"{"inputs": "hello"}"#.to_vec(),
        content_type: "application/json".into(),
        target_variant: variant.map(str::to_string),
        ..Default::default()
    }
}

fn ascending(ts: &[f64]) -> bool {
    ts.windows(2).all(|w| w[0] < w[1])
}

#[tokio::test]
async fn a_big_fleet_needs_ceil_q_over_500_calls_and_counts_match() {
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 200,
        ..SandboxConfig::for_tests()
    })
    .await;
    let f = fleet(&sb).await;
    let inv = f
        .inventory(InventoryOptions {
            autoscaling: false,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(inv.endpoints.len(), 200);
    let variants: usize = inv.endpoints.iter().map(|e| e.variants.len()).sum();
    assert_eq!(
        variants,
        67 * 2 + 133,
        "every third generated endpoint has Stable and Canary"
    );

    for _ in 0..7 {
        f.invoke(&spec("fleet-ep-0001", None), &RetryPolicy::none())
            .await
            .unwrap();
    }
    for _ in 0..3 {
        f.invoke(&spec("fleet-ep-0000", Some("Canary")), &RetryPolicy::none())
            .await
            .unwrap();
    }

    let plan = MetricsPlan::for_endpoints(
        &inv.endpoints.iter().map(|e| (**e).clone()).collect::<Vec<_>>(),
        Duration::from_secs(900),
        60,
    );
    assert_eq!(plan.queries.len(), variants * 9);
    let expected_calls = plan.queries.len().div_ceil(MAX_QUERIES_PER_CALL);
    assert_eq!((plan.calls_needed(), expected_calls), (5, 5));
    let before = sb.sandbox.request_count("GetMetricData");
    // A window ending a minute ahead, so that the period of the calls just made is complete.
    let snap = f
        .fetch_metrics(&plan, SystemTime::now() + Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(snap.calls, expected_calls, "no pagination needed at this size");
    assert_eq!(
        sb.sandbox.request_count("GetMetricData") - before,
        expected_calls as u64
    );
    assert_eq!(snap.queries, plan.queries.len());
    assert!(snap.warnings.is_empty(), "{:?}", snap.warnings);
    assert_eq!(snap.variants.len(), variants);

    let one = snap.variant("fleet-ep-0001", "AllTraffic").unwrap();
    assert_eq!(one.summary.invocations, 7.0);
    assert_eq!(one.summary.error_rate_5xx, Some(0.0));
    let p99 = one.summary.model_latency_p99_ms.expect("p99 present");
    assert!(p99 > 0.5 && p99 < 5_000.0, "ModelLatency in ms, not µs: {p99}");
    assert!(one.summary.model_latency_p50_ms.unwrap() <= p99);
    assert!(one.summary.overhead_latency_p99_ms.unwrap() < 1_000.0);
    assert!(ascending(&one.series(Metric::Invocations, "Sum").unwrap().timestamps));
    let canary = snap.variant("fleet-ep-0000", "Canary").unwrap();
    assert_eq!(canary.summary.invocations, 3.0);
    assert_eq!(
        snap.variant("fleet-ep-0000", "Stable").unwrap().summary.invocations,
        0.0
    );
    let total: f64 = snap.variants.iter().map(|v| v.summary.invocations).sum();
    assert_eq!(total, 10.0, "nothing else was invoked");
    assert!(
        snap.variants
            .iter()
            .all(|v| !v.multi_model && v.summary.cache_hit_ratio.is_none())
    );
}

#[tokio::test]
async fn mme_metrics_and_next_token_paging() {
    let sb = sandbox_with(SandboxConfig {
        demo_fleet: true,
        backfill_hours: 3,
        ..SandboxConfig::for_tests()
    })
    .await;
    let f = fleet(&sb).await;
    let mme = f.endpoint("mcp-multi-model-endpoint").await.unwrap();
    let clf = f.endpoint("mcp-intent-classifier-prod").await.unwrap();
    let window = Duration::from_secs(3 * 3600);
    let mut plan = MetricsPlan::for_endpoints(&[mme, clf], window, MetricsPlan::period_for(window));
    assert_eq!(plan.queries.len(), 15 + 2 * 9);
    let end = SystemTime::now();
    let whole = f.fetch_metrics(&plan, end).await.unwrap();
    assert_eq!(whole.calls, 1);

    let m = whole.variant("mcp-multi-model-endpoint", "AllTraffic").unwrap();
    assert!(m.multi_model);
    let s = &m.summary;
    let ratio = s.cache_hit_ratio.unwrap();
    assert!((0.7..=0.97).contains(&ratio), "backfill hits 86%: {ratio}");
    // Backfill holds 3-6 models per instance; the live gauges of a fresh sandbox say 0.
    let loaded = s.loaded_models_per_instance.unwrap();
    assert!((0.0..=6.0).contains(&loaded), "{loaded}");
    let most = m
        .series(Metric::LoadedModelCount, "Average")
        .and_then(|s| s.max())
        .unwrap();
    assert!((3.0..=6.0).contains(&most), "{most}");
    let wait = s.model_loading_wait_p99_ms.unwrap();
    assert!((1_000.0..=10_000.0).contains(&wait), "loads of 2-9 s, in ms: {wait}");
    let inv = m.series(Metric::Invocations, "Sum").unwrap();
    assert!(inv.timestamps.len() > 100 && ascending(&inv.timestamps));
    assert!(s.invocations_per_min > 0.0);
    let stable = whole.variant("mcp-intent-classifier-prod", "Stable").unwrap();
    assert!(
        stable.summary.invocations
            > whole
                .variant("mcp-intent-classifier-prod", "Canary")
                .unwrap()
                .summary
                .invocations
    );

    // The same plan in pages of 100 datapoints: many calls, the same series.
    plan.max_datapoints = Some(100);
    let paged = f.fetch_metrics(&plan, end).await.unwrap();
    assert!(paged.calls > 10, "{} calls", paged.calls);
    assert!(paged.warnings.is_empty(), "{:?}", paged.warnings);
    for (a, b) in whole.variants.iter().zip(&paged.variants) {
        assert_eq!(a.series, b.series, "{}/{}", a.endpoint, a.variant);
        assert_eq!(a.summary, b.summary);
    }
}

#[tokio::test]
async fn metrics_command() {
    let sb = sandbox_with(SandboxConfig {
        demo_fleet: true,
        backfill_hours: 2,
        ..SandboxConfig::for_tests()
    })
    .await;
    let r = run_cli(&sb, &["metrics", "mcp-intent-classifier-prod", "--since", "1h"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("VARIANT"), "{}", r.stdout);
    assert!(r.stdout.contains("P99_MS") && r.stdout.contains("Stable") && r.stdout.contains("Canary"));
    assert!(!r.stdout.contains("CACHE_HIT"));

    let j = run_cli(
        &sb,
        &["metrics", "mcp-intent-classifier-prod", "--since", "90m", "--json"],
    )
    .await
    .json();
    assert_eq!((j["since_secs"].as_u64(), j["period"].as_u64()), (Some(5400), Some(60)));
    assert_eq!((j["queries"].as_u64(), j["calls"].as_u64()), (Some(18), Some(1)));
    assert!(j["end"].as_f64().unwrap() - j["start"].as_f64().unwrap() == 5400.0);
    let v = &j["variants"][0];
    assert_eq!(
        (v["endpoint"].as_str(), v["variant"].as_str()),
        (Some("mcp-intent-classifier-prod"), Some("Stable"))
    );
    assert!(v["summary"]["invocations"].as_f64().unwrap() > 0.0);
    assert!(v["summary"]["model_latency_p99_ms"].as_f64().unwrap() > 0.0);
    let series = &v["series"]["model_latency_p99"];
    assert_eq!(
        series["timestamps"].as_array().unwrap().len(),
        series["values"].as_array().unwrap().len()
    );
    assert!(j["warnings"].as_array().unwrap().is_empty());

    let day = run_cli(
        &sb,
        &["metrics", "mcp-multi-model-endpoint", "--since", "24h", "--json"],
    )
    .await
    .json();
    assert_eq!(day["period"], 300);
    assert!(day["variants"][0]["summary"]["cache_hit_ratio"].as_f64().is_some());
    let human = run_cli(&sb, &["metrics", "mcp-multi-model-endpoint"]).await;
    assert!(
        human.stdout.contains("CACHE_HIT") && human.stdout.contains("LOADED/INSTANCE"),
        "{}",
        human.stdout
    );

    for bad in [vec!["--since", "5x"], vec!["--since", "30s"], vec!["--period", "90"]] {
        let mut a = vec!["metrics", "mcp-intent-classifier-prod"];
        a.extend(bad);
        let r = run_cli(&sb, &a).await;
        assert_eq!(r.code, 2, "{a:?}: {}", r.stderr);
    }
    let missing = run_cli(&sb, &["metrics", "nope"]).await;
    assert_eq!(missing.code, 3);
    assert_eq!(missing.stderr.lines().count(), 1, "{}", missing.stderr);
}

// Pure plan checks: no sandbox needed.

/// An endpoint with these variants, all multi-model when `mme`.
fn endpoint(name: &str, variants: &[&str], mme: bool) -> EndpointInfo {
    let variant = |name: &&str| {
        let v = variant(name).no_model().no_instance_type();
        if mme { v.mme("s3://models/") } else { v }
    };
    builders::endpoint(name)
        .no_config()
        .variants(variants.iter().map(variant))
        .build()
}

fn valid_id(id: &str) -> bool {
    let mut c = id.chars();
    c.next().is_some_and(|c| c.is_ascii_lowercase()) && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[test]
fn plan_counts_ids_and_splits() {
    let mut eps: Vec<EndpointInfo> = (0..40)
        .map(|i| endpoint(&format!("ep.{i}-with:odd/chars"), &["Stable", "Canary"], false))
        .collect();
    eps.push(endpoint("mme", &["AllTraffic"], true));
    let plan = MetricsPlan::for_endpoints(&eps, Duration::from_secs(3600), 60);
    assert_eq!(plan.queries.len(), 80 * 9 + 15);
    assert_eq!(plan.calls_needed(), 2);
    let mut ids: Vec<&str> = plan.queries.iter().map(|q| q.id.as_str()).collect();
    assert!(ids.iter().all(|id| valid_id(id)));
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), plan.queries.len());
    let q = plan.query("q9").unwrap();
    assert_eq!(
        (q.endpoint.as_str(), q.variant.as_str()),
        ("ep.0-with:odd/chars", "Canary")
    );
    assert_eq!((q.metric, q.stat), (Metric::ModelLatency, "p50"));
    assert!(plan.query("q99999").is_none() && plan.query("x1").is_none());
    let last = plan.queries.last().unwrap();
    assert_eq!(
        (last.metric, last.metric.namespace()),
        (Metric::LoadedModelCount, NS_ENDPOINTS)
    );
    assert_eq!(
        MetricsPlan::for_endpoints(&eps, Duration::from_secs(60), 90).period,
        120
    );
    assert_eq!(
        MetricsPlan::for_endpoints(&[], Duration::from_secs(60), 60).calls_needed(),
        0
    );
}

#[test]
fn periods_keep_datapoints_bounded() {
    for (secs, period) in [(90, 60), (3 * 3600, 60), (24 * 3600, 300), (14 * 86_400, 3600)] {
        let p = MetricsPlan::period_for(Duration::from_secs(secs));
        assert_eq!(p, period);
        assert!(secs / p as u64 <= 400);
    }
}

#[test]
fn summary_rates_and_ratios() {
    let ser = |t: &[f64], v: &[f64]| Series {
        timestamps: t.to_vec(),
        values: v.to_vec(),
    };
    let mut vm = VariantMetrics {
        endpoint: "e".into(),
        variant: "v".into(),
        multi_model: true,
        summary: VariantSummary::default(),
        series: BTreeMap::new(),
    };
    vm.series
        .insert("invocations_sum".into(), ser(&[0.0, 60.0], &[30.0, 10.0]));
    vm.series
        .insert("invocation_5xx_errors_sum".into(), ser(&[60.0], &[4.0]));
    vm.series
        .insert("model_latency_p99".into(), ser(&[0.0, 60.0], &[80.0, 20.5]));
    vm.series
        .insert("model_cache_hit_average".into(), ser(&[0.0, 60.0], &[1.0, 0.0]));
    let s = summarize(&vm, Duration::from_secs(600));
    assert_eq!(s.invocations, 40.0);
    assert_eq!(s.invocations_per_min, 4.0);
    assert_eq!(s.error_rate_5xx, Some(0.1));
    assert_eq!(s.error_rate_4xx, Some(0.0));
    assert_eq!(s.model_latency_p99_ms, Some(20.5));
    assert_eq!(s.model_latency_p99_max_ms, Some(80.0));
    assert_eq!(s.cache_hit_ratio, Some(0.75));
    assert_eq!(s.model_latency_p50_ms, None);
    assert_eq!((s.latest_period_start, s.latest_samples), (Some(60.0), Some(10.0)));
    // At 90 s the minute from 60 s is still filling: the latest figures are the minute before.
    let partial = summarize_until(&vm, Duration::from_secs(600), 90.0, 60.0);
    assert_eq!(partial.model_latency_p99_ms, Some(80.0));
    assert_eq!(
        (partial.latest_period_start, partial.latest_samples),
        (Some(0.0), Some(30.0))
    );
}

#[test]
fn components_join_the_plan_with_their_own_dimension() {
    let eps = vec![endpoint("ep", &["AllTraffic"], false)];
    let window = Duration::from_secs(3600);
    let components = [
        ("ic-ep".to_string(), "llm".to_string()),
        ("ic-ep".into(), "adapter".into()),
    ];
    let plan = MetricsPlan::for_endpoints(&eps, window, 60).with_components(&components);
    assert_eq!(plan.queries.len(), 9 + 2 * 10, "ten queries per component");
    assert_eq!(
        plan.calls_needed(),
        1,
        "in the same GetMetricData call as the variants'"
    );
    let of_llm: Vec<_> = plan
        .queries
        .iter()
        .filter(|q| q.component.as_deref() == Some("llm"))
        .collect();
    assert_eq!(of_llm.len(), 10);
    assert!(of_llm.iter().all(|q| q.endpoint == "ic-ep" && q.variant.is_empty()));
    let namespaces: Vec<&str> = of_llm.iter().map(|q| q.metric.namespace()).collect();
    assert!(namespaces.contains(&NS_INFERENCE_COMPONENTS) && namespaces.contains(&"AWS/SageMaker"));
    assert!(plan.queries.iter().take(9).all(|q| q.component.is_none()));
}

/// Records `value` on `/aws/sagemaker/InferenceComponents` `name` for `component`, at each of
/// `times`.
async fn put_utilization(c: &aws_sdk_cloudwatch::Client, component: &str, name: &str, value: f64, times: &[f64]) {
    use aws_sdk_cloudwatch::types::{Dimension, MetricDatum};
    let mut put = c.put_metric_data().namespace(NS_INFERENCE_COMPONENTS);
    for t in times {
        let dim = Dimension::builder()
            .name("InferenceComponentName")
            .value(component)
            .build();
        put = put.metric_data(
            MetricDatum::builder()
                .metric_name(name)
                .dimensions(dim)
                .timestamp(aws_smithy_types::DateTime::from_secs_f64(*t))
                .value(value)
                .build(),
        );
    }
    put.send().await.expect("PutMetricData succeeds");
}

#[tokio::test]
async fn component_utilization_comes_back_by_component() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let f = fleet(&sb).await;
    let cw = aws_sdk_cloudwatch::Client::new(&crate::common::sdk_config(&sb).await);
    let end = SystemTime::now();
    let now = end.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs_f64();
    let minutes = [now - 600.0, now - 300.0, now - 180.0];
    put_utilization(&cw, "llm", "CPUUtilizationNormalized", 42.0, &minutes).await;
    put_utilization(&cw, "llm", "MemoryUtilizationNormalized", 70.0, &minutes).await;
    put_utilization(&cw, "adapter", "CPUUtilizationNormalized", 5.0, &minutes).await;
    let components = [
        ("ic-ep".to_string(), "llm".to_string()),
        ("ic-ep".into(), "adapter".into()),
    ];
    let window = Duration::from_secs(3600);
    let plan = MetricsPlan::for_endpoints(&[], window, 60).with_components(&components);
    let snap = f.fetch_metrics(&plan, end).await.unwrap();
    assert_eq!(snap.calls, 1);
    assert!(snap.warnings.is_empty(), "{:?}", snap.warnings);
    let llm = snap.component("ic-ep", "llm").unwrap();
    assert_eq!(llm.summary.cpu_utilization, Some(42.0));
    assert_eq!(llm.summary.memory_utilization, Some(70.0));
    assert_eq!(llm.summary.gpu_utilization, None, "a CPU component has no GPU figure");
    assert_eq!(
        llm.series(Metric::CpuUtilizationNormalized, "Average")
            .unwrap()
            .values
            .len(),
        3
    );
    let adapter = snap.component("ic-ep", "adapter").unwrap();
    assert_eq!(
        adapter.summary.cpu_utilization,
        Some(5.0),
        "each component its own series"
    );
    assert_eq!(adapter.summary.invocations, 0.0);
}
