//! The metric of a target-tracking policy: validated as AWS validates it (a single metric's
//! `Statistic` is one of five; percentiles need the metric-math form `Metrics` with a `MetricStat`
//! whose `Stat` is `p99`), and resolved to the sandbox series it tracks.

use serde_json::Value;

use super::component::parse_component_resource;
use super::request::{aas_error, parse_variant_resource};
use crate::sandbox::cloudwatch::metrics::SeriesKey;
use crate::sandbox::cloudwatch::metrics::query::Stat;
use crate::sandbox::http::wire::ApiError;

/// The statistics `CustomizedMetricSpecification.Statistic` accepts (AWS's enum order).
const STATISTICS: [&str; 5] = ["Average", "Minimum", "Maximum", "SampleCount", "Sum"];

/// The series, statistic and unit a target-tracking policy follows.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackedMetric {
    /// The series.
    pub key: SeriesKey,
    /// Statistic (`Sum`, `Average`, `p99`, ...).
    pub stat: String,
    /// Unit filter, when the policy names one.
    pub unit: Option<String>,
}

fn invalid(message: impl Into<String>) -> ApiError {
    aas_error("ValidationException", message)
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn dimensions(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|d| Some((str_of(d, "Name")?.to_string(), str_of(d, "Value")?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// AWS's checks of a `CustomizedMetricSpecification`: the single-metric form with a statistic of
/// the five, or the metric-math form with ids, MetricStats (any CloudWatch statistic) and exactly
/// one query returning data.
pub fn validate_customized(c: &Value) -> Result<(), ApiError> {
    let path = "targetTrackingScalingPolicyConfiguration.customizedMetricSpecification";
    let Some(queries) = c.get("Metrics").and_then(Value::as_array) else {
        for key in ["MetricName", "Namespace", "Statistic"] {
            if str_of(c, key).is_none() {
                return Err(invalid(format!(
                    "CustomizedMetricSpecification requires {key} (or Metrics, the metric-math form)."
                )));
            }
        }
        let stat = str_of(c, "Statistic").unwrap_or_default();
        if !STATISTICS.contains(&stat) {
            return Err(invalid(format!(
                "1 validation error detected: Value '{stat}' at '{path}.statistic' failed to satisfy constraint: Member must satisfy enum value set: [{}]",
                STATISTICS.join(", ")
            )));
        }
        return Ok(());
    };
    if ["MetricName", "Namespace", "Statistic", "Dimensions"]
        .iter()
        .any(|k| c.get(k).is_some())
    {
        return Err(invalid(
            "CustomizedMetricSpecification takes either Metrics or MetricName, Namespace, Dimensions and Statistic, not both.",
        ));
    }
    if queries.is_empty() {
        return Err(invalid("CustomizedMetricSpecification.Metrics must not be empty."));
    }
    for q in queries {
        if str_of(q, "Id").is_none_or(str::is_empty) {
            return Err(invalid(
                "Every query of CustomizedMetricSpecification.Metrics needs an Id.",
            ));
        }
        match (q.get("MetricStat"), str_of(q, "Expression")) {
            (Some(s), None) => {
                let stat = str_of(s, "Stat").unwrap_or_default();
                if Stat::parse(stat).is_none() {
                    return Err(invalid(format!(
                        "1 validation error detected: Value '{stat}' at '{path}.metrics.member.metricStat.stat' is not a valid CloudWatch statistic"
                    )));
                }
                let m = s.get("Metric").unwrap_or(&Value::Null);
                if str_of(m, "Namespace").is_none() || str_of(m, "MetricName").is_none() {
                    return Err(invalid("MetricStat.Metric requires Namespace and MetricName."));
                }
            }
            (None, Some(_)) => {}
            _ => {
                return Err(invalid(
                    "Each metric query needs exactly one of MetricStat and Expression.",
                ));
            }
        }
    }
    let returning = queries
        .iter()
        .filter(|q| {
            q.get("ReturnData")
                .and_then(Value::as_bool)
                .unwrap_or(queries.len() == 1)
        })
        .count();
    if returning != 1 {
        return Err(invalid(format!(
            "Exactly one metric query must have ReturnData set to true (got {returning})."
        )));
    }
    Ok(())
}

/// The series a target-tracking configuration follows on the variant `resource_id`: the
/// predefined invocations per instance (Sum per minute), a customized metric, or the metric-math
/// query that returns data when it is a plain MetricStat. `None` for what the sandbox does not
/// evaluate (other predefined types, expressions).
pub fn tracked_metric(resource_id: &str, config: &Value) -> Option<TrackedMetric> {
    if let Some(component) = parse_component_resource(resource_id) {
        return component_metric(component, config);
    }
    let (endpoint, variant) = parse_variant_resource(resource_id)?;
    if let Some(pre) = config.get("PredefinedMetricSpecification") {
        let (name, stat) = match str_of(pre, "PredefinedMetricType")? {
            "SageMakerVariantInvocationsPerInstance" => ("InvocationsPerInstance", "Sum"),
            "SageMakerVariantProvisionedConcurrencyUtilization" => {
                ("ServerlessProvisionedConcurrencyUtilization", "Average")
            }
            _ => return None,
        };
        return Some(TrackedMetric {
            key: SeriesKey::new(
                "AWS/SageMaker",
                name,
                &[("EndpointName", endpoint), ("VariantName", variant)],
            ),
            stat: stat.into(),
            unit: None,
        });
    }
    customized_metric(config)
}

/// The predefined metrics of a component (`AWS/SageMaker` with `InferenceComponentName`):
/// invocations per copy (Sum per minute) and concurrent requests per copy (the high-resolution
/// one, Average); or its customized metric.
fn component_metric(component: &str, config: &Value) -> Option<TrackedMetric> {
    let Some(pre) = config.get("PredefinedMetricSpecification") else {
        return customized_metric(config);
    };
    let (name, stat) = match str_of(pre, "PredefinedMetricType")? {
        "SageMakerInferenceComponentInvocationsPerCopy" => ("InvocationsPerCopy", "Sum"),
        "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution" => {
            ("ConcurrentRequestsPerCopy", "Average")
        }
        _ => return None,
    };
    Some(TrackedMetric {
        key: SeriesKey::new("AWS/SageMaker", name, &[("InferenceComponentName", component)]),
        stat: stat.into(),
        unit: None,
    })
}

/// A customized metric: the single-metric form, or the metric-math query that returns data.
fn customized_metric(config: &Value) -> Option<TrackedMetric> {
    let c = config.get("CustomizedMetricSpecification")?;
    let (metric, stat, unit) = match c.get("Metrics").and_then(Value::as_array) {
        Some(queries) => {
            let q = queries.iter().find(|q| {
                q.get("ReturnData")
                    .and_then(Value::as_bool)
                    .unwrap_or(queries.len() == 1)
            })?;
            let s = q.get("MetricStat")?;
            (s.get("Metric")?, str_of(s, "Stat")?, str_of(s, "Unit"))
        }
        None => (c, str_of(c, "Statistic")?, str_of(c, "Unit")),
    };
    Some(TrackedMetric {
        key: SeriesKey::from_owned(
            str_of(metric, "Namespace")?.to_string(),
            str_of(metric, "MetricName")?.to_string(),
            dimensions(metric.get("Dimensions")),
        ),
        stat: stat.to_string(),
        unit: unit.map(str::to_string),
    })
}
