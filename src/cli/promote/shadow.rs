//! `sagedeck shadow ENDPOINT [--since 1h] [--period 60] [--json]`: the promotion judge on the
//! production variant against its shadow (Mann-Whitney per metric; inconclusive = hold), and
//! `--promote`: the shadow made the production variant through a new endpoint configuration
//! (preview, confirmation, compare-and-swap, audit; the old configuration kept, a failed
//! deployment reported with SageMaker's reason). Promoting takes a pass verdict unless `--force`.

use std::time::Duration;

use clap::Args;
use serde_json::json;

use crate::aws::judge::compare::{JudgeConfig, Outcome};
use crate::aws::promote::plan::{default_plan_dir, plan_path};
use crate::aws::promote::shadow::ShadowReport;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_PROMOTION, Exit};
use crate::cli::output::{approve, outln, pct, print_json, say};

/// Longest wait for the promotion's deployment to end.
const DEPLOY_TIMEOUT: Duration = Duration::from_secs(3600);

/// `sagedeck shadow`.
#[derive(Debug, Args)]
pub struct ShadowArgs {
    /// Endpoint name (one with a shadow variant).
    pub endpoint: String,
    /// How far back to judge (30m, 1h, 6h).
    #[arg(long, default_value = "1h", value_parser = crate::format::parse_duration)]
    pub since: Duration,
    /// Seconds per point of the judged series (60: SageMaker publishes per minute; 10, 20 or 30
    /// for high-resolution data such as the sandbox's).
    #[arg(long, default_value_t = 60)]
    pub period: i32,
    /// Periods with data each side needs before the judge says anything.
    #[arg(long, default_value_t = 5)]
    pub min_points: usize,
    /// Make the shadow the production variant (a new endpoint configuration; the old one kept).
    #[arg(long)]
    pub promote: bool,
    /// Promote whatever the judge says (it takes a pass otherwise).
    #[arg(long, requires = "promote")]
    pub force: bool,
    /// Apply without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Milliseconds between looks at the deployment.
    #[arg(long, default_value_t = 2000, hide = true)]
    pub poll_ms: u64,
}

/// The report, metric by metric.
fn print_report(r: &ShadowReport) -> CmdResult {
    say(format!(
        "{}: shadow {} against production {} ({} of production requests copied)",
        r.endpoint,
        r.shadow,
        r.production,
        pct(r.sampled_share)
    ))?;
    for v in &r.verdicts {
        say(format!("  {}", v.summary()))?;
    }
    let what = match r.outcome {
        Outcome::Pass => "pass: the shadow is no worse than production",
        Outcome::Fail => "fail: the shadow is worse than production",
        Outcome::Inconclusive => "inconclusive: too little data to tell (hold)",
    };
    outln!("Verdict: {what}")
}

/// Runs `shadow`.
pub async fn run(g: &GlobalArgs, args: ShadowArgs) -> CmdResult {
    let cfg = JudgeConfig {
        period: args.period.max(1),
        min_points: args.min_points.max(1),
        ..JudgeConfig::default()
    };
    let fleet = g.connect().await?;
    let report = fleet.judge_shadow(&args.endpoint, args.since, &cfg).await?;
    if !args.promote {
        return if g.json {
            print_json(&report)
        } else {
            print_report(&report)
        };
    }
    if !g.json {
        print_report(&report)?;
    }
    if report.outcome != Outcome::Pass && !args.force {
        if g.json {
            print_json(&json!({ "report": report, "promoted": false }))?;
        }
        return Err(Exit::new(
            EXIT_PROMOTION,
            format!(
                "not promoted: the judge says {} (--force promotes anyway)",
                report.outcome.as_str()
            ),
        ));
    }
    let plan = fleet.plan_shadow_promotion(&args.endpoint).await?;
    if !g.json {
        say(format!(
            "Promote {}: config {} → {} (new, shadow {} as the only production variant; {} is kept)",
            plan.endpoint, plan.from_config, plan.to_config, plan.winner, plan.from_config
        ))?;
    }
    approve(
        args.yes,
        &format!("Promote the shadow of {}?", plan.endpoint),
        "promote",
    )?;
    let audited = g.audited(&fleet).await?;
    let path = default_plan_dir()
        .map(|d| plan_path(&d, &args.endpoint).with_extension("shadow-promotion"))
        .ok_or_else(|| Exit::usage("no state directory (set HOME or XDG_STATE_HOME)"))?;
    let timing = (Duration::from_millis(args.poll_ms), DEPLOY_TIMEOUT);
    let state = fleet
        .promote_shadow(&plan, &audited, g.reason.clone(), &path, timing)
        .await?;
    if g.json {
        print_json(&json!({ "report": report, "promoted": state.phase == "done", "state": state }))?;
    }
    match state.phase.as_str() {
        "done" if g.json => Ok(()),
        "done" => say(format!(
            "{} now serves {} (config {}); {} is kept",
            state.endpoint, state.winner, state.to_config, state.from_config
        )),
        _ => Err(Exit::new(
            EXIT_PROMOTION,
            format!(
                "shadow promotion failed: {}",
                state.failure.as_deref().unwrap_or("unknown state")
            ),
        )),
    }
}
