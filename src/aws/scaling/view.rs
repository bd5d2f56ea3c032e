//! What the console's Scaling pane shows of one endpoint, read in one background job: its
//! variants' scalable targets and policies ([`EndpointScaling`]), the lint's findings, recent
//! scaling activities, and for every target-tracking policy its metric over the last hour from
//! CloudWatch (GetMetricData, one-minute periods) against its target, with the instance count
//! over the same hour rebuilt from the activities and what the policy will do next
//! ([`next_count`]).

use std::time::{Duration, SystemTime};

use aws_sdk_cloudwatch::types::{Dimension, Metric, MetricDataQuery, MetricStat, ScanBy};
use aws_smithy_types::DateTime;

use crate::aws::config::Fleet;
use crate::aws::endpoints::autoscaling::ActivityInfo;
use crate::aws::error::AwsError;
use crate::aws::observe::metrics::Series;
use crate::aws::scaling::check::EndpointScaling;
use crate::aws::scaling::lint::{Finding, lint, metrics_of, sagemaker_metric};
use crate::aws::scaling::scope::PROVISIONED_UTILIZATION;
use crate::aws::scaling::spec::{INVOCATIONS_PER_INSTANCE, MetricRef, PolicySpec, TargetTracking};
use crate::aws::scaling::zero::view::ComponentView;

/// The window the view charts.
pub const VIEW_WINDOW: Duration = Duration::from_secs(3600);
/// The period of its datapoints (SageMaker publishes one-minute metrics).
pub const VIEW_PERIOD: i32 = 60;
/// Activities read per variant.
const ACTIVITIES: i32 = 20;

/// The metric a target-tracking policy tracks, over the window.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackedMetric {
    /// The policy.
    pub policy: String,
    /// What it tracks (`InvocationsPerInstance Sum`, `ModelLatency p99`).
    pub label: String,
    /// The unit values are shown in after [`TrackedMetric::scale`] (`ms` for microsecond metrics).
    pub unit: String,
    /// Multiplier from CloudWatch's values (and the target) to the shown unit.
    pub scale: f64,
    /// The policy's TargetValue, in CloudWatch's unit.
    pub target: f64,
    /// Whether the policy may scale in.
    pub scale_in: bool,
    /// The datapoints, in CloudWatch's unit.
    pub series: Series,
    /// Why there is no series (a form the console does not chart, or CloudWatch's refusal).
    pub error: Option<String>,
}

/// One variant's part of the view.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantView {
    /// Variant.
    pub variant: String,
    /// `(min, max)` of its scalable target, if registered.
    pub bounds: Option<(i32, i32)>,
    /// Whether it is serverless: its counts are then provisioned concurrency
    /// (`sagemaker:variant:DesiredProvisionedConcurrency`), not instances.
    pub serverless: bool,
    /// Desired instance count (serverless: provisioned concurrency).
    pub desired: i32,
    /// Current instance count (serverless: provisioned concurrency).
    pub current: i32,
    /// Its target-tracking policies' metrics.
    pub tracked: Vec<TrackedMetric>,
    /// Instance count over the window as steps (epoch seconds, count).
    pub instances: Vec<(f64, f64)>,
}

/// Everything the Scaling pane shows of one endpoint.
#[derive(Debug, Clone)]
pub struct ScalingView {
    /// Targets, policies and the endpoint as read.
    pub state: EndpointScaling,
    /// What the lint found.
    pub findings: Vec<Finding>,
    /// Recent scaling activities of every variant, newest first.
    pub activities: Vec<ActivityInfo>,
    /// Per variant, in the endpoint's order.
    pub variants: Vec<VariantView>,
    /// Its inference components' autoscaling and scale-to-zero doctor (none for an endpoint
    /// without components).
    pub components: Vec<ComponentView>,
    /// Why the components could not be read (the variants' view stands without them).
    pub components_error: Option<String>,
    /// Window start (epoch seconds).
    pub start: f64,
    /// Window end (epoch seconds).
    pub end: f64,
}

