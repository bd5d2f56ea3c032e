//! Reading what the scale-to-zero doctor looks at for one inference component: the component
//! (its variant and copies), the variant's ManagedInstanceScaling, the component's scalable
//! target and policies (with their ARNs, which the wake alarm must name), and the CloudWatch
//! alarms on its `NoCapacityInvocationFailures`.

use aws_sdk_applicationautoscaling::types::ServiceNamespace;
use aws_sdk_cloudwatch::types::{AlarmType, MetricAlarm};
use serde::Serialize;

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;
use crate::aws::scaling::scope::{COMPONENT_DIMENSION, NO_CAPACITY_METRIC, component_resource_id};
use crate::aws::scaling::spec::{Dimension, PolicySpec};

/// A variant's `ManagedInstanceScaling` as DescribeEndpoint reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstanceScaling {
    /// Status ENABLED.
    pub enabled: bool,
    /// MinInstanceCount.
    pub min: Option<i32>,
    /// MaxInstanceCount.
    pub max: Option<i32>,
}

/// A CloudWatch metric alarm on the component's `NoCapacityInvocationFailures`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WakeAlarm {
    /// Alarm name.
    pub name: String,
    /// Namespace.
    pub namespace: String,
    /// Metric name.
    pub metric_name: String,
    /// Dimensions.
    pub dimensions: Vec<Dimension>,
    /// Statistic (`Sum`, ...), when a simple one.
    pub statistic: Option<String>,
    /// Period (s).
    pub period: i32,
    /// EvaluationPeriods.
    pub evaluation_periods: i32,
    /// DatapointsToAlarm (EvaluationPeriods when absent).
    pub datapoints_to_alarm: Option<i32>,
    /// Threshold.
    pub threshold: f64,
    /// ComparisonOperator.
    pub comparison: String,
    /// AlarmActions (ARNs).
    pub actions: Vec<String>,
    /// ActionsEnabled.
    pub actions_enabled: bool,
    /// State value (`OK`, `ALARM`, `INSUFFICIENT_DATA`).
    pub state: String,
}

/// A scaling policy of the component and its ARN.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedPolicy {
    /// The policy as PutScalingPolicy takes it.
    pub spec: PolicySpec,
    /// PolicyARN (what an alarm's actions name).
    pub arn: String,
}

/// The autoscaling of one inference component, as the doctor and the changes see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentScaling {
    /// Endpoint hosting it.
    pub endpoint: String,
    /// The component.
    pub component: String,
    /// Its variant.
    pub variant: String,
    /// Status (`InService`, ...).
    pub status: String,
    /// DesiredCopyCount.
    pub desired_copies: Option<i32>,
    /// CurrentCopyCount.
    pub current_copies: Option<i32>,
    /// The variant's ManagedInstanceScaling (None when it has none).
    pub instance_scaling: Option<InstanceScaling>,
    /// The endpoint's configuration (what a change of the ManagedInstanceScaling copies).
    pub endpoint_config: Option<String>,
    /// `(min, max)` of the component's scalable target, if registered.
    pub bounds: Option<(i32, i32)>,
    /// The component's scaling policies.
    pub policies: Vec<NamedPolicy>,
    /// Alarms on `AWS/SageMaker` `NoCapacityInvocationFailures` for this component.
    pub alarms: Vec<WakeAlarm>,
}

impl ComponentScaling {
    /// The policies as specs.
    pub fn policy_specs(&self) -> Vec<PolicySpec> {
        self.policies.iter().map(|p| p.spec.clone()).collect()
    }
}

/// The alarm as the doctor reads it, when it watches `component`'s no-capacity failures.
fn wake_alarm_of(a: &MetricAlarm, component: &str) -> Option<WakeAlarm> {
    if a.metric_name() != Some(NO_CAPACITY_METRIC) {
        return None;
    }
    let dimensions: Vec<Dimension> = a
        .dimensions()
        .iter()
        .map(|d| Dimension {
            name: d.name().unwrap_or_default().to_string(),
            value: d.value().unwrap_or_default().to_string(),
        })
        .collect();
    if !dimensions.iter().any(|d| d.value == component) {
        return None;
    }
    Some(WakeAlarm {
        name: a.alarm_name().unwrap_or_default().to_string(),
        namespace: a.namespace().unwrap_or_default().to_string(),
        metric_name: NO_CAPACITY_METRIC.to_string(),
        dimensions,
        statistic: a.statistic().map(|s| s.as_str().to_string()),
        period: a.period().unwrap_or(0),
        evaluation_periods: a.evaluation_periods().unwrap_or(1),
        datapoints_to_alarm: a.datapoints_to_alarm(),
        threshold: a.threshold().unwrap_or(0.0),
        comparison: a
            .comparison_operator()
            .map(|c| c.as_str().to_string())
            .unwrap_or_default(),
        actions: a.alarm_actions().to_vec(),
        actions_enabled: a.actions_enabled().unwrap_or(true),
        state: a.state_value().map(|s| s.as_str().to_string()).unwrap_or_default(),
    })
}

