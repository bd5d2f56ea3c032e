//! `sagedeck promote ENDPOINT --canary VARIANT [--baseline VARIANT] --steps 10,25,50,100 --bake 5m
//! [gates] [--auto | --manual] [--yes]`, and `--status`, `--resume`, `--rollback` of the
//! endpoint's persisted plan. Ctrl-C during a plan asks hold or roll back on a terminal; headless,
//! it holds (the state is saved) and says how to resume or roll back.

pub mod args;
pub mod consolidate;
mod drive;
pub mod shadow;
pub mod variants_report;
pub mod view;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::aws::Fleet;
use crate::aws::change::guard::Audited;
use crate::aws::judge::compare::JudgeConfig;
use crate::aws::promote::announce::Announced;
use crate::aws::promote::bake_load::LoadConfig;
use crate::aws::promote::events::RunnerOptions;
use crate::aws::promote::lock::{PlanLock, PlanLockError, driven_by};
use crate::aws::promote::plan::{
    Mode, PlanState, PromotionSpec, default_plan_dir, load_alarms, load_judge, load_state, parse_steps, plan_path,
};
use crate::aws::promote::report::Gates;
use crate::aws::promote::run::PromotionRunner;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::output::{print_json, say};
use args::PromoteArgs;
use drive::drive;
use view::{phase_text, print_state};

fn state_path(endpoint: &str) -> Result<PathBuf, Exit> {
    default_plan_dir()
        .map(|d| plan_path(&d, endpoint))
        .ok_or_else(|| Exit::usage("no state directory (set HOME or XDG_STATE_HOME)"))
}

/// Takes the plan's driver lock; refused (exit 6) while another process drives the plan,
/// naming it.
fn lock_plan(endpoint: &str, path: &Path) -> Result<PlanLock, Exit> {
    PlanLock::acquire(path).map_err(|e| match e {
        PlanLockError::Held(_) => Exit::refused(format!(
            "refused: {e} ({endpoint}); a plan has one driver at a time: act there, or once it ends (nothing was sent)"
        )),
        PlanLockError::Io(_) => Exit::usage(e),
    })
}

/// The fleet and the audit log (with the principal).
async fn connect_audited(g: &GlobalArgs) -> Result<(Fleet, Audited), Exit> {
    let fleet = g.connect().await?;
    let audited = g.audited(&fleet).await?;
    Ok((fleet, audited))
}

