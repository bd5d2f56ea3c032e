//! `components ENDPOINT --wake IC [--wait] [--yes]`: a component at zero copies asked for one
//! (UpdateInferenceComponentRuntimeConfig), shown before → after and confirmed, refused in
//! read-only mode (at the CLI's gate), compare-and-swapped on the copy count read and audited
//! first; `--wait` follows it, printing each new phase, until it serves or `--wait-timeout`.

use std::time::{Duration, Instant};

use serde_json::json;

use super::args::ComponentsArgs;
use crate::aws::components::wake::{FollowOptions, Waker};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::fleet::capacity::{WAKE_POLL, progress_printer, wake_exit};
use crate::cli::output::{approve, outln, print_json, say_err};

/// Runs `--wake IC`.
pub async fn wake(g: &GlobalArgs, args: &ComponentsArgs, ic: &str, deadline: Duration) -> CmdResult {
    let fleet = g.connect().await?;
    let seen = fleet.component_copies(ic).await?;
    if let Some(endpoint) = &args.endpoint
        && &seen.endpoint != endpoint
    {
        return Err(Exit::usage(format!(
            "{ic} is a component of {}, not of {endpoint}; nothing was sent",
            seen.endpoint
        )));
    }
    let start = Instant::now();
    let mut report = None;
    if seen.desired >= 1 {
        say_err(format!(
            "sagedeck: {ic} already wants {} cop{} ({} serving); nothing to wake",
            seen.desired,
            if seen.desired == 1 { "y" } else { "ies" },
            seen.current
        ));
    } else {
        if !g.json {
            outln!(
                "{ic} on {}/{}: copies {} → 1 (now {} serving)",
                seen.endpoint,
                seen.variant,
                seen.desired,
                seen.current
            )?;
        }
        approve(args.yes, &format!("Wake {ic} (one copy)?"), "wake it")?;
        let audited = g.audited(&fleet).await?;
        let waker = Waker {
            audited: &audited,
            reason: g.reason.clone(),
        };
        let woke = fleet
            .wake_component(ic, seen.desired, &waker)
            .await
            .map_err(wake_exit)?;
        if let Some(w) = &woke.audit_warning {
            say_err(format!(
                "sagedeck: warning: the wake was sent but its result could not be logged: {w}"
            ));
        }
        if !g.json {
            outln!(
                "woke {ic}: copies 0 → 1 (request id {})",
                woke.request_id.as_deref().unwrap_or("-")
            )?;
        }
        report = Some(woke);
    }
    let last = if args.wait {
        let opts = FollowOptions {
            deadline,
            poll: WAKE_POLL,
        };
        let mut show = progress_printer();
        let serving = fleet
            .follow_component(ic, start, opts, &mut show)
            .await
            .map_err(wake_exit)?;
        if !g.json {
            outln!("{ic} serves after {:.0}s", serving.elapsed.as_secs_f64())?;
        }
        Some(serving)
    } else {
        None
    };
    if g.json {
        print_json(&json!({
            "component": ic,
            "before": seen,
            "woke": report.as_ref().is_some_and(|r| r.woke),
            "request_id": report.as_ref().and_then(|r| r.request_id.clone()),
            "serving": last,
        }))?;
    }
    Ok(())
}
