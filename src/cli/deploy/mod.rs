//! `sagedeck deploy ENDPOINT (--config C | --model V=M) [policy] [--dry-run] [--yes]` and
//! `sagedeck deploy ENDPOINT --watch`: a deployment SageMaker runs itself, checked before
//! sending (each refusal a line naming its rule), its schedule shown first, its gate alarms
//! created (and deleted after), started compare-and-swap and audited, then followed to the
//! outcome SageMaker reports (exit 7 when it rolled back).

pub mod args;
pub mod follow;
pub mod view;

use std::time::Duration;

use aws_sdk_sagemaker::types::ProductionVariant;
use serde_json::json;

use crate::aws::Fleet;
use crate::aws::deploy::gate_alarms::{GateAlarm, gate_alarms};
use crate::aws::deploy::new_config::{derived_config_name, stamp_now, swapped_variants};
use crate::aws::deploy::policy::{DeployFacts, DeploySpec, refusals, silent_fallbacks};
use crate::aws::deploy::schedule::{LAUNCH_ESTIMATE_SECS, schedule};
use crate::aws::deploy::send::{DeployError, DeployRequest};
use crate::aws::deploy::watch::Watched;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_USAGE, Exit};
use crate::cli::output::{approve, eprint_line, print_json};
use args::DeployArgs;
use follow::follow;
use view::{outcome_exit, print_plan};

impl From<DeployError> for Exit {
    fn from(e: DeployError) -> Exit {
        match e {
            DeployError::Invalid(_) => Exit::usage(e),
            DeployError::Aws(a) => a.into(),
            other => Exit::refused(other),
        }
    }
}

/// The configuration a deployment goes onto: its name, its variants, and (for `--model`) the
/// live configuration it is written from.
struct Target {
    name: String,
    variants: Vec<ProductionVariant>,
    derived_from:
        Option<std::sync::Arc<aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput>>,
}

/// The target of `args` on `info`: `--config` described, or `--model` applied to the live one.
async fn target(fleet: &Fleet, info: &EndpointInfo, args: &DeployArgs) -> Result<Target, Exit> {
    let calls = std::sync::atomic::AtomicUsize::new(0);
    if let Some(name) = &args.config {
        let c = fleet.endpoint_config(name, &calls).await?;
        return Ok(Target {
            name: name.clone(),
            variants: c.production_variants().to_vec(),
            derived_from: None,
        });
    }
    let swap = args
        .swap()
        .map_err(Exit::usage)?
        .ok_or_else(|| Exit::usage("no --model"))?;
    let live = info.config_name.clone().unwrap_or_default();
    let from = fleet.endpoint_config(&live, &calls).await?;
    let variants = swapped_variants(&from, &swap).map_err(Exit::usage)?;
    Ok(Target {
        name: derived_config_name(&live, &stamp_now()),
        variants,
        derived_from: Some(from),
    })
}

/// The gate alarms of `facts` (the latency ceiling from each live variant's last 24 h).
async fn plan_gates(fleet: &Fleet, facts: &DeployFacts) -> Result<Vec<GateAlarm>, Exit> {
    let mut ceilings = Vec::new();
    for v in &facts.new {
        ceilings.push((v.name.clone(), fleet.p99_ceiling(&facts.endpoint, &v.name).await?));
    }
    Ok(gate_alarms(&facts.endpoint, &ceilings))
}

/// Says each refusal on its own line and ends with exit 2.
fn refuse(lines: &[String]) -> Exit {
    for l in lines {
        eprint_line(format_args!("sagedeck: refused: {}", crate::format::escape_text(l)));
    }
    Exit::new(EXIT_USAGE, "nothing was sent")
}

/// A deployment checked and ready to ask about and send.
struct Prepared {
    info: EndpointInfo,
    facts: DeployFacts,
    target: Target,
    spec: DeploySpec,
    gates: Vec<GateAlarm>,
}

/// Reads the endpoint and the target, builds the spec and checks it: each rule's refusal
/// (exit 2), the rollback alarms and the status (exit 6).
async fn prepare(fleet: &Fleet, info: EndpointInfo, args: &DeployArgs) -> Result<Prepared, Exit> {
    let target = target(fleet, &info, args).await?;
    let retain = args.retain_variant_properties;
    let facts = fleet
        .deploy_facts(&info, &target.name, &target.variants, retain)
        .await?;
    let policy = args.policy().map_err(Exit::usage)?;
    let max_time_secs = args
        .max_time()
        .map_err(Exit::usage)?
        .unwrap_or_else(|| DeploySpec::default_max_time(&policy, &facts));
    let gates = if args.gate_alarms {
        plan_gates(fleet, &facts).await?
    } else {
        Vec::new()
    };
    let mut alarms = args.alarms.clone();
    alarms.extend(gates.iter().map(|a| a.name.clone()));
    let spec = DeploySpec {
        policy,
        max_time_secs,
        alarms,
        retain_all: retain,
    };
    let refused = refusals(&spec, &facts);
    if !refused.is_empty() {
        return Err(refuse(&refused));
    }
    fleet.check_rollback_alarms(&args.alarms).await?;
    let expected = args
        .expect_config
        .clone()
        .unwrap_or_else(|| facts.current_config.clone());
    let (endpoint, status) = (info.name.clone(), info.status.clone());
    if expected != facts.current_config {
        // Refused before a configuration is written; the send checks again.
        let actual = facts.current_config.clone();
        return Err(DeployError::Changed {
            endpoint,
            expected,
            actual,
            status,
        }
        .into());
    }
    if status != "InService" {
        return Err(DeployError::NotInService { endpoint, status }.into());
    }
    Ok(Prepared {
        info,
        facts,
        target,
        spec,
        gates,
    })
}

