//! The endpoint tables that more than one command shows: instances and autoscaling in a
//! cell, the variants table, the scalable targets and policies.

use crate::aws::endpoints::autoscaling::ScalingInfo;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::cli::exit::CmdResult;
use crate::cli::output::{outln, pct, print_table, weight};

/// `ml.m5.large × 2` per variant, joined; a serverless variant's memory and concurrency instead
/// (it has no instances to count).
pub fn instances_text(e: &EndpointInfo) -> String {
    e.variants
        .iter()
        .map(|v| match &v.serverless {
            Some(s) => format!("serverless {}", s.text()),
            None => format!(
                "{} × {}",
                v.instance_type.as_deref().unwrap_or("serverless"),
                v.current_instances
            ),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The KIND cell: the kind's mark (`MME`, `IC`, `SLS`, `SLS+PC`, `ASYNC`; `-` for real-time),
/// `+SHADOW` when the endpoint has shadow variants.
pub fn kind_text(e: &EndpointInfo) -> String {
    match (e.kind, e.shape.has_shadow()) {
        (crate::aws::endpoints::kind::EndpointKind::RealTime, false) => "-".into(),
        (crate::aws::endpoints::kind::EndpointKind::RealTime, true) => "SHADOW".into(),
        (kind, false) => kind.mark().into(),
        (kind, true) => format!("{}+SHADOW", kind.mark()),
    }
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

/// Prints the variants table of an endpoint: production variants, then shadow ones (whose
/// SHARE is the share of production requests copied to them).
pub fn print_variants(info: &EndpointInfo) -> CmdResult {
    let production = info.variants.iter().map(|v| (v, ""));
    let shadow = info.shape.shadow_variants.iter().map(|v| (v, " (shadow)"));
    let rows = production
        .chain(shadow)
        .map(|(v, role)| {
            vec![
                format!("{}{role}", v.name),
                weight(v.current_weight),
                weight(v.desired_weight),
                pct(v.traffic_share),
                match &v.serverless {
                    Some(_) => "-".into(),
                    None => format!("{}/{}", v.current_instances, v.desired_instances),
                },
                match &v.serverless {
                    Some(s) => format!("serverless {}", s.text()),
                    None => v.instance_type.clone().unwrap_or_else(|| "serverless".into()),
                },
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

/// Prints what an asynchronous endpoint's configuration says: where outputs and failures go,
/// the topics told, the concurrency per instance.
pub fn print_async(info: &EndpointInfo) -> CmdResult {
    let Some(a) = &info.shape.asynchronous else {
        return Ok(());
    };
    let or_dash = |s: &Option<String>| s.clone().unwrap_or_else(|| "-".into());
    outln!("Async output   {}", or_dash(&a.output_path))?;
    outln!("Async failures {}", or_dash(&a.failure_path))?;
    outln!(
        "Async topics   success {} · error {}",
        or_dash(&a.success_topic),
        or_dash(&a.error_topic)
    )?;
    let per_instance = a.max_concurrent_per_instance.map(|n| n.to_string());
    outln!("Async per instance {}", or_dash(&per_instance))?;
    Ok(())
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
