//! Application Auto Scaling that acts, over the wire with the Rust SDK: target tracking on a
//! customized metric scales out under load and back in after its cooldown, with AWS-like
//! activities; its alarms are listed by CloudWatch DescribeAlarms; a policy on a metric that does
//! not exist stays idle with its alarms INSUFFICIENT_DATA; step scaling follows its alarm; more
//! instances lower the simulated latency.

use std::time::Duration;

use aws_sdk_applicationautoscaling::Client;
use aws_sdk_applicationautoscaling::types::{
    AdjustmentType, CustomizedMetricSpecification, MetricDimension, MetricStatistic, PolicyType, ScalableDimension,
    ServiceNamespace, StepAdjustment, StepScalingPolicyConfiguration, TargetTrackingScalingPolicyConfiguration,
};
use aws_sdk_cloudwatch::types::{ComparisonOperator, MetricDatum, StateValue, Statistic, StatisticSet};
use aws_sdk_sagemaker::types::EndpointStatus;
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::now_epoch;

use crate::common::{poll_until, sandbox, sdk_config};
use crate::control::{create_ab_endpoint, wait_status};

const RESOURCE: &str = "endpoint/acts/variant/Stable";

/// Registers the variant `resource` (`endpoint/E/variant/V`) as a scalable target.
pub(crate) async fn register(aas: &Client, resource: &str, min: i32, max: i32) {
    aas.register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(resource)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .min_capacity(min)
        .max_capacity(max)
        .send()
        .await
        .unwrap();
}

fn custom(namespace: &str, name: &str, stat: MetricStatistic) -> CustomizedMetricSpecification {
    CustomizedMetricSpecification::builder()
        .namespace(namespace)
        .metric_name(name)
        .dimensions(
            MetricDimension::builder()
                .name("EndpointName")
                .value("acts")
                .build()
                .unwrap(),
        )
        .dimensions(
            MetricDimension::builder()
                .name("VariantName")
                .value("Stable")
                .build()
                .unwrap(),
        )
        .statistic(stat)
        .build()
}