/// Runs `deploy`.
pub async fn run(g: &GlobalArgs, args: DeployArgs) -> CmdResult {
    args.check().map_err(Exit::usage)?;
    if args.watch {
        let fleet = g.connect().await?;
        let poll = Duration::from_millis(args.poll_ms);
        let watched = follow(&fleet, &args.endpoint, None, poll, g.json).await?;
        return finish(g, &args.endpoint, &watched);
    }
    let (fleet, info) = g.connect_to(&args.endpoint).await?;
    let p = prepare(&fleet, info, &args).await?;
    let sched = schedule(&p.spec, &p.facts, LAUNCH_ESTIMATE_SECS);
    let mut notes = silent_fallbacks(&p.spec, &p.facts);
    let fallback = !notes.is_empty();
    if !p.spec.retain_all && !p.info.autoscaling.is_empty() {
        notes.push(format!(
            "{} is autoscaled: --retain-variant-properties keeps its live instance counts (else the configuration's are launched)",
            p.info.name
        ));
    }
    let (from, to) = (&p.facts.current_config, &p.target.name);
    if g.json && args.dry_run {
        return print_json(&json!({
            "endpoint": p.info.name, "from": from, "to": to, "spec": p.spec, "schedule": sched,
            "schedule_text": sched.text(), "gate_alarms": p.gates, "notes": notes, "sent": false,
        }));
    }
    if !g.json {
        print_plan(&p.info.name, from, to, &sched, &p.gates, &notes)?;
    }
    if args.dry_run {
        return Ok(());
    }
    let question = if fallback {
        format!(
            "AWS will deploy {} all at once (see the notes). Start anyway?",
            p.info.name
        )
    } else {
        format!("Start this deployment on {}?", p.info.name)
    };
    approve(args.yes, &question, "deploy")?;
    let req = DeployRequest {
        endpoint: p.info.name.clone(),
        new_config: p.target.name.clone(),
        expected_config: p.facts.current_config.clone(),
        spec: p.spec,
    };
    send_and_follow(g, &fleet, &args, &req, &p.target, &p.gates).await
}

/// Writes the configuration (for `--model`), creates the gate alarms, starts the deployment,
/// follows it and deletes the gate alarms (unless `--keep-alarms`).
async fn send_and_follow(
    g: &GlobalArgs,
    fleet: &Fleet,
    args: &DeployArgs,
    req: &DeployRequest,
    target: &Target,
    gates: &[GateAlarm],
) -> CmdResult {
    let audited = g.audited(fleet).await?;
    if let Some(from) = &target.derived_from {
        fleet
            .create_derived_config(from, &target.name, target.variants.clone(), &audited, g.reason.clone())
            .await?;
    }
    fleet.create_gate_alarms(gates, &audited, g.reason.clone()).await?;
    let gate_names: Vec<String> = gates.iter().map(|a| a.name.clone()).collect();
    let started = match fleet.start_deployment(req, &audited, g.reason.clone()).await {
        Ok(s) => s,
        Err(e) => {
            let _ = fleet.delete_gate_alarms(&gate_names, &audited, g.reason.clone()).await;
            return Err(e.into());
        }
    };
    if let Some(w) = &started.audit_warning {
        eprint_line(format_args!(
            "sagedeck: warning: the deployment was started but its result could not be logged: {w}"
        ));
    }
    if !g.json {
        eprint_line(format_args!(
            "sagedeck: {} is deploying {} (request id {}); Ctrl-C stops following, not the deployment",
            req.endpoint,
            req.new_config,
            started.request_id.as_deref().unwrap_or("-")
        ));
    }
    let poll = Duration::from_millis(args.poll_ms);
    let watched = follow(fleet, &req.endpoint, Some(req.new_config.clone()), poll, g.json).await;
    if !gate_names.is_empty() {
        if args.keep_alarms || watched.is_err() {
            eprint_line(format_args!(
                "sagedeck: the gate alarms stay: {}",
                gate_names.join(", ")
            ));
        } else if let Err(e) = fleet.delete_gate_alarms(&gate_names, &audited, g.reason.clone()).await {
            eprint_line(format_args!(
                "sagedeck: warning: the gate alarms could not be deleted: {e}"
            ));
        }
    }
    finish(g, &req.endpoint, &watched?)
}

/// Prints how the deployment ended (JSON with `--json`) and returns its exit.
fn finish(g: &GlobalArgs, endpoint: &str, watched: &Watched) -> CmdResult {
    if g.json {
        print_json(watched)?;
    }
    outcome_exit(endpoint, &watched.outcome, g.json)
}
