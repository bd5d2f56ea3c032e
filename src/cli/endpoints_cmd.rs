//! `sagedeck endpoints`, `sagedeck describe`, `sagedeck autoscaling`.

use crate::format::time_text;
use std::time::Duration;

use clap::Args;
use serde_json::json;

use super::output::{pct, print_json, print_table, weight};
use super::{EXIT_AWS, EXIT_OK, GlobalArgs, report};
use crate::aws::endpoints::autoscaling::ScalingInfo;
use crate::aws::endpoints::inventory::{EndpointInfo, InventoryOptions};

/// `sagedeck endpoints`.
#[derive(Debug, Args)]
pub struct EndpointsArgs {
    /// Describe calls in flight at once.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Only endpoints whose name contains this (case-insensitive).
    #[arg(long)]
    pub name_contains: Option<String>,
    /// List these regions as one inventory (with region and account columns).
    #[arg(long, value_delimiter = ',')]
    pub regions: Vec<String>,
    /// List these profiles (accounts) as one inventory, each in `--regions` (or its own region).
    #[arg(long, value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// A `[fleets.NAME]` set of profiles × regions from config.toml.
    #[arg(long)]
    pub fleet: Option<String>,
}

/// `sagedeck describe ENDPOINT`.
#[derive(Debug, Args)]
pub struct DescribeArgs {
    /// Endpoint name.
    pub endpoint: String,
}

/// `ml.m5.large × 2` per variant, joined.
pub fn instances_text(e: &EndpointInfo) -> String {
    e.variants
        .iter()
        .map(|v| {
            format!(
                "{} × {}",
                v.instance_type.as_deref().unwrap_or("serverless"),
                v.current_instances
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `1-8` per scaled variant.
pub fn scaling_text(s: &[ScalingInfo]) -> String {
    if s.is_empty() {
        return "-".into();
    }
    s.iter()
        .map(|s| format!("{} {}-{}", s.variant, s.min, s.max))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `endpoints`.
pub async fn run_endpoints(g: &GlobalArgs, args: EndpointsArgs) -> i32 {
    if !args.regions.is_empty() || !args.profiles.is_empty() || args.fleet.is_some() {
        return super::fleets_cmd::run(g, &args).await;
    }
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    let opts = InventoryOptions {
        concurrency: args.concurrency.max(1),
        call_deadline: Duration::from_secs(15),
        autoscaling: true,
    };
    let mut inv = match fleet.inventory(opts).await {
        Ok(i) => i,
        Err(e) => return report(&e),
    };
    if let Some(f) = &args.name_contains {
        let f = f.to_ascii_lowercase();
        inv.endpoints.retain(|e| e.name.to_ascii_lowercase().contains(&f));
    }
    if g.json {
        print_json(&inv);
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
                    if e.multi_model { "MME".into() } else { "-".into() },
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
                "MME",
                "AUTOSCALING",
                "MODIFIED",
            ],
            rows,
        );
    }
    for f in &inv.failures {
        eprintln!("sagedeck: could not describe {}: {}", f.endpoint, f.error);
    }
    if inv.failures.is_empty() { EXIT_OK } else { EXIT_AWS }
}

/// Runs `describe`.
pub async fn run_describe(g: &GlobalArgs, args: DescribeArgs) -> i32 {
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    let info = match fleet.endpoint(&args.endpoint).await {
        Ok(i) => i,
        Err(e) => return report(&e),
    };
    let variants: Vec<String> = info.autoscaling.iter().map(|s| s.variant.clone()).collect();
    let activities = fleet
        .scaling_activities(&info.name, &variants, 10)
        .await
        .unwrap_or_default();
    if g.json {
        print_json(&json!({ "endpoint": info, "scaling_activities": activities }));
        return EXIT_OK;
    }
    println!("Endpoint     {}", info.name);
    println!("ARN          {}", info.arn);
    println!("Status       {}", info.status);
    if let Some(r) = &info.failure_reason {
        println!("Failure      {r}");
    }
    println!("Config       {}", info.config_name.as_deref().unwrap_or("-"));
    println!("Created      {}", time_text(info.created));
    println!("Modified     {}", time_text(info.modified));
    println!();
    print_variants(&info);
    for v in info
        .variants
        .iter()
        .filter(|v| v.model_data_url.is_some() || v.image.is_some())
    {
        println!(
            "  {}: model {} image {}{}",
            v.name,
            v.model_name.as_deref().unwrap_or("-"),
            v.image.as_deref().unwrap_or("-"),
            v.model_data_url
                .as_deref()
                .map(|u| format!(" data {u}"))
                .unwrap_or_default()
        );
    }
    if !info.autoscaling.is_empty() {
        println!();
        print_scaling(&info.autoscaling);
    }
    if !activities.is_empty() {
        println!();
        println!("Recent scaling activities:");
        for a in &activities {
            println!(
                "  {}  {}  {}  ({})",
                time_text(a.start),
                a.status,
                a.description,
                a.cause
            );
        }
    }
    EXIT_OK
}

/// Prints the variants table of an endpoint.
pub fn print_variants(info: &EndpointInfo) {
    let rows = info
        .variants
        .iter()
        .map(|v| {
            vec![
                v.name.clone(),
                weight(v.current_weight),
                weight(v.desired_weight),
                pct(v.traffic_share),
                format!("{}/{}", v.current_instances, v.desired_instances),
                v.instance_type.clone().unwrap_or_else(|| "serverless".into()),
                if v.statuses.is_empty() {
                    "-".into()
                } else {
                    v.statuses.join(",")
                },
            ]
        })
        .collect();
    print_table(
        &[
            "VARIANT",
            "WEIGHT",
            "DESIRED",
            "SHARE",
            "INSTANCES",
            "TYPE",
            "VARIANT STATUS",
        ],
        rows,
    );
}

/// Prints the scalable targets and policies of an endpoint's variants.
pub fn print_scaling(s: &[ScalingInfo]) {
    let rows = s
        .iter()
        .flat_map(|t| {
            let base = vec![t.variant.clone(), t.min.to_string(), t.max.to_string()];
            if t.policies.is_empty() {
                return vec![[base, vec!["-".into(), "-".into(), "-".into(), "-".into()]].concat()];
            }
            t.policies
                .iter()
                .map(|p| {
                    [
                        base.clone(),
                        vec![
                            p.name.clone(),
                            p.metric.clone().unwrap_or_else(|| p.policy_type.clone()),
                            p.target_value.map(|v| v.to_string()).unwrap_or_else(|| "-".into()),
                            format!(
                                "in {}s / out {}s",
                                p.scale_in_cooldown.map(|c| c.to_string()).unwrap_or_else(|| "-".into()),
                                p.scale_out_cooldown
                                    .map(|c| c.to_string())
                                    .unwrap_or_else(|| "-".into())
                            ),
                        ],
                    ]
                    .concat()
                })
                .collect()
        })
        .collect();
    print_table(
        &["VARIANT", "MIN", "MAX", "POLICY", "METRIC", "TARGET", "COOLDOWN"],
        rows,
    );
}
