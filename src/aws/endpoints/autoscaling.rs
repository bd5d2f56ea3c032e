//! Autoscaling of SageMaker variants (Application Auto Scaling, resource ids
//! `endpoint/NAME/variant/VARIANT`): targets and policies for the whole fleet in a few paged
//! calls, and recent scaling activities of one endpoint.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_applicationautoscaling::types::{
    ScalingPolicy, ServiceNamespace, TargetTrackingScalingPolicyConfiguration,
};
use serde::Serialize;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;

/// A target-tracking or step policy, summarised.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PolicyInfo {
    /// Policy name.
    pub name: String,
    /// TargetTrackingScaling | StepScaling.
    pub policy_type: String,
    /// Target value (target tracking).
    pub target_value: Option<f64>,
    /// What it tracks (`SageMakerVariantInvocationsPerInstance`, or `Namespace/Metric stat`).
    pub metric: Option<String>,
    /// Scale-in cooldown (s).
    pub scale_in_cooldown: Option<i32>,
    /// Scale-out cooldown (s).
    pub scale_out_cooldown: Option<i32>,
}

/// Autoscaling of one variant.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScalingInfo {
    /// Variant name.
    pub variant: String,
    /// Min capacity.
    pub min: i32,
    /// Max capacity.
    pub max: i32,
    /// Policies.
    pub policies: Vec<PolicyInfo>,
}

/// One scaling activity.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ActivityInfo {
    /// Resource id.
    pub resource_id: String,
    /// What it did.
    pub description: String,
    /// Why.
    pub cause: String,
    /// Pending | InProgress | Successful | Failed ...
    pub status: String,
    /// Start (epoch seconds).
    pub start: f64,
    /// End (epoch seconds).
    pub end: Option<f64>,
}

/// The endpoint and variant of a resource id `endpoint/NAME/variant/VARIANT`.
fn split_resource(id: &str) -> Option<(String, String)> {
    let rest = id.strip_prefix("endpoint/")?;
    let (e, v) = rest.split_once("/variant/")?;
    Some((e.to_string(), v.to_string()))
}

/// Targets and policies of every SageMaker variant (or of one endpoint), keyed by endpoint.
pub async fn fleet_scaling(
    fleet: &Fleet,
    endpoint: Option<&str>,
    calls: &AtomicUsize,
) -> Result<BTreeMap<String, Vec<ScalingInfo>>, AwsError> {
    let mut out = scalable_targets(fleet, endpoint, calls).await?;
    if out.is_empty() {
        return Ok(out);
    }
    attach_policies(fleet, endpoint, calls, &mut out).await?;
    Ok(out)
}

/// Every page of DescribeScalableTargets: the variants with a target (of `endpoint` only, when
/// given), keyed by endpoint, their policies still empty.
async fn scalable_targets(
    fleet: &Fleet,
    endpoint: Option<&str>,
    calls: &AtomicUsize,
) -> Result<BTreeMap<String, Vec<ScalingInfo>>, AwsError> {
    let mut out: BTreeMap<String, Vec<ScalingInfo>> = BTreeMap::new();
    let mut token = None;
    loop {
        calls.fetch_add(1, Ordering::Relaxed);
        let page = fleet
            .autoscaling
            .describe_scalable_targets()
            .service_namespace(ServiceNamespace::Sagemaker)
            .set_next_token(token)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        for t in page.scalable_targets() {
            let Some((e, v)) = split_resource(t.resource_id()) else {
                continue;
            };
            if endpoint.is_some_and(|want| want != e) {
                continue;
            }
            out.entry(e).or_default().push(ScalingInfo {
                variant: v,
                min: t.min_capacity(),
                max: t.max_capacity(),
                policies: Vec::new(),
            });
        }
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    Ok(out)
}

/// Every page of DescribeScalingPolicies (of the one variant's resource when `endpoint` has a
/// single scalable variant), each policy added to its variant in `out`.
async fn attach_policies(
    fleet: &Fleet,
    endpoint: Option<&str>,
    calls: &AtomicUsize,
    out: &mut BTreeMap<String, Vec<ScalingInfo>>,
) -> Result<(), AwsError> {
    let mut token = None;
    loop {
        calls.fetch_add(1, Ordering::Relaxed);
        let mut req = fleet
            .autoscaling
            .describe_scaling_policies()
            .service_namespace(ServiceNamespace::Sagemaker);
        if let (Some(e), true) = (endpoint, out.get(endpoint.unwrap_or("")).is_some_and(|v| v.len() == 1)) {
            req = req.resource_id(format!("endpoint/{e}/variant/{}", out[e][0].variant));
        }
        let page = req.set_next_token(token).send().await.map_err(AwsError::from_sdk)?;
        for p in page.scaling_policies() {
            let Some((e, v)) = split_resource(p.resource_id()) else {
                continue;
            };
            let Some(info) = out.get_mut(&e).and_then(|vs| vs.iter_mut().find(|s| s.variant == v)) else {
                continue;
            };
            info.policies.push(policy_info(p));
        }
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    Ok(())
}

/// The summary of a policy as DescribeScalingPolicies answers it.
fn policy_info(p: &ScalingPolicy) -> PolicyInfo {
    let tt = p.target_tracking_scaling_policy_configuration();
    PolicyInfo {
        name: p.policy_name().to_string(),
        policy_type: p.policy_type().as_str().to_string(),
        target_value: tt.map(|c| c.target_value()),
        metric: tt.and_then(tracked_metric),
        scale_in_cooldown: tt.and_then(|c| c.scale_in_cooldown()),
        scale_out_cooldown: tt.and_then(|c| c.scale_out_cooldown()),
    }
}

/// What a target-tracking policy tracks: its predefined metric type, or
/// `Namespace/Metric statistic` of its customized metric.
fn tracked_metric(c: &TargetTrackingScalingPolicyConfiguration) -> Option<String> {
    c.predefined_metric_specification()
        .map(|m| m.predefined_metric_type().as_str().to_string())
        .or_else(|| {
            c.customized_metric_specification().map(|m| {
                format!(
                    "{}/{} {}",
                    m.namespace().unwrap_or_default(),
                    m.metric_name().unwrap_or_default(),
                    m.statistic().map(|s| s.as_str()).unwrap_or("")
                )
            })
        })
}

impl Fleet {
    /// The most recent scaling activities of an endpoint's variants (newest first).
    pub async fn scaling_activities(
        &self,
        endpoint: &str,
        variants: &[String],
        limit: i32,
    ) -> Result<Vec<ActivityInfo>, AwsError> {
        let mut out = Vec::new();
        for v in variants {
            let page = self
                .autoscaling
                .describe_scaling_activities()
                .service_namespace(ServiceNamespace::Sagemaker)
                .resource_id(format!("endpoint/{endpoint}/variant/{v}"))
                .max_results(limit)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            out.extend(page.scaling_activities().iter().map(|a| ActivityInfo {
                resource_id: a.resource_id().to_string(),
                description: a.description().to_string(),
                cause: a.cause().to_string(),
                status: a.status_code().as_str().to_string(),
                start: a.start_time().as_secs_f64(),
                end: a.end_time().map(|t| t.as_secs_f64()),
            }));
        }
        out.sort_by(|a, b| b.start.total_cmp(&a.start));
        Ok(out)
    }
}
