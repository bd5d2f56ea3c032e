//! The autoscaling lint: whether the scaling an operator relies on can ever fire. Every policy
//! of an endpoint (or a PutScalingPolicy request before anyone sends it) is checked against the
//! endpoint's variants, its scalable targets and what CloudWatch publishes (ListMetrics,
//! gathered by the caller into [`MetricCheck`]s). Each [`Finding`] says what is wrong, what
//! will happen, and the sagedeck command that fixes it.

use serde::Serialize;

use super::scaling_spec::{Dimension, MetricRef, PolicySpec, TargetTracking, split_variant_resource};

/// The statistics `CustomizedMetricSpecification.Statistic` accepts.
pub const API_STATISTICS: [&str; 5] = ["Average", "Minimum", "Maximum", "SampleCount", "Sum"];
/// Metrics SageMaker publishes for endpoint variants: name, namespace, unit.
pub const SAGEMAKER_METRICS: [(&str, &str, &str); 18] = [
    ("Invocations", "AWS/SageMaker", "None"),
    ("InvocationsPerInstance", "AWS/SageMaker", "None"),
    ("Invocation4XXErrors", "AWS/SageMaker", "None"),
    ("Invocation5XXErrors", "AWS/SageMaker", "None"),
    ("InvocationModelErrors", "AWS/SageMaker", "None"),
    ("ModelLatency", "AWS/SageMaker", "Microseconds"),
    ("OverheadLatency", "AWS/SageMaker", "Microseconds"),
    ("ModelLoadingWaitTime", "AWS/SageMaker", "Microseconds"),
    ("ModelDownloadingTime", "AWS/SageMaker", "Microseconds"),
    ("ModelLoadingTime", "AWS/SageMaker", "Microseconds"),
    ("ModelUnloadingTime", "AWS/SageMaker", "Microseconds"),
    ("ModelCacheHit", "AWS/SageMaker", "None"),
    ("CPUUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("MemoryUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("DiskUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("GPUUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("GPUMemoryUtilization", "/aws/sagemaker/Endpoints", "Percent"),
    ("LoadedModelCount", "/aws/sagemaker/Endpoints", "None"),
];

/// What is wrong, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A statistic the API refuses.
    Statistic,
    /// A metric CloudWatch does not publish under that namespace, name and dimensions.
    MetricNotPublished,
    /// Units that make the target absurd (or match no data).
    Units,
    /// Dimensions (or the resource id) naming another endpoint or a variant it does not have.
    Dimensions,
    /// MinCapacity 0.
    MinZero,
    /// Scale-in cooldown shorter than scale-out.
    Cooldowns,
    /// MaxCapacity below the current instance count.
    MaxBelowCurrent,
    /// Two policies that fight.
    PoliciesFight,
    /// A policy for a variant with no scalable target.
    NoTarget,
}

/// One problem with the autoscaling of an endpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Kind.
    pub kind: FindingKind,
    /// Variant.
    pub variant: String,
    /// Policy (empty for the scalable target).
    pub policy: String,
    /// What is wrong.
    pub problem: String,
    /// What will happen.
    pub consequence: String,
    /// The command that fixes it.
    pub fix: String,
}

/// What ListMetrics says of a metric a policy names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricCheck {
    /// The metric as named.
    pub metric: MetricRef,
    /// Whether a metric with exactly these namespace, name and dimensions is listed.
    pub listed: bool,
    /// Other namespaces where the name with these dimensions is listed.
    pub elsewhere: Vec<String>,
}

/// A scalable target of a variant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetBounds {
    /// Variant.
    pub variant: String,
    /// MinCapacity.
    pub min: i32,
    /// MaxCapacity.
    pub max: i32,
}

/// Everything the lint looks at.
#[derive(Debug, Clone, Default)]
pub struct LintInput {
    /// Endpoint name.
    pub endpoint: String,
    /// Variants and their desired instance counts.
    pub variants: Vec<(String, i32)>,
    /// Scalable targets.
    pub targets: Vec<TargetBounds>,
    /// Policies in place.
    pub policies: Vec<PolicySpec>,
    /// ListMetrics answers for every metric the policies name.
    pub metrics: Vec<MetricCheck>,
}

/// The metric a target-tracking policy tracks, when it names one: the single-metric form, or
/// the metric-math query whose data is returned when it is a plain MetricStat. With the
/// statistic and unit it asks for, and its JSON path (for messages).
pub struct Tracked<'a> {
    /// The metric.
    pub metric: MetricRef,
    /// Statistic (or Stat).
    pub stat: Option<&'a str>,
    /// Unit filter.
    pub unit: Option<&'a str>,
    /// Whether this is the single-metric form (whose Statistic accepts only five values).
    pub single: bool,
}

