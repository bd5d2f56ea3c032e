//! `sagedeck autoscaling ENDPOINT --variant V` changes: `--min N --max M`, `--target-invocations
//! N`, `--target-p99-ms N`, `--scale-in-cooldown`/`--scale-out-cooldown`, `--remove-policy NAME`,
//! `--instances N`. Planned against what was read (invalid input sends nothing, exit 2), shown
//! before → after, confirmed (or `--yes`), compare-and-swapped and audited by the fleet layer
//! (refused with every difference when the variant's autoscaling changed since, exit 6).

use std::io::{BufRead, IsTerminal, Write};

use serde_json::json;

use super::autoscaling_cmd::AutoscalingArgs;
use super::output::print_json;
use super::{EXIT_OK, EXIT_REFUSED, GlobalArgs, report, usage};
use crate::aws::guard::GuardError;
use crate::aws::scaling_change::{ScalingSnapshot, before_after};
use crate::aws::scaling_check::EndpointScaling;
use crate::aws::scaling_plan::{ChangeRequest, change_lines, check_limits, plan};

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
        scale_in_cooldown: args.scale_in_cooldown,
        scale_out_cooldown: args.scale_out_cooldown,
        policy_name: args.policy_name.clone(),
        remove_policy: args.remove_policy.clone(),
        instances: args.instances,
    }
}

fn confirm(endpoint: &str) -> bool {
    eprint!("Apply these changes to {endpoint}? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes" | "YES")
}

/// Runs an autoscaling change.
pub async fn run(g: &GlobalArgs, args: AutoscalingArgs) -> i32 {
    if let Err(e) = check_limits(&request(&args)) {
        return usage(e);
    }
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    let state = match fleet.endpoint_scaling(&args.endpoint).await {
        Ok(s) => s,
        Err(e) => return report(&e),
    };
    let variant = match pick_variant(&args, &state) {
        Ok(v) => v,
        Err(e) => return usage(e),
    };
    let changes = match plan(&request(&args), &state, &variant) {
        Ok(c) => c,
        Err(e) => return usage(e),
    };
    let seen = ScalingSnapshot::of(&state, &variant);
    let audited = match g.audited(&fleet).await {
        Ok(a) => a,
        Err(code) => return code,
    };
    let lines = change_lines(&variant, &changes, &seen);
    if !g.json {
        for l in &lines {
            println!("{l}");
        }
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            return usage("not applied: pass --yes to apply without a terminal to confirm on");
        }
        if !confirm(&args.endpoint) {
            eprintln!("sagedeck: not applied");
            return EXIT_OK;
        }
    }
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
                );
            } else {
                eprintln!(
                    "sagedeck: applied {} change(s) to {} {variant}",
                    changes.len(),
                    args.endpoint
                );
            }
            EXIT_OK
        }
        Err(GuardError::Aws(e)) => report(&e),
        Err(e) => {
            if g.json
                && let GuardError::Changed { differences, .. } = &e
            {
                print_json(
                    &json!({"endpoint": args.endpoint, "variant": variant, "changes": planned, "applied": false, "differences": differences}),
                );
            }
            eprintln!("sagedeck: {e}");
            EXIT_REFUSED
        }
    }
}
