//! Lints of one scalable target, and of one policy on its own: its resource, statistics,
//! metrics, units and cooldowns.

use crate::aws::scaling::spec::{Dimension, MetricRef, PolicySpec, TargetTracking, split_variant_resource};

use super::finding::{API_STATISTICS, Ctx, Finding, FindingKind, LintInput, MetricCheck, TargetBounds};
use super::tracked::{is_cloudwatch_stat, metrics_of, returned_metric, sagemaker_metric};

/// Lints a scalable target: MinCapacity 0, or MaxCapacity below the variant's instances now.
pub(super) fn lint_target(input: &LintInput, t: &TargetBounds) -> Vec<Finding> {
    let ctx = Ctx {
        input,
        variant: t.variant.clone(),
        policy: String::new(),
    };
    let mut out = Vec::new();
    // Zero instances is how an asynchronous endpoint idles: `shape.rs` checks what wakes it.
    if t.min == 0 && !input.asynchronous {
        out.push(ctx.finding(
            FindingKind::MinZero,
            "MinCapacity is 0".into(),
            "after a quiet period the variant scales to zero instances and the next call waits for a cold start of minutes",
            ctx.cmd(&format!("--min 1 --max {}", t.max.max(1))),
        ));
    }
    let current = input.variants.iter().find(|v| v.0 == t.variant).map(|v| v.1);
    if let Some(n) = current.filter(|n| *n > t.max) {
        out.push(ctx.finding(
            FindingKind::MaxBelowCurrent,
            format!("MaxCapacity {} is below the {n} instances the variant has now", t.max),
            "the next scaling activity cuts the variant to MaxCapacity, whatever the load",
            ctx.cmd(&format!("--min {} --max {n}", t.min.max(1).min(n))),
        ));
    }
    out
}

/// Lints one policy on its own.
pub fn lint_policy(input: &LintInput, p: &PolicySpec) -> Vec<Finding> {
    let variant = p.variant().unwrap_or_default().to_string();
    let ctx = Ctx {
        input,
        variant: variant.clone(),
        policy: p.policy_name.clone(),
    };
    let mut out = Vec::new();
    let own = split_variant_resource(&p.resource_id);
    if own.is_none_or(|(e, v)| e != input.endpoint || !input.variants.iter().any(|x| x.0 == v)) {
        out.push(ctx.finding(
            FindingKind::Dimensions,
            format!("resource id {} names no variant of {}", p.resource_id, input.endpoint),
            "AWS refuses the policy: there is no such scalable target",
            format!("sagedeck autoscaling {} (for its variants)", input.endpoint),
        ));
    } else if !input.targets.iter().any(|t| t.variant == variant) {
        out.push(ctx.finding(
            FindingKind::NoTarget,
            format!("variant {variant} has no scalable target registered"),
            "AWS refuses the policy (ObjectNotFoundException)",
            ctx.cmd("--min 1 --max 4"),
        ));
    }
    let Some(tt) = &p.target_tracking_scaling_policy_configuration else {
        return out;
    };
    out.extend(lint_statistics(&ctx, tt));
    out.extend(lint_metrics(&ctx, tt));
    out.extend(lint_units(&ctx, tt));
    let (scale_in, scale_out) = (
        tt.scale_in_cooldown.unwrap_or(300),
        tt.scale_out_cooldown.unwrap_or(300),
    );
    if scale_in < scale_out && tt.disable_scale_in != Some(true) {
        out.push(ctx.finding(
            FindingKind::Cooldowns,
            format!("scale-in cooldown {scale_in}s is shorter than scale-out cooldown {scale_out}s"),
            "the variant scales in faster than it can scale back out: a new instance takes minutes to load its model, so returning traffic meets too few instances",
            ctx.cmd(&format!(
                "--policy-name {} --scale-in-cooldown {} --scale-out-cooldown {scale_out}",
                p.policy_name,
                scale_out.max(300)
            )),
        ));
    }
    out
}

/// The statistics the policy asks for that the API refuses.
fn lint_statistics(ctx: &Ctx<'_>, tt: &TargetTracking) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in metrics_of(tt) {
        let Some(stat) = m.stat else { continue };
        let latency = sagemaker_metric(&m.metric.metric_name).is_some_and(|(_, u)| u == "Microseconds");
        if m.single && !API_STATISTICS.contains(&stat) {
            let fix = if latency {
                ctx.p99_fix(tt.target_value)
            } else {
                "write CustomizedMetricSpecification.Metrics with a MetricStat whose Stat is the percentile, or use one of Average, Minimum, Maximum, SampleCount, Sum".into()
            };
            out.push(ctx.finding(
                FindingKind::Statistic,
                format!(
                    "Statistic \"{stat}\" is not one CustomizedMetricSpecification accepts (Average, Minimum, Maximum, SampleCount, Sum); a percentile needs the metric-math form"
                ),
                "AWS refuses PutScalingPolicy with a ValidationException: the policy does not exist",
                fix,
            ));
        } else if !m.single && !is_cloudwatch_stat(stat) {
            out.push(ctx.finding(
                FindingKind::Statistic,
                format!("MetricStat.Stat \"{stat}\" is not a CloudWatch statistic"),
                "AWS refuses PutScalingPolicy with a ValidationException",
                ctx.p99_fix(tt.target_value),
            ));
        }
    }
    out
}

