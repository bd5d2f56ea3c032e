//! `sagedeck components [ENDPOINT] [--json]`: the inference components of an endpoint (of every
//! endpoint without one) — status, model or base, copies desired/current, placement, reservation —
//! and the changes to one of them: `--set-copies IC=N` and `--update IC --model M` (`change.rs`),
//! `--wake IC [--wait]` (`wake.rs`); `--regions`, `--profiles` or `--fleet` list every profile ×
//! region's (`regions.rs`).

pub mod args;
pub mod change;
pub mod regions;
pub mod view;
pub mod wake;

use serde_json::json;

use crate::aws::AwsError;
use crate::aws::components::ComponentFilter;
use crate::aws::endpoints::kind::EndpointKind;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::output::{print_json, say_err};
use args::ComponentsArgs;

/// Runs `components`.
pub async fn run(g: &GlobalArgs, args: ComponentsArgs) -> CmdResult {
    // Parse before any request: invalid input sends nothing.
    let copies = args.copies_request().map_err(Exit::usage)?;
    let update = args.update_request().map_err(Exit::usage)?;
    let deadline = args.follow_deadline().map_err(Exit::usage)?;
    if let Some((ic, count)) = copies {
        return change::set_copies(g, &args, &ic, count, deadline).await;
    }
    if let Some((ic, update)) = update {
        return change::rolling_update(g, &args, &ic, update, deadline).await;
    }
    if let Some(ic) = &args.wake {
        return wake::wake(g, &args, ic, deadline).await;
    }
    list(g, &args).await
}

/// The listing.
async fn list(g: &GlobalArgs, args: &ComponentsArgs) -> CmdResult {
    let filter = ComponentFilter {
        endpoint: args.endpoint.clone(),
        status: args.status.clone(),
        name_contains: args.name_contains.clone(),
        ..Default::default()
    };
    if regions::wanted(args) {
        return regions::list(g, args, filter).await;
    }
    let fleet = g.connect().await?;
    let inv = fleet.component_inventory(&filter).await?;
    if g.json {
        print_json(&json!({
            "endpoint": args.endpoint,
            "components": inv.components,
            "api_calls": inv.api_calls,
            "elapsed_ms": inv.elapsed_ms,
        }))?;
    } else {
        view::print_components(&inv.components)?;
    }
    if inv.components.is_empty()
        && let Some(endpoint) = &args.endpoint
    {
        // Say why nothing is listed: no such endpoint (exit 3), or not one that hosts components.
        let info = fleet.endpoint(endpoint).await.map_err(|e| match e {
            AwsError::NotFound(_) => Exit::from(AwsError::NotFound(format!("endpoint {endpoint}"))),
            other => Exit::from(other),
        })?;
        if info.kind != EndpointKind::InferenceComponents {
            say_err(format!(
                "sagedeck: {endpoint} is a {} endpoint: it hosts no inference components",
                kind_name(info.kind)
            ));
        }
    }
    Ok(())
}

/// The kind in words.
fn kind_name(kind: EndpointKind) -> &'static str {
    match kind {
        EndpointKind::RealTime => "real-time",
        EndpointKind::MultiModel => "multi-model",
        EndpointKind::InferenceComponents => "inference-components",
        EndpointKind::Serverless | EndpointKind::ServerlessProvisioned => "serverless",
        EndpointKind::Async => "asynchronous",
    }
}