/// Refuses to start a plan while one of its gate alarms is in ALARM (or does not exist).
async fn refuse_under_firing_alarms(fleet: &Fleet, alarms: &[String]) -> CmdResult {
    let states =
        (fleet.alarm_states(alarms).await).map_err(|e| Exit::usage(format!("cannot read the gate alarms: {e}")))?;
    if let Some(a) = states.iter().find(|a| a.firing()) {
        return Err(Exit::refused(format!(
            "refused: alarm {} is in ALARM ({}); the plan starts once it is OK (nothing was sent)",
            a.name, a.reason
        )));
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
pub async fn run(g: &GlobalArgs, args: PromoteArgs) -> CmdResult {
    let path = state_path(&args.endpoint)?;
    // Everything but --status drives the plan: one process at a time.
    let _driver = (!args.status).then(|| lock_plan(&args.endpoint, &path)).transpose()?;
    if args.consolidate || args.unconsolidate {
        return consolidate::run(g, &args, &path.with_extension("consolidation")).await;
    }
    let existing = load_state(&path).map_err(Exit::usage)?;
    if args.status {
        // The saved plan is shown even when the team's trail cannot be read (said after).
        let announced = announced_elsewhere(g, &args.endpoint, existing.as_ref()).await;
        let now = crate::format::now_epoch();
        let heard = announced.as_ref().ok().and_then(Option::as_ref);
        show_status(
            g,
            &args.endpoint,
            existing.as_ref(),
            heard.map(|a| view::announced_json(a, now)),
        )?;
        if let Some(driver) = driven_by(&path).filter(|_| !g.json) {
            eprintln!("sagedeck: {}", PlanLockError::Held(driver));
        }
        if let Some(a) = announced?.filter(|_| !g.json) {
            say(format!("{} (announced in the team's audit trail)", a.line(now)))?;
        }
        return Ok(());
    }
    if args.abandon {
        return abandon(&args.endpoint, existing, &path);
    }
    let opts = runner_options(&args, &path).map_err(Exit::usage)?;
    if args.resume || args.rollback {
        return resume(g, &args, existing, path, opts).await;
    }
    start(g, &args, existing, path, opts).await
}

/// What the team's audit trail (`--audit-log-group`) says of a plan on `endpoint` that is
/// running elsewhere (not `ours`): who, where, at which step, and whether it still runs.
async fn announced_elsewhere(
    g: &GlobalArgs,
    endpoint: &str,
    ours: Option<&PlanState>,
) -> Result<Option<Announced>, Exit> {
    let Some(group) = g.audit_log_group() else {
        return Ok(None);
    };
    let fleet = g.connect().await?;
    let now = crate::format::now_epoch();
    let announced = fleet.announced_plan(&group, endpoint, now).await?;
    Ok(announced.filter(|a| ours.is_none_or(|s| s.id != a.plan)))
}

/// `--status`: the saved plan with its timeline, or that there is none; `--json` adds the plan
/// announced elsewhere under `announced` (null when none).
fn show_status(
    g: &GlobalArgs,
    endpoint: &str,
    existing: Option<&PlanState>,
    announced: Option<serde_json::Value>,
) -> CmdResult {
    let announced = announced.unwrap_or(serde_json::Value::Null);
    match existing {
        Some(s) if g.json => {
            let mut v = serde_json::to_value(s).map_err(|e| Exit::usage(e.to_string()))?;
            if let Some(o) = v.as_object_mut() {
                o.insert("announced".into(), announced);
            }
            print_json(&v)
        }
        Some(s) => print_state(s),
        None if g.json => {
            print_json(&serde_json::json!({ "endpoint": endpoint, "plan": null, "announced": announced }))
        }
        None => {
            eprintln!("sagedeck: no promotion plan for {endpoint}");
            Ok(())
        }
    }
}

/// `--abandon`: forgets the unfinished plan, leaving the weights as they are.
fn abandon(endpoint: &str, existing: Option<PlanState>, path: &Path) -> CmdResult {
    let Some(state) = existing.filter(|s| !s.phase.is_final()) else {
        return Err(Exit::usage(format!("no unfinished promotion plan for {endpoint}")));
    };
    std::fs::remove_file(path).map_err(|e| Exit::usage(format!("cannot remove {}: {e}", path.display())))?;
    eprintln!(
        "sagedeck: abandoned plan {} ({} at step {}); the weights are left as they are",
        state.id,
        phase_text(state.phase),
        state.step + 1
    );
    Ok(())
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
) -> CmdResult {
    let Some(state) = existing else {
        return Err(Exit::usage(format!(
            "no promotion plan for {} to resume or roll back",
            args.endpoint
        )));
    };
    if state.phase.is_final() {
        return Err(Exit::usage(format!(
            "the plan {} of {} is already {}; nothing to do",
            state.id,
            args.endpoint,
            phase_text(state.phase)
        )));
    }
    let (fleet, audited) = connect_audited(g).await?;
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
) -> CmdResult {
    if let Some(s) = existing.filter(|s| !s.phase.is_final()) {
        return Err(Exit::usage(format!(
            "a plan for {} is already under way ({} at step {}/{}): use --status, --resume or --rollback",
            args.endpoint,
            phase_text(s.phase),
            s.step + 1,
            s.spec.steps.len()
        )));
    }
    let spec = plan_spec(args).map_err(Exit::usage)?;
    if !args.force
        && let Some(a) = announced_elsewhere(g, &args.endpoint, None).await?
    {
        let line = a.line(crate::format::now_epoch());
        if a.blocks() {
            return Err(Exit::refused(format!(
                "{line}: not starting a second plan on {}; nothing was sent (the lock is advisory: --force starts anyway)",
                args.endpoint
            )));
        }
        eprintln!(
            "sagedeck: {line}: starting anyway (the lock is advisory and does not hold for a plan that stopped beating)"
        );
    }
    let (fleet, audited) = connect_audited(g).await?;
    refuse_under_firing_alarms(&fleet, &opts.alarms).await?;
    let (runner, tx) = PromotionRunner::begin(fleet, audited, spec, g.reason.clone(), path, opts).await?;
    drive(g, runner, tx, args.yes, false).await
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