/// Every metric a target-tracking configuration names (single form, or each MetricStat).
pub fn metrics_of(tt: &TargetTracking) -> Vec<Tracked<'_>> {
    let Some(c) = &tt.customized_metric_specification else {
        return Vec::new();
    };
    if c.metrics.is_empty() {
        return vec![Tracked {
            metric: MetricRef {
                namespace: c.namespace.clone().unwrap_or_default(),
                metric_name: c.metric_name.clone().unwrap_or_default(),
                dimensions: c.dimensions.clone(),
            },
            stat: c.statistic.as_deref(),
            unit: c.unit.as_deref(),
            single: true,
        }];
    }
    c.metrics
        .iter()
        .filter_map(|q| q.metric_stat.as_ref())
        .map(|s| Tracked {
            metric: s.metric.clone(),
            stat: Some(s.stat.as_str()),
            unit: s.unit.as_deref(),
            single: false,
        })
        .collect()
}

/// The tracked value's own metric (no math on top), for the units check.
fn returned_metric(tt: &TargetTracking) -> Option<Tracked<'_>> {
    let c = tt.customized_metric_specification.as_ref()?;
    if c.metrics.is_empty() {
        return metrics_of(tt).into_iter().next();
    }
    let returned: Vec<_> = c.metrics.iter().filter(|q| q.return_data != Some(false)).collect();
    let q = if c.metrics.len() == 1 {
        c.metrics.first()
    } else {
        returned.first().copied()
    }?;
    q.expression.is_none().then_some(())?;
    let s = q.metric_stat.as_ref()?;
    Some(Tracked {
        metric: s.metric.clone(),
        stat: Some(s.stat.as_str()),
        unit: s.unit.as_deref(),
        single: false,
    })
}

/// The namespace and unit SageMaker publishes a metric under, when it is one of its own.
pub fn sagemaker_metric(name: &str) -> Option<(&'static str, &'static str)> {
    SAGEMAKER_METRICS.iter().find(|m| m.0 == name).map(|m| (m.1, m.2))
}

/// Whether `s` is a CloudWatch statistic (the five, or a percentile `pNN`/`pNN.NN`).
pub fn is_cloudwatch_stat(s: &str) -> bool {
    if API_STATISTICS.contains(&s) {
        return true;
    }
    let Some(num) = s.strip_prefix('p') else {
        return false;
    };
    !num.is_empty() && !num.ends_with('.') && num.parse::<f64>().is_ok_and(|p| (0.0..=100.0).contains(&p))
}

struct Ctx<'a> {
    input: &'a LintInput,
    variant: String,
    policy: String,
}

impl Ctx<'_> {
    fn finding(&self, kind: FindingKind, problem: String, consequence: &str, fix: String) -> Finding {
        Finding {
            kind,
            variant: self.variant.clone(),
            policy: self.policy.clone(),
            problem,
            consequence: consequence.to_string(),
            fix,
        }
    }

    fn cmd(&self, args: &str) -> String {
        format!(
            "sagedeck autoscaling {} --variant {} {args}",
            self.input.endpoint, self.variant
        )
    }

    /// The command that writes this policy again as a correct p99 latency policy.
    fn p99_fix(&self, target_value: f64) -> String {
        let ms = if target_value < 1000.0 {
            target_value
        } else {
            target_value / 1000.0
        };
        self.cmd(&format!("--target-p99-ms {ms} --policy-name {}", self.policy))
    }
}

/// Lints everything of an endpoint: each target, each policy, and each pair of policies.
pub fn lint(input: &LintInput) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in &input.targets {
        out.extend(lint_target(input, t));
    }
    for p in &input.policies {
        out.extend(lint_policy(input, p));
    }
    out.extend(lint_pairs(input, &input.policies, None));
    out
}

/// Lints a PutScalingPolicy request before it is sent: the request itself, its variant's target,
/// and whether it fights the policies in place (one of the same name is replaced by it).
pub fn lint_request(input: &LintInput, request: &PolicySpec) -> Vec<Finding> {
    let mut out = lint_policy(input, request);
    let variant = request.variant().unwrap_or_default();
    for t in input.targets.iter().filter(|t| t.variant == variant) {
        out.extend(lint_target(input, t));
    }
    let mut policies: Vec<PolicySpec> = input
        .policies
        .iter()
        .filter(|p| !(p.policy_name == request.policy_name && p.resource_id == request.resource_id))
        .cloned()
        .collect();
    policies.push(request.clone());
    out.extend(lint_pairs(input, &policies, Some(&request.policy_name)));
    out
}

