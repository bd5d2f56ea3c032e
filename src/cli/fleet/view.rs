//! The endpoint tables that more than one command shows: instances and autoscaling in a
//! cell, the variants table, the scalable targets and policies.

use crate::aws::endpoints::autoscaling::ScalingInfo;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::cli::exit::CmdResult;
use crate::cli::output::{pct, print_table, weight};

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

/// Prints the variants table of an endpoint.
pub fn print_variants(info: &EndpointInfo) -> CmdResult {
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
    )
}

/// Prints the scalable targets and policies of an endpoint's variants.
pub fn print_scaling(s: &[ScalingInfo]) -> CmdResult {
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
    )
}
