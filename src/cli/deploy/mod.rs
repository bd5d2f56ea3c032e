//! `sagedeck deploy ENDPOINT (--config C | --model V=M) [policy] [--dry-run] [--yes]` and
//! `sagedeck deploy ENDPOINT --watch`: a deployment SageMaker runs itself, checked before
//! sending (each refusal a line naming its rule), its schedule shown first, its gate alarms
//! created (and deleted after), started compare-and-swap and audited, then followed to the
//! outcome SageMaker reports (exit 7 when it rolled back).

pub mod args;
pub mod follow;
pub mod view;

use std::time::Duration;

use serde_json::json;

use crate::aws::Fleet;
use crate::aws::deploy::plan::{ConfigChoice, DeployAsk, DeployPlan};
use crate::aws::deploy::policy::silent_fallbacks;
use crate::aws::deploy::schedule::{LAUNCH_ESTIMATE_SECS, schedule};
use crate::aws::deploy::send::DeployError;
use crate::aws::deploy::stepper::Outcome;
use crate::aws::deploy::watch::Watched;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_USAGE, Exit};
use crate::cli::output::{approve, eprint_line, print_json};
use args::DeployArgs;
use follow::follow;
use view::{outcome_exit, print_last_deployment, print_plan};

impl From<DeployError> for Exit {
    fn from(e: DeployError) -> Exit {
        match e {
            // Each refusal on its own line, then exit 2.
            DeployError::Invalid(lines) => {
                for l in &lines {
                    eprint_line(format_args!("sagedeck: refused: {}", crate::format::escape_text(l)));
                }
                Exit::new(EXIT_USAGE, "nothing was sent")
            }
            DeployError::Aws(a) => a.into(),
            other => Exit::refused(other),
        }
    }
}

/// What the flags ask for.
fn ask(args: &DeployArgs) -> Result<DeployAsk, String> {
    let config = match (&args.config, args.swap()?) {
        (Some(name), _) => ConfigChoice::Named(name.clone()),
        (None, Some(swap)) => ConfigChoice::Swap(swap),
        (None, None) => return Err("deploy needs --config CONFIG or --model VARIANT=MODEL".into()),
    };
    Ok(DeployAsk {
        config,
        policy: args.policy()?,
        max_time_secs: args.max_time()?,
        alarms: args.alarms.clone(),
        gate_alarms: args.gate_alarms,
        keep_alarms: args.keep_alarms,
        retain_all: args.retain_variant_properties,
        retain_deployment: args.retain_deployment_config,
        expected_config: args.expect_config.clone(),
    })
}

/// The notes said before asking: the silent all-at-once fallbacks, and RetainAllVariantProperties
/// offered on an autoscaled endpoint. The flag: whether AWS will fall back.
fn notes(p: &DeployPlan) -> (Vec<String>, bool) {
    let mut notes = silent_fallbacks(&p.spec, &p.facts);
    let fallback = !notes.is_empty();
    if p.spec.retain_deployment {
        notes.push(format!(
            "RetainDeploymentConfig: {}'s last deployment policy is sent again ({})",
            p.info.name,
            crate::aws::deploy::stepper::policy_text(&p.spec.policy)
        ));
    }
    if !p.spec.retain_all && !p.info.autoscaling.is_empty() {
        notes.push(format!(
            "{} is autoscaled: --retain-variant-properties keeps its live instance counts (else the configuration's are launched)",
            p.info.name
        ));
    }
    (notes, fallback)
}

/// Runs `deploy`.
pub async fn run(g: &GlobalArgs, args: DeployArgs) -> CmdResult {
    args.check().map_err(Exit::usage)?;
    if args.watch {
        let fleet = g.connect().await?;
        let poll = Duration::from_millis(args.poll_ms);
        let watched = follow(&fleet, &args.endpoint, None, poll, g.json).await?;
        delete_leftover_gates(g, &fleet, &args.endpoint).await;
        return finish(g, &args.endpoint, &watched);
    }
    let ask = ask(&args).map_err(Exit::usage)?;
    let (fleet, info) = g.connect_to(&args.endpoint).await?;
    let p = fleet.plan_deployment(info, &ask).await?;
    let sched = schedule(&p.spec, &p.facts, LAUNCH_ESTIMATE_SECS);
    let (notes, fallback) = notes(&p);
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
    send_and_follow(g, &fleet, &args, &p).await
}

