//! `sagedeck metrics ENDPOINT [--since 1h]`: latency percentiles, invocations and error rates of
//! each variant from CloudWatch, for multi-model endpoints the cache hit ratio and loaded model
//! count, for a serverless variant its cold starts, concurrency and spillover, for an
//! asynchronous endpoint its queue, in one GetMetricData plan.

use std::sync::atomic::AtomicUsize;
use std::time::{Duration, SystemTime};

use clap::Args;
use serde::Serialize;

use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::observe::metrics::{
    AsyncFigures, MetricsPlan, MetricsSnapshot, ServerlessFigures, VariantMetrics, async_figures, serverless_figures,
};
use crate::cli::args::{GlobalArgs, parse_since};
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::output::{opt_f, outln, pct, print_json, print_table};

/// `sagedeck metrics ENDPOINT [--since 1h]`.
#[derive(Debug, Args)]
pub struct MetricsArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// How far back: `90s`, `15m`, `1h`, `3h`, `24h`, `2d`, `1h30m` (1 minute to 15 days).
    #[arg(long, default_value = "1h", value_parser = parse_since)]
    pub since: Duration,
    /// Period in seconds (a multiple of 60; default by window: 60 s up to 3 h, 300 s up to 24 h).
    #[arg(long)]
    pub period: Option<u32>,
}

#[derive(Serialize)]
struct MetricsDoc<'a> {
    endpoint: &'a str,
    since_secs: u64,
    period: i32,
    start: f64,
    end: f64,
    queries: usize,
    calls: usize,
    variants: &'a [VariantMetrics],
    /// Each serverless or asynchronous variant's own figures.
    shape: Vec<ShapeRow>,
    warnings: &'a [String],
}

/// A variant's shape figures (`--json`'s `shape`).
#[derive(Serialize)]
struct ShapeRow {
    variant: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    serverless: Option<ServerlessFigures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    asynchronous: Option<AsyncFigures>,
}

/// The shape figures of `info`'s serverless variants and of an asynchronous endpoint's variants.
fn shape_rows(info: &EndpointInfo, snap: &MetricsSnapshot) -> Vec<ShapeRow> {
    let (end, period) = (snap.end, f64::from(snap.period));
    info.variants
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let vm = snap.variant(&info.name, &v.name)?;
            let serverless = v.serverless.is_some().then(|| serverless_figures(vm, end, period));
            let asynchronous = info.kind.is_async().then(|| async_figures(vm, end, period, i == 0));
            (serverless.is_some() || asynchronous.is_some()).then(|| ShapeRow {
                variant: v.name.clone(),
                serverless,
                asynchronous,
            })
        })
        .collect()
}

fn rate(r: Option<f64>) -> String {
    r.map(pct).unwrap_or_else(|| "-".into())
}

/// Runs `metrics`.
pub async fn run(g: &GlobalArgs, args: MetricsArgs) -> CmdResult {
    let period = match args.period {
        None => MetricsPlan::period_for(args.since),
        Some(p) if p >= 60 && p % 60 == 0 && p <= 86_400 => p as i32,
        Some(p) => {
            return Err(Exit::usage(format!(
                "--period must be a multiple of 60 between 60 and 86400 (got {p})"
            )));
        }
    };
    let fleet = g.connect().await?;
    let calls = AtomicUsize::new(0);
    let info = fleet.describe_endpoint_info(&args.endpoint, &calls).await?;
    let plan = MetricsPlan::for_endpoints(std::slice::from_ref(&info), args.since, period);
    let snap = fleet.fetch_metrics(&plan, SystemTime::now()).await?;
    if g.json {
        return print_json(&MetricsDoc {
            endpoint: &args.endpoint,
            since_secs: args.since.as_secs(),
            period: snap.period,
            start: snap.start,
            end: snap.end,
            queries: snap.queries,
            calls: snap.calls,
            variants: &snap.variants,
            shape: shape_rows(&info, &snap),
            warnings: &snap.warnings,
        });
    }
    for w in &snap.warnings {
        eprintln!("sagedeck: warning: {w}");
    }
    if snap.variants.is_empty() {
        eprintln!("sagedeck: {} has no variants yet", args.endpoint);
        return Ok(());
    }
    print_variants(&snap.variants, info.multi_model)?;
    for row in shape_rows(&info, &snap) {
        print_shape(&row)?;
    }
    Ok(())
}

fn or_dash(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

/// One line per shape: `Serverless V: cold starts …` and `Queue V: backlog …`.
fn print_shape(row: &ShapeRow) -> CmdResult {
    let count = |n: f64| format!("{n:.0}");
    let ms = |x: f64| format!("{x:.1} ms");
    let share = |x: f64| format!("{:.0}%", x * 100.0);
    if let Some(s) = &row.serverless {
        outln!(
            "Serverless {}: cold starts {} (ModelSetupTime {}), overhead p99 {}, concurrency {}, provisioned {}, spillover {}",
            row.variant,
            or_dash(s.cold_starts, count),
            or_dash(s.model_setup_ms, ms),
            or_dash(s.overhead_p99_ms, ms),
            or_dash(s.concurrency_utilization, share),
            or_dash(s.provisioned_utilization, share),
            or_dash(s.spillover_invocations, count),
        )?;
    }
    if let Some(a) = &row.asynchronous {
        let secs = |x: f64| format!("{x:.0} s");
        let starved = match a.backlog_without_capacity {
            Some(true) => "yes",
            Some(false) => "no",
            None => "-",
        };
        outln!(
            "Queue {}: backlog {} ({} per instance), oldest {}, backlog without capacity {}, in backlog {}, processing {}, failures {}, expired {}",
            row.variant,
            or_dash(a.backlog, count),
            or_dash(a.backlog_per_instance, |x| format!("{x:.1}")),
            or_dash(a.oldest_request_s, secs),
            starved,
            or_dash(a.time_in_backlog_ms, ms),
            or_dash(a.total_processing_ms, ms),
            or_dash(a.failures, count),
            or_dash(a.expired, count),
        )?;
    }
    Ok(())
}

/// The per-variant table: latency percentiles of the last complete period with its samples,
/// overhead, rates, and for a multi-model endpoint its cache figures.
fn print_variants(variants: &[VariantMetrics], mme: bool) -> CmdResult {
    let mut headers = vec![
        "VARIANT",
        "P50_MS",
        "P90_MS",
        "P99_MS",
        "SAMPLES",
        "OVERHEAD_P99_MS",
        "INV/MIN",
        "4XX",
        "5XX",
    ];
    if mme {
        headers.extend(["CACHE_HIT", "LOADED/INSTANCE"]);
    }
    let rows = variants
        .iter()
        .map(|v| {
            let s = &v.summary;
            let mut row = vec![
                v.variant.clone(),
                opt_f(s.model_latency_p50_ms, 1),
                opt_f(s.model_latency_p90_ms, 1),
                opt_f(s.model_latency_p99_ms, 1),
                opt_f(s.latest_samples, 0),
                opt_f(s.overhead_latency_p99_ms, 2),
                format!("{:.1}", s.invocations_per_min),
                rate(s.error_rate_4xx),
                rate(s.error_rate_5xx),
            ];
            if mme {
                row.push(if v.multi_model {
                    rate(s.cache_hit_ratio)
                } else {
                    "-".into()
                });
                row.push(opt_f(s.loaded_models_per_instance, 1));
            }
            row
        })
        .collect();
    print_table(&headers, rows)
}