fn lint_target(input: &LintInput, t: &TargetBounds) -> Vec<Finding> {
    let ctx = Ctx {
        input,
        variant: t.variant.clone(),
        policy: String::new(),
    };
    let mut out = Vec::new();
    if t.min == 0 {
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

fn dim<'a>(dims: &'a [Dimension], name: &str) -> Option<&'a str> {
    dims.iter().find(|d| d.name == name).map(|d| d.value.as_str())
}

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
            let names: Vec<&str> = input.variants.iter().map(|v| v.0.as_str()).collect();
            out.push(ctx.finding(
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
            ));
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
                input.endpoint
            )
        };
        out.push(ctx.finding(
            FindingKind::MetricNotPublished,
            format!(
                "CloudWatch publishes no metric {} in namespace {} with dimensions {}{where_}",
                r.metric_name,
                r.namespace,
                r.dimensions.iter().map(|d| format!("{}={}", d.name, d.value)).collect::<Vec<_>>().join(",")
            ),
            "the policy's alarms stay INSUFFICIENT_DATA: it never scales, in or out",
            fix,
        ));
    }
    out
}

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

/// The metric a target-tracking policy tracks, as one comparable text.
fn tracked_key(p: &PolicySpec) -> Option<String> {
    let tt = p.target_tracking_scaling_policy_configuration.as_ref()?;
    if let Some(pre) = &tt.predefined_metric_specification {
        return Some(pre.predefined_metric_type.clone());
    }
    let ms = metrics_of(tt);
    (!ms.is_empty()).then(|| {
        ms.iter()
            .map(|m| format!("{:?} {:?}", m.metric, m.stat))
            .collect::<Vec<_>>()
            .join("+")
    })
}

/// Pairs of policies on one variant that fight: two target-tracking policies on the same metric
/// with different targets, or a target-tracking policy beside a step policy that scales in.
/// With `only`, just the pairs involving that policy.
fn lint_pairs(input: &LintInput, policies: &[PolicySpec], only: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, a) in policies.iter().enumerate() {
        for b in &policies[i + 1..] {
            if a.resource_id != b.resource_id || only.is_some_and(|n| n != a.policy_name && n != b.policy_name) {
                continue;
            }
            let ctx = Ctx {
                input,
                variant: a.variant().unwrap_or_default().to_string(),
                policy: format!("{} + {}", a.policy_name, b.policy_name),
            };
            let target = |p: &PolicySpec| {
                p.target_tracking_scaling_policy_configuration
                    .as_ref()
                    .map(|t| t.target_value)
            };
            let same_metric = tracked_key(a).is_some() && tracked_key(a) == tracked_key(b);
            if same_metric && target(a) != target(b) {
                out.push(ctx.finding(
                    FindingKind::PoliciesFight,
                    format!(
                        "{} and {} track the same metric with targets {} and {}",
                        a.policy_name,
                        b.policy_name,
                        target(a).unwrap_or_default(),
                        target(b).unwrap_or_default()
                    ),
                    "they fight: the lower target scales out, the higher one keeps asking to scale in, and the count follows whichever alarm fired last",
                    ctx.cmd(&format!("--remove-policy {}", b.policy_name)),
                ));
            }
            let scales_in = |p: &PolicySpec| {
                p.step_scaling_policy_configuration
                    .as_ref()
                    .is_some_and(|s| s.step_adjustments.iter().any(|a| a.scaling_adjustment < 0))
            };
            let tracks = |p: &PolicySpec| p.is_target_tracking();
            let step = if tracks(a) && scales_in(b) {
                Some(b)
            } else if tracks(b) && scales_in(a) {
                Some(a)
            } else {
                None
            };
            if let Some(step) = step {
                out.push(ctx.finding(
                    FindingKind::PoliciesFight,
                    format!(
                        "step policy {} scales in while a target-tracking policy holds the same variant",
                        step.policy_name
                    ),
                    "they fight: the step policy removes instances the target-tracking policy adds back, a cycle of cold starts",
                    ctx.cmd(&format!("--remove-policy {}", step.policy_name)),
                ));
            }
        }
    }
    out
}
