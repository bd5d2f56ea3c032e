//! Variant weights and capacities: a plan validated locally (finite, >= 0, not all zero, every
//! named variant exists, no duplicates) with its before → after traffic split, then
//! UpdateEndpointWeightsAndCapacities, then a wait for InService with progress.

use std::time::{Duration, Instant};

use aws_sdk_sagemaker::operation::update_endpoint_weights_and_capacities::builders::UpdateEndpointWeightsAndCapacitiesFluentBuilder;
use aws_sdk_sagemaker::types::DesiredWeightAndCapacity;
use serde::Serialize;

use crate::aws::config::Fleet;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::error::AwsError;

/// One requested change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeightChange {
    /// Variant name.
    pub variant: String,
    /// New weight.
    pub weight: Option<f64>,
    /// New instance count.
    pub instances: Option<i32>,
}

/// A variant's weight, share and instances on one side of a change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantSplit {
    /// Variant name.
    pub variant: String,
    /// Weight.
    pub weight: f64,
    /// Share of traffic (weight / total).
    pub share: f64,
    /// Instance count.
    pub instances: i32,
}

/// A validated change: what will be sent, and the split before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeightPlan {
    /// Endpoint name.
    pub endpoint: String,
    /// The split now (current weights).
    pub before: Vec<VariantSplit>,
    /// The split once applied.
    pub after: Vec<VariantSplit>,
    /// The changes to send.
    pub changes: Vec<WeightChange>,
}

fn splits(items: Vec<(String, f64, i32)>) -> Vec<VariantSplit> {
    let total: f64 = items.iter().map(|i| i.1).sum();
    items
        .into_iter()
        .map(|(variant, weight, instances)| VariantSplit {
            variant,
            weight,
            share: if total > 0.0 { weight / total } else { 0.0 },
            instances,
        })
        .collect()
}

/// Parses `VARIANT=WEIGHT` or `VARIANT=NN%` (a share; either all changes are shares or none).
pub fn parse_weight_args(args: &[String]) -> Result<Vec<WeightChange>, String> {
    let mut out = Vec::new();
    let mut percents = 0;
    for a in args {
        let (v, w) = a
            .split_once('=')
            .ok_or_else(|| format!("`{a}` is not VARIANT=WEIGHT"))?;
        let (num, is_pct) = match w.trim().strip_suffix('%') {
            Some(p) => (p, true),
            None => (w.trim(), false),
        };
        let weight: f64 = num
            .parse()
            .map_err(|_| format!("weight `{w}` of variant {v} is not a number"))?;
        percents += usize::from(is_pct);
        out.push(WeightChange {
            variant: v.trim().to_string(),
            weight: Some(weight),
            instances: None,
        });
    }
    if percents != 0 && percents != out.len() {
        return Err("give every weight as a percentage, or none".into());
    }
    if percents > 0 {
        let total: f64 = out.iter().filter_map(|c| c.weight).sum();
        if (total - 100.0).abs() > 0.01 {
            return Err(format!("percentages must add up to 100 (they add up to {total})"));
        }
    }
    Ok(out)
}

/// Parses `VARIANT=COUNT` instance changes and merges them into `changes`.
pub fn merge_instance_args(changes: &mut Vec<WeightChange>, args: &[String]) -> Result<(), String> {
    for a in args {
        let (v, n) = a.split_once('=').ok_or_else(|| format!("`{a}` is not VARIANT=COUNT"))?;
        let n: i32 = n
            .trim()
            .parse()
            .map_err(|_| format!("instance count `{n}` of variant {v} is not a whole number"))?;
        match changes.iter_mut().find(|c| c.variant == v.trim()) {
            Some(c) => c.instances = Some(n),
            None => changes.push(WeightChange {
                variant: v.trim().to_string(),
                weight: None,
                instances: Some(n),
            }),
        }
    }
    Ok(())
}

/// Validates changes against the endpoint as last seen and computes the split.
pub fn plan_weights(info: &EndpointInfo, changes: &[WeightChange]) -> Result<WeightPlan, String> {
    if changes.is_empty() {
        return Err("no change given".into());
    }
    let mut seen = std::collections::BTreeSet::new();
    for c in changes {
        if !seen.insert(c.variant.as_str()) {
            return Err(format!("variant {} is named more than once", c.variant));
        }
        if info.variant(&c.variant).is_none() {
            let known: Vec<&str> = info.variants.iter().map(|v| v.name.as_str()).collect();
            return Err(format!(
                "endpoint {} has no variant {} (it has: {})",
                info.name,
                c.variant,
                known.join(", ")
            ));
        }
        if let Some(w) = c.weight {
            wire_weight(w).map_err(|why| format!("weight of {} {why}", c.variant))?;
        }
        if let Some(n) = c.instances
            && n < 0
        {
            return Err(format!("instance count of {} must be >= 0 (got {n})", c.variant));
        }
    }
    let before = splits(
        info.variants
            .iter()
            .map(|v| (v.name.clone(), v.current_weight, v.current_instances))
            .collect(),
    );
    let after = splits(
        info.variants
            .iter()
            .map(|v| {
                let c = changes.iter().find(|c| c.variant == v.name);
                (
                    v.name.clone(),
                    c.and_then(|c| c.weight).unwrap_or(v.desired_weight),
                    c.and_then(|c| c.instances).unwrap_or(v.desired_instances),
                )
            })
            .collect(),
    );
    if after.iter().all(|s| s.weight == 0.0) {
        return Err("all weights would be 0: at least one variant must keep traffic".into());
    }
    Ok(WeightPlan {
        endpoint: info.name.clone(),
        before,
        after,
        changes: changes.to_vec(),
    })
}

