//! `sagedeck autoscaling ENDPOINT --variant V` changes: `--min N --max M`, `--target-invocations
//! N`, `--target-p99-ms N`, `--scale-in-cooldown`/`--scale-out-cooldown`, `--remove-policy NAME`,
//! `--instances N`. Planned against what was read (invalid input sends nothing, exit 2), shown
//! before → after, confirmed (or `--yes`), compare-and-swapped and audited by the fleet layer
//! (refused with every difference when the variant's autoscaling changed since, exit 6).

use serde_json::json;

use super::args::AutoscalingArgs;
use crate::aws::change::guard::GuardError;
use crate::aws::scaling::change::{ScalingSnapshot, before_after};
use crate::aws::scaling::check::EndpointScaling;
use crate::aws::scaling::plan::{ChangeRequest, change_lines, check_limits, plan};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::output::{approve, outln, print_json};

/// The variant to change: `--variant`, or the endpoint's only one.
fn pick_variant(args: &AutoscalingArgs, state: &EndpointScaling) -> Result<String, String> {
    let names: Vec<&str> = state.info.variants.iter().map(|v| v.name.as_str()).collect();
    match (&args.variant, names.as_slice()) {
        (Some(v), _) if names.contains(&v.as_str()) => Ok(v.clone()),
        (Some(v), _) => Err(format!(
            "{} has no variant {v} (variants: {})",
            state.info.name,
            names.join(", ")
        )),
        (None, [only]) => Ok(only.to_string()),
        (None, _) => Err(format!(
            "--variant is needed: {} has variants {}",
            state.info.name,
            names.join(", ")
        )),
    }
}

/// The change the flags ask for.
fn request(args: &AutoscalingArgs) -> ChangeRequest {
    ChangeRequest {
        min: args.min,
        max: args.max,
        target_invocations: args.target_invocations,
        target_p99_ms: args.target_p99_ms,
        target_provisioned_utilization: args.target_provisioned_utilization,
        scale_in_cooldown: args.scale_in_cooldown,
        scale_out_cooldown: args.scale_out_cooldown,
        policy_name: args.policy_name.clone(),
        remove_policy: args.remove_policy.clone(),
        instances: args.instances,
    }
}

/// Runs an autoscaling change.
pub async fn run(g: &GlobalArgs, args: AutoscalingArgs) -> CmdResult {
    check_limits(&request(&args)).map_err(Exit::usage)?;
    let fleet = g.connect().await?;
    let state = fleet.endpoint_scaling(&args.endpoint).await?;
    let variant = pick_variant(&args, &state).map_err(Exit::usage)?;
    let changes = plan(&request(&args), &state, &variant).map_err(Exit::usage)?;
    let seen = ScalingSnapshot::of(&state, &variant);
    let audited = g.audited(&fleet).await?;
    let lines = change_lines(&variant, &changes, &seen);
    if !g.json {
        for l in &lines {
            outln!("{l}")?;
        }
    }
    let question = format!("Apply these changes to {}?", args.endpoint);
    approve(args.yes, &question, "apply")?;
    let planned: Vec<_> = changes
        .iter()
        .map(|c| {
            let (before, after) = before_after(c, &seen);
            json!({"change": c, "before": before, "after": after})
        })
        .collect();
    match fleet
        .apply_scaling_guarded(&args.endpoint, &variant, &changes, &seen, &audited, g.reason.clone())
        .await
    {
        Ok(ids) => {
            if g.json {
                print_json(
                    &json!({"endpoint": args.endpoint, "variant": variant, "changes": planned, "applied": true, "request_ids": ids}),
                )?;
            } else {
                eprintln!(
                    "sagedeck: applied {} change(s) to {} {variant}",
                    changes.len(),
                    args.endpoint
                );
            }
            Ok(())
        }
        Err(e) => {
            if g.json
                && let GuardError::Changed { differences, .. } = &e
            {
                print_json(
                    &json!({"endpoint": args.endpoint, "variant": variant, "changes": planned, "applied": false, "differences": differences}),
                )?;
            }
            Err(e.into())
        }
    }
}
