//! `sagedeck promote ENDPOINT --canary VARIANT [--baseline VARIANT] --steps 10,25,50,100 --bake 5m
//! [gates] [--auto | --manual] [--yes]`, and `--status`, `--resume`, `--rollback` of the
//! endpoint's persisted plan. Ctrl-C during a plan asks hold or roll back on a terminal; headless,
//! it holds (the state is saved) and says how to resume or roll back.

mod drive;

use crate::format::parse_bake;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::output::print_json;
use super::promote_view::{phase_text, print_state};
use super::{EXIT_OK, EXIT_REFUSED, GlobalArgs, usage};
use crate::aws::Fleet;
use crate::aws::bake_load::LoadConfig;
use crate::aws::guard::Audited;
use crate::aws::judge::JudgeConfig;
use crate::aws::plan_lock::{PlanLock, PlanLockError, driven_by};
use crate::aws::promote::{
    Gates, Mode, PlanState, PromotionSpec, default_plan_dir, load_alarms, load_judge, load_state, parse_steps,
    plan_path,
};
use crate::aws::promote_run::{PromotionRunner, RunnerOptions};
use drive::{drive, promote_error};

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

fn state_path(endpoint: &str) -> Result<PathBuf, i32> {
    default_plan_dir()
        .map(|d| plan_path(&d, endpoint))
        .ok_or_else(|| usage("no state directory (set HOME or XDG_STATE_HOME)"))
}

/// Takes the plan's driver lock; refused (exit 6) while another process drives the plan,
/// naming it.
fn lock_plan(endpoint: &str, path: &Path) -> Result<PlanLock, i32> {
    PlanLock::acquire(path).map_err(|e| match e {
        PlanLockError::Held(_) => {
            eprintln!(
                "sagedeck: refused: {e} ({endpoint}); a plan has one driver at a time: act there, or once it ends (nothing was sent)"
            );
            EXIT_REFUSED
        }
        PlanLockError::Io(_) => usage(e),
    })
}

/// The fleet and the audit log (with the principal), or the exit code after saying why not.
async fn connect_audited(g: &GlobalArgs) -> Result<(Fleet, Audited), i32> {
    let fleet = g.connect().await?;
    let audited = g.audited(&fleet).await?;
    Ok((fleet, audited))
}

/// Refuses to start a plan while one of its gate alarms is in ALARM (or does not exist).
async fn refuse_under_firing_alarms(fleet: &Fleet, alarms: &[String]) -> Result<(), i32> {
    let states = match fleet.alarm_states(alarms).await {
        Ok(s) => s,
        Err(e) => return Err(usage(format!("cannot read the gate alarms: {e}"))),
    };
    if let Some(a) = states.iter().find(|a| a.firing()) {
        eprintln!(
            "sagedeck: refused: alarm {} is in ALARM ({}); the plan starts once it is OK (nothing was sent)",
            a.name, a.reason
        );
        return Err(EXIT_REFUSED);
    }
    Ok(())
}

/// The bake load from the flags (None without `--load`).
fn load_config(args: &PromoteArgs) -> Result<Option<LoadConfig>, String> {
    let Some(rps) = args.load else {
        return Ok(None);
    };
    if !(rps > 0.0 && rps <= 1000.0) {
        return Err(format!(
            "--load {rps}: give invocations per second above 0 and at most 1000"
        ));
    }
    let body = match &args.load_body {
        Some(p) => std::fs::read(p).map_err(|e| format!("--load-body {}: {e}", p.display()))?,
        None => br#"{"inputs": "sagedeck bake load"}"#.to_vec(),
    };
    Ok(Some(LoadConfig {
        rps,
        body,
        content_type: args.load_content_type.clone(),
    }))
}

/// The judge's thresholds from the flags (None without `--judge`).
fn judge_config(args: &PromoteArgs) -> Result<Option<JudgeConfig>, String> {
    if !args.judge {
        return Ok(None);
    }
    let j = JudgeConfig {
        alpha: args.judge_alpha,
        min_points: args.judge_min_points,
        latency_tolerance: args.judge_latency_tolerance,
        rate_tolerance: args.judge_rate_tolerance,
        period: args.judge_period,
    };
    let valid = j.alpha > 0.0
        && j.alpha < 1.0
        && j.min_points >= 2
        && j.latency_tolerance >= 0.0
        && j.rate_tolerance >= 0.0
        && (matches!(j.period, 10 | 20 | 30) || (j.period >= 60 && j.period % 60 == 0));
    if !valid {
        return Err(
            "--judge-alpha is between 0 and 1, --judge-min-points at least 2, tolerances at least 0, --judge-period 10, 20, 30 or a multiple of 60"
                .into(),
        );
    }
    Ok(Some(j))
}

/// Runs `promote`: `--status`, `--abandon`, `--resume` / `--rollback` of the saved plan, or a new
/// plan; consolidation has its own command.
pub async fn run(g: &GlobalArgs, args: PromoteArgs) -> i32 {
    let path = match state_path(&args.endpoint) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // Everything but --status drives the plan: one process at a time.
    let _driver = match (!args.status).then(|| lock_plan(&args.endpoint, &path)).transpose() {
        Ok(lock) => lock,
        Err(code) => return code,
    };
    if args.consolidate || args.unconsolidate {
        return super::consolidate_cmd::run(g, &args, &path.with_extension("consolidation")).await;
    }
    let existing = match load_state(&path) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    if args.status {
        show_status(g, &args.endpoint, existing.as_ref());
        if let Some(driver) = driven_by(&path).filter(|_| !g.json) {
            eprintln!("sagedeck: {}", PlanLockError::Held(driver));
        }
        return EXIT_OK;
    }
    if args.abandon {
        return abandon(&args.endpoint, existing, &path);
    }
    let opts = match runner_options(&args, &path) {
        Ok(o) => o,
        Err(e) => return usage(e),
    };
    if args.resume || args.rollback {
        return resume(g, &args, existing, path, opts).await;
    }
    start(g, &args, existing, path, opts).await
}