/// What a target-tracking policy will do next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NextStep {
    /// The metric in the last complete period (CloudWatch's unit).
    pub metric: f64,
    /// The target (CloudWatch's unit).
    pub target: f64,
    /// Instances now.
    pub current: i32,
    /// `current × metric / target`, before rounding and bounds.
    pub wanted: f64,
    /// The count it is heading to.
    pub heading_to: i32,
}

/// The instance count target tracking heads to, with Application Auto Scaling's arithmetic (the
/// sandbox applies the same): the tracked metric is taken to be proportional to the load per
/// instance, so the capacity that brings it back to the target is
/// `ceil(current × metric / target)` (at least one instance counted when scaling out from 0).
/// It scales out when the metric is above the target, and in only when it is below 90 % of the
/// target (the low alarm's threshold), the policy may scale in (no `DisableScaleIn`), and never
/// below one instance; the result is held within `MinCapacity..=MaxCapacity`. Between 90 % and
/// 100 % of the target the count stays. Cooldowns delay a change but do not alter where it goes.
pub fn next_count(current: i32, metric: f64, target: f64, bounds: (i32, i32), scale_in: bool) -> i32 {
    if !(metric.is_finite() && target.is_finite() && target > 0.0) {
        return current;
    }
    let (min, max) = (bounds.0, bounds.1.max(bounds.0));
    let wanted = if metric > target {
        let n = (f64::from(current.max(1)) * metric / target).ceil() as i32;
        n.max(current)
    } else if metric < target * 0.9 && scale_in {
        let n = (f64::from(current) * metric / target).ceil().max(1.0) as i32;
        n.min(current)
    } else {
        current
    };
    wanted.clamp(min, max)
}

impl TrackedMetric {
    /// The metric of the last complete period of the window ending at `end`.
    pub fn latest(&self, end: f64) -> Option<f64> {
        self.series.latest_complete(end, f64::from(VIEW_PERIOD)).map(|(_, v)| v)
    }

    /// What the policy will do next from `current` instances within `bounds`, on the latest metric.
    pub fn next_step(&self, end: f64, current: i32, bounds: (i32, i32)) -> Option<NextStep> {
        let metric = self.latest(end)?;
        Some(NextStep {
            metric,
            target: self.target,
            current,
            wanted: f64::from(current) * metric / self.target,
            heading_to: next_count(current, metric, self.target, bounds, self.scale_in),
        })
    }
}

/// `A` and `B` of an activity's `... changing the desired capacity from A to B.`
pub fn capacity_change(cause: &str) -> Option<(i32, i32)> {
    let rest = &cause[cause.rfind("from ")? + 5..];
    let (a, rest) = rest.split_once(" to ")?;
    let b: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((a.trim().parse().ok()?, b.parse().ok()?))
}

/// The instance count over `[start, end]` as steps: the count now, walked back through the
/// activities (newest first; each says `changing the desired capacity from A to B`, so before it
/// the count was A). A change made outside Application Auto Scaling (UpdateEndpointWeights-
/// AndCapacities by hand) leaves no activity: the line shows it from the next refresh on.
pub fn instance_history(current: i32, activities: &[&ActivityInfo], start: f64, end: f64) -> Vec<(f64, f64)> {
    let mut steps: Vec<(f64, i32, i32)> = activities
        .iter()
        .filter(|a| a.start >= start && a.start <= end)
        .filter_map(|a| capacity_change(&a.cause).map(|(from, to)| (a.start, from, to)))
        .collect();
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    let first = steps.first().map(|s| s.1).unwrap_or(current);
    let mut out = vec![(start, f64::from(first))];
    for (t, from, to) in steps {
        out.push((t, f64::from(from)));
        out.push((t, f64::from(to)));
    }
    out.push((end, f64::from(current)));
    out
}