impl Fleet {
    /// The names of the inference components on `endpoint` (every page; none for an endpoint
    /// without components).
    pub async fn component_names(&self, endpoint: &str) -> Result<Vec<String>, AwsError> {
        let mut out = Vec::new();
        let mut token = None;
        loop {
            let page = self
                .sagemaker
                .list_inference_components()
                .endpoint_name_equals(endpoint)
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            out.extend(
                page.inference_components()
                    .iter()
                    .filter_map(|c| c.inference_component_name().map(str::to_string)),
            );
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                out.sort();
                return Ok(out);
            }
        }
    }

    /// The variant's ManagedInstanceScaling on `endpoint`, and the endpoint's configuration.
    async fn instance_scaling(
        &self,
        endpoint: &str,
        variant: &str,
    ) -> Result<(Option<InstanceScaling>, Option<String>), AwsError> {
        let ep = self
            .sagemaker
            .describe_endpoint()
            .endpoint_name(endpoint)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let v = ep
            .production_variants()
            .iter()
            .find(|v| v.variant_name() == Some(variant));
        let scaling = v.and_then(|v| v.managed_instance_scaling()).map(|m| InstanceScaling {
            enabled: m.status().is_some_and(|s| s.as_str() == "ENABLED"),
            min: m.min_instance_count(),
            max: m.max_instance_count(),
        });
        Ok((scaling, ep.endpoint_config_name().map(str::to_string)))
    }

    /// The component's scalable target bounds and its policies (every page).
    async fn component_targets(&self, component: &str) -> Result<(Option<(i32, i32)>, Vec<NamedPolicy>), AwsError> {
        let id = component_resource_id(component);
        let targets = self
            .autoscaling
            .describe_scalable_targets()
            .service_namespace(ServiceNamespace::Sagemaker)
            .resource_ids(&id)
            .scalable_dimension(COMPONENT_DIMENSION.into())
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let bounds = targets
            .scalable_targets()
            .iter()
            .find(|t| t.resource_id() == id)
            .map(|t| (t.min_capacity(), t.max_capacity()));
        let mut policies = Vec::new();
        let mut token = None;
        loop {
            let page = self
                .autoscaling
                .describe_scaling_policies()
                .service_namespace(ServiceNamespace::Sagemaker)
                .resource_id(&id)
                .scalable_dimension(COMPONENT_DIMENSION.into())
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            policies.extend(page.scaling_policies().iter().map(|p| NamedPolicy {
                spec: PolicySpec::from_sdk(p),
                arn: p.policy_arn().to_string(),
            }));
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                return Ok((bounds, policies));
            }
        }
    }

    /// Every metric alarm on the component's `NoCapacityInvocationFailures` (every page).
    async fn wake_alarms(&self, component: &str) -> Result<Vec<WakeAlarm>, AwsError> {
        let mut out = Vec::new();
        let mut token = None;
        loop {
            let page = self
                .cloudwatch
                .describe_alarms()
                .alarm_types(AlarmType::MetricAlarm)
                .set_next_token(token)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            out.extend(page.metric_alarms().iter().filter_map(|a| wake_alarm_of(a, component)));
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                return Ok(out);
            }
        }
    }

    /// The autoscaling of `component` on `endpoint` (see the module docs).
    pub async fn component_scaling(&self, endpoint: &str, component: &str) -> Result<ComponentScaling, AwsError> {
        let ic = self
            .sagemaker
            .describe_inference_component()
            .inference_component_name(component)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        if ic.endpoint_name().is_some_and(|e| e != endpoint) {
            return Err(AwsError::Config(format!(
                "inference component {component} is on endpoint {}, not {endpoint}",
                ic.endpoint_name().unwrap_or_default()
            )));
        }
        let variant = ic.variant_name().unwrap_or_default().to_string();
        let runtime = ic.runtime_config();
        let (instance_scaling, endpoint_config) = self.instance_scaling(endpoint, &variant).await?;
        let (bounds, policies) = self.component_targets(component).await?;
        Ok(ComponentScaling {
            endpoint: endpoint.to_string(),
            component: component.to_string(),
            variant,
            status: ic
                .inference_component_status()
                .map(|s| s.as_str().to_string())
                .unwrap_or_default(),
            desired_copies: runtime.and_then(|r| r.desired_copy_count()),
            current_copies: runtime.and_then(|r| r.current_copy_count()),
            instance_scaling,
            endpoint_config,
            bounds,
            policies,
            alarms: self.wake_alarms(component).await?,
        })
    }
}
