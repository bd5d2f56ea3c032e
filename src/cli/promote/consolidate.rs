//! `sagedeck promote ENDPOINT --consolidate --canary V` and `--unconsolidate`: keep only the
//! winning variant in a new endpoint configuration (preview, confirmation, compare-and-swap,
//! audit), follow the deployment, and report a failed one with SageMaker's reason; roll back to
//! the kept configuration. The progress is saved beside the plan (`<endpoint>.consolidation`), so
//! the same command after a kill -9 follows the deployment to its end.

use std::path::Path;
use std::time::Duration;

use super::args::PromoteArgs;
use crate::aws::promote::consolidate::{ConsolidationPlan, ConsolidationState, load_consolidation};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_PROMOTION, Exit};
use crate::cli::output::{approve, outln, print_json};

/// Longest wait for a deployment to end.
const DEPLOY_TIMEOUT: Duration = Duration::from_secs(3600);

fn print_preview(plan: &ConsolidationPlan) -> CmdResult {
    let p = plan.preview();
    outln!("Consolidate {}:", plan.endpoint)?;
    outln!("  before  config {}", plan.from_config)?;
    for (n, m, w) in &plan.before {
        outln!("          {n}  model {m}  weight {w}")?;
    }
    let a = &p["after"]["variants"][0];
    outln!(
        "  after   config {} (new; {} is kept for rollback)",
        plan.to_config,
        plan.from_config
    )?;
    outln!(
        "          {}  model {}  {} x {}  weight 1",
        plan.winner,
        a["model"].as_str().unwrap_or("-"),
        a["instance_type"].as_str().unwrap_or("-"),
        a["instance_count"]
    )
}

/// Prints the outcome; exit 0 when done or rolled back, 7 when the deployment failed.
fn outcome(g: &GlobalArgs, state: &ConsolidationState) -> CmdResult {
    if g.json {
        print_json(state)?;
    }
    match state.phase.as_str() {
        "done" if g.json => Ok(()),
        "done" => outln!(
            "{} now serves only {} (config {}); {} is kept: --unconsolidate rolls back to it",
            state.endpoint,
            state.winner,
            state.to_config,
            state.from_config
        ),
        "rolled_back" if g.json => Ok(()),
        "rolled_back" => outln!("{} is back on config {}", state.endpoint, state.from_config),
        _ => Err(Exit::new(
            EXIT_PROMOTION,
            format!(
                "consolidation failed: {}",
                state.failure.as_deref().unwrap_or("unknown state")
            ),
        )),
    }
}

/// The variant `--consolidate` keeps: `--canary`, else the one variant holding all the traffic.
/// Refused (exit 6, nothing sent) unless the endpoint is InService with that variant at 100 %;
/// a variant it does not have is invalid input (exit 2).
async fn consolidation_winner(fleet: &crate::aws::Fleet, args: &PromoteArgs) -> Result<String, Exit> {
    let info = fleet.endpoint(&args.endpoint).await?;
    let refuse = |why: String| Exit::refused(format!("refused: {why} (nothing was sent)"));
    if info.status != "InService" {
        return Err(refuse(format!(
            "{} is {}; consolidation starts only when it is InService",
            info.name, info.status
        )));
    }
    let total: f64 = info.variants.iter().map(|v| v.current_weight).sum();
    let holds_all = |w: f64| total > 0.0 && w >= total - 1e-6;
    let shares: Vec<String> = info
        .variants
        .iter()
        .map(|v| {
            format!(
                "{} {:.0}%",
                v.name,
                100.0 * v.current_weight / total.max(f64::MIN_POSITIVE)
            )
        })
        .collect();
    let winner = match &args.canary {
        Some(c) => c.clone(),
        None => match info.variants.iter().find(|v| holds_all(v.current_weight)) {
            Some(v) => v.name.clone(),
            None => {
                return Err(refuse(format!(
                    "no variant of {} holds 100% of its traffic ({}); promote one to 100 first",
                    info.name,
                    shares.join(", ")
                )));
            }
        },
    };
    match info.variant(&winner) {
        None => Err(Exit::usage(format!("{} has no variant {winner}", info.name))),
        Some(v) if !holds_all(v.current_weight) => Err(refuse(format!(
            "{winner} does not hold 100% of {}'s traffic ({}); promote it to 100 first",
            info.name,
            shares.join(", ")
        ))),
        Some(_) => Ok(winner),
    }
}

/// Runs `promote --consolidate` / `--unconsolidate`; `path` is the consolidation state file.
pub async fn run(g: &GlobalArgs, args: &PromoteArgs, path: &Path) -> CmdResult {
    let poll = Duration::from_millis(args.poll_ms);
    let saved = load_consolidation(path);
    let fleet = g.connect().await?;
    if let Some(s) = saved
        .clone()
        .filter(|s| matches!(s.phase.as_str(), "updating" | "rolling_back"))
    {
        eprintln!(
            "sagedeck: resuming: {} was {} ({} → {})",
            s.endpoint, s.phase, s.from_config, s.to_config
        );
        let state = fleet.finish_consolidation(s, path, poll, DEPLOY_TIMEOUT).await?;
        return outcome(g, &state);
    }
    if args.unconsolidate {
        let Some(state) = saved.filter(|s| s.phase == "done") else {
            return Err(Exit::usage(format!(
                "no finished consolidation of {} to roll back",
                args.endpoint
            )));
        };
        let audited = g.audited(&fleet).await?;
        let state = (fleet.unconsolidate(state, &audited, g.reason.clone(), path, poll, DEPLOY_TIMEOUT)).await?;
        return outcome(g, &state);
    }
    let winner = consolidation_winner(&fleet, args).await?;
    let plan = fleet.plan_consolidation(&args.endpoint, &winner).await?;
    if !g.json {
        print_preview(&plan)?;
    }
    approve(args.yes, &format!("Consolidate {}?", plan.endpoint), "consolidate")?;
    let audited = g.audited(&fleet).await?;
    let state = (fleet.consolidate(&plan, &audited, g.reason.clone(), path, poll, DEPLOY_TIMEOUT)).await?;
    outcome(g, &state)
}