/// The metric a target-tracking configuration tracks, as a GetMetricData query, with its label:
/// the predefined invocations or provisioned-concurrency utilization metric, the single customized form, or the metric-math form's
/// plain `MetricStat` (an expression is not charted).
fn tracked_query(endpoint: &str, variant: &str, tt: &TargetTracking) -> Result<(MetricRef, String), String> {
    if let Some(pre) = &tt.predefined_metric_specification {
        let (metric_name, stat) = match pre.predefined_metric_type.as_str() {
            INVOCATIONS_PER_INSTANCE => ("InvocationsPerInstance", "Sum"),
            PROVISIONED_UTILIZATION => ("ServerlessProvisionedConcurrencyUtilization", "Average"),
            other => return Err(format!("{other} is not charted")),
        };
        let dims = [("EndpointName", endpoint), ("VariantName", variant)];
        let metric = MetricRef {
            namespace: "AWS/SageMaker".into(),
            metric_name: metric_name.into(),
            dimensions: dims
                .iter()
                .map(|(n, v)| crate::aws::scaling::spec::Dimension {
                    name: n.to_string(),
                    value: v.to_string(),
                })
                .collect(),
        };
        return Ok((metric, stat.into()));
    }
    let tracked = metrics_of(tt);
    let t = tracked.first().ok_or("a metric-math expression is not charted")?;
    Ok((t.metric.clone(), t.stat.unwrap_or("Average").to_string()))
}

fn metric_query(m: &MetricRef, stat: &str) -> MetricDataQuery {
    let metric = Metric::builder()
        .namespace(&m.namespace)
        .metric_name(&m.metric_name)
        .set_dimensions(Some(
            m.dimensions
                .iter()
                .map(|d| Dimension::builder().name(&d.name).value(&d.value).build())
                .collect(),
        ))
        .build();
    MetricDataQuery::builder()
        .id("m0")
        .metric_stat(
            MetricStat::builder()
                .metric(metric)
                .period(VIEW_PERIOD)
                .stat(stat)
                .build(),
        )
        .return_data(true)
        .build()
}

