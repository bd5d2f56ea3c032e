//! `sagedeck metrics ENDPOINT [--since 1h]`: latency percentiles, invocations and error rates of
//! each variant from CloudWatch, and for multi-model endpoints the cache hit ratio and loaded
//! model count, in one GetMetricData plan.

use std::sync::atomic::AtomicUsize;
use std::time::{Duration, SystemTime};

use clap::Args;
use serde::Serialize;

use crate::aws::observe::metrics::{MetricsPlan, VariantMetrics};
use crate::cli::args::{GlobalArgs, parse_since};
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::output::{opt_f, pct, print_json, print_table};

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
    warnings: &'a [String],
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
    print_variants(&snap.variants, info.multi_model)
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
