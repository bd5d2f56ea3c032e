//! The metrics a target-tracking policy names, and what SageMaker and CloudWatch make of them.

use crate::aws::scaling::spec::{MetricRef, TargetTracking};

use super::finding::{API_STATISTICS, SAGEMAKER_METRICS};

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
pub(super) fn returned_metric(tt: &TargetTracking) -> Option<Tracked<'_>> {
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
