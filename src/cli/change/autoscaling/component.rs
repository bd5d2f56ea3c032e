//! `sagedeck autoscaling ENDPOINT --inference-component IC`: the component's scalable target,
//! policies and the scale-to-zero doctor (without a change); `--check`, the doctor alone (exit 8
//! when a piece is missing or wrong); `--min N --max M`, `--target-invocations-per-copy N` and
//! `--scale-to-zero` change it: planned against what was read (invalid input sends nothing,
//! exit 2), shown before → after, confirmed (or `--yes`), compare-and-swapped and audited by the
//! fleet layer (exit 6 when the component's autoscaling changed since).

use serde_json::json;

use super::args::AutoscalingArgs;
use crate::aws::change::guard::GuardError;
use crate::aws::scaling::change::{ScalingSnapshot, before_after, policy_text};
use crate::aws::scaling::plan::change_lines;
use crate::aws::scaling::scope::ScalingScope;
use crate::aws::scaling::zero::doctor::{PieceReport, PieceState, doctor};
use crate::aws::scaling::zero::plan::{ComponentRequest, plan_component};
use crate::aws::scaling::zero::read::ComponentScaling;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_CHECK_FAILED, Exit};
use crate::cli::output::{approve, outln, print_json};
use crate::format::escape_line;

/// The variant-only flags, refused with `--inference-component`.
fn refuse_variant_flags(args: &AutoscalingArgs) -> Result<(), Exit> {
    let given = [
        ("--target-invocations", args.target_invocations.is_some()),
        ("--target-p99-ms", args.target_p99_ms.is_some()),
        (
            "--target-provisioned-utilization",
            args.target_provisioned_utilization.is_some(),
        ),
        ("--scale-in-cooldown", args.scale_in_cooldown.is_some()),
        ("--scale-out-cooldown", args.scale_out_cooldown.is_some()),
        ("--remove-policy", args.remove_policy.is_some()),
        ("--instances", args.instances.is_some()),
    ];
    let named = crate::aws::scaling::plan::ChangeRequest {
        policy_name: args.policy_name.clone(),
        ..Default::default()
    };
    crate::aws::scaling::plan::check_limits(&named).map_err(Exit::usage)?;
    match given.iter().find(|(_, on)| *on) {
        Some((flag, _)) => Err(Exit::usage(format!(
            "{flag} is for a variant; with --inference-component use --min/--max (copies), --target-invocations-per-copy or --scale-to-zero (copies now: sagedeck components ENDPOINT --set-copies IC=N)"
        ))),
        None => Ok(()),
    }
}

/// The change the flags ask for.
fn request(args: &AutoscalingArgs) -> ComponentRequest {
    ComponentRequest {
        min: args.min,
        max: args.max,
        target_invocations_per_copy: args.target_invocations_per_copy,
        policy_name: args.policy_name.clone(),
        scale_to_zero: args.scale_to_zero,
    }
}

/// Runs `autoscaling --inference-component IC`: a change, the doctor, or what is there.
pub async fn run(g: &GlobalArgs, args: AutoscalingArgs) -> CmdResult {
    refuse_variant_flags(&args)?;
    let component = args.inference_component.clone().unwrap_or_default();
    let fleet = g.connect().await?;
    let state = fleet.component_scaling(&args.endpoint, &component).await?;
    if args.is_change() {
        return apply(g, &args, &fleet, state).await;
    }
    let reports = doctor(&state);
    let findings = reports.iter().filter(|r| r.is_finding()).count();
    if g.json {
        print_json(&json!({"component": state, "doctor": reports, "findings": findings}))?;
    } else {
        if !args.check {
            print_component(&state)?;
        }
        print_doctor(&state, &reports)?;
    }
    if args.check && findings > 0 {
        return Err(Exit::code(EXIT_CHECK_FAILED));
    }
    Ok(())
}

/// The component's copies, scalable target and policies.
fn print_component(s: &ComponentScaling) -> CmdResult {
    let n = |c: Option<i32>| c.map(|c| c.to_string()).unwrap_or_else(|| "-".into());
    outln!(
        "{} on {} / {}: {}, copies {} desired, {} current",
        escape_line(&s.component),
        escape_line(&s.endpoint),
        escape_line(&s.variant),
        escape_line(&s.status),
        n(s.desired_copies),
        n(s.current_copies)
    )?;
    match s.bounds {
        Some((min, max)) => outln!("scalable target: copies {min}-{max}")?,
        None => outln!("scalable target: none")?,
    }
    for p in &s.policies {
        outln!(
            "policy {}: {}",
            escape_line(&p.spec.policy_name),
            escape_line(&policy_text(&p.spec))
        )?;
    }
    Ok(())
}

/// The doctor's report: one line per piece, with what to do for each finding.
pub fn print_doctor(s: &ComponentScaling, reports: &[PieceReport]) -> CmdResult {
    let findings = reports.iter().filter(|r| r.is_finding()).count();
    match findings {
        0 => outln!("scale to zero: {}: every piece in place", escape_line(&s.component))?,
        n => outln!(
            "scale to zero: {}: {n} of {} pieces missing or wrong",
            escape_line(&s.component),
            reports.len()
        )?,
    }
    for r in reports {
        let mark = match r.state {
            PieceState::Ok => "✓",
            PieceState::Missing => "✗ missing",
            PieceState::Wrong => "✗ wrong",
        };
        outln!("{mark} {}: {}", r.piece.label(), escape_line(&r.detail))?;
        if r.is_finding() {
            outln!("    fix: {}", escape_line(&r.fix))?;
        }
    }
    Ok(())
}

/// Plans, shows, confirms and applies a change to the component's autoscaling.
async fn apply(
    g: &GlobalArgs,
    args: &AutoscalingArgs,
    fleet: &crate::aws::config::Fleet,
    state: ComponentScaling,
) -> CmdResult {
    let changes = plan_component(&request(args), &state).map_err(Exit::usage)?;
    let seen = ScalingSnapshot::of_component(&state);
    let scope = ScalingScope::Component {
        endpoint: state.endpoint.clone(),
        component: state.component.clone(),
    };
    let audited = g.audited(fleet).await?;
    if !g.json {
        for l in change_lines(&state.component, &changes, &seen) {
            outln!("{}", escape_line(&l))?;
        }
    }
    approve(
        args.yes,
        &format!("Apply these changes to {}?", state.component),
        "apply",
    )?;
    let planned: Vec<_> = changes
        .iter()
        .map(|c| {
            let (before, after) = before_after(c, &seen);
            json!({"change": c, "before": before, "after": after})
        })
        .collect();
    let out = |applied: bool| json!({"endpoint": state.endpoint, "inference_component": state.component, "changes": planned, "applied": applied});
    match fleet
        .apply_scaling_scoped(&scope, &changes, &seen, &audited, g.reason.clone())
        .await
    {
        Ok(ids) => {
            if g.json {
                let mut v = out(true);
                v["request_ids"] = json!(ids);
                print_json(&v)?;
            } else {
                eprintln!(
                    "sagedeck: applied {} change(s) to {}",
                    changes.len(),
                    escape_line(&state.component)
                );
            }
            Ok(())
        }
        Err(e) => {
            if g.json
                && let GuardError::Changed { differences, .. } = &e
            {
                let mut v = out(false);
                v["differences"] = json!(differences);
                print_json(&v)?;
            }
            Err(e.into())
        }
    }
}
