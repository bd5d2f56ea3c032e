//! Scaling policies as data: the shape of a PutScalingPolicy request exactly as a boto3 script
//! passes it (PascalCase keyword arguments, which is also the awsJson1_1 wire shape), read from
//! JSON or from DescribeScalingPolicies, and turned back into a request of the Rust SDK.

use aws_sdk_applicationautoscaling::types as aas;
use serde::{Deserialize, Serialize};

/// The scalable dimension of a SageMaker variant.
pub const VARIANT_DIMENSION: &str = "sagemaker:variant:DesiredInstanceCount";
/// The predefined metric of SageMaker variants (invocations per instance per minute).
pub const INVOCATIONS_PER_INSTANCE: &str = "SageMakerVariantInvocationsPerInstance";

/// `endpoint/ENDPOINT/variant/VARIANT`.
pub fn variant_resource_id(endpoint: &str, variant: &str) -> String {
    format!("endpoint/{endpoint}/variant/{variant}")
}

/// Splits `endpoint/ENDPOINT/variant/VARIANT` into endpoint and variant.
pub fn split_variant_resource(id: &str) -> Option<(&str, &str)> {
    id.strip_prefix("endpoint/")?.split_once("/variant/")
}

/// A CloudWatch dimension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Dimension {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
}

/// The metric of a `MetricStat`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MetricRef {
    /// Namespace.
    pub namespace: String,
    /// Metric name.
    pub metric_name: String,
    /// Dimensions.
    pub dimensions: Vec<Dimension>,
}

/// A metric and a statistic (the metric-math form's `MetricStat`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MetricStat {
    /// The metric.
    pub metric: MetricRef,
    /// Statistic: Average, Sum, ... or a percentile such as `p99`.
    pub stat: String,
    /// Unit filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// One query of the metric-math form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MetricQuery {
    /// Id (`m1`).
    pub id: String,
    /// Math expression (instead of `MetricStat`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// Label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Metric and statistic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric_stat: Option<MetricStat>,
    /// Whether this query is the tracked value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_data: Option<bool>,
}

/// `CustomizedMetricSpecification`: either one metric with a statistic, or `Metrics` (math).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CustomizedMetric {
    /// Metric name (single-metric form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric_name: Option<String>,
    /// Namespace (single-metric form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Dimensions (single-metric form).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dimensions: Vec<Dimension>,
    /// Statistic (single-metric form): Average, Minimum, Maximum, SampleCount or Sum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statistic: Option<String>,
    /// Unit (single-metric form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The metric-math form.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricQuery>,
}

/// `PredefinedMetricSpecification`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PredefinedMetric {
    /// `SageMakerVariantInvocationsPerInstance`, ...
    pub predefined_metric_type: String,
    /// Resource label (ALB metrics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_label: Option<String>,
}

/// `TargetTrackingScalingPolicyConfiguration`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TargetTracking {
    /// Target value of the metric.
    pub target_value: f64,
    /// Predefined metric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predefined_metric_specification: Option<PredefinedMetric>,
    /// Customized metric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub customized_metric_specification: Option<CustomizedMetric>,
    /// Seconds after a scale-out before another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_out_cooldown: Option<i32>,
    /// Seconds after a scale-in before another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_in_cooldown: Option<i32>,
    /// Never scale in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disable_scale_in: Option<bool>,
}

/// One step of a step-scaling policy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct StepAdjustment {
    /// Lower bound (relative to the alarm threshold).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric_interval_lower_bound: Option<f64>,
    /// Upper bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric_interval_upper_bound: Option<f64>,
    /// Change.
    pub scaling_adjustment: i32,
}

/// `StepScalingPolicyConfiguration`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct StepScaling {
    /// ChangeInCapacity | PercentChangeInCapacity | ExactCapacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjustment_type: Option<String>,
    /// Steps.
    pub step_adjustments: Vec<StepAdjustment>,
    /// Cooldown (s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cooldown: Option<i32>,
    /// Average | Minimum | Maximum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric_aggregation_type: Option<String>,
}

/// A PutScalingPolicy request (or a described policy), as boto3's keyword arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PolicySpec {
    /// Policy name.
    pub policy_name: String,
    /// `sagemaker`.
    pub service_namespace: String,
    /// `endpoint/E/variant/V`.
    pub resource_id: String,
    /// `sagemaker:variant:DesiredInstanceCount`.
    pub scalable_dimension: String,
    /// TargetTrackingScaling | StepScaling (AWS's default: StepScaling).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_type: Option<String>,
    /// Target tracking configuration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_tracking_scaling_policy_configuration: Option<TargetTracking>,
    /// Step scaling configuration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_scaling_policy_configuration: Option<StepScaling>,
}

