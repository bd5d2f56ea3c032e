//! `sagedeck autoscaling ENDPOINT` without a change: scalable targets, policies and activities,
//! and `--check` / `--check-request FILE.json` (exit 8 when something is wrong).

use serde_json::json;

use super::args::AutoscalingArgs;
use crate::aws::scaling::check::ScalingCheck;
use crate::aws::scaling::spec::PolicySpec;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_CHECK_FAILED, Exit};
use crate::cli::fleet::view::print_scaling;
use crate::cli::output::{outln, print_json};
use crate::format::time_text;

/// Shows the endpoint's autoscaling, its activities and a one-line summary of the check.
pub async fn run(g: &GlobalArgs, args: AutoscalingArgs) -> CmdResult {
    let (fleet, info) = g.connect_to(&args.endpoint).await?;
    let variants: Vec<String> = info.variants.iter().map(|v| v.name.clone()).collect();
    let activities = fleet.scaling_activities(&info.name, &variants, 20).await?;
    // Every policy is checked when shown (a failed check does not hide the rest).
    let check = fleet.check_scaling(&info.name, None).await;
    let findings = check.as_ref().map(|c| c.findings.clone()).unwrap_or_default();
    if g.json {
        return print_json(
            &json!({ "endpoint": info.name, "autoscaling": info.autoscaling, "scaling_activities": activities, "findings": findings }),
        );
    }
    if info.autoscaling.is_empty() {
        outln!("{} has no autoscaling registered.", info.name)?;
    } else {
        print_scaling(&info.autoscaling)?;
    }
    for a in &activities {
        outln!("{}  {}  {}  ({})", time_text(a.start), a.status, a.description, a.cause)?;
    }
    match (&check, findings.len()) {
        (Err(e), _) => outln!("check: not run ({e})"),
        (Ok(_), 0) => outln!("check: no findings"),
        (Ok(_), n) => outln!(
            "check: {n} finding{} — details: sagedeck autoscaling {} --check",
            if n == 1 { "" } else { "s" },
            info.name
        ),
    }
}

/// Largest `--check-request` file: a PutScalingPolicy request is a few kilobytes.
const MAX_REQUEST_BYTES: u64 = 64 * 1024;

/// Reads and parses a `--check-request` file (at most [`MAX_REQUEST_BYTES`]).
fn read_request(path: &std::path::Path) -> Result<PolicySpec, String> {
    use std::io::Read;
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(MAX_REQUEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_REQUEST_BYTES {
        return Err(format!(
            "{}: larger than {} KiB; a PutScalingPolicy request is a few KiB",
            path.display(),
            MAX_REQUEST_BYTES / 1024
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
    PolicySpec::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `--check` / `--check-request`: the findings, exit 8 when there are any.
pub async fn run_check(g: &GlobalArgs, args: &AutoscalingArgs) -> CmdResult {
    let request = (args.check_request.as_deref().map(read_request).transpose()).map_err(Exit::usage)?;
    let fleet = g.connect().await?;
    let check = fleet.check_scaling(&args.endpoint, request.as_ref()).await?;
    if g.json {
        print_json(&check)?;
    } else {
        print_check(&check, request.is_some())?;
    }
    if check.findings.is_empty() {
        Ok(())
    } else {
        Err(Exit::code(EXIT_CHECK_FAILED))
    }
}

/// Prints findings: what is wrong, what will happen, the fix.
pub fn print_check(check: &ScalingCheck, request: bool) -> CmdResult {
    let what = if request {
        "the request".to_string()
    } else {
        format!(
            "{} polic{}, {} scalable target{}",
            check.policies_checked,
            if check.policies_checked == 1 { "y" } else { "ies" },
            check.targets_checked,
            if check.targets_checked == 1 { "" } else { "s" }
        )
    };
    match check.findings.len() {
        0 => outln!("{}: {what} checked: no findings", check.endpoint)?,
        n => outln!(
            "{}: {what} checked: {n} finding{}",
            check.endpoint,
            if n == 1 { "" } else { "s" }
        )?,
    }
    for f in &check.findings {
        let whose = if f.policy.is_empty() {
            format!("{} (scalable target)", f.variant)
        } else {
            format!("{} / {}", f.variant, f.policy)
        };
        outln!("✗ {whose}: {}", f.problem)?;
        outln!("    what happens: {}", f.consequence)?;
        outln!("    fix: {}", f.fix)?;
    }
    Ok(())
}
