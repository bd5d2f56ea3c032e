//! `sagedeck weights ENDPOINT [--set VARIANT=WEIGHT ...] [--instances VARIANT=N ...] [--expect V=W,...]
//! [--yes] [--wait]`: every change is compare-and-swap (against `--expect`, else against what was
//! read at the start) and audited (intent before sending, result after).

use crate::format::bar;
use std::time::Duration;

use clap::Args;
use serde_json::json;

use crate::aws::Fleet;
use crate::aws::change::guard::{Applied, Expectation, GuardError, lost_race};
use crate::aws::change::weights::{WeightChange, WeightPlan, merge_instance_args, parse_weight_args, plan_weights};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::fleet::view::print_variants;
use crate::cli::output::{approve, outln, pct, print_json, print_table, weight};

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
pub fn print_plan(plan: &WeightPlan) -> CmdResult {
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
    print_table(&["VARIANT", "WEIGHT", "TRAFFIC", "INSTANCES", "SPLIT"], rows)
}

/// Runs `weights`.
pub async fn run(g: &GlobalArgs, args: WeightsArgs) -> CmdResult {
    // Parse before any request: invalid input sends nothing.
    let (changes, expected) = parse_request(&args).map_err(Exit::usage)?;
    let (fleet, info) = g.connect_to(&args.endpoint).await?;
    if changes.is_empty() {
        return print_endpoint(g, &info);
    }
    let plan = plan_weights(&info, &changes).map_err(Exit::usage)?;
    if info.status != "InService" {
        let (endpoint, status) = (info.name.clone(), info.status.clone());
        return Err(GuardError::NotInService { endpoint, status }.into());
    }
    let expect = expected.unwrap_or_else(|| Expectation::from_info(&info));
    let audited = g.audited(&fleet).await?;
    if !g.json {
        print_plan(&plan)?;
    }
    approve(args.yes, &format!("Apply this change to {}?", plan.endpoint), "apply")?;
    let applied = match fleet
        .apply_weights_guarded(&plan, &expect, &audited, "weights.set", g.reason.clone())
        .await
    {
        Ok(a) => a,
        Err(e) => return Err(refused(g, &plan, e)?),
    };
    if let Some(w) = &applied.audit_warning {
        eprintln!("sagedeck: warning: the change was sent but its result could not be logged: {w}");
    }
    if !g.json {
        eprintln!("sagedeck: {} is Updating", plan.endpoint);
    }
    let finished = if args.wait {
        Some(wait_applied(g, &fleet, &plan, args.wait_timeout).await?)
    } else {
        None
    };
    print_applied(g, &plan, &applied, finished)
}

/// The endpoint and its variants (`weights` without a change).
fn print_endpoint(g: &GlobalArgs, info: &EndpointInfo) -> CmdResult {
    if g.json {
        print_json(&json!({ "endpoint": info.name, "status": info.status, "variants": info.variants }))
    } else {
        outln!("{}  {}", info.name, info.status)?;
        print_variants(info)
    }
}

/// What was applied: the plan and the request id in JSON, else the endpoint once InService
/// (when waited for).
fn print_applied(g: &GlobalArgs, plan: &WeightPlan, applied: &Applied, finished: Option<EndpointInfo>) -> CmdResult {
    if g.json {
        print_json(&json!({
            "plan": plan,
            "applied": true,
            "request_id": applied.request_id,
            "final": finished,
        }))
    } else if let Some(i) = finished {
        outln!("{} is InService", i.name)?;
        print_variants(&i)
    } else {
        Ok(())
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

/// Why the guarded change was not applied (with `--json`, the differences on stdout first):
/// `Ok(exit)` to return, Err when the output closed.
fn refused(g: &GlobalArgs, plan: &WeightPlan, e: GuardError) -> Result<Exit, Exit> {
    if g.json
        && let GuardError::Changed { differences, .. } | GuardError::LostRace { differences, .. } = &e
    {
        print_json(&json!({ "plan": plan, "applied": false, "differences": differences }))?;
    }
    Ok(e.into())
}

/// Follows the endpoint to InService, printing each new state; a settled endpoint that does
/// not hold what was asked lost a race with another change (exit 6).
async fn wait_applied(
    g: &GlobalArgs,
    fleet: &Fleet,
    plan: &WeightPlan,
    timeout_secs: u64,
) -> Result<EndpointInfo, Exit> {
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
    let settled = waited?;
    // Settled: it must hold what was asked, else another change landed meanwhile.
    if let Some(lost) = lost_race(plan, &settled, true) {
        return Err(Exit::refused(lost));
    }
    Ok(settled)
}
