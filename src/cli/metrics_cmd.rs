//! `sagedeck metrics ENDPOINT [--since 1h]`: latency percentiles, invocations and error rates of
//! each variant from CloudWatch, and for multi-model endpoints the cache hit ratio and loaded
//! model count, in one GetMetricData plan.

use crate::format::parse_duration;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, SystemTime};

use clap::Args;
use serde::Serialize;

use super::output::{opt_f, pct, print_json, print_table};
use super::{EXIT_OK, GlobalArgs, report, usage};
use crate::aws::observe::metrics::{MetricsPlan, VariantMetrics};

/// Longest `--since`: CloudWatch keeps 1-minute data for 15 days.
const MAX_SINCE: Duration = Duration::from_secs(15 * 86_400);

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

/// A `--since` window: a duration between 1 minute and 15 days.
pub fn parse_since(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d < Duration::from_secs(60) || d > MAX_SINCE {
        return Err(format!("--since must be between 1m and 15d (got {text})"));
    }
    Ok(d)
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
pub async fn run(g: &GlobalArgs, args: MetricsArgs) -> i32 {
    let period = match args.period {
        None => MetricsPlan::period_for(args.since),
        Some(p) if p >= 60 && p % 60 == 0 && p <= 86_400 => p as i32,
        Some(p) => {
            return usage(format!(
                "--period must be a multiple of 60 between 60 and 86400 (got {p})"
            ));
        }
    };
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    let calls = AtomicUsize::new(0);
    let info = match fleet.describe_endpoint_info(&args.endpoint, &calls).await {
        Ok(i) => i,
        Err(e) => return report(&e),
    };
    let plan = MetricsPlan::for_endpoints(std::slice::from_ref(&info), args.since, period);
    let snap = match fleet.fetch_metrics(&plan, SystemTime::now()).await {
        Ok(s) => s,
        Err(e) => return report(&e),
    };
    if g.json {
        print_json(&MetricsDoc {
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
        return EXIT_OK;
    }
    for w in &snap.warnings {
        eprintln!("sagedeck: warning: {w}");
    }
    if snap.variants.is_empty() {
        eprintln!("sagedeck: {} has no variants yet", args.endpoint);
        return EXIT_OK;
    }
    print_variants(&snap.variants, info.multi_model);
    EXIT_OK
}

/// The per-variant table: latency percentiles of the last complete period with its samples,
/// overhead, rates, and for a multi-model endpoint its cache figures.
fn print_variants(variants: &[VariantMetrics], mme: bool) {
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
    print_table(&headers, rows);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_accepts_units_and_sums() {
        let s = |t: &str| parse_since(t).map(|d| d.as_secs());
        assert_eq!(s("90s"), Ok(90));
        assert_eq!(s("15m"), Ok(900));
        assert_eq!(s("1h"), Ok(3600));
        assert_eq!(s("24h"), Ok(86_400));
        assert_eq!(s("2d"), Ok(172_800));
        assert_eq!(s("1h30m"), Ok(5400));
        for bad in ["", "1", "h", "1x", "-1h", "1.5h", "30s", "16d", "99999999999999999999d"] {
            assert!(parse_since(bad).is_err(), "{bad}");
        }
    }
}