/// The value of the dimension `name`.
fn dim<'a>(dims: &'a [Dimension], name: &str) -> Option<&'a str> {
    dims.iter().find(|d| d.name == name).map(|d| d.value.as_str())
}

/// The metrics the policy names that match no data: dimensions naming another endpoint or an
/// unknown variant, or a metric ListMetrics does not list.
fn lint_metrics(ctx: &Ctx<'_>, tt: &TargetTracking) -> Vec<Finding> {
    let mut out = Vec::new();
    let input = ctx.input;
    for m in metrics_of(tt) {
        let r = &m.metric;
        let endpoint = dim(&r.dimensions, "EndpointName");
        let variant = dim(&r.dimensions, "VariantName");
        let dims_wrong = endpoint.is_some_and(|e| e != input.endpoint)
            || variant.is_some_and(|v| !input.variants.iter().any(|x| x.0 == v));
        if dims_wrong {
            out.push(wrong_dimensions(ctx, tt, endpoint, variant));
            continue;
        }
        let check = input.metrics.iter().find(|c| c.metric == *r);
        if check.is_some_and(|c| c.listed) {
            continue;
        }
        let known = sagemaker_metric(&r.metric_name);
        let sagemaker_dims = endpoint == Some(input.endpoint.as_str()) && variant.is_some() && r.dimensions.len() == 2;
        // SageMaker publishes its own metrics once the variant is invoked: an idle variant's
        // metric is not listed yet, which is no fault of the policy.
        if known.is_some_and(|(ns, _)| ns == r.namespace) && sagemaker_dims {
            continue;
        }
        out.push(not_published(ctx, tt, r, check));
    }
    out
}

/// The finding for dimensions `EndpointName` and `VariantName` that name no variant of the
/// endpoint.
fn wrong_dimensions(ctx: &Ctx<'_>, tt: &TargetTracking, endpoint: Option<&str>, variant: Option<&str>) -> Finding {
    let input = ctx.input;
    let names: Vec<&str> = input.variants.iter().map(|v| v.0.as_str()).collect();
    ctx.finding(
        FindingKind::Dimensions,
        format!(
            "dimensions EndpointName={} VariantName={} name no variant of {} (its variants: {})",
            endpoint.unwrap_or("-"),
            variant.unwrap_or("-"),
            input.endpoint,
            names.join(", ")
        ),
        "no data ever matches: the policy's alarms stay INSUFFICIENT_DATA and it never scales",
        ctx.p99_fix(tt.target_value),
    )
}

/// The finding for a metric CloudWatch does not list, saying where it is published instead
/// when SageMaker or ListMetrics knows.
fn not_published(ctx: &Ctx<'_>, tt: &TargetTracking, r: &MetricRef, check: Option<&MetricCheck>) -> Finding {
    let known = sagemaker_metric(&r.metric_name);
    let where_ = match (known, check.map(|c| c.elsewhere.as_slice()).unwrap_or_default()) {
        (Some((ns, _)), _) if ns != r.namespace => format!("; SageMaker publishes {} under {ns}", r.metric_name),
        (_, [first, ..]) => format!("; it is published under {first}"),
        _ => String::new(),
    };
    let fix = if known.is_some_and(|(_, u)| u == "Microseconds") {
        ctx.p99_fix(tt.target_value)
    } else {
        format!(
            "name a metric that ListMetrics lists (sagedeck metrics {})",
            ctx.input.endpoint
        )
    };
    ctx.finding(
        FindingKind::MetricNotPublished,
        format!(
            "CloudWatch publishes no metric {} in namespace {} with dimensions {}{where_}",
            r.metric_name,
            r.namespace,
            r.dimensions
                .iter()
                .map(|d| format!("{}={}", d.name, d.value))
                .collect::<Vec<_>>()
                .join(",")
        ),
        "the policy's alarms stay INSUFFICIENT_DATA: it never scales, in or out",
        fix,
    )
}

/// The units that make the target absurd: a Unit filter other than the one the metric is
/// published in, or a latency target under 1000 (microseconds, so under a millisecond).
fn lint_units(ctx: &Ctx<'_>, tt: &TargetTracking) -> Vec<Finding> {
    let Some(m) = returned_metric(tt) else {
        return Vec::new();
    };
    let Some((_, unit)) = sagemaker_metric(&m.metric.metric_name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(u) = m.unit.filter(|u| *u != unit) {
        out.push(ctx.finding(
            FindingKind::Units,
            format!("Unit {u}: {} is published in {unit}", m.metric.metric_name),
            "CloudWatch matches no data of that unit: the alarms stay INSUFFICIENT_DATA",
            ctx.p99_fix(tt.target_value),
        ));
    }
    if unit == "Microseconds" && tt.target_value < 1000.0 {
        out.push(ctx.finding(
            FindingKind::Units,
            format!(
                "TargetValue {} is in microseconds ({} is published in microseconds): {} ms",
                tt.target_value,
                m.metric.metric_name,
                tt.target_value / 1000.0
            ),
            "every real latency is far above it: the policy scales out to MaxCapacity and never scales in",
            ctx.p99_fix(tt.target_value),
        ));
    }
    out
}