async fn put_tracking(aas: &Client, name: &str, spec: CustomizedMetricSpecification, target: f64) -> String {
    aas.put_scaling_policy()
        .policy_name(name)
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .policy_type(PolicyType::TargetTrackingScaling)
        .target_tracking_scaling_policy_configuration(
            TargetTrackingScalingPolicyConfiguration::builder()
                .target_value(target)
                .customized_metric_specification(spec)
                .scale_out_cooldown(0)
                .scale_in_cooldown(1)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap()
        .policy_arn()
        .to_string()
}

/// Deletes the scaling policy `name` of the variant `resource`.
pub(crate) async fn delete_policy(
    aas: &Client,
    resource: &str,
    name: &str,
) -> Result<
    (),
    aws_sdk_applicationautoscaling::error::SdkError<
        aws_sdk_applicationautoscaling::operation::delete_scaling_policy::DeleteScalingPolicyError,
    >,
> {
    aas.delete_scaling_policy()
        .policy_name(name)
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(resource)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .send()
        .await
        .map(|_| ())
}

/// Publishes `count` samples of `value` to MCP/Test Load of the Stable variant.
pub(crate) async fn load(cw: &aws_sdk_cloudwatch::Client, value: f64, count: f64) {
    cw.put_metric_data()
        .namespace("MCP/Test")
        .metric_data(
            MetricDatum::builder()
                .metric_name("Load")
                .dimensions(
                    aws_sdk_cloudwatch::types::Dimension::builder()
                        .name("EndpointName")
                        .value("acts")
                        .build(),
                )
                .dimensions(
                    aws_sdk_cloudwatch::types::Dimension::builder()
                        .name("VariantName")
                        .value("Stable")
                        .build(),
                )
                .statistic_values(
                    StatisticSet::builder()
                        .sample_count(count)
                        .sum(value * count)
                        .minimum(value)
                        .maximum(value)
                        .build(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
}

pub(crate) async fn stable_count(sm: &aws_sdk_sagemaker::Client, want: i32) -> Option<i32> {
    let d = sm.describe_endpoint().endpoint_name("acts").send().await.ok()?;
    let n = d.production_variants()[0].current_instance_count()?;
    (d.endpoint_status() == Some(&EndpointStatus::InService) && n == want).then_some(n)
}

#[tokio::test]
async fn target_tracking_scales_out_under_load_and_in_after_the_cooldown() {
    let sb = sandbox().await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    create_ab_endpoint(&sm, "acts").await;
    wait_status(&sm, "acts", EndpointStatus::InService).await;
    let (aas, cw) = (Client::new(&conf), aws_sdk_cloudwatch::Client::new(&conf));
    register(&aas, RESOURCE, 1, 4).await;
    let arn = put_tracking(&aas, "load", custom("MCP/Test", "Load", MetricStatistic::Average), 50.0).await;
    // ModelLatency is not published under the instance namespace: that policy stays idle.
    let idle = custom("/aws/sagemaker/Endpoints", "ModelLatency", MetricStatistic::Average);
    put_tracking(&aas, "idle", idle, 100_000.0).await;

    // Load for 60 s on two instances: latency stretched by their load.
    let rt = aws_sdk_sagemakerruntime::Client::new(&conf);
    for _ in 0..60 {
        rt.invoke_endpoint()
            .endpoint_name("acts")
            .target_variant("Stable")
            .content_type("application/json")
            .body(Blob::new(r#"{"inputs": "x"}"#))
            .send()
            .await
            .unwrap();
    }
    let sim = || sb.sandbox.world.read().endpoints["acts"].variants[0].sim.clone();
    let busy_two = sim().load_factor(now_epoch());
    assert!(busy_two > 1.0, "load stretches latency: {busy_two}");

    poll_until("Stable to scale out to 4", Duration::from_secs(30), || async {
        load(&cw, 200.0, 1.0).await;
        stable_count(&sm, 4).await
    })
    .await;
    assert!(
        sim().load_factor(now_epoch()) < busy_two,
        "four instances queue less than two under the same load"
    );
    poll_until("Stable to scale back in to 1", Duration::from_secs(30), || async {
        load(&cw, 1.0, 10_000.0).await;
        stable_count(&sm, 1).await
    })
    .await;

    let acts = aas
        .describe_scaling_activities()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .send()
        .await
        .unwrap();
    let (scale_in, scale_out) = (&acts.scaling_activities()[0], &acts.scaling_activities()[1]);
    assert_eq!(scale_out.description(), "Setting desired instance count to 4.");
    assert!(
        scale_out.cause().contains("-AlarmHigh-")
            && scale_out
                .cause()
                .ends_with("triggered policy load changing the desired capacity from 2 to 4."),
        "{}",
        scale_out.cause()
    );
    assert_eq!(scale_in.description(), "Setting desired instance count to 1.");
    assert!(
        scale_in.cause().contains("-AlarmLow-") && scale_in.cause().contains("from 4 to 1"),
        "{}",
        scale_in.cause()
    );
    assert_eq!(scale_in.status_code().as_str(), "Successful");
    assert!(
        acts.scaling_activities()
            .iter()
            .all(|a| !a.cause().contains("policy idle"))
    );

    // The target-tracking alarms, through CloudWatch.
    let alarms = cw
        .describe_alarms()
        .alarm_name_prefix("TargetTracking-endpoint/acts/variant/Stable-")
        .send()
        .await
        .unwrap();
    let mine: Vec<_> = alarms
        .metric_alarms()
        .iter()
        .filter(|a| a.alarm_actions().contains(&arn))
        .collect();
    assert_eq!(mine.len(), 2, "{alarms:?}");
    let high = mine
        .iter()
        .find(|a| a.alarm_name().unwrap().contains("-AlarmHigh-"))
        .unwrap();
    assert_eq!(
        (high.threshold(), high.evaluation_periods(), high.period()),
        (Some(50.0), Some(3), Some(60))
    );
    assert_eq!(
        high.comparison_operator(),
        Some(&ComparisonOperator::GreaterThanThreshold)
    );
    assert_eq!(high.statistic(), Some(&Statistic::Average));
    let idle_alarms: Vec<_> = alarms
        .metric_alarms()
        .iter()
        .filter(|a| !a.alarm_actions().contains(&arn))
        .collect();
    assert_eq!(idle_alarms.len(), 2);
    assert!(
        idle_alarms
            .iter()
            .all(|a| a.state_value() == Some(&StateValue::InsufficientData)),
        "{idle_alarms:?}"
    );

    // Deleting the policy deletes its alarms.
    delete_policy(&aas, RESOURCE, "load").await.unwrap();
    let left = cw
        .describe_alarms()
        .alarm_name_prefix("TargetTracking-")
        .send()
        .await
        .unwrap();
    assert_eq!(left.metric_alarms().len(), 2, "only the idle policy's alarms remain");
}

#[tokio::test]
async fn step_scaling_follows_its_alarm() {
    let sb = sandbox().await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    create_ab_endpoint(&sm, "acts").await;
    wait_status(&sm, "acts", EndpointStatus::InService).await;
    let (aas, cw) = (Client::new(&conf), aws_sdk_cloudwatch::Client::new(&conf));
    register(&aas, RESOURCE, 1, 3).await;
    let arn = aas
        .put_scaling_policy()
        .policy_name("step-out")
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .policy_type(PolicyType::StepScaling)
        .step_scaling_policy_configuration(
            StepScalingPolicyConfiguration::builder()
                .adjustment_type(AdjustmentType::ChangeInCapacity)
                .step_adjustments(
                    StepAdjustment::builder()
                        .metric_interval_lower_bound(0.0)
                        .scaling_adjustment(1)
                        .build()
                        .unwrap(),
                )
                .cooldown(0)
                .build(),
        )
        .send()
        .await
        .unwrap()
        .policy_arn()
        .to_string();
    cw.put_metric_alarm()
        .alarm_name("acts-load-high")
        .namespace("MCP/Test")
        .metric_name("Load")
        .dimensions(
            aws_sdk_cloudwatch::types::Dimension::builder()
                .name("EndpointName")
                .value("acts")
                .build(),
        )
        .dimensions(
            aws_sdk_cloudwatch::types::Dimension::builder()
                .name("VariantName")
                .value("Stable")
                .build(),
        )
        .statistic(Statistic::Average)
        .period(10)
        .evaluation_periods(1)
        .threshold(10.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .alarm_actions(&arn)
        .send()
        .await
        .unwrap();
    // The load lasts while the policy acts (a single datapoint would leave the alarm's period
    // before a slow machine's second step).
    poll_until(
        "Stable to step out to MaxCapacity 3",
        Duration::from_secs(30),
        || async {
            load(&cw, 100.0, 1.0).await;
            stable_count(&sm, 3).await
        },
    )
    .await;
    let acts = aas
        .describe_scaling_activities()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .send()
        .await
        .unwrap();
    assert_eq!(
        acts.scaling_activities()[0].description(),
        "Setting desired instance count to 3."
    );
    assert!(
        acts.scaling_activities()[0]
            .cause()
            .starts_with("monitor alarm acts-load-high in state ALARM triggered policy step-out")
    );
}
