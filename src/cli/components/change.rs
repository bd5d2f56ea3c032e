//! `components --set-copies IC=N` and `components --update IC --model M`: each checked before
//! anything is sent (a count AWS refuses, 0 where the endpoint cannot scale to zero, an adapter,
//! the model it already serves: exit 2), shown before → after, confirmed (or `--yes`),
//! compare-and-swapped on what was read (not InService or changed since: exit 6, nothing sent)
//! and audited. A rolling update is followed to its end: rolled back or failed is exit 7 with
//! AWS's reason.

use std::time::Duration;

use serde_json::json;

use super::args::ComponentsArgs;
use crate::aws::Fleet;
use crate::aws::change::guard::GuardError;
use crate::aws::components::change::{ComponentApplied, check_copies, check_update};
use crate::aws::components::{Component, ComponentChange, ComponentSnapshot, RollingUpdate, RolloutOutcome};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_PROMOTION, Exit};
use crate::cli::output::{approve, outln, print_json, say_err};

/// How often a follow looks again.
const POLL: Duration = Duration::from_secs(2);

/// The component `ic`, checked to be on the endpoint named on the command line, if any.
async fn component(g: &GlobalArgs, args: &ComponentsArgs, ic: &str) -> Result<(Fleet, Component), Exit> {
    let fleet = g.connect().await?;
    let c = fleet.describe_component(ic).await?;
    if let Some(endpoint) = &args.endpoint
        && &c.endpoint != endpoint
    {
        return Err(Exit::usage(format!(
            "{ic} is a component of {}, not of {endpoint}; nothing was sent",
            c.endpoint
        )));
    }
    Ok((fleet, c))
}

/// Refused unless InService (exit 6): a component changes only then.
fn in_service(c: &Component) -> Result<(), Exit> {
    if c.status == "InService" {
        return Ok(());
    }
    Err(GuardError::NotInService {
        endpoint: c.name.clone(),
        status: c.status.clone(),
    }
    .into())
}

/// Sends `change` through the guard; with `--json`, a refusal's differences go to stdout first.
async fn apply(
    g: &GlobalArgs,
    fleet: &Fleet,
    c: &Component,
    change: &ComponentChange,
) -> Result<ComponentApplied, Exit> {
    let audited = g.audited(fleet).await?;
    let seen = ComponentSnapshot::of(c);
    match fleet
        .apply_component_change(change, &seen, &audited, g.reason.clone())
        .await
    {
        Ok(applied) => {
            if let Some(w) = &applied.audit_warning {
                say_err(format!(
                    "sagedeck: warning: the change was sent but its result could not be logged: {w}"
                ));
            }
            Ok(applied)
        }
        Err(e) => {
            if g.json
                && let GuardError::Changed { differences, .. } | GuardError::LostRace { differences, .. } = &e
            {
                print_json(
                    &json!({ "component": c.name, "change": change, "applied": false, "differences": differences }),
                )?;
            }
            Err(e.into())
        }
    }
}

/// Runs `--set-copies IC=N`.
pub async fn set_copies(g: &GlobalArgs, args: &ComponentsArgs, ic: &str, count: i32, deadline: Duration) -> CmdResult {
    let (fleet, c) = component(g, args, ic).await?;
    let zero = if count == 0 {
        fleet.zero_copies_rule(&c).await?
    } else {
        Ok(())
    };
    check_copies(&c, count, zero).map_err(|why| Exit::usage(format!("{why}; nothing was sent")))?;
    if c.copies.desired == count {
        say_err(format!("sagedeck: {ic} already wants {count} copies; nothing to do"));
        return Ok(());
    }
    in_service(&c)?;
    if !g.json {
        outln!(
            "{ic} on {}/{}: copies {} → {count} (now {} placed)",
            c.endpoint,
            c.variant,
            c.copies.desired,
            c.copies.current
        )?;
    }
    approve(args.yes, &format!("Set {ic} to {count} copies?"), "apply")?;
    let change = ComponentChange::Copies { count };
    let applied = apply(g, &fleet, &c, &change).await?;
    let settled = if args.wait {
        let quiet = g.json;
        let report = |s: &Component| {
            if !quiet {
                say_err(format!("  {} {}/{}", s.status, s.copies.desired, s.copies.current));
            }
        };
        Some(fleet.wait_copies(ic, count, deadline, POLL, report).await?)
    } else {
        None
    };
    if g.json {
        print_json(&json!({
            "component": ic, "change": change, "applied": true,
            "request_id": applied.request_id, "before": applied.before, "final": settled,
        }))
    } else {
        match settled {
            Some(s) => outln!("{ic} is InService with {} copies", s.copies.current),
            None => outln!("{ic} is Updating to {count} copies"),
        }
    }
}

/// Runs `--update IC --model M`, followed to its outcome.
pub async fn rolling_update(
    g: &GlobalArgs,
    args: &ComponentsArgs,
    ic: &str,
    update: RollingUpdate,
    deadline: Duration,
) -> CmdResult {
    let (fleet, c) = component(g, args, ic).await?;
    check_update(&c, &update).map_err(|why| Exit::usage(format!("{why}; nothing was sent")))?;
    in_service(&c)?;
    if !g.json {
        outln!(
            "{ic} on {}/{}: model {} → {}, {} at a time, bake {}s{}{}",
            c.endpoint,
            c.variant,
            c.model_text(),
            update.model,
            update.batch,
            update.bake_secs,
            update
                .rollback_batch
                .map(|b| format!(", rollback {b} at a time"))
                .unwrap_or_default(),
            if update.alarms.is_empty() {
                String::new()
            } else {
                format!(", rolled back by {}", update.alarms.join(", "))
            }
        )?;
    }
    approve(args.yes, &format!("Roll {ic} over to {}?", update.model), "apply")?;
    let to_model = update.model.clone();
    let change = ComponentChange::Update(Box::new(update));
    let applied = apply(g, &fleet, &c, &change).await?;
    let quiet = g.json;
    let report = |s: &Component| {
        if !quiet {
            say_err(format!(
                "  {} {} copies {}/{}",
                s.status,
                s.model_text(),
                s.copies.desired,
                s.copies.current
            ));
        }
    };
    let ended = fleet
        .follow_rollout(ic, &to_model, applied.before.modified, deadline, POLL, report)
        .await?;
    if g.json {
        print_json(&json!({
            "component": ic, "change": change, "applied": true,
            "request_id": applied.request_id, "rollout": ended,
        }))?;
    }
    match &ended.outcome {
        RolloutOutcome::Succeeded => {
            if !g.json {
                outln!("{ic} is InService on {to_model} ({:.0}s)", ended.elapsed_secs)?;
            }
            Ok(())
        }
        RolloutOutcome::RolledBack { reason } => Err(Exit::new(
            EXIT_PROMOTION,
            format!(
                "{ic} rolled back to {}: {}",
                ended.last.model_text(),
                reason.as_deref().unwrap_or("no reason given")
            ),
        )),
        RolloutOutcome::Failed { reason } => Err(Exit::new(
            EXIT_PROMOTION,
            format!("{ic} failed: {}", reason.as_deref().unwrap_or("no reason given")),
        )),
    }
}
