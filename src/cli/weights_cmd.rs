//! `sagedeck weights ENDPOINT [--set VARIANT=WEIGHT ...] [--instances VARIANT=N ...] [--expect V=W,...]
//! [--yes] [--wait]`: every change is compare-and-swap (against `--expect`, else against what was
//! read at the start) and audited (intent before sending, result after).

use crate::format::bar;
use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use clap::Args;
use serde_json::json;

use super::endpoints_cmd::print_variants;
use super::output::{pct, print_json, print_table, weight};
use super::{EXIT_OK, EXIT_REFUSED, GlobalArgs, report, usage};
use crate::aws::Fleet;
use crate::aws::change::guard::{Applied, Expectation, GuardError, lost_race};
use crate::aws::change::weights::{WeightChange, WeightPlan, merge_instance_args, parse_weight_args, plan_weights};
use crate::aws::endpoints::inventory::EndpointInfo;

/// `sagedeck weights`.
#[derive(Debug, Args)]
pub struct WeightsArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// New weight of a variant: `VARIANT=WEIGHT` or `VARIANT=NN%` (repeatable).
    #[arg(long = "set", value_name = "VARIANT=WEIGHT")]
    pub set: Vec<String>,
    /// New instance count of a variant: `VARIANT=COUNT` (repeatable).
    #[arg(long = "instances", value_name = "VARIANT=COUNT")]
    pub instances: Vec<String>,
    /// The weights you saw (`Stable=9,Canary=1`): refuse, sending nothing, unless the endpoint is
    /// still so (current and desired) right before sending. Default: as read at the start.
    #[arg(long = "expect", value_name = "VARIANT=WEIGHT,...")]
    pub expect: Vec<String>,
    /// Apply without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Follow the endpoint through Updating until InService.
    #[arg(long)]
    pub wait: bool,
    /// Give up waiting after this many seconds.
    #[arg(long, default_value_t = 900)]
    pub wait_timeout: u64,
}

/// Prints a plan's before → after split.
pub fn print_plan(plan: &WeightPlan) {
    let rows = plan
        .before
        .iter()
        .zip(&plan.after)
        .map(|(b, a)| {
            vec![
                b.variant.clone(),
                format!("{} → {}", weight(b.weight), weight(a.weight)),
                format!("{} → {}", pct(b.share), pct(a.share)),
                format!("{} → {}", b.instances, a.instances),
                format!("{} → {}", bar(b.share, 10), bar(a.share, 10)),
            ]
        })
        .collect();
    print_table(&["VARIANT", "WEIGHT", "TRAFFIC", "INSTANCES", "SPLIT"], rows);
}

fn confirm(plan: &WeightPlan) -> bool {
    eprint!("Apply this change to {}? [y/N] ", plan.endpoint);
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes" | "YES")
}

/// Runs `weights`.
pub async fn run(g: &GlobalArgs, args: WeightsArgs) -> i32 {
    // Parse before any request: invalid input sends nothing.
    let (changes, expected) = match parse_request(&args) {
        Ok(r) => r,
        Err(e) => return usage(e),
    };
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    let info = match fleet.endpoint(&args.endpoint).await {
        Ok(i) => i,
        Err(e) => return report(&e),
    };
    if changes.is_empty() {
        print_endpoint(g, &info);
        return EXIT_OK;
    }
    let plan = match plan_weights(&info, &changes) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    if info.status != "InService" {
        let (endpoint, status) = (info.name.clone(), info.status.clone());
        eprintln!("sagedeck: {}", GuardError::NotInService { endpoint, status });
        return EXIT_REFUSED;
    }
    let expect = expected.unwrap_or_else(|| Expectation::from_info(&info));
    let audited = match g.audited(&fleet).await {
        Ok(a) => a,
        Err(code) => return code,
    };
    if let Err(code) = approve(g, &args, &plan) {
        return code;
    }
    let applied = match fleet
        .apply_weights_guarded(&plan, &expect, &audited, "weights.set", g.reason.clone())
        .await
    {
        Ok(a) => a,
        Err(e) => return refused(g, &plan, e),
    };
    if let Some(w) = &applied.audit_warning {
        eprintln!("sagedeck: warning: the change was sent but its result could not be logged: {w}");
    }
    if !g.json {
        eprintln!("sagedeck: {} is Updating", plan.endpoint);
    }
    let finished = if args.wait {
        match wait_applied(g, &fleet, &plan, args.wait_timeout).await {
            Ok(i) => Some(i),
            Err(code) => return code,
        }
    } else {
        None
    };
    print_applied(g, &plan, &applied, finished);
    EXIT_OK
}