/// A weight as the API carries it (`DesiredWeight` is a 32-bit float): finite, >= 0, within
/// f32's range, and not a positive number that f32 rounds to 0. The error completes
/// "weight of VARIANT ...".
pub fn wire_weight(w: f64) -> Result<f32, String> {
    let wire = w as f32;
    if !w.is_finite() || w < 0.0 || !wire.is_finite() || (w > 0.0 && wire == 0.0) {
        return Err(format!(
            "must be a finite number >= 0 that the API's 32-bit float holds ({:e} at most, {:e} at least when not 0); got {w}",
            f32::MAX,
            f32::from_bits(1)
        ));
    }
    Ok(wire)
}

/// A weight without a trailing `.0` when whole.
pub fn weight_text(w: f64) -> String {
    if w.fract() == 0.0 {
        format!("{w:.0}")
    } else {
        format!("{w}")
    }
}

impl Fleet {
    /// The UpdateEndpointWeightsAndCapacities request of a validated plan, ready to send.
    pub(crate) fn weights_request(&self, plan: &WeightPlan) -> UpdateEndpointWeightsAndCapacitiesFluentBuilder {
        let desired = plan
            .changes
            .iter()
            .map(|c| {
                DesiredWeightAndCapacity::builder()
                    .variant_name(&c.variant)
                    .set_desired_weight(c.weight.and_then(|w| wire_weight(w).ok()))
                    .set_desired_instance_count(c.instances)
                    .build()
            })
            .collect();
        self.sagemaker
            .update_endpoint_weights_and_capacities()
            .endpoint_name(&plan.endpoint)
            .set_desired_weights_and_capacities(Some(desired))
    }

    /// Sends a validated plan (UpdateEndpointWeightsAndCapacities).
    pub async fn apply_weights(&self, plan: &WeightPlan) -> Result<(), AwsError> {
        self.weights_request(plan).send().await.map_err(AwsError::from_sdk)?;
        Ok(())
    }

    /// Polls the endpoint until it is InService (or Failed), calling `progress` on each look.
    pub async fn wait_in_service(
        &self,
        endpoint: &str,
        timeout: Duration,
        interval: Duration,
        mut progress: impl FnMut(&EndpointInfo),
    ) -> Result<EndpointInfo, AwsError> {
        let start = Instant::now();
        loop {
            let calls = std::sync::atomic::AtomicUsize::new(0);
            let info = self.describe_endpoint_info(endpoint, &calls).await?;
            progress(&info);
            match info.status.as_str() {
                "InService" => return Ok(info),
                "Failed" | "UpdateRollbackFailed" | "OutOfService" => {
                    return Err(AwsError::Other {
                        code: info.status.clone(),
                        message: info
                            .failure_reason
                            .clone()
                            .unwrap_or_else(|| format!("endpoint {endpoint} is {}", info.status)),
                    });
                }
                _ => {}
            }
            if start.elapsed() >= timeout {
                return Err(AwsError::Timeout(format!(
                    "{endpoint} was still {} after {timeout:?}",
                    info.status
                )));
            }
            tokio::time::sleep(interval).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aws::endpoints::inventory::VariantInfo;

    fn info() -> EndpointInfo {
        let v = |name: &str, w: f64, n: i32| VariantInfo {
            name: name.into(),
            model_name: None,
            instance_type: None,
            routing: None,
            current_weight: w,
            desired_weight: w,
            traffic_share: 0.0,
            current_instances: n,
            desired_instances: n,
            statuses: vec![],
            image: None,
            multi_model: false,
            model_data_url: None,
            serverless: None,
        };
        EndpointInfo {
            name: "ep".into(),
            arn: String::new(),
            status: "InService".into(),
            failure_reason: None,
            created: 0.0,
            modified: 0.0,
            config_name: None,
            variants: vec![v("Stable", 9.0, 2), v("Canary", 1.0, 1)],
            multi_model: false,
            kind: Default::default(),
            shape: Default::default(),
            autoscaling: vec![],
            deploying: false,
        }
    }

    #[test]
    fn plans_show_before_and_after() {
        let changes = parse_weight_args(&["Stable=1".into(), "Canary=1".into()]).unwrap();
        let p = plan_weights(&info(), &changes).unwrap();
        assert_eq!((p.before[0].share, p.after[0].share), (0.9, 0.5));
        let pct = parse_weight_args(&["Stable=75%".into(), "Canary=25%".into()]).unwrap();
        assert_eq!(plan_weights(&info(), &pct).unwrap().after[1].share, 0.25);
    }

    #[test]
    fn invalid_changes_are_refused_locally() {
        let bad = |args: &[&str]| {
            let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            parse_weight_args(&a)
                .and_then(|c| plan_weights(&info(), &c))
                .unwrap_err()
        };
        assert!(bad(&["Nope=1"]).contains("no variant Nope"));
        assert!(bad(&["Stable=-1"]).contains(">= 0"));
        assert!(bad(&["Stable=NaN"]).contains("finite"));
        assert!(
            bad(&["Stable=1e308"]).contains("32-bit float"),
            "f32 overflows to infinity"
        );
        assert!(bad(&["Stable=1e-50"]).contains("32-bit float"), "f32 rounds it to 0");
        assert!(wire_weight(3e38).is_ok() && wire_weight(0.0) == Ok(0.0));
        assert!(bad(&["Stable=0", "Canary=0"]).contains("all weights would be 0"));
        assert!(bad(&["Stable=1", "Stable=2"]).contains("more than once"));
        assert!(bad(&["Stable=50%", "Canary=1"]).contains("percentage"));
        assert!(bad(&["Stable=50%", "Canary=20%"]).contains("add up to 100"));
        assert!(bad(&["Stable"]).contains("VARIANT=WEIGHT"));
    }
}
