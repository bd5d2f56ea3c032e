//! `sagedeck autoscaling ENDPOINT`: scalable targets, policies and activities; `--check` lints
//! them and `--check-request FILE.json` lints a PutScalingPolicy request before anyone sends it
//! (exit 8 when something is wrong); `--variant V` with `--min/--max`, `--target-invocations`,
//! `--target-p99-ms`, cooldowns, `--remove-policy` or `--instances` changes them (see
//! `autoscaling_change.rs`).

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::endpoints_cmd::print_scaling;
use super::output::print_json;
use super::{EXIT_CHECK_FAILED, EXIT_OK, GlobalArgs, report, usage};
use crate::aws::scaling_check::ScalingCheck;
use crate::aws::scaling_spec::PolicySpec;
use crate::format::time_text;

/// `sagedeck autoscaling ENDPOINT`.
#[derive(Debug, Args, Default)]
pub struct AutoscalingArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// Lint every policy and scalable target of the endpoint (exit 8 when something is wrong).
    #[arg(long)]
    pub check: bool,
    /// Lint a PutScalingPolicy request (boto3's keyword arguments as JSON) against the endpoint
    /// before sending it; nothing is sent (exit 8 when something is wrong).
    #[arg(long, value_name = "FILE.json")]
    pub check_request: Option<PathBuf>,
    /// The variant to change.
    #[arg(long)]
    pub variant: Option<String>,
    /// MinCapacity (registers or updates the scalable target; with --max).
    #[arg(long)]
    pub min: Option<i32>,
    /// MaxCapacity (registers or updates the scalable target; with --min).
    #[arg(long)]
    pub max: Option<i32>,
    /// Target tracking on SageMakerVariantInvocationsPerInstance (invocations per instance per minute).
    #[arg(long, value_name = "N")]
    pub target_invocations: Option<f64>,
    /// Target tracking on the variant's ModelLatency p99, in milliseconds (metric math, AWS/SageMaker).
    #[arg(long, value_name = "MS")]
    pub target_p99_ms: Option<f64>,
    /// Scale-in cooldown in seconds (of the policy written, or of --policy-name).
    #[arg(long, value_name = "SECONDS")]
    pub scale_in_cooldown: Option<i32>,
    /// Scale-out cooldown in seconds (of the policy written, or of --policy-name).
    #[arg(long, value_name = "SECONDS")]
    pub scale_out_cooldown: Option<i32>,
    /// Name of the policy to write (default: sagedeck-invocations / sagedeck-p99-latency).
    #[arg(long, value_name = "NAME")]
    pub policy_name: Option<String>,
    /// Delete this scaling policy of the variant.
    #[arg(long, value_name = "NAME")]
    pub remove_policy: Option<String>,
    /// Set the variant's desired instance count now (within the target's min/max).
    #[arg(long, value_name = "N")]
    pub instances: Option<i32>,
    /// Apply without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

impl AutoscalingArgs {
    /// Whether the arguments ask for a change (read-only refuses those).
    pub fn is_change(&self) -> bool {
        self.min.is_some()
            || self.max.is_some()
            || self.target_invocations.is_some()
            || self.target_p99_ms.is_some()
            || self.scale_in_cooldown.is_some()
            || self.scale_out_cooldown.is_some()
            || self.remove_policy.is_some()
            || self.instances.is_some()
    }
}

/// Runs `autoscaling`.
pub async fn run(g: &GlobalArgs, args: AutoscalingArgs) -> i32 {
    if args.is_change() {
        return super::autoscaling_change::run(g, args).await;
    }
    if args.check || args.check_request.is_some() {
        return run_check(g, &args).await;
    }
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    let info = match fleet.endpoint(&args.endpoint).await {
        Ok(i) => i,
        Err(e) => return report(&e),
    };
    let variants: Vec<String> = info.variants.iter().map(|v| v.name.clone()).collect();
    let activities = match fleet.scaling_activities(&info.name, &variants, 20).await {
        Ok(a) => a,
        Err(e) => return report(&e),
    };
    // Every policy is checked when shown (a failed check does not hide the rest).
    let check = fleet.check_scaling(&info.name, None).await;
    let findings = check.as_ref().map(|c| c.findings.clone()).unwrap_or_default();
    if g.json {
        print_json(
            &json!({ "endpoint": info.name, "autoscaling": info.autoscaling, "scaling_activities": activities, "findings": findings }),
        );
        return EXIT_OK;
    }
    if info.autoscaling.is_empty() {
        println!("{} has no autoscaling registered.", info.name);
    } else {
        print_scaling(&info.autoscaling);
    }
    for a in &activities {
        println!("{}  {}  {}  ({})", time_text(a.start), a.status, a.description, a.cause);
    }
    match (&check, findings.len()) {
        (Err(e), _) => println!("check: not run ({e})"),
        (Ok(_), 0) => println!("check: no findings"),
        (Ok(_), n) => println!(
            "check: {n} finding{} — details: sagedeck autoscaling {} --check",
            if n == 1 { "" } else { "s" },
            info.name
        ),
    }
    EXIT_OK
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

async fn run_check(g: &GlobalArgs, args: &AutoscalingArgs) -> i32 {
    let request = match args.check_request.as_deref().map(read_request).transpose() {
        Ok(r) => r,
        Err(e) => return usage(e),
    };
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    let check = match fleet.check_scaling(&args.endpoint, request.as_ref()).await {
        Ok(c) => c,
        Err(e) => return report(&e),
    };
    if g.json {
        print_json(&check);
    } else {
        print_check(&check, request.is_some());
    }
    if check.findings.is_empty() {
        EXIT_OK
    } else {
        EXIT_CHECK_FAILED
    }
}

/// Prints findings: what is wrong, what will happen, the fix.
pub fn print_check(check: &ScalingCheck, request: bool) {
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
        0 => println!("{}: {what} checked: no findings", check.endpoint),
        n => println!(
            "{}: {what} checked: {n} finding{}",
            check.endpoint,
            if n == 1 { "" } else { "s" }
        ),
    }
    for f in &check.findings {
        let whose = if f.policy.is_empty() {
            format!("{} (scalable target)", f.variant)
        } else {
            format!("{} / {}", f.variant, f.policy)
        };
        println!("✗ {whose}: {}", f.problem);
        println!("    what happens: {}", f.consequence);
        println!("    fix: {}", f.fix);
    }
}