/// `--status`: the saved plan with its timeline, or that there is none.
fn show_status(g: &GlobalArgs, endpoint: &str, existing: Option<&PlanState>) {
    match existing {
        Some(s) if g.json => print_json(s),
        Some(s) => print_state(s),
        None if g.json => print_json(&serde_json::json!({ "endpoint": endpoint, "plan": null })),
        None => eprintln!("sagedeck: no promotion plan for {endpoint}"),
    }
}

/// `--abandon`: forgets the unfinished plan, leaving the weights as they are.
fn abandon(endpoint: &str, existing: Option<PlanState>, path: &Path) -> i32 {
    let Some(state) = existing.filter(|s| !s.phase.is_final()) else {
        return usage(format!("no unfinished promotion plan for {endpoint}"));
    };
    if let Err(e) = std::fs::remove_file(path) {
        return usage(format!("cannot remove {}: {e}", path.display()));
    }
    eprintln!(
        "sagedeck: abandoned plan {} ({} at step {}); the weights are left as they are",
        state.id,
        phase_text(state.phase),
        state.step + 1
    );
    EXIT_OK
}

/// How the plan runs: the judge and the gate alarms from the flags, else those saved with the
/// plan; the bake load, the polling and the metrics delay from the flags.
fn runner_options(args: &PromoteArgs, path: &Path) -> Result<RunnerOptions, String> {
    let judge = match judge_config(args)? {
        Some(j) => Some(j),
        None => load_judge(path),
    };
    Ok(RunnerOptions {
        poll_interval: Duration::from_millis(args.poll_ms),
        metrics_delay: Duration::from_secs(args.metrics_delay),
        judge,
        load: load_config(args)?,
        alarms: if args.alarms.is_empty() {
            load_alarms(path)
        } else {
            args.alarms.clone()
        },
        ..Default::default()
    })
}

/// `--resume` / `--rollback` of the saved, unfinished plan.
async fn resume(
    g: &GlobalArgs,
    args: &PromoteArgs,
    existing: Option<PlanState>,
    path: PathBuf,
    opts: RunnerOptions,
) -> i32 {
    let Some(state) = existing else {
        return usage(format!(
            "no promotion plan for {} to resume or roll back",
            args.endpoint
        ));
    };
    if state.phase.is_final() {
        return usage(format!(
            "the plan {} of {} is already {}; nothing to do",
            state.id,
            args.endpoint,
            phase_text(state.phase)
        ));
    }
    let (fleet, audited) = match connect_audited(g).await {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (runner, tx) = PromotionRunner::from_state(fleet, audited, state, path, opts);
    drive(g, runner, tx, args.yes, args.rollback).await
}

/// A new plan: refused while one is under way or a gate alarm fires, else begun and driven.
async fn start(
    g: &GlobalArgs,
    args: &PromoteArgs,
    existing: Option<PlanState>,
    path: PathBuf,
    opts: RunnerOptions,
) -> i32 {
    if let Some(s) = existing.filter(|s| !s.phase.is_final()) {
        return usage(format!(
            "a plan for {} is already under way ({} at step {}/{}): use --status, --resume or --rollback",
            args.endpoint,
            phase_text(s.phase),
            s.step + 1,
            s.spec.steps.len()
        ));
    }
    let spec = match plan_spec(args) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let (fleet, audited) = match connect_audited(g).await {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Err(code) = refuse_under_firing_alarms(&fleet, &opts.alarms).await {
        return code;
    }
    match PromotionRunner::begin(fleet, audited, spec, g.reason.clone(), path, opts).await {
        Ok((runner, tx)) => drive(g, runner, tx, args.yes, false).await,
        Err(e) => promote_error(&e),
    }
}

/// The plan the flags describe: steps, bake, gates, mode and consolidation.
fn plan_spec(args: &PromoteArgs) -> Result<PromotionSpec, String> {
    let steps = parse_steps(&args.steps)?;
    if args.bake.is_zero() {
        return Err("--bake must be at least 1s".into());
    }
    let rates = [Some(args.max_5xx_rate), args.max_4xx_rate];
    if rates.iter().flatten().any(|r| !(0.0..=1.0).contains(r))
        || args.max_p99_ratio.is_nan()
        || args.max_p99_ratio <= 0.0
    {
        return Err("rates are fractions between 0 and 1 (0.01 = 1%), and --max-p99-ratio must be above 0".into());
    }
    Ok(PromotionSpec {
        endpoint: args.endpoint.clone(),
        canary: args.canary.clone().unwrap_or_default(),
        baseline: args.baseline.clone(),
        steps,
        bake: args.bake,
        gates: Gates {
            max_p99_ratio: args.max_p99_ratio,
            max_5xx_rate: args.max_5xx_rate,
            max_4xx_rate: args.max_4xx_rate,
            min_invocations: args.min_invocations,
        },
        mode: if args.auto { Mode::Auto } else { Mode::Manual },
        consolidate: !args.no_consolidate,
    })
}
