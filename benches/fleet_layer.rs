//! The fleet layer's costs against the sandbox, each quoted against a baseline measured in the
//! same run:
//!
//! * **inventory** of 1,000 endpoints through `Fleet::inventory` at concurrency 8 and 32: wall
//!   time, API calls by operation (counted by the sandbox and by the fleet layer); baseline: the
//!   same number of bare-SDK DescribeEndpoint calls at concurrency 8 (the floor of the calls
//!   alone, without the inventory's orchestration);
//! * **metrics refresh** of 200 endpoints (one hour of per-minute history seeded for every
//!   variant) through `MetricsPlan::for_endpoints` + `Fleet::fetch_metrics`: GetMetricData calls
//!   and wall time; baseline: one bare-SDK GetMetricData call of 500 queries;
//! * **invoke overhead**: `Fleet::invoke` vs a bare aws-sdk-sagemakerruntime loop (default client)
//!   and vs the fleet's own runtime client called directly, one call at a time, every call
//!   recorded in an HDR histogram, the three arms interleaved in alternating blocks.
//!
//! Rounds are interleaved (round 1 of every row, then round 2, ...); every loop is bounded in
//! count and in time. Server and client share one process and a 2-worker tokio runtime.
//!
//! Run: `CARGO_TARGET_DIR=target/bench cargo bench --bench fleet_layer`
//! (`SAGEDECK_BENCH_ROUNDS` changes the rounds of the first two parts.)

mod common;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use aws_sdk_cloudwatch::types::{Dimension, Metric, MetricDataQuery, MetricStat, ScanBy};
use aws_sdk_sagemakerruntime::primitives::Blob;
use futures_util::StreamExt;
use hdrhistogram::Histogram;
use sagedeck::aws::endpoints::inventory::InventoryOptions;
use sagedeck::aws::invoke::call::InvokeSpec;
use sagedeck::aws::observe::metrics::MetricsPlan;
use sagedeck::aws::{Fleet, RetryPolicy};
use sagedeck::sandbox::{Sandbox, SandboxConfig, now_epoch, start};

use common::{env_num, median, min_max, sdk_config};

/// The endpoint invoked in part 3.
const ENDPOINT: &str = "xgboost-churn-csv";
/// The CSV row posted.
const CSV_BODY: &str = "0.5,1.0,3,12.5,0\n";

fn counts(sb: &Sandbox) -> HashMap<String, u64> {
    sb.calls.by_operation()
}