/// Runs the plan, follows it and deletes the gate alarms (unless `--keep-alarms`, or when the
/// following stopped early: they are said to stay).
async fn send_and_follow(g: &GlobalArgs, fleet: &Fleet, args: &DeployArgs, p: &DeployPlan) -> CmdResult {
    let audited = g.audited(fleet).await?;
    let started = fleet.run_deployment(p, &audited, g.reason.clone()).await?;
    if let Some(w) = &started.audit_warning {
        eprint_line(format_args!(
            "sagedeck: warning: the deployment was started but its result could not be logged: {w}"
        ));
    }
    let (endpoint, config) = (&p.info.name, &p.target.name);
    if !g.json {
        eprint_line(format_args!(
            "sagedeck: {endpoint} is deploying {config} (request id {}); Ctrl-C stops following, not the deployment",
            started.request_id.as_deref().unwrap_or("-")
        ));
    }
    let poll = Duration::from_millis(args.poll_ms);
    let watched = follow(fleet, endpoint, Some(config.clone()), poll, g.json).await;
    if let Ok(w) = &watched
        && let Err(e) = crate::aws::deploy::watch::record_outcome(&audited, w, g.reason.clone()).await
    {
        eprint_line(format_args!("sagedeck: warning: the outcome could not be logged: {e}"));
    }
    let gate_names = p.gate_names();
    if !gate_names.is_empty() {
        if args.keep_alarms || watched.is_err() {
            let later = if args.keep_alarms {
                String::new()
            } else {
                format!(" (`sagedeck deploy {endpoint} --watch` deletes them once the deployment has ended)")
            };
            eprint_line(format_args!(
                "sagedeck: the gate alarms stay: {}{later}",
                gate_names.join(", ")
            ));
        } else if let Err(e) = fleet.delete_gate_alarms(&gate_names, &audited, g.reason.clone()).await {
            eprint_line(format_args!(
                "sagedeck: warning: the gate alarms could not be deleted: {e}"
            ));
        }
    }
    finish(g, endpoint, &watched?)
}

/// Once the deployment followed has ended: deletes the gate alarms a stopped `deploy` left
/// (marked to be deleted; `--keep-alarms` ones stay), audited; in read-only mode they are named
/// and left.
async fn delete_leftover_gates(g: &GlobalArgs, fleet: &Fleet, endpoint: &str) {
    if g.read_only_on() {
        if let Ok(names) = fleet.leftover_gate_alarms(endpoint).await
            && !names.is_empty()
        {
            eprint_line(format_args!(
                "sagedeck: read-only: the gate alarms a stopped deployment left stay: {}",
                names.join(", ")
            ));
        }
        return;
    }
    let deleted = match g.audited(fleet).await {
        Ok(audited) => fleet
            .delete_leftover_gate_alarms(endpoint, &audited, g.reason.clone())
            .await
            .map_err(|e| e.to_string()),
        Err(e) => Err(e.message().unwrap_or("the audit log could not be opened").to_string()),
    };
    match deleted {
        Ok(names) if !names.is_empty() => eprint_line(format_args!(
            "sagedeck: deleted the gate alarms a stopped deployment left: {}",
            names.join(", ")
        )),
        Ok(_) => {}
        Err(e) => eprint_line(format_args!(
            "sagedeck: warning: the gate alarms a stopped deployment left could not be deleted: {e}"
        )),
    }
}

/// Prints how the deployment ended (JSON with `--json`) and returns its exit.
fn finish(g: &GlobalArgs, endpoint: &str, watched: &Watched) -> CmdResult {
    if g.json {
        print_json(watched)?;
    }
    outcome_exit(endpoint, &watched.outcome, g.json)?;
    if !g.json && matches!(watched.outcome, Outcome::Idle { .. }) {
        print_last_deployment(&watched.last)?;
    }
    Ok(())
}
