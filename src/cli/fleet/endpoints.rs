//! `sagedeck endpoints` (one region; many: `inventory.rs`) and `sagedeck describe`.

use crate::format::time_text;
use std::time::Duration;

use clap::Args;
use serde_json::json;

use super::inventory::EndpointsArgs;
use super::view::{instances_text, kind_text, print_async, print_scaling, print_variants, scaling_text};
use crate::aws::endpoints::inventory::InventoryOptions;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::cli::output::{outln, print_json, print_table, weight};

/// `sagedeck describe ENDPOINT`.
#[derive(Debug, Args)]
pub struct DescribeArgs {
    /// Endpoint name.
    pub endpoint: String,
}

/// Runs `endpoints`.
pub async fn run_endpoints(g: &GlobalArgs, args: EndpointsArgs) -> CmdResult {
    if !args.regions.is_empty() || !args.profiles.is_empty() || args.fleet.is_some() {
        return super::inventory::run(g, &args).await;
    }
    let budget = args.budget(&super::inventory::config());
    let fleet = g.connect().await?.with_budget(budget);
    let opts = InventoryOptions {
        concurrency: args.concurrency.max(1),
        call_deadline: Duration::from_secs(15),
        autoscaling: true,
    };
    let mut inv = fleet.inventory(opts).await?;
    super::inventory::say_throttled(&fleet.region, &inv, budget);
    inv.endpoints.retain(|e| args.keeps(e));
    if g.json {
        print_json(&inv)?;
    } else {
        let rows = inv
            .endpoints
            .iter()
            .map(|e| {
                vec![
                    e.name.clone(),
                    e.status.clone(),
                    e.variants
                        .iter()
                        .map(|v| format!("{}:{}", v.name, weight(v.current_weight)))
                        .collect::<Vec<_>>()
                        .join(" "),
                    instances_text(e),
                    kind_text(e),
                    scaling_text(&e.autoscaling),
                    time_text(e.modified),
                ]
            })
            .collect();
        print_table(
            &[
                "NAME",
                "STATUS",
                "VARIANTS",
                "INSTANCES",
                "KIND",
                "AUTOSCALING",
                "MODIFIED",
            ],
            rows,
        )?;
    }
    for f in &inv.failures {
        eprintln!("sagedeck: could not describe {}: {}", f.endpoint, f.error);
    }
    if inv.failures.is_empty() {
        Ok(())
    } else {
        Err(Exit::code(EXIT_AWS))
    }
}

/// Runs `describe`.
pub async fn run_describe(g: &GlobalArgs, args: DescribeArgs) -> CmdResult {
    let (fleet, info) = g.connect_to(&args.endpoint).await?;
    let variants: Vec<String> = info.autoscaling.iter().map(|s| s.variant.clone()).collect();
    let activities = fleet
        .scaling_activities(&info.name, &variants, 10)
        .await
        .unwrap_or_default();
    if g.json {
        return print_json(&json!({ "endpoint": info, "scaling_activities": activities }));
    }
    outln!("Endpoint     {}", info.name)?;
    outln!("ARN          {}", info.arn)?;
    outln!("Status       {}", info.status)?;
    if let Some(r) = &info.failure_reason {
        outln!("Failure      {r}")?;
    }
    outln!("Config       {}", info.config_name.as_deref().unwrap_or("-"))?;
    outln!("Created      {}", time_text(info.created))?;
    outln!("Modified     {}", time_text(info.modified))?;
    let shadow = if info.shape.has_shadow() {
        " with a shadow variant"
    } else {
        ""
    };
    outln!("Kind         {}{shadow}", info.kind.name())?;
    print_async(&info)?;
    outln!()?;
    print_variants(&info)?;
    for v in info
        .variants
        .iter()
        .filter(|v| v.model_data_url.is_some() || v.image.is_some())
    {
        outln!(
            "  {}: model {} image {}{}",
            v.name,
            v.model_name.as_deref().unwrap_or("-"),
            v.image.as_deref().unwrap_or("-"),
            v.model_data_url
                .as_deref()
                .map(|u| format!(" data {u}"))
                .unwrap_or_default()
        )?;
    }
    if !info.autoscaling.is_empty() {
        outln!()?;
        print_scaling(&info.autoscaling)?;
    }
    if !activities.is_empty() {
        outln!()?;
        outln!("Recent scaling activities:")?;
        for a in &activities {
            outln!(
                "  {}  {}  {}  ({})",
                time_text(a.start),
                a.status,
                a.description,
                a.cause
            )?;
        }
    }
    Ok(())
}