/// Requests served between two snapshots, by operation (zero deltas left out).
fn delta(before: &HashMap<String, u64>, after: &HashMap<String, u64>) -> BTreeMap<String, u64> {
    after
        .iter()
        .map(|(op, n)| (op.clone(), n - before.get(op).copied().unwrap_or(0)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

fn fmt_ops(ops: &BTreeMap<String, u64>) -> String {
    ops.iter()
        .map(|(op, n)| format!("{op} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn main() {
    let rounds = env_num("SAGEDECK_BENCH_ROUNDS", 5).clamp(1, 50) as usize;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let t = Instant::now();
        inventory(rounds).await;
        metrics(rounds).await;
        invoke_overhead().await;
        eprintln!("fleet_layer: done in {:.1} s", t.elapsed().as_secs_f64());
    });
}

// ---------------------------------------------------------------------------------------------
// 1. Inventory of 1,000 endpoints.

async fn inventory(rounds: usize) {
    const ENDPOINTS: usize = 1000;
    let handle = start(SandboxConfig {
        extra_endpoints: ENDPOINTS,
        ..SandboxConfig::for_tests()
    })
    .await
    .expect("sandbox starts");
    let sb = handle.sandbox.clone();
    let conf = sdk_config(&handle.endpoint_url()).await;
    let fleet = Fleet::from_sdk_config(&conf, "bench".into(), Some(handle.endpoint_url()));
    let bare = aws_sdk_sagemaker::Client::new(&conf);

    struct Row {
        name: String,
        concurrency: Option<usize>,
        ms: Vec<f64>,
        ops: Vec<BTreeMap<String, u64>>,
        reported_calls: Vec<usize>,
    }
    let mut rows: Vec<Row> = [8, 32]
        .into_iter()
        .map(|c| Row {
            name: format!("Fleet::inventory, concurrency {c}"),
            concurrency: Some(c),
            ms: vec![],
            ops: vec![],
            reported_calls: vec![],
        })
        .collect();

    // Warm-up, and the number of calls one inventory makes (the floor row makes as many).
    let before = counts(&sb);
    let inv = fleet.inventory(InventoryOptions::default()).await.expect("inventory");
    let calls_per_inventory: u64 = delta(&before, &counts(&sb)).values().sum();
    assert_eq!(inv.endpoints.len(), ENDPOINTS, "every endpoint described");
    assert!(inv.failures.is_empty(), "no failures: {:?}", inv.failures.first());
    rows.push(Row {
        name: format!("floor: {calls_per_inventory} bare DescribeEndpoint, conc. 8"),
        concurrency: None,
        ms: vec![],
        ops: vec![],
        reported_calls: vec![],
    });
    let names: Arc<Vec<String>> = Arc::new(inv.endpoints.iter().map(|e| e.name.clone()).collect());
    let _ = fleet
        .inventory(InventoryOptions {
            concurrency: 32,
            ..Default::default()
        })
        .await
        .expect("inventory");

    let deadline = Instant::now() + Duration::from_secs(60);
    for r in 0..rounds {
        if Instant::now() > deadline {
            eprintln!("  inventory: time bound reached after {r} rounds");
            break;
        }
        for row in rows.iter_mut() {
            let before = counts(&sb);
            let t = Instant::now();
            match row.concurrency {
                Some(c) => {
                    let inv = fleet
                        .inventory(InventoryOptions {
                            concurrency: c,
                            ..Default::default()
                        })
                        .await
                        .expect("inventory");
                    assert_eq!(inv.endpoints.len(), ENDPOINTS);
                    row.reported_calls.push(inv.api_calls);
                }
                None => {
                    let n = calls_per_inventory as usize;
                    let errors = futures_util::stream::iter(0..n)
                        .map(|i| {
                            let (bare, names) = (bare.clone(), names.clone());
                            async move {
                                bare.describe_endpoint()
                                    .endpoint_name(&names[i % names.len()])
                                    .send()
                                    .await
                                    .is_err()
                            }
                        })
                        .buffer_unordered(8)
                        .filter(|e| std::future::ready(*e))
                        .count()
                        .await;
                    assert_eq!(errors, 0, "bare DescribeEndpoint failed");
                }
            }
            row.ms.push(t.elapsed().as_secs_f64() * 1e3);
            row.ops.push(delta(&before, &counts(&sb)));
            eprintln!(
                "  inventory round {}/{rounds} {:<45} {:>8.1} ms",
                r + 1,
                row.name,
                row.ms.last().unwrap()
            );
        }
    }

    let floor = median(rows.last().unwrap().ms.clone());
    println!();
    println!(
        "1. inventory of {ENDPOINTS} endpoints (autoscaling included), {} rounds, interleaved",
        rows[0].ms.len()
    );
    println!(
        "{:<45} {:>10} {:>10} {:>10} {:>9} {:>10} {:>11}",
        "scenario", "median ms", "min ms", "max ms", "vs floor", "API calls", "fleet says"
    );
    for row in &rows {
        let (min, max) = min_max(&row.ms);
        let calls: Vec<u64> = row.ops.iter().map(|o| o.values().sum()).collect();
        let same = calls.windows(2).all(|w| w[0] == w[1]);
        let reported = match row.reported_calls.first() {
            Some(n) if row.reported_calls.windows(2).all(|w| w[0] == w[1]) => n.to_string(),
            Some(_) => "varies".into(),
            None => "-".into(),
        };
        println!(
            "{:<45} {:>10.1} {:>10.1} {:>10.1} {:>9.2} {:>10} {:>11}",
            row.name,
            median(row.ms.clone()),
            min,
            max,
            median(row.ms.clone()) / floor,
            if same {
                calls[0].to_string()
            } else {
                format!("{}..{}", calls.iter().min().unwrap(), calls.iter().max().unwrap())
            },
            reported
        );
    }
    for row in &rows {
        println!("    {:<41} {}", row.name, fmt_ops(row.ops.last().unwrap()));
    }
    println!(
        "    (API calls: counted by the sandbox per round; fleet says: Inventory::api_calls; vs floor: median / median of the floor row)"
    );
    handle.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 2. Metrics refresh of 200 endpoints.

/// Seeds `minutes` of per-minute history (ending a minute ago) into every variant's series, as
/// the sandbox's own backfill does for the demo fleet (which skips generated endpoints).
fn seed_history(sb: &Sandbox, minutes: usize) -> usize {
    let now = now_epoch();
    let end = (now / 60.0).floor() * 60.0 - 60.0;
    let world = sb.world.read();
    let mut variants = 0;
    for ep in world.endpoints.values() {
        for (k, v) in ep.variants.iter().enumerate() {
            variants += 1;
            let s = &v.sim.series;
            for m in 0..minutes {
                let t = end - (minutes - 1 - m) as f64 * 60.0;
                let n = 40.0 + ((m * 7 + k * 13) % 50) as f64;
                s.invocations.lock().record_stats(t, n, n, 1.0, 1.0);
                s.per_instance.lock().record_stats(t, n, n, 1.0, 1.0);
                let e5 = if m % 11 == 0 { 1.0 } else { 0.0 };
                s.errors_5xx.lock().record_stats(t, n, e5, 0.0, e5);
                s.errors_4xx.lock().record_stats(t, n, 0.0, 0.0, 0.0);
                let lat: Vec<f64> = (0..16)
                    .map(|i| 8_000.0 + (i * 977 + m * 131) as f64 % 20_000.0)
                    .collect();
                let ovh: Vec<f64> = (0..16).map(|i| 900.0 + (i * 61 + m * 17) as f64 % 2_000.0).collect();
                let c = vec![n / 16.0; 16];
                s.model_latency.lock().record_values(t, &lat, &c);
                s.overhead_latency.lock().record_values(t, &ovh, &c);
            }
        }
    }
    variants
}

async fn metrics(rounds: usize) {
    const ENDPOINTS: usize = 200;
    let handle = start(SandboxConfig {
        extra_endpoints: ENDPOINTS,
        ..SandboxConfig::for_tests()
    })
    .await
    .expect("sandbox starts");
    let sb = handle.sandbox.clone();
    let seeded = seed_history(&sb, 60);
    let conf = sdk_config(&handle.endpoint_url()).await;
    let fleet = Fleet::from_sdk_config(&conf, "bench".into(), Some(handle.endpoint_url()));
    let bare = aws_sdk_cloudwatch::Client::new(&conf);
    let inv = fleet
        .inventory(InventoryOptions {
            autoscaling: false,
            ..Default::default()
        })
        .await
        .expect("inventory");
    assert_eq!(inv.endpoints.len(), ENDPOINTS);

    let windows = [(Duration::from_secs(3600), 60), (Duration::from_secs(3 * 3600), 60)];
    let endpoints: Vec<_> = inv.endpoints.iter().map(|e| (**e).clone()).collect();
    let plans: Vec<MetricsPlan> = windows
        .iter()
        .map(|(w, p)| MetricsPlan::for_endpoints(&endpoints, *w, *p))
        .collect();

    // The baseline: the first 500 queries of the 1 h plan, as one bare GetMetricData call.
    let p0 = &plans[0];
    let bare_queries: Vec<MetricDataQuery> = p0
        .queries
        .iter()
        .take(500)
        .map(|q| {
            let dim = |n: &str, v: &str| Dimension::builder().name(n).value(v).build();
            MetricDataQuery::builder()
                .id(&q.id)
                .metric_stat(
                    MetricStat::builder()
                        .metric(
                            Metric::builder()
                                .namespace(q.metric.namespace())
                                .metric_name(q.metric.cloudwatch_name())
                                .dimensions(dim("EndpointName", &q.endpoint))
                                .dimensions(dim("VariantName", &q.variant))
                                .build(),
                        )
                        .period(p0.period)
                        .stat(q.stat)
                        .build(),
                )
                .return_data(true)
                .build()
        })
        .collect();
    let bare_call = |end: SystemTime| {
        let (bare, queries) = (bare.clone(), bare_queries.clone());
        async move {
            let out = bare
                .get_metric_data()
                .set_metric_data_queries(Some(queries))
                .start_time((end - Duration::from_secs(3600)).into())
                .end_time(end.into())
                .scan_by(ScanBy::TimestampAscending)
                .send()
                .await
                .expect("bare GetMetricData");
            out.metric_data_results()
                .iter()
                .map(|r| r.values().len())
                .sum::<usize>()
        }
    };

    struct Row {
        name: String,
        plan: Option<usize>,
        ms: Vec<f64>,
        gmd_calls: Vec<u64>,
        reported_calls: usize,
        queries: usize,
        calls_needed: usize,
        points: usize,
        warnings: usize,
    }
    let mut rows: Vec<Row> = vec![];
    rows.push(Row {
        name: "floor: 1 bare GetMetricData, 500 queries, 1 h".into(),
        plan: None,
        ms: vec![],
        gmd_calls: vec![],
        reported_calls: 1,
        queries: bare_queries.len(),
        calls_needed: 1,
        points: 0,
        warnings: 0,
    });
    for (i, (w, _)) in windows.iter().enumerate() {
        rows.push(Row {
            name: format!(
                "fetch_metrics, {} h window, {} s period",
                w.as_secs() / 3600,
                plans[i].period
            ),
            plan: Some(i),
            ms: vec![],
            gmd_calls: vec![],
            reported_calls: 0,
            queries: plans[i].queries.len(),
            calls_needed: plans[i].calls_needed(),
            points: 0,
            warnings: 0,
        });
    }
    // Warm-up.
    for row in &rows {
        match row.plan {
            Some(i) => {
                fleet
                    .fetch_metrics(&plans[i], SystemTime::now())
                    .await
                    .expect("fetch_metrics");
            }
            None => {
                bare_call(SystemTime::now()).await;
            }
        }
    }
    let deadline = Instant::now() + Duration::from_secs(45);
    for r in 0..rounds {
        if Instant::now() > deadline {
            eprintln!("  metrics: time bound reached after {r} rounds");
            break;
        }
        for row in rows.iter_mut() {
            let before = sb.request_count("GetMetricData");
            let t = Instant::now();
            match row.plan {
                Some(i) => {
                    let snap = fleet
                        .fetch_metrics(&plans[i], SystemTime::now())
                        .await
                        .expect("fetch_metrics");
                    row.reported_calls = snap.calls;
                    row.warnings = snap.warnings.len();
                    row.points = snap
                        .variants
                        .iter()
                        .flat_map(|v| v.series.values())
                        .map(|s| s.values.len())
                        .sum();
                }
                None => row.points = bare_call(SystemTime::now()).await,
            }
            row.ms.push(t.elapsed().as_secs_f64() * 1e3);
            row.gmd_calls.push(sb.request_count("GetMetricData") - before);
            eprintln!(
                "  metrics round {}/{rounds} {:<45} {:>8.1} ms",
                r + 1,
                row.name,
                row.ms.last().unwrap()
            );
        }
    }

    let floor = median(rows[0].ms.clone());
    println!();
    println!(
        "2. metrics refresh of {ENDPOINTS} endpoints ({} variants, 60 min of per-minute history seeded), {} rounds, interleaved",
        seeded.min(plans[0].variants.len()),
        rows[0].ms.len()
    );
    println!(
        "{:<47} {:>7} {:>6} {:>10} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8}",
        "scenario", "queries", "needed", "GMD calls", "fleet", "points", "median", "min", "max ms", "vs floor"
    );
    for row in &rows {
        let (min, max) = min_max(&row.ms);
        let calls = if row.gmd_calls.windows(2).all(|w| w[0] == w[1]) {
            row.gmd_calls[0].to_string()
        } else {
            format!(
                "{}..{}",
                row.gmd_calls.iter().min().unwrap(),
                row.gmd_calls.iter().max().unwrap()
            )
        };
        println!(
            "{:<47} {:>7} {:>6} {:>10} {:>8} {:>8} {:>8.1} {:>8.1} {:>9.1} {:>8.2}",
            row.name,
            row.queries,
            row.calls_needed,
            calls,
            row.reported_calls,
            row.points,
            median(row.ms.clone()),
            min,
            max,
            median(row.ms.clone()) / floor
        );
        if row.warnings > 0 {
            println!("    ({} warnings in the last round)", row.warnings);
        }
    }
    println!(
        "    (needed: MetricsPlan::calls_needed; GMD calls: counted by the sandbox; fleet: MetricsSnapshot::calls; points: datapoints returned; ms: wall time)"
    );
    handle.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// 3. Invoke overhead of the fleet layer.

const BLOCK: usize = 200;
const BLOCKS: usize = 30;
const WARMUP_CALLS: usize = 400;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Arm {
    /// `aws_sdk_sagemakerruntime::Client::new(&conf)`: what a user would write.
    Bare,
    /// The fleet's runtime client (SDK retries disabled), called directly.
    FleetClient,
    /// `Fleet::invoke` with the default retry policy.
    Fleet,
}

async fn invoke_overhead() {
    let handle = start(SandboxConfig {
        demo_fleet: true,
        ..SandboxConfig::for_tests()
    })
    .await
    .expect("sandbox starts");
    let conf = sdk_config(&handle.endpoint_url()).await;
    let fleet = Fleet::from_sdk_config(&conf, "bench".into(), Some(handle.endpoint_url()));
    let bare = aws_sdk_sagemakerruntime::Client::new(&conf);
    let spec = InvokeSpec {
        endpoint: ENDPOINT.into(),
        body: CSV_BODY.as_bytes().to_vec(),
        content_type: "text/csv".into(),
        ..Default::default()
    };
    let policy = RetryPolicy::default();

    let sdk_call = |client: &aws_sdk_sagemakerruntime::Client| {
        let client = client.clone();
        async move {
            let out = client
                .invoke_endpoint()
                .endpoint_name(ENDPOINT)
                .content_type("text/csv")
                .body(Blob::new(CSV_BODY))
                .send()
                .await
                .expect("bare InvokeEndpoint");
            std::hint::black_box(out.body.map(Blob::into_inner).unwrap_or_default());
        }
    };
    let call = async |arm: Arm| match arm {
        Arm::Bare => sdk_call(&bare).await,
        Arm::FleetClient => sdk_call(&fleet.runtime).await,
        Arm::Fleet => {
            let r = fleet.invoke(&spec, &policy).await.expect("Fleet::invoke");
            assert_eq!(r.attempts, 1);
            std::hint::black_box(r.body);
        }
    };

    let arms = [Arm::Bare, Arm::Fleet, Arm::FleetClient];
    for arm in arms {
        for _ in 0..WARMUP_CALLS {
            call(arm).await;
        }
    }
    let mut hists: Vec<Histogram<u64>> = arms
        .iter()
        .map(|_| Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("histogram"))
        .collect();
    // Per-block medians, to pair blocks that ran next to each other.
    let mut block_p50: Vec<Vec<f64>> = vec![vec![]; arms.len()];
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut blocks = 0;
    let t0 = Instant::now();
    'outer: for b in 0..BLOCKS {
        // Alternate the order of the arms from block to block (ABC, CBA, ...).
        let order: Vec<usize> = if b % 2 == 0 {
            (0..arms.len()).collect()
        } else {
            (0..arms.len()).rev().collect()
        };
        for k in order {
            if Instant::now() > deadline {
                eprintln!("  invoke: time bound reached after {b} blocks");
                break 'outer;
            }
            let mut block = Vec::with_capacity(BLOCK);
            for _ in 0..BLOCK {
                let t = Instant::now();
                call(arms[k]).await;
                let ns = t.elapsed().as_nanos() as u64;
                hists[k].saturating_record(ns.max(1));
                block.push(ns as f64);
            }
            block_p50[k].push(median(block));
        }
        blocks += 1;
    }
    let blocks_done = block_p50.iter().map(Vec::len).min().unwrap_or(0);
    eprintln!(
        "  invoke: {blocks} blocks of {BLOCK} calls per arm in {:.1} s",
        t0.elapsed().as_secs_f64()
    );

    let us = |ns: u64| ns as f64 / 1e3;
    println!();
    println!(
        "3. invoke overhead: sequential InvokeEndpoint on {ENDPOINT} (no latency sleep), {blocks_done} alternating blocks of {BLOCK} calls per arm"
    );
    println!(
        "{:<52} {:>7} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9}",
        "arm", "calls", "p50 µs", "p90 µs", "p99 µs", "p99.9 µs", "mean µs", "max µs"
    );
    let names = [
        "bare sdk   (Client::new(&conf), default retries)",
        "fleet      (Fleet::invoke, RetryPolicy::default)",
        "fleet's client direct (fleet.runtime, SDK retries off)",
    ];
    for (k, h) in hists.iter().enumerate() {
        println!(
            "{:<52} {:>7} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>8.1} {:>9.1}",
            names[k],
            h.len(),
            us(h.value_at_quantile(0.5)),
            us(h.value_at_quantile(0.9)),
            us(h.value_at_quantile(0.99)),
            us(h.value_at_quantile(0.999)),
            h.mean() / 1e3,
            us(h.max())
        );
    }
    let diff = |a: usize, b: usize, q: f64| us(hists[a].value_at_quantile(q)) - us(hists[b].value_at_quantile(q));
    let paired = |a: usize, b: usize| {
        median(
            block_p50[a]
                .iter()
                .zip(&block_p50[b])
                .map(|(x, y)| (x - y) / 1e3)
                .collect(),
        )
    };
    let (bare_i, fleet_i, direct_i) = (0, 1, 2);
    println!(
        "fleet - bare sdk:        p50 {:+.1} µs ({:+.1}%), p99 {:+.1} µs; median of paired block p50 differences {:+.1} µs",
        diff(fleet_i, bare_i, 0.5),
        100.0 * diff(fleet_i, bare_i, 0.5) / us(hists[bare_i].value_at_quantile(0.5)),
        diff(fleet_i, bare_i, 0.99),
        paired(fleet_i, bare_i)
    );
    println!(
        "fleet - fleet's client:  p50 {:+.1} µs ({:+.1}%), p99 {:+.1} µs; median of paired block p50 differences {:+.1} µs",
        diff(fleet_i, direct_i, 0.5),
        100.0 * diff(fleet_i, direct_i, 0.5) / us(hists[direct_i].value_at_quantile(0.5)),
        diff(fleet_i, direct_i, 0.99),
        paired(fleet_i, direct_i)
    );
    handle.shutdown().await;
}
