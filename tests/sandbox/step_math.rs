//! Step scaling whose alarm is a metric-math alarm, with the Rust SDKs: the alarm's returned
//! expression is the metric the steps read, as a plain alarm's metric is (a step that starts 50
//! past the threshold acts only on the expression's value).

use std::time::Duration;

use aws_sdk_applicationautoscaling::Client;
use aws_sdk_applicationautoscaling::types::{
    AdjustmentType, PolicyType, ScalableDimension, ServiceNamespace, StepAdjustment, StepScalingPolicyConfiguration,
};
use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, Metric, MetricDataQuery, MetricStat};
use aws_sdk_sagemaker::types::EndpointStatus;

use crate::autoscaling_acts::{load, register, stable_count};
use crate::common::{poll_until, sandbox, sdk_config};
use crate::control::{create_ab_endpoint, wait_status};

const RESOURCE: &str = "endpoint/acts/variant/Stable";

/// `m1 * 2` over MCP/Test Load (Average, 10 s) of acts/Stable.
fn doubled_load() -> Vec<MetricDataQuery> {
    let metric = Metric::builder()
        .namespace("MCP/Test")
        .metric_name("Load")
        .dimensions(Dimension::builder().name("EndpointName").value("acts").build())
        .dimensions(Dimension::builder().name("VariantName").value("Stable").build())
        .build();
    let stat = MetricStat::builder().metric(metric).period(10).stat("Average").build();
    vec![
        MetricDataQuery::builder()
            .id("m1")
            .metric_stat(stat)
            .return_data(false)
            .build(),
        MetricDataQuery::builder()
            .id("e1")
            .expression("m1 * 2")
            .return_data(true)
            .build(),
    ]
}

#[tokio::test]
async fn a_step_policy_whose_alarm_is_metric_math_acts_on_the_expression() {
    let sb = sandbox().await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    create_ab_endpoint(&sm, "acts").await;
    wait_status(&sm, "acts", EndpointStatus::InService).await;
    let (aas, cw) = (Client::new(&conf), aws_sdk_cloudwatch::Client::new(&conf));
    register(&aas, RESOURCE, 1, 3).await;
    // Only a breach of 50 or more past the threshold steps out.
    let step = StepAdjustment::builder()
        .metric_interval_lower_bound(50.0)
        .scaling_adjustment(2)
        .build()
        .unwrap();
    let arn = aas
        .put_scaling_policy()
        .policy_name("step-math")
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .policy_type(PolicyType::StepScaling)
        .step_scaling_policy_configuration(
            StepScalingPolicyConfiguration::builder()
                .adjustment_type(AdjustmentType::ChangeInCapacity)
                .step_adjustments(step)
                .cooldown(0)
                .build(),
        )
        .send()
        .await
        .unwrap()
        .policy_arn()
        .to_string();
    cw.put_metric_alarm()
        .alarm_name("acts-doubled-load")
        .set_metrics(Some(doubled_load()))
        .evaluation_periods(1)
        .threshold(10.0)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .alarm_actions(&arn)
        .send()
        .await
        .unwrap();
    // Load 40: the expression is 80, 70 past the threshold (the metric alone, 40, would be 30).
    poll_until(
        "Stable to step out to 3 by the math alarm",
        Duration::from_secs(30),
        || async {
            load(&cw, 40.0, 1.0).await;
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
    assert!(
        acts.scaling_activities()[0]
            .cause()
            .starts_with("monitor alarm acts-doubled-load in state ALARM triggered policy step-math"),
        "{:?}",
        acts.scaling_activities()[0]
    );
}
