//! `sagedeck variants-report FILE`: the variant log written by `mcp serve --invocation-log` and
//! the console, compared per endpoint × variant (see `aws::judge::variants_report`).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::aws::invoke::log::read;
use crate::aws::judge::compare::JudgeConfig;
use crate::aws::judge::variants_report::{ReportOptions, VariantsReport, report};
use crate::cli::args::{GlobalArgs, parse_since};
use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::cli::output::{opt_f, outln, pct, print_json, print_table, say, say_err};

/// `sagedeck variants-report`.
#[derive(Debug, Args)]
pub struct VariantsReportArgs {
    /// The variant log (JSON lines; the console's default: the state directory's
    /// invocations.jsonl).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Only this endpoint.
    #[arg(long)]
    pub endpoint: Option<String>,
    /// Only calls of the last DURATION (`15m`, `1h`, `2d`).
    #[arg(long, value_parser = parse_since)]
    pub since: Option<Duration>,
    /// The variant the others are judged against (default: the one with the most calls).
    #[arg(long, value_name = "VARIANT")]
    pub baseline: Option<String>,
    /// Seconds per point of the judge's series (calls are grouped in periods).
    #[arg(long, default_value_t = 60)]
    pub period: i32,
    /// The judge's significance level.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Periods with calls each side needs before the judge says anything.
    #[arg(long, default_value_t = 5)]
    pub min_points: usize,
}

/// Runs `variants-report`.
pub async fn run(g: &GlobalArgs, args: VariantsReportArgs) -> CmdResult {
    if args.period < 1 || !(args.alpha > 0.0 && args.alpha < 1.0) || args.min_points < 2 {
        return Err(Exit::usage(
            "--period is at least 1 second, --alpha between 0 and 1, --min-points at least 2",
        ));
    }
    let log = read(&args.file).map_err(|e| Exit::new(EXIT_AWS, e))?;
    if let Some(first) = log.first_bad_line {
        say_err(format!(
            "sagedeck: skipped {} line(s) of {} that are not invocation records or are out of range (first: line {first})",
            log.bad_lines,
            args.file.display()
        ));
    }
    let opts = ReportOptions {
        endpoint: args.endpoint.clone(),
        since_epoch: args.since.map(|d| crate::format::now_epoch() - d.as_secs_f64()),
        baseline: args.baseline.clone(),
        judge: JudgeConfig {
            alpha: args.alpha,
            min_points: args.min_points,
            period: args.period,
            ..JudgeConfig::default()
        },
    };
    let r = report(&log, &opts);
    if let Some(b) = &args.baseline {
        for e in r.endpoints.iter().filter(|e| e.baseline.is_none()) {
            say_err(format!(
                "sagedeck: {} has no variant {b} in the log; its variants are not judged",
                e.endpoint
            ));
        }
    }
    if g.json {
        return print_json(&r);
    }
    if r.endpoints.is_empty() {
        say_err(format!("sagedeck: no invocations in {} match", args.file.display()));
        return Ok(());
    }
    print_human(&r)
}

/// The table, then each judged variant's verdicts.
fn print_human(r: &VariantsReport) -> CmdResult {
    let mut rows = Vec::new();
    for e in &r.endpoints {
        for v in &e.variants {
            let judge = match (v.baseline, v.outcome) {
                (true, _) => "baseline".to_string(),
                (false, Some(o)) => o.as_str().to_string(),
                (false, None) => "-".to_string(),
            };
            rows.push(vec![
                e.endpoint.clone(),
                v.variant.clone(),
                v.count.to_string(),
                v.errors.to_string(),
                pct(v.error_rate),
                opt_f(v.p50_ms, 1),
                opt_f(v.p90_ms, 1),
                opt_f(v.p99_ms, 1),
                judge,
            ]);
        }
    }
    print_table(
        &[
            "ENDPOINT", "VARIANT", "CALLS", "ERRORS", "ERROR%", "P50 MS", "P90 MS", "P99 MS", "JUDGE",
        ],
        rows,
    )?;
    for e in &r.endpoints {
        let Some(base) = &e.baseline else { continue };
        for v in e.variants.iter().filter(|v| v.outcome.is_some()) {
            outln!()?;
            let outcome = v.outcome.map_or("-", |o| o.as_str());
            say(format!("{} {} vs {base}: {outcome}", e.endpoint, v.variant))?;
            for m in &v.verdicts {
                say(format!("  {}", m.summary()))?;
            }
        }
    }
    outln!()?;
    say(format!(
        "{} calls; the judge compares {} s periods (latency of successful calls, error rate) with a Mann-Whitney U test",
        r.records, r.period_seconds
    ))
}
