//! The sends of a scaling change that take more than one call or know a scope's resource: a
//! policy of either type (PutScalingPolicy), a component's wake alarm (its step policy's ARN looked
//! up, then PutMetricAlarm) and a count now (a variant's instances, a component's copies).

use aws_sdk_applicationautoscaling::types::{PolicyType, ServiceNamespace};
use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension as CwDimension, Statistic};
use aws_sdk_sagemaker::types::{
    DesiredWeightAndCapacity, InferenceComponentRuntimeConfig, ProductionVariantServerlessUpdateConfig,
};

use crate::aws::config::Fleet;
use crate::aws::error::AwsError;
use crate::aws::scaling::scope::{NO_CAPACITY_METRIC, ScalingScope};
use crate::aws::scaling::spec::{PolicySpec, step_to_sdk, tt_to_sdk};

/// The request id of an SDK answer.
pub(crate) fn request_id<T: aws_sdk_sagemaker::operation::RequestId>(o: &T) -> Option<String> {
    o.request_id().map(str::to_string)
}

impl Fleet {
    /// PutScalingPolicy of either type.
    pub(crate) async fn put_scaling_policy_of(
        &self,
        scope: &ScalingScope,
        spec: &PolicySpec,
    ) -> Result<Option<String>, AwsError> {
        let tt = spec
            .target_tracking_scaling_policy_configuration
            .as_ref()
            .map(tt_to_sdk)
            .transpose()
            .map_err(AwsError::Config)?;
        let step = spec
            .step_scaling_policy_configuration
            .as_ref()
            .map(step_to_sdk)
            .transpose()
            .map_err(AwsError::Config)?;
        let kind = if tt.is_some() {
            PolicyType::TargetTrackingScaling
        } else {
            PolicyType::StepScaling
        };
        self.autoscaling
            .put_scaling_policy()
            .policy_name(&spec.policy_name)
            .service_namespace(ServiceNamespace::Sagemaker)
            .resource_id(scope.resource_id())
            .scalable_dimension(scope.dimension())
            .policy_type(kind)
            .set_target_tracking_scaling_policy_configuration(tt)
            .set_step_scaling_policy_configuration(step)
            .send()
            .await
            .map(|o| request_id(&o))
            .map_err(AwsError::from_sdk)
    }

    /// PutMetricAlarm of a component's wake alarm, its action the ARN of `policy_name`.
    pub(crate) async fn put_wake_alarm(
        &self,
        scope: &ScalingScope,
        name: &str,
        policy_name: &str,
    ) -> Result<Option<String>, AwsError> {
        let policies = self
            .autoscaling
            .describe_scaling_policies()
            .service_namespace(ServiceNamespace::Sagemaker)
            .resource_id(scope.resource_id())
            .scalable_dimension(scope.dimension())
            .policy_names(policy_name)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let Some(arn) = policies.scaling_policies().first().map(|p| p.policy_arn().to_string()) else {
            return Err(AwsError::Config(format!(
                "{} has no policy {policy_name} for the wake alarm to fire",
                scope.name()
            )));
        };
        self.cloudwatch
            .put_metric_alarm()
            .alarm_name(name)
            .alarm_description(format!(
                "Wakes {} from zero copies (sagedeck --scale-to-zero).",
                scope.name()
            ))
            .namespace("AWS/SageMaker")
            .metric_name(NO_CAPACITY_METRIC)
            .dimensions(
                CwDimension::builder()
                    .name("InferenceComponentName")
                    .value(scope.name())
                    .build(),
            )
            .statistic(Statistic::Sum)
            .period(60)
            .evaluation_periods(1)
            .datapoints_to_alarm(1)
            .threshold(1.0)
            .comparison_operator(ComparisonOperator::GreaterThanOrEqualToThreshold)
            .treat_missing_data("missing")
            .alarm_actions(arn)
            .send()
            .await
            .map(|o| request_id(&o))
            .map_err(AwsError::from_sdk)
    }

    /// Sets the desired count now: a variant's instances, a serverless variant's provisioned
    /// concurrency (ServerlessUpdateConfig, MaxConcurrency left as it is) or a component's copies.
    pub(crate) async fn set_count(&self, scope: &ScalingScope, count: i32) -> Result<Option<String>, AwsError> {
        match scope {
            ScalingScope::Variant { endpoint, variant } => self
                .sagemaker
                .update_endpoint_weights_and_capacities()
                .endpoint_name(endpoint)
                .desired_weights_and_capacities(
                    DesiredWeightAndCapacity::builder()
                        .variant_name(variant)
                        .desired_instance_count(count)
                        .build(),
                )
                .send()
                .await
                .map(|o| request_id(&o))
                .map_err(AwsError::from_sdk),
            ScalingScope::Provisioned { endpoint, variant } => self
                .sagemaker
                .update_endpoint_weights_and_capacities()
                .endpoint_name(endpoint)
                .desired_weights_and_capacities(
                    DesiredWeightAndCapacity::builder()
                        .variant_name(variant)
                        .serverless_update_config(
                            ProductionVariantServerlessUpdateConfig::builder()
                                .provisioned_concurrency(count)
                                .build(),
                        )
                        .build(),
                )
                .send()
                .await
                .map(|o| request_id(&o))
                .map_err(AwsError::from_sdk),
            ScalingScope::Component { component, .. } => self
                .sagemaker
                .update_inference_component_runtime_config()
                .inference_component_name(component)
                .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(count).build())
                .send()
                .await
                .map(|o| request_id(&o))
                .map_err(AwsError::from_sdk),
        }
    }
}
