//! The arguments of `sagedeck promote`: a new plan and its gates, the saved plan's `--status`,
//! `--resume`, `--rollback`, `--abandon`, and consolidation.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::format::parse_bake;

/// `sagedeck promote`.
#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// The variant to promote (with `--consolidate`: the variant to keep; default the one
    /// holding all the traffic).
    #[arg(long, required_unless_present_any = ["status", "resume", "rollback", "abandon", "consolidate", "unconsolidate"])]
    pub canary: Option<String>,
    /// The variant to compare with (default: the other variant with the most weight).
    #[arg(long)]
    pub baseline: Option<String>,
    /// Canary shares in percent, increasing.
    #[arg(long, default_value = "10,25,50,100")]
    pub steps: String,
    /// Bake time of each step (`10s`, `5m`).
    #[arg(long, default_value = "5m", value_parser = parse_bake)]
    pub bake: Duration,
    /// Largest canary/baseline ModelLatency p99 ratio.
    #[arg(long, default_value_t = 1.2)]
    pub max_p99_ratio: f64,
    /// Largest canary 5XX rate (0.01 = 1%).
    #[arg(long = "max-5xx-rate", default_value_t = 0.01)]
    pub max_5xx_rate: f64,
    /// Largest canary 4XX rate (not gated unless given).
    #[arg(long = "max-4xx-rate")]
    pub max_4xx_rate: Option<f64>,
    /// Invocations needed in a bake window for any verdict (fewer: "no verdict", not a pass).
    #[arg(long, default_value_t = 100)]
    pub min_invocations: u64,
    /// Also judge each bake statistically: canary and baseline per-period series (ModelLatency
    /// p99 and p50, 5XX and 4XX rates) compared with a Mann-Whitney U test and a Hodges-Lehmann
    /// shift; a metric that regresses significantly fails the step, one with too little data
    /// holds the plan. Saved with the plan (a resumed plan keeps it).
    #[arg(long)]
    pub judge: bool,
    /// The judge's significance level.
    #[arg(long, default_value_t = 0.05, requires = "judge")]
    pub judge_alpha: f64,
    /// Periods with data each side needs before the judge says anything.
    #[arg(long, default_value_t = 5, requires = "judge")]
    pub judge_min_points: usize,
    /// Latency shift the judge tolerates, as a fraction of the baseline's median.
    #[arg(long, default_value_t = 0.10, requires = "judge")]
    pub judge_latency_tolerance: f64,
    /// Error-rate shift the judge tolerates, absolute (0.005 = 0.5 percentage points).
    #[arg(long, default_value_t = 0.005, requires = "judge")]
    pub judge_rate_tolerance: f64,
    /// Seconds per point of the judge's series: 60 (SageMaker's per-minute metrics), or 10, 20,
    /// 30 for high-resolution data (the sandbox).
    #[arg(long, default_value_t = 60, requires = "judge")]
    pub judge_period: i32,
    /// A CloudWatch alarm (metric or composite) that gates the plan: it does not start while
    /// the alarm is in ALARM, and a step fails when it enters ALARM during its bake. Repeatable;
    /// saved with the plan.
    #[arg(long = "alarm", value_name = "NAME")]
    pub alarms: Vec<String>,
    /// Keep only the canary: a new endpoint config with its variant alone (settings copied, live
    /// instance count), UpdateEndpoint, followed to InService; the old config is kept. Needs the
    /// canary at 100%. Run again after an interruption to follow the deployment to its end.
    #[arg(long, conflicts_with_all = ["status", "resume", "rollback", "abandon"])]
    pub consolidate: bool,
    /// End the plan at 100 % without its last step, consolidation (by default, once the canary
    /// holds 100 % and bakes clean, the plan keeps only the canary in a new endpoint config,
    /// the old config kept for rollback; `--rollback` of a consolidating plan goes back to it).
    #[arg(long, conflicts_with_all = ["status", "resume", "rollback", "abandon", "consolidate", "unconsolidate"])]
    pub no_consolidate: bool,
    /// Roll a finished consolidation back: UpdateEndpoint to the config it replaced.
    #[arg(long, conflicts_with_all = ["status", "resume", "rollback", "abandon", "consolidate"])]
    pub unconsolidate: bool,
    /// Send this many invocations per second during each bake, alternating canary and baseline
    /// (TargetVariant), at most 32 in flight; measured client-side and judged with `--judge`.
    #[arg(long, value_name = "RPS")]
    pub load: Option<f64>,
    /// Body of the load's invocations (default `{"inputs": "sagedeck bake load"}`).
    #[arg(long, value_name = "FILE", requires = "load")]
    pub load_body: Option<PathBuf>,
    /// Content-Type of the load's invocations.
    #[arg(long, default_value = "application/json", requires = "load")]
    pub load_content_type: String,
    /// Go step to step by itself; a failed gate rolls back.
    #[arg(long, conflicts_with = "manual")]
    pub auto: bool,
    /// Ask before each step; a failed gate stops and asks (the default).
    #[arg(long)]
    pub manual: bool,
    /// Answer yes to "next step?" in manual mode.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Show the endpoint's plan and its timeline.
    #[arg(long, conflicts_with_all = ["resume", "rollback"])]
    pub status: bool,
    /// Resume the endpoint's interrupted or held plan.
    #[arg(long, conflicts_with = "rollback")]
    pub resume: bool,
    /// Roll the endpoint's plan back to its starting weights.
    #[arg(long)]
    pub rollback: bool,
    /// Start even when the team's audit trail (`--audit-log-group`) says another sagedeck runs a
    /// plan on the endpoint (that lock is advisory).
    #[arg(long)]
    pub force: bool,
    /// Forget the endpoint's unfinished plan, leaving the weights as they are (when it can
    /// neither resume nor roll back because the weights were changed outside it).
    #[arg(long, conflicts_with_all = ["status", "resume", "rollback"])]
    pub abandon: bool,
    /// Seconds to wait after each bake before reading its metrics (CloudWatch publishes
    /// SageMaker's metrics a minute or two late: use 120 against AWS; the sandbox needs none).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=900))]
    pub metrics_delay: u64,
    /// How often to look at the endpoint while it updates, in milliseconds.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(50..=60_000))]
    pub poll_ms: u64,
}