impl PolicySpec {
    /// Parses a request from JSON (boto3 keyword arguments); the error says what is wrong.
    pub fn from_json(text: &str) -> Result<PolicySpec, String> {
        serde_json::from_str(text).map_err(|e| format!("not a PutScalingPolicy request: {e}"))
    }

    /// Whether this is a target-tracking policy.
    pub fn is_target_tracking(&self) -> bool {
        self.policy_type.as_deref() == Some("TargetTrackingScaling")
    }

    /// The variant it scales, when its resource id names one.
    pub fn variant(&self) -> Option<&str> {
        split_variant_resource(&self.resource_id).map(|(_, v)| v)
    }

    /// A policy read from DescribeScalingPolicies.
    pub fn from_sdk(p: &aas::ScalingPolicy) -> PolicySpec {
        PolicySpec {
            policy_name: p.policy_name().to_string(),
            service_namespace: p.service_namespace().as_str().to_string(),
            resource_id: p.resource_id().to_string(),
            scalable_dimension: p.scalable_dimension().as_str().to_string(),
            policy_type: Some(p.policy_type().as_str().to_string()),
            target_tracking_scaling_policy_configuration: p
                .target_tracking_scaling_policy_configuration()
                .map(tt_from_sdk),
            step_scaling_policy_configuration: p.step_scaling_policy_configuration().map(|s| StepScaling {
                adjustment_type: s.adjustment_type().map(|a| a.as_str().to_string()),
                step_adjustments: s
                    .step_adjustments()
                    .iter()
                    .map(|a| StepAdjustment {
                        metric_interval_lower_bound: a.metric_interval_lower_bound(),
                        metric_interval_upper_bound: a.metric_interval_upper_bound(),
                        scaling_adjustment: a.scaling_adjustment(),
                    })
                    .collect(),
                cooldown: s.cooldown(),
                metric_aggregation_type: s.metric_aggregation_type().map(|a| a.as_str().to_string()),
            }),
        }
    }
}

fn tt_from_sdk(c: &aas::TargetTrackingScalingPolicyConfiguration) -> TargetTracking {
    TargetTracking {
        target_value: c.target_value(),
        predefined_metric_specification: c.predefined_metric_specification().map(|m| PredefinedMetric {
            predefined_metric_type: m.predefined_metric_type().as_str().to_string(),
            resource_label: m.resource_label().map(str::to_string),
        }),
        customized_metric_specification: c.customized_metric_specification().map(|m| CustomizedMetric {
            metric_name: m.metric_name().map(str::to_string),
            namespace: m.namespace().map(str::to_string),
            dimensions: m
                .dimensions()
                .iter()
                .map(|d| Dimension {
                    name: d.name().to_string(),
                    value: d.value().to_string(),
                })
                .collect(),
            statistic: m.statistic().map(|s| s.as_str().to_string()),
            unit: m.unit().map(str::to_string),
            metrics: m.metrics().iter().map(query_from_sdk).collect(),
        }),
        scale_out_cooldown: c.scale_out_cooldown(),
        scale_in_cooldown: c.scale_in_cooldown(),
        disable_scale_in: c.disable_scale_in(),
    }
}

fn query_from_sdk(q: &aas::TargetTrackingMetricDataQuery) -> MetricQuery {
    MetricQuery {
        id: q.id().to_string(),
        expression: q.expression().map(str::to_string),
        label: q.label().map(str::to_string),
        metric_stat: q.metric_stat().map(|s| MetricStat {
            metric: s
                .metric()
                .map(|m| MetricRef {
                    namespace: m.namespace().unwrap_or_default().to_string(),
                    metric_name: m.metric_name().unwrap_or_default().to_string(),
                    dimensions: m
                        .dimensions()
                        .iter()
                        .map(|d| Dimension {
                            name: d.name().to_string(),
                            value: d.value().to_string(),
                        })
                        .collect(),
                })
                .unwrap_or_default(),
            stat: s.stat().to_string(),
            unit: s.unit().map(str::to_string),
        }),
        return_data: q.return_data(),
    }
}

