//! Application Auto Scaling of inference components over the wire with the Rust SDK: a scalable
//! target on `inference-component/IC` with `sagemaker:inference-component:DesiredCopyCount` and
//! MinCapacity 0 (the component must exist, the dimension must be the component's); target
//! tracking on `SageMakerInferenceComponentInvocationsPerCopy` scaling an idle component in to
//! zero copies (and its instances with it, within ManagedInstanceScaling) with an AWS-like
//! activity; a step policy fired by its alarm bringing a copy back at once after that scale-in.

use std::time::Duration;

use aws_sdk_applicationautoscaling::Client;
use aws_sdk_applicationautoscaling::error::ProvideErrorMetadata;
use aws_sdk_applicationautoscaling::types::{
    AdjustmentType, MetricType, PolicyType, PredefinedMetricSpecification, ScalableDimension, ServiceNamespace,
    StepAdjustment, StepScalingPolicyConfiguration, TargetTrackingScalingPolicyConfiguration,
};
use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, MetricDatum, Statistic};
use aws_sdk_sagemaker::types::InferenceComponentStatus;

use crate::common::{poll_until, sdk_config};
use crate::components::{create_component, create_ic_endpoint, instances, sagemaker, wait_status};

const DIM: ScalableDimension = ScalableDimension::SageMakerInferenceComponentDesiredCopyCount;

/// Registers `inference-component/IC` with `min..=max` copies.
pub(crate) async fn register_component(aas: &Client, ic: &str, (min, max): (i32, i32)) {
    aas.register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(format!("inference-component/{ic}"))
        .scalable_dimension(DIM)
        .min_capacity(min)
        .max_capacity(max)
        .send()
        .await
        .expect("register the component's scalable target");
}

