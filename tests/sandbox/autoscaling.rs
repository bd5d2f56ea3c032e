//! Application Auto Scaling: targets, both policy forms, and target tracking that acts.

use std::time::Duration;

use aws_sdk_applicationautoscaling::Client;
use aws_sdk_applicationautoscaling::error::ProvideErrorMetadata;
use aws_sdk_applicationautoscaling::types::{
    CustomizedMetricSpecification, MetricDimension, MetricStatistic, MetricType, PolicyType,
    PredefinedMetricSpecification, ScalableDimension, ServiceNamespace, TargetTrackingMetric,
    TargetTrackingMetricDataQuery, TargetTrackingMetricDimension, TargetTrackingMetricStat,
    TargetTrackingScalingPolicyConfiguration,
};
use aws_sdk_sagemaker::types::EndpointStatus;
use aws_sdk_sagemakerruntime::primitives::Blob;

use crate::autoscaling_acts::{delete_policy, register};
use crate::common::{poll_until, sandbox, sdk_config};
use crate::control::{create_ab_endpoint, wait_status};

const RESOURCE: &str = "endpoint/scale/variant/Stable";

#[tokio::test]
async fn targets_and_policies_round_trip() {
    let sb = sandbox().await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    create_ab_endpoint(&sm, "scale").await;
    wait_status(&sm, "scale", EndpointStatus::InService).await;
    let aas = Client::new(&conf);
    let err = aas
        .register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id("endpoint/nope/variant/AllTraffic")
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .min_capacity(1)
        .max_capacity(2)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    register(&aas, RESOURCE, 1, 8).await;
    let targets = aas
        .describe_scalable_targets()
        .service_namespace(ServiceNamespace::Sagemaker)
        .send()
        .await
        .unwrap();
    assert_eq!(targets.scalable_targets().len(), 1);
    assert_eq!(targets.scalable_targets()[0].max_capacity(), 8);
    let latency = CustomizedMetricSpecification::builder()
        .metric_name("ModelLatency")
        .namespace("/aws/sagemaker/Endpoints")
        .dimensions(
            MetricDimension::builder()
                .name("EndpointName")
                .value("scale")
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
        .statistic(MetricStatistic::from("p99"))
        .unit("Microseconds")
        .build();
    let put = |spec: CustomizedMetricSpecification| {
        aas.put_scaling_policy()
            .policy_name("latency")
            .service_namespace(ServiceNamespace::Sagemaker)
            .resource_id(RESOURCE)
            .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
            .policy_type(PolicyType::TargetTrackingScaling)
            .target_tracking_scaling_policy_configuration(
                TargetTrackingScalingPolicyConfiguration::builder()
                    .target_value(500.0)
                    .customized_metric_specification(spec)
                    .scale_in_cooldown(300)
                    .scale_out_cooldown(60)
                    .build()
                    .unwrap(),
            )
            .send()
    };
    // "p99" is no Statistic of the single-metric form: refused as AWS refuses it.
    let err = put(latency).await.unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    assert!(
        err.message().unwrap().contains("Value 'p99' at 'targetTrackingScalingPolicyConfiguration.customizedMetricSpecification.statistic' failed to satisfy constraint"),
        "{err:?}"
    );
    // The metric-math form takes the percentile.
    let metric = TargetTrackingMetric::builder()
        .namespace("AWS/SageMaker")
        .metric_name("ModelLatency")
        .dimensions(
            TargetTrackingMetricDimension::builder()
                .name("EndpointName")
                .value("scale")
                .build()
                .unwrap(),
        )
        .dimensions(
            TargetTrackingMetricDimension::builder()
                .name("VariantName")
                .value("Stable")
                .build()
                .unwrap(),
        )
        .build();
    let math = CustomizedMetricSpecification::builder()
        .metrics(
            TargetTrackingMetricDataQuery::builder()
                .id("m1")
                .return_data(true)
                .metric_stat(
                    TargetTrackingMetricStat::builder()
                        .metric(metric)
                        .stat("p99")
                        .build()
                        .unwrap(),
                )
                .build()
                .unwrap(),
        )
        .build();
    let out = put(math).await.unwrap();
    assert_eq!(out.alarms().len(), 2, "{out:?}");
    assert!(
        out.alarms()[0]
            .alarm_name()
            .starts_with("TargetTracking-endpoint/scale/variant/Stable-AlarmHigh-")
    );
    let policies = aas
        .describe_scaling_policies()
        .service_namespace(ServiceNamespace::Sagemaker)
        .send()
        .await
        .unwrap();
    let p = &policies.scaling_policies()[0];
    let spec = p
        .target_tracking_scaling_policy_configuration()
        .unwrap()
        .customized_metric_specification()
        .unwrap();
    assert_eq!(spec.metrics()[0].metric_stat().unwrap().stat(), "p99");
    delete_policy(&aas, RESOURCE, "latency").await.unwrap();
    let err = delete_policy(&aas, RESOURCE, "latency").await.unwrap_err();
    assert_eq!(err.code(), Some("ObjectNotFoundException"));
    aas.deregister_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn target_tracking_scales_out_under_load() {
    let sb = sandbox().await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    create_ab_endpoint(&sm, "scale").await;
    wait_status(&sm, "scale", EndpointStatus::InService).await;
    let aas = Client::new(&conf);
    register(&aas, RESOURCE, 2, 5).await;
    aas.put_scaling_policy()
        .policy_name("invocations")
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .policy_type(PolicyType::TargetTrackingScaling)
        .target_tracking_scaling_policy_configuration(
            TargetTrackingScalingPolicyConfiguration::builder()
                .target_value(5.0)
                .predefined_metric_specification(
                    PredefinedMetricSpecification::builder()
                        .predefined_metric_type(MetricType::SageMakerVariantInvocationsPerInstance)
                        .build()
                        .unwrap(),
                )
                .scale_out_cooldown(0)
                .scale_in_cooldown(3600)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // 60 invocations on 2 instances = 30 per instance per minute, six times the target.
    let rt = aws_sdk_sagemakerruntime::Client::new(&conf);
    for _ in 0..60 {
        rt.invoke_endpoint()
            .endpoint_name("scale")
            .target_variant("Stable")
            .content_type("application/json")
            .body(Blob::new(r#"{"inputs": "x"}"#))
            .send()
            .await
            .unwrap();
    }
    let count = poll_until("Stable to scale out", Duration::from_secs(15), || async {
        let d = sm.describe_endpoint().endpoint_name("scale").send().await.ok()?;
        let v = &d.production_variants()[0];
        (d.endpoint_status() == Some(&EndpointStatus::InService) && v.current_instance_count() == Some(5))
            .then(|| v.current_instance_count().unwrap())
    })
    .await;
    assert_eq!(
        count, 5,
        "30 invocations per instance against a target of 5: capped at MaxCapacity 5"
    );
    let acts = aas
        .describe_scaling_activities()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .send()
        .await
        .unwrap();
    let a = &acts.scaling_activities()[0];
    assert_eq!(a.description(), "Setting desired instance count to 5.");
    assert!(a.cause().contains("invocations"));
}
