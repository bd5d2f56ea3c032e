//! Rolling updates of a component's specification with the Rust SDK: batches by copy count,
//! Updating meanwhile and the new model afterwards with its LastDeploymentConfig; an alarm of
//! the AutoRollbackConfiguration going into ALARM rolls back to the old model with a reason.

use aws_sdk_cloudwatch::types::{ComparisonOperator, StateValue};
use aws_sdk_sagemaker::types::{
    Alarm, AutoRollbackConfig, ContainerDefinition, InferenceComponentCapacitySize, InferenceComponentCapacitySizeType,
    InferenceComponentDeploymentConfig, InferenceComponentRollingUpdatePolicy, InferenceComponentSpecification,
    InferenceComponentStatus,
};

use super::{ROLE, create_component, create_ic_endpoint, llm_spec, sagemaker, wait_status};
use crate::common::sdk_config;

/// A second model for the endpoint, `ENDPOINT-llm-v2`, and a specification of it.
async fn second_model(sm: &aws_sdk_sagemaker::Client, endpoint: &str) -> InferenceComponentSpecification {
    sm.create_model()
        .model_name(format!("{endpoint}-llm-v2"))
        .primary_container(ContainerDefinition::builder().image("tgi-llm-inference:2.5").build())
        .execution_role_arn(ROLE)
        .send()
        .await
        .expect("create the second model");
    let spec = llm_spec(endpoint, 1.0);
    InferenceComponentSpecification::builder()
        .model_name(format!("{endpoint}-llm-v2"))
        .set_compute_resource_requirements(spec.compute_resource_requirements().cloned())
        .build()
}

/// A rolling policy: batches of `batch` copies, a bake of 10 s (scaled by the sandbox's timings).
fn rolling(batch: i32, alarm: Option<&str>) -> InferenceComponentDeploymentConfig {
    let size = |n| {
        InferenceComponentCapacitySize::builder()
            .r#type(InferenceComponentCapacitySizeType::CopyCount)
            .value(n)
            .build()
    };
    let policy = InferenceComponentRollingUpdatePolicy::builder()
        .maximum_batch_size(size(batch))
        .wait_interval_in_seconds(10)
        .rollback_maximum_batch_size(size(4))
        .build();
    let mut config = InferenceComponentDeploymentConfig::builder().rolling_update_policy(policy);
    if let Some(a) = alarm {
        config = config.auto_rollback_configuration(
            AutoRollbackConfig::builder()
                .alarms(Alarm::builder().alarm_name(a).build())
                .build(),
        );
    }
    config.build()
}

#[tokio::test]
async fn a_rolling_update_replaces_the_copies_batch_by_batch() {
    let (_sb, sm) = sagemaker().await;
    create_ic_endpoint(&sm, "ic-roll", (1, 2)).await;
    create_component(&sm, "ic-roll", "roll-llm", 1.0, 4).await;
    wait_status(&sm, "roll-llm", InferenceComponentStatus::InService).await;
    let spec = second_model(&sm, "ic-roll").await;
    sm.update_inference_component()
        .inference_component_name("roll-llm")
        .specification(spec)
        .deployment_config(rolling(2, None))
        .send()
        .await
        .expect("UpdateInferenceComponent");
    let d = sm
        .describe_inference_component()
        .inference_component_name("roll-llm")
        .send()
        .await
        .unwrap();
    assert_eq!(
        d.inference_component_status(),
        Some(&InferenceComponentStatus::Updating)
    );
    assert_eq!(
        d.specification().unwrap().model_name(),
        Some("ic-roll-llm"),
        "the old model until done"
    );
    assert_eq!(
        wait_status(&sm, "roll-llm", InferenceComponentStatus::InService).await,
        (4, 4)
    );
    let d = sm
        .describe_inference_component()
        .inference_component_name("roll-llm")
        .send()
        .await
        .unwrap();
    assert_eq!(d.specification().unwrap().model_name(), Some("ic-roll-llm-v2"));
    assert_eq!(d.failure_reason(), None);
    let last = d.last_deployment_config().expect("LastDeploymentConfig");
    let batch = last.rolling_update_policy().unwrap().maximum_batch_size().unwrap();
    assert_eq!(
        (batch.r#type().map(|t| t.as_str()), batch.value()),
        (Some("COPY_COUNT"), Some(2))
    );
}

#[tokio::test]
async fn an_alarm_during_the_bake_rolls_back_to_the_old_specification() {
    let (sb, sm) = sagemaker().await;
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(&sb).await);
    create_ic_endpoint(&sm, "ic-back", (1, 2)).await;
    create_component(&sm, "ic-back", "back-llm", 1.0, 2).await;
    wait_status(&sm, "back-llm", InferenceComponentStatus::InService).await;
    cw.put_metric_alarm()
        .alarm_name("back-llm-errors")
        .namespace("AWS/SageMaker")
        .metric_name("Invocation5XXErrors")
        .dimensions(
            aws_sdk_cloudwatch::types::Dimension::builder()
                .name("InferenceComponentName")
                .value("back-llm")
                .build(),
        )
        .statistic(aws_sdk_cloudwatch::types::Statistic::Sum)
        .period(60)
        .evaluation_periods(1)
        .threshold(1.0)
        .comparison_operator(ComparisonOperator::GreaterThanOrEqualToThreshold)
        .send()
        .await
        .expect("PutMetricAlarm");
    let spec = second_model(&sm, "ic-back").await;
    sm.update_inference_component()
        .inference_component_name("back-llm")
        .specification(spec)
        .deployment_config(rolling(1, Some("back-llm-errors")))
        .send()
        .await
        .expect("UpdateInferenceComponent");
    cw.set_alarm_state()
        .alarm_name("back-llm-errors")
        .state_value(StateValue::Alarm)
        .state_reason("errors on the new copies")
        .send()
        .await
        .expect("SetAlarmState");
    wait_status(&sm, "back-llm", InferenceComponentStatus::InService).await;
    let d = sm
        .describe_inference_component()
        .inference_component_name("back-llm")
        .send()
        .await
        .unwrap();
    assert_eq!(
        d.specification().unwrap().model_name(),
        Some("ic-back-llm"),
        "the old model kept"
    );
    let reason = d.failure_reason().unwrap_or_default();
    assert!(
        reason.contains("back-llm-errors") && reason.contains("rolled back"),
        "{reason}"
    );
    assert!(d.last_deployment_config().is_some());
    // A transient component cannot be deleted; an InService one after the rollback can.
    sm.delete_inference_component()
        .inference_component_name("back-llm")
        .send()
        .await
        .unwrap();
}