/// Target tracking on invocations per copy with a one-second scale-in cooldown.
async fn put_per_copy_tracking(aas: &Client, ic: &str) {
    aas.put_scaling_policy()
        .policy_name("per-copy")
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(format!("inference-component/{ic}"))
        .scalable_dimension(DIM)
        .policy_type(PolicyType::TargetTrackingScaling)
        .target_tracking_scaling_policy_configuration(
            TargetTrackingScalingPolicyConfiguration::builder()
                .target_value(5.0)
                .predefined_metric_specification(
                    PredefinedMetricSpecification::builder()
                        .predefined_metric_type(MetricType::SageMakerInferenceComponentInvocationsPerCopy)
                        .build()
                        .unwrap(),
                )
                .scale_in_cooldown(1)
                .scale_out_cooldown(60)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("put the target-tracking policy");
}

/// A component's desired and current copies, once both are `want`.
async fn copies_reach(sm: &aws_sdk_sagemaker::Client, ic: &str, want: i32) {
    poll_until(&format!("{ic} at {want} copies"), Duration::from_secs(20), || async {
        let d = sm
            .describe_inference_component()
            .inference_component_name(ic)
            .send()
            .await
            .ok()?;
        let rc = d.runtime_config()?;
        (rc.desired_copy_count() == Some(want) && rc.current_copy_count() == Some(want)).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_component_target_is_checked_and_an_idle_component_scales_in_to_zero() {
    let (sb, sm) = sagemaker().await;
    let aas = Client::new(&sdk_config(&sb).await);
    create_ic_endpoint(&sm, "ic-zero", (0, 2)).await;
    create_component(&sm, "ic-zero", "ic-zero-llm", 2.0, 1).await;
    wait_status(&sm, "ic-zero-llm", InferenceComponentStatus::InService).await;
    // The component must exist, and its dimension is the component's.
    let missing = aas
        .register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id("inference-component/nope")
        .scalable_dimension(DIM)
        .min_capacity(0)
        .max_capacity(1)
        .send()
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Some("ValidationException"));
    let wrong = aas
        .register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id("inference-component/ic-zero-llm")
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .min_capacity(0)
        .max_capacity(1)
        .send()
        .await
        .unwrap_err();
    assert!(
        wrong.message().unwrap_or_default().contains("DesiredCopyCount"),
        "{wrong:?}"
    );
    register_component(&aas, "ic-zero-llm", (0, 2)).await;
    let targets = aas
        .describe_scalable_targets()
        .service_namespace(ServiceNamespace::Sagemaker)
        .scalable_dimension(DIM)
        .send()
        .await
        .unwrap();
    let t = &targets.scalable_targets()[0];
    assert_eq!(
        (t.resource_id(), t.min_capacity(), t.max_capacity()),
        ("inference-component/ic-zero-llm", 0, 2)
    );
    // No calls: the per-copy metric is idle, and the component goes to zero, its instance too.
    put_per_copy_tracking(&aas, "ic-zero-llm").await;
    copies_reach(&sm, "ic-zero-llm", 0).await;
    poll_until("the variant's instances at zero", Duration::from_secs(20), || async {
        (instances(&sm, "ic-zero").await == (0, 0)).then_some(())
    })
    .await;
    let acts = aas
        .describe_scaling_activities()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id("inference-component/ic-zero-llm")
        .send()
        .await
        .unwrap();
    let a = &acts.scaling_activities()[0];
    assert_eq!(a.description(), "Setting desired copy count to 0.");
    assert!(
        a.cause()
            .contains("triggered policy per-copy changing the desired capacity from 1 to 0"),
        "{}",
        a.cause()
    );
}

#[tokio::test]
async fn a_step_policy_brings_a_copy_back_right_after_a_scale_in() {
    let (sb, sm) = sagemaker().await;
    let config = sdk_config(&sb).await;
    let (aas, cw) = (Client::new(&config), aws_sdk_cloudwatch::Client::new(&config));
    create_ic_endpoint(&sm, "ic-step", (0, 2)).await;
    create_component(&sm, "ic-step", "ic-step-llm", 2.0, 1).await;
    wait_status(&sm, "ic-step-llm", InferenceComponentStatus::InService).await;
    register_component(&aas, "ic-step-llm", (0, 1)).await;
    put_per_copy_tracking(&aas, "ic-step-llm").await;
    copies_reach(&sm, "ic-step-llm", 0).await;
    // Without the tracking policy nothing scales the woken copy back in while it is watched.
    aas.delete_scaling_policy()
        .policy_name("per-copy")
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id("inference-component/ic-step-llm")
        .scalable_dimension(DIM)
        .send()
        .await
        .unwrap();
    let arn = aas
        .put_scaling_policy()
        .policy_name("wake")
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id("inference-component/ic-step-llm")
        .scalable_dimension(DIM)
        .policy_type(PolicyType::StepScaling)
        .step_scaling_policy_configuration(
            StepScalingPolicyConfiguration::builder()
                .adjustment_type(AdjustmentType::ChangeInCapacity)
                .cooldown(60)
                .step_adjustments(
                    StepAdjustment::builder()
                        .metric_interval_lower_bound(0.0)
                        .scaling_adjustment(1)
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap()
        .policy_arn()
        .to_string();
    let dim = Dimension::builder()
        .name("InferenceComponentName")
        .value("ic-step-llm")
        .build();
    cw.put_metric_alarm()
        .alarm_name("ic-step-wake")
        .namespace("MCP/Test")
        .metric_name("Knock")
        .dimensions(dim.clone())
        .statistic(Statistic::Sum)
        .period(60)
        .evaluation_periods(1)
        .threshold(1.0)
        .comparison_operator(ComparisonOperator::GreaterThanOrEqualToThreshold)
        .alarm_actions(arn)
        .send()
        .await
        .unwrap();
    cw.put_metric_data()
        .namespace("MCP/Test")
        .metric_data(
            MetricDatum::builder()
                .metric_name("Knock")
                .dimensions(dim)
                .value(1.0)
                .build(),
        )
        .send()
        .await
        .unwrap();
    poll_until("the alarm in ALARM", Duration::from_secs(20), || async {
        let d = cw.describe_alarms().alarm_names("ic-step-wake").send().await.ok()?;
        (d.metric_alarms()[0].state_value().map(|s| s.as_str()) == Some("ALARM")).then_some(())
    })
    .await;
    // The scale-in's cooldown does not hold the scale-out: the copy comes back within seconds.
    poll_until("desired copies 1", Duration::from_secs(20), || async {
        let d = sm
            .describe_inference_component()
            .inference_component_name("ic-step-llm")
            .send()
            .await
            .ok()?;
        (d.runtime_config()?.desired_copy_count() == Some(1)).then_some(())
    })
    .await;
    copies_reach(&sm, "ic-step-llm", 1).await;
}

/// boto3 sets scale to zero up as AWS documents it, a call at zero wakes the component through
/// the alarm and the step policy; then sagedeck's doctor finds the documented `> 1` alarm wrong
/// (two failed calls before it wakes) and every other piece in place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_scale_to_zero_as_aws_documents_it_wakes_on_a_call_and_the_doctor_flags_the_operator() {
    let venv = crate::compat_boto3::venv_async().await;
    let sb = crate::common::sandbox().await;
    let env = crate::compat_boto3::ClientEnv::new(sb.endpoint_url());
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/ic_scale_to_zero.py");
    let url = sb.endpoint_url();
    let out = env
        .run(
            venv,
            "ic_scale_to_zero.py",
            &[script.to_str().expect("utf-8 path"), &url],
        )
        .await;
    let shown = crate::common::peer_setup::show(&out);
    assert!(out.status.success(), "{shown}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("scale-to-zero checks passed"),
        "{shown}"
    );
    let check = crate::common::run_cli(
        &sb,
        &[
            "autoscaling",
            "boto3-zero-endpoint",
            "--inference-component",
            "boto3-zero-ic",
            "--check",
            "--json",
        ],
    )
    .await;
    assert_eq!(check.code, 8, "{}", check.stderr);
    let doc = check.json();
    assert_eq!(doc["findings"], 1, "{doc:#}");
    assert_eq!(doc["doctor"][4]["piece"], "wake_alarm");
    assert!(
        doc["doctor"][4]["detail"]
            .as_str()
            .unwrap()
            .contains("needs 2 failed calls"),
        "{doc:#}"
    );
}