/// The endpoint and its variants (`weights` without a change).
fn print_endpoint(g: &GlobalArgs, info: &EndpointInfo) {
    if g.json {
        print_json(&json!({ "endpoint": info.name, "status": info.status, "variants": info.variants }));
    } else {
        println!("{}  {}", info.name, info.status);
        print_variants(info);
    }
}

/// Shows the plan and asks to apply it, unless `--yes`: Err with the exit code when it is not
/// to be applied (no terminal to ask on, or not confirmed).
fn approve(g: &GlobalArgs, args: &WeightsArgs, plan: &WeightPlan) -> Result<(), i32> {
    if !g.json {
        print_plan(plan);
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            return Err(usage(
                "not applied: pass --yes to apply without a terminal to confirm on",
            ));
        }
        if !confirm(plan) {
            eprintln!("sagedeck: not applied");
            return Err(EXIT_OK);
        }
    }
    Ok(())
}

/// What was applied: the plan and the request id in JSON, else the endpoint once InService
/// (when waited for).
fn print_applied(g: &GlobalArgs, plan: &WeightPlan, applied: &Applied, finished: Option<EndpointInfo>) {
    if g.json {
        print_json(&json!({
            "plan": plan,
            "applied": true,
            "request_id": applied.request_id,
            "final": finished,
        }));
    } else if let Some(i) = finished {
        println!("{} is InService", i.name);
        print_variants(&i);
    }
}

/// The changes asked (`--set`, `--instances`) and the `--expect`ed state, parsed before any
/// request.
fn parse_request(args: &WeightsArgs) -> Result<(Vec<WeightChange>, Option<Expectation>), String> {
    let mut changes = parse_weight_args(&args.set)?;
    merge_instance_args(&mut changes, &args.instances)?;
    let expected = if args.expect.is_empty() {
        None
    } else {
        Some(Expectation::parse(&args.endpoint, &args.expect)?)
    };
    Ok((changes, expected))
}

/// Prints why the guarded change was not applied and returns its exit code.
fn refused(g: &GlobalArgs, plan: &WeightPlan, e: GuardError) -> i32 {
    if let GuardError::Aws(e) = &e {
        return report(e);
    }
    if g.json
        && let GuardError::Changed { differences, .. } | GuardError::LostRace { differences, .. } = &e
    {
        print_json(&json!({ "plan": plan, "applied": false, "differences": differences }));
    }
    eprintln!("sagedeck: {e}");
    EXIT_REFUSED
}

/// Follows the endpoint to InService, printing each new state; a settled endpoint that does
/// not hold what was asked lost a race with another change (exit 6).
async fn wait_applied(
    g: &GlobalArgs,
    fleet: &Fleet,
    plan: &WeightPlan,
    timeout_secs: u64,
) -> Result<EndpointInfo, i32> {
    let quiet = g.json;
    let mut last = String::new();
    let waited = fleet
        .wait_in_service(
            &plan.endpoint,
            Duration::from_secs(timeout_secs),
            Duration::from_secs(2),
            |i| {
                let line = format!(
                    "{} {}",
                    i.status,
                    i.variants
                        .iter()
                        .map(|v| format!("{}:{}→{}", v.name, weight(v.current_weight), weight(v.desired_weight)))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                if !quiet && line != last {
                    eprintln!("  {line}");
                    last = line;
                }
            },
        )
        .await;
    let settled = waited.map_err(|e| report(&e))?;
    // Settled: it must hold what was asked, else another change landed meanwhile.
    if let Some(lost) = lost_race(plan, &settled, true) {
        eprintln!("sagedeck: {lost}");
        return Err(EXIT_REFUSED);
    }
    Ok(settled)
}