/// The SDK form of a target-tracking configuration (for PutScalingPolicy).
pub fn tt_to_sdk(t: &TargetTracking) -> Result<aas::TargetTrackingScalingPolicyConfiguration, String> {
    let err = |e: aws_smithy_types::error::operation::BuildError| e.to_string();
    let mut b = aas::TargetTrackingScalingPolicyConfiguration::builder()
        .target_value(t.target_value)
        .set_scale_in_cooldown(t.scale_in_cooldown)
        .set_scale_out_cooldown(t.scale_out_cooldown)
        .set_disable_scale_in(t.disable_scale_in);
    if let Some(p) = &t.predefined_metric_specification {
        b = b.predefined_metric_specification(
            aas::PredefinedMetricSpecification::builder()
                .predefined_metric_type(aas::MetricType::from(p.predefined_metric_type.as_str()))
                .set_resource_label(p.resource_label.clone())
                .build()
                .map_err(err)?,
        );
    }
    if let Some(c) = &t.customized_metric_specification {
        let mut m = aas::CustomizedMetricSpecification::builder()
            .set_metric_name(c.metric_name.clone())
            .set_namespace(c.namespace.clone())
            .set_statistic(c.statistic.as_deref().map(aas::MetricStatistic::from))
            .set_unit(c.unit.clone());
        for d in &c.dimensions {
            m = m.dimensions(
                aas::MetricDimension::builder()
                    .name(&d.name)
                    .value(&d.value)
                    .build()
                    .map_err(err)?,
            );
        }
        for q in &c.metrics {
            m = m.metrics(query_to_sdk(q).map_err(err)?);
        }
        b = b.customized_metric_specification(m.build());
    }
    b.build().map_err(err)
}

/// The SDK form of a step-scaling configuration (for PutScalingPolicy).
pub fn step_to_sdk(s: &StepScaling) -> Result<aas::StepScalingPolicyConfiguration, String> {
    let mut b = aas::StepScalingPolicyConfiguration::builder()
        .set_adjustment_type(s.adjustment_type.as_deref().map(aas::AdjustmentType::from))
        .set_cooldown(s.cooldown)
        .set_metric_aggregation_type(
            s.metric_aggregation_type
                .as_deref()
                .map(aas::MetricAggregationType::from),
        );
    for a in &s.step_adjustments {
        b = b.step_adjustments(
            aas::StepAdjustment::builder()
                .set_metric_interval_lower_bound(a.metric_interval_lower_bound)
                .set_metric_interval_upper_bound(a.metric_interval_upper_bound)
                .scaling_adjustment(a.scaling_adjustment)
                .build()
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(b.build())
}

fn query_to_sdk(
    q: &MetricQuery,
) -> Result<aas::TargetTrackingMetricDataQuery, aws_smithy_types::error::operation::BuildError> {
    let stat = match &q.metric_stat {
        Some(s) => {
            let mut metric = aas::TargetTrackingMetric::builder()
                .namespace(&s.metric.namespace)
                .metric_name(&s.metric.metric_name);
            for d in &s.metric.dimensions {
                metric = metric.dimensions(
                    aas::TargetTrackingMetricDimension::builder()
                        .name(&d.name)
                        .value(&d.value)
                        .build()?,
                );
            }
            Some(
                aas::TargetTrackingMetricStat::builder()
                    .metric(metric.build())
                    .stat(&s.stat)
                    .set_unit(s.unit.clone())
                    .build()?,
            )
        }
        None => None,
    };
    aas::TargetTrackingMetricDataQuery::builder()
        .id(&q.id)
        .set_expression(q.expression.clone())
        .set_label(q.label.clone())
        .set_metric_stat(stat)
        .set_return_data(q.return_data)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_boto3_request_parses_and_survives_the_sdk_round_trip() {
        let text = r#"{"PolicyName": "p", "ServiceNamespace": "sagemaker",
            "ResourceId": "endpoint/e/variant/AllTraffic",
            "ScalableDimension": "sagemaker:variant:DesiredInstanceCount",
            "PolicyType": "TargetTrackingScaling",
            "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 500000.0,
              "CustomizedMetricSpecification": {"Metrics": [{"Id": "m1", "ReturnData": true,
                "MetricStat": {"Metric": {"Namespace": "AWS/SageMaker", "MetricName": "ModelLatency",
                  "Dimensions": [{"Name": "EndpointName", "Value": "e"}]}, "Stat": "p99"}}]},
              "ScaleInCooldown": 300, "ScaleOutCooldown": 60}}"#;
        let spec = PolicySpec::from_json(text).unwrap();
        assert_eq!(spec.variant(), Some("AllTraffic"));
        let tt = spec.target_tracking_scaling_policy_configuration.as_ref().unwrap();
        let sdk = tt_to_sdk(tt).unwrap();
        assert_eq!(tt_from_sdk(&sdk), *tt);
        assert!(PolicySpec::from_json("[1]").is_err());
    }
}