impl Fleet {
    /// Reads the Scaling pane's view of `endpoint` over the hour ending at `end`.
    pub async fn scaling_view(&self, endpoint: &str, end: SystemTime) -> Result<ScalingView, AwsError> {
        let state = self.endpoint_scaling(endpoint).await?;
        let named: Vec<&PolicySpec> = state.policies.iter().collect();
        let findings = lint(&state.lint_input(self.metric_checks(&named).await?));
        let names: Vec<String> = state.info.variants.iter().map(|v| v.name.clone()).collect();
        let activities = self.scaling_activities(endpoint, &names, ACTIVITIES).await?;
        let end = end
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let start = end - VIEW_WINDOW.as_secs_f64();
        let mut variants = Vec::new();
        for v in &state.info.variants {
            let mut tracked = Vec::new();
            for p in state.policies_of(&v.name) {
                if let Some(tt) = &p.target_tracking_scaling_policy_configuration {
                    tracked.push(self.tracked_metric(endpoint, &v.name, p, tt, (start, end)).await);
                }
            }
            let mine: Vec<&ActivityInfo> = activities
                .iter()
                .filter(|a| a.resource_id.ends_with(&format!("/variant/{}", v.name)))
                .collect();
            let (desired, current) = match &v.serverless {
                Some(s) => (
                    s.desired_provisioned.or(s.provisioned).unwrap_or(0),
                    s.provisioned.unwrap_or(0),
                ),
                None => (v.desired_instances, v.current_instances),
            };
            variants.push(VariantView {
                variant: v.name.clone(),
                bounds: state.target_of(&v.name).map(|t| (t.min, t.max)),
                serverless: v.serverless.is_some(),
                desired,
                current,
                tracked,
                instances: instance_history(current, &mine, start, end),
            });
        }
        let (components, components_error) = match self.component_views(endpoint, ACTIVITIES).await {
            Ok(c) => (c, None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        Ok(ScalingView {
            state,
            findings,
            activities,
            variants,
            components,
            components_error,
            start,
            end,
        })
    }

    async fn tracked_metric(
        &self,
        endpoint: &str,
        variant: &str,
        p: &PolicySpec,
        tt: &TargetTracking,
        (start, end): (f64, f64),
    ) -> TrackedMetric {
        let mut out = TrackedMetric {
            policy: p.policy_name.clone(),
            label: String::new(),
            unit: String::new(),
            scale: 1.0,
            target: tt.target_value,
            scale_in: !tt.disable_scale_in.unwrap_or(false),
            series: Series::default(),
            error: None,
        };
        let (metric, stat) = match tracked_query(endpoint, variant, tt) {
            Ok(q) => q,
            Err(e) => {
                out.label = "-".into();
                out.error = Some(e);
                return out;
            }
        };
        out.label = format!("{} {stat}", metric.metric_name);
        if sagemaker_metric(&metric.metric_name).is_some_and(|(_, unit)| unit == "Microseconds") {
            (out.scale, out.unit) = (0.001, "ms".into());
        } else if metric.metric_name == "InvocationsPerInstance" {
            out.unit = "/instance/min".into();
        }
        let sent = self
            .cloudwatch
            .get_metric_data()
            .metric_data_queries(metric_query(&metric, &stat))
            .start_time(DateTime::from_secs(start as i64))
            .end_time(DateTime::from_secs(end.ceil() as i64))
            .scan_by(ScanBy::TimestampAscending)
            .send()
            .await;
        match sent {
            Ok(answer) => {
                for r in answer.metric_data_results() {
                    out.series.timestamps = r.timestamps().iter().map(|t| t.as_secs_f64()).collect();
                    out.series.values = r.values().to_vec();
                }
            }
            Err(e) => out.error = Some(AwsError::from_sdk(e).to_string()),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_tracking_arithmetic() {
        // 2 instances at 300 per instance against 120: ceil(2 × 2.5) = 5, capped at 4.
        assert_eq!(next_count(2, 300.0, 120.0, (1, 4), true), 4);
        assert_eq!(next_count(2, 150.0, 120.0, (1, 6), true), 3);
        // Within 90-100 % of the target: stays.
        assert_eq!(next_count(3, 110.0, 120.0, (1, 6), true), 3);
        // Below 90 %: ceil(4 × 30 / 120) = 1, held at min 2.
        assert_eq!(next_count(4, 30.0, 120.0, (2, 6), true), 2);
        assert_eq!(next_count(4, 30.0, 120.0, (1, 6), false), 4);
        assert_eq!(next_count(0, 130.0, 120.0, (0, 4), true), 2);
    }

    #[test]
    fn instance_history_walks_back_through_activities() {
        let act = |start: f64, from: i32, to: i32| ActivityInfo {
            resource_id: "endpoint/e/variant/v".into(),
            description: String::new(),
            cause: format!(
                "monitor alarm X in state ALARM triggered policy p changing the desired capacity from {from} to {to}."
            ),
            status: "Successful".into(),
            start,
            end: None,
        };
        let (a, b) = (act(100.0, 1, 3), act(200.0, 3, 2));
        assert_eq!(capacity_change(&a.cause), Some((1, 3)));
        let h = instance_history(2, &[&b, &a], 0.0, 300.0);
        assert_eq!(
            h,
            vec![
                (0.0, 1.0),
                (100.0, 1.0),
                (100.0, 3.0),
                (200.0, 3.0),
                (200.0, 2.0),
                (300.0, 2.0)
            ]
        );
        assert_eq!(instance_history(2, &[], 0.0, 300.0), vec![(0.0, 2.0), (300.0, 2.0)]);
    }
}
