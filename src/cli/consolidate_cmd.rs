//! `sagedeck promote ENDPOINT --consolidate --canary V` and `--unconsolidate`: keep only the
//! winning variant in a new endpoint configuration (preview, confirmation, compare-and-swap,
//! audit), follow the deployment, and report a failed one with SageMaker's reason; roll back to
//! the kept configuration. The progress is saved beside the plan (`<endpoint>.consolidation`), so
//! the same command after a kill -9 follows the deployment to its end.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use super::output::print_json;
use super::promote_cmd::PromoteArgs;
use super::{EXIT_OK, EXIT_PROMOTION, EXIT_REFUSED, GlobalArgs, report, usage};
use crate::aws::consolidate::{ConsolidationPlan, ConsolidationState, load_consolidation};
use crate::aws::guard::GuardError;

/// Longest wait for a deployment to end.
const DEPLOY_TIMEOUT: Duration = Duration::from_secs(3600);

fn guard_exit(e: &GuardError) -> i32 {
    match e {
        GuardError::Aws(a) => report(a),
        other => {
            eprintln!("sagedeck: {other}");
            EXIT_REFUSED
        }
    }
}

fn print_preview(plan: &ConsolidationPlan) {
    let p = plan.preview();
    println!("Consolidate {}:", plan.endpoint);
    println!("  before  config {}", plan.from_config);
    for (n, m, w) in &plan.before {
        println!("          {n}  model {m}  weight {w}");
    }
    let a = &p["after"]["variants"][0];
    println!(
        "  after   config {} (new; {} is kept for rollback)",
        plan.to_config, plan.from_config
    );
    println!(
        "          {}  model {}  {} x {}  weight 1",
        plan.winner,
        a["model"].as_str().unwrap_or("-"),
        a["instance_type"].as_str().unwrap_or("-"),
        a["instance_count"]
    );
}

fn confirmed(endpoint: &str) -> bool {
    eprint!("Consolidate {endpoint}? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes" | "YES")
}

/// Prints the outcome; exit 0 when done or rolled back, 7 when the deployment failed.
fn outcome(g: &GlobalArgs, state: &ConsolidationState) -> i32 {
    if g.json {
        print_json(state);
    }
    match state.phase.as_str() {
        "done" => {
            if !g.json {
                println!(
                    "{} now serves only {} (config {}); {} is kept: --unconsolidate rolls back to it",
                    state.endpoint, state.winner, state.to_config, state.from_config
                );
            }
            EXIT_OK
        }
        "rolled_back" => {
            if !g.json {
                println!("{} is back on config {}", state.endpoint, state.from_config);
            }
            EXIT_OK
        }
        _ => {
            eprintln!(
                "sagedeck: consolidation failed: {}",
                state.failure.as_deref().unwrap_or("unknown state")
            );
            EXIT_PROMOTION
        }
    }
}

/// The variant `--consolidate` keeps: `--canary`, else the one variant holding all the traffic.
/// Refused (exit 6, nothing sent) unless the endpoint is InService with that variant at 100 %;
/// a variant it does not have is invalid input (exit 2).
async fn consolidation_winner(fleet: &crate::aws::Fleet, args: &PromoteArgs) -> Result<String, i32> {
    let info = fleet.endpoint(&args.endpoint).await.map_err(|e| report(&e))?;
    let refuse = |why: String| {
        eprintln!("sagedeck: refused: {why} (nothing was sent)");
        EXIT_REFUSED
    };
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
        None => Err(usage(format!("{} has no variant {winner}", info.name))),
        Some(v) if !holds_all(v.current_weight) => Err(refuse(format!(
            "{winner} does not hold 100% of {}'s traffic ({}); promote it to 100 first",
            info.name,
            shares.join(", ")
        ))),
        Some(_) => Ok(winner),
    }
}

/// Runs `promote --consolidate` / `--unconsolidate`; `path` is the consolidation state file.
pub async fn run(g: &GlobalArgs, args: &PromoteArgs, path: &Path) -> i32 {
    let poll = Duration::from_millis(args.poll_ms);
    let saved = load_consolidation(path);
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    if let Some(s) = saved
        .clone()
        .filter(|s| matches!(s.phase.as_str(), "updating" | "rolling_back"))
    {
        eprintln!(
            "sagedeck: resuming: {} was {} ({} → {})",
            s.endpoint, s.phase, s.from_config, s.to_config
        );
        return match fleet.finish_consolidation(s, path, poll, DEPLOY_TIMEOUT).await {
            Ok(state) => outcome(g, &state),
            Err(e) => guard_exit(&e),
        };
    }
    if args.unconsolidate {
        let Some(state) = saved.filter(|s| s.phase == "done") else {
            return usage(format!("no finished consolidation of {} to roll back", args.endpoint));
        };
        let audited = match g.audited(&fleet).await {
            Ok(a) => a,
            Err(code) => return code,
        };
        return match fleet
            .unconsolidate(state, &audited, g.reason.clone(), path, poll, DEPLOY_TIMEOUT)
            .await
        {
            Ok(state) => outcome(g, &state),
            Err(e) => guard_exit(&e),
        };
    }
    let winner = match consolidation_winner(&fleet, args).await {
        Ok(w) => w,
        Err(code) => return code,
    };
    let plan = match fleet.plan_consolidation(&args.endpoint, &winner).await {
        Ok(p) => p,
        Err(e) => return report(&e),
    };
    if !g.json {
        print_preview(&plan);
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            return usage("not applied: pass --yes to consolidate without a terminal to confirm on");
        }
        if !confirmed(&plan.endpoint) {
            eprintln!("sagedeck: not applied");
            return EXIT_OK;
        }
    }
    let audited = match g.audited(&fleet).await {
        Ok(a) => a,
        Err(code) => return code,
    };
    match fleet
        .consolidate(&plan, &audited, g.reason.clone(), path, poll, DEPLOY_TIMEOUT)
        .await
    {
        Ok(state) => outcome(g, &state),
        Err(e) => guard_exit(&e),
    }
}
