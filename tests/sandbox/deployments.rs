//! Endpoint deployments over the wire: CreateEndpointConfig with every variant setting kept,
//! UpdateEndpoint's Updating lifecycle (PendingDeploymentSummary, VariantStatus, the config name
//! switching at the end), RetainAllVariantProperties with exclusions, an injected deployment
//! failure that rolls back to the old configuration with FailureReason, DeleteEndpointConfig — with
//! the Rust SDK, boto3 and the AWS CLI.

use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    EndpointStatus, ProductionVariant, ProductionVariantInstanceType, VariantProperty, VariantPropertyType,
};
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};

use crate::common::{peer_setup::show, sandbox_with, sdk_config};
use crate::compat_boto3::{ClientEnv, venv_async};
use crate::control::{create_ab_endpoint, wait_status};

/// A quiet sandbox whose updates take long enough to be seen in progress.
async fn slow_update_sandbox() -> SandboxHandle {
    let mut config = SandboxConfig::for_tests();
    config.timing.update = Duration::from_secs(2);
    sandbox_with(config).await
}

/// The canary-only config: Canary (model `<name>-v4`) × 2 at weight 5, with extra settings.
async fn create_single_config(sm: &Client, name: &str, config: &str) {
    sm.create_endpoint_config()
        .endpoint_config_name(config)
        .production_variants(
            ProductionVariant::builder()
                .variant_name("Canary")
                .model_name(format!("{name}-v4"))
                .instance_type(ProductionVariantInstanceType::MlM5Large)
                .initial_instance_count(2)
                .initial_variant_weight(5.0)
                .volume_size_in_gb(30)
                .model_data_download_timeout_in_seconds(600)
                .build(),
        )
        .send()
        .await
        .expect("CreateEndpointConfig");
}

#[tokio::test]
async fn update_endpoint_goes_through_updating_and_switches_config_at_the_end() {
    let handle = slow_update_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    create_ab_endpoint(&sm, "dep").await;
    wait_status(&sm, "dep", EndpointStatus::InService).await;
    create_single_config(&sm, "dep", "dep-single").await;
    let cfg = sm
        .describe_endpoint_config()
        .endpoint_config_name("dep-single")
        .send()
        .await
        .expect("DescribeEndpointConfig");
    let v = &cfg.production_variants()[0];
    assert_eq!(v.volume_size_in_gb(), Some(30), "variant settings are kept");
    assert_eq!(v.model_data_download_timeout_in_seconds(), Some(600));

    sm.update_endpoint()
        .endpoint_name("dep")
        .endpoint_config_name("dep-single")
        .send()
        .await
        .expect("UpdateEndpoint");
    let during = sm
        .describe_endpoint()
        .endpoint_name("dep")
        .send()
        .await
        .expect("describe");
    assert_eq!(during.endpoint_status(), Some(&EndpointStatus::Updating));
    assert_eq!(
        during.endpoint_config_name(),
        Some("dep-config"),
        "switches only at the end"
    );
    let pending = during
        .pending_deployment_summary()
        .expect("PendingDeploymentSummary while Updating");
    assert_eq!(pending.endpoint_config_name(), Some("dep-single"));
    let pv = &pending.production_variants()[0];
    assert_eq!(pv.variant_name(), Some("Canary"));
    assert!(!pv.variant_status().is_empty());
    assert_eq!(
        during.production_variants().len(),
        2,
        "the old variants serve meanwhile"
    );

    let done = wait_status(&sm, "dep", EndpointStatus::InService).await;
    assert_eq!(done.endpoint_config_name(), Some("dep-single"));
    assert!(done.pending_deployment_summary().is_none());
    assert!(done.failure_reason().is_none());
    let names: Vec<&str> = done
        .production_variants()
        .iter()
        .filter_map(|v| v.variant_name())
        .collect();
    assert_eq!(names, ["Canary"]);
    assert_eq!(done.production_variants()[0].current_instance_count(), Some(2));

    // Back to the two-variant config, retaining the live Canary's weight (5) but taking its
    // instance count from the config (1).
    sm.update_endpoint()
        .endpoint_name("dep")
        .endpoint_config_name("dep-config")
        .retain_all_variant_properties(true)
        .exclude_retained_variant_properties(
            VariantProperty::builder()
                .variant_property_type(VariantPropertyType::DesiredInstanceCount)
                .build(),
        )
        .send()
        .await
        .expect("UpdateEndpoint with retain");
    let back = wait_status(&sm, "dep", EndpointStatus::InService).await;
    assert_eq!(back.endpoint_config_name(), Some("dep-config"));
    let canary = back
        .production_variants()
        .iter()
        .find(|v| v.variant_name() == Some("Canary"))
        .expect("Canary");
    assert_eq!(canary.current_weight(), Some(5.0));
    assert_eq!(canary.current_instance_count(), Some(1));
    let stable = back
        .production_variants()
        .iter()
        .find(|v| v.variant_name() == Some("Stable"))
        .expect("Stable");
    assert_eq!(stable.current_weight(), Some(9.0));

    let err = sm
        .update_endpoint()
        .endpoint_name("dep")
        .endpoint_config_name("dep-single")
        .exclude_retained_variant_properties(
            VariantProperty::builder()
                .variant_property_type(VariantPropertyType::DesiredWeight)
                .build(),
        )
        .send()
        .await
        .expect_err("exclusions need RetainAllVariantProperties");
    assert_eq!(err.code(), Some("ValidationException"));

    sm.delete_endpoint_config()
        .endpoint_config_name("dep-single")
        .send()
        .await
        .expect("DeleteEndpointConfig");
    let err = sm
        .describe_endpoint_config()
        .endpoint_config_name("dep-single")
        .send()
        .await
        .expect_err("deleted");
    assert!(
        err.message()
            .unwrap_or_default()
            .contains("Could not find endpoint configuration")
    );
}

#[tokio::test]
async fn a_failed_deployment_rolls_back_to_the_old_config_with_a_reason() {
    let handle = slow_update_sandbox().await;
    let sm = Client::new(&sdk_config(&handle).await);
    create_ab_endpoint(&sm, "dfail").await;
    wait_status(&sm, "dfail", EndpointStatus::InService).await;
    create_single_config(&sm, "dfail", "dfail-single").await;
    handle
        .sandbox
        .faults
        .add(FaultSpec::parse_short("kind=deployment_failure,endpoint=dfail,count=1").expect("fault spec"));
    sm.update_endpoint()
        .endpoint_name("dfail")
        .endpoint_config_name("dfail-single")
        .send()
        .await
        .expect("UpdateEndpoint is accepted");
    wait_status(&sm, "dfail", EndpointStatus::RollingBack).await;
    let after = wait_status(&sm, "dfail", EndpointStatus::InService).await;
    assert_eq!(
        after.endpoint_config_name(),
        Some("dfail-config"),
        "left on the old config"
    );
    assert!(
        after
            .failure_reason()
            .is_some_and(|r| r.contains("did not pass the ping health check")),
        "{:?}",
        after.failure_reason()
    );
    assert_eq!(after.production_variants().len(), 2);

    // The next successful update clears the reason.
    sm.update_endpoint()
        .endpoint_name("dfail")
        .endpoint_config_name("dfail-single")
        .send()
        .await
        .expect("UpdateEndpoint");
    let ok = wait_status(&sm, "dfail", EndpointStatus::InService).await;
    assert_eq!(ok.endpoint_config_name(), Some("dfail-single"));
    assert!(ok.failure_reason().is_none());
}

const BOTO3_DEPLOY: &str = r#"
import datetime, sys, boto3
sm = boto3.client("sagemaker")
sm.create_endpoint_config(EndpointConfigName="py-single", ProductionVariants=[{
    "VariantName": "Canary", "ModelName": "py-v4", "InstanceType": "ml.m5.large",
    "InitialInstanceCount": 1, "InitialVariantWeight": 1.0, "VolumeSizeInGB": 20}])
sm.update_endpoint(EndpointName="py", EndpointConfigName="py-single", RetainAllVariantProperties=True)
d = sm.describe_endpoint(EndpointName="py")
assert d["EndpointStatus"] == "Updating", d
p = d["PendingDeploymentSummary"]
assert p["EndpointConfigName"] == "py-single" and isinstance(p["StartTime"], datetime.datetime), p
assert p["ProductionVariants"][0]["VariantStatus"][0]["Status"] in ("Creating", "ActivatingTraffic", "Baking"), p
print("boto3 deployment ok")
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_and_the_aws_cli_deploy_and_see_a_rollback() {
    let venv = venv_async().await;
    let mut config = SandboxConfig::for_tests();
    config.timing.update = Duration::from_secs(4);
    let handle = sandbox_with(config).await;
    let sm = Client::new(&sdk_config(&handle).await);
    create_ab_endpoint(&sm, "py").await;
    wait_status(&sm, "py", EndpointStatus::InService).await;
    let env = ClientEnv::new(handle.endpoint_url());
    let out = env.run(venv, "boto3 deployment", &["-c", BOTO3_DEPLOY]).await;
    assert!(out.status.success(), "boto3 deployment\n{}", show(&out));
    let done = wait_status(&sm, "py", EndpointStatus::InService).await;
    assert_eq!(done.endpoint_config_name(), Some("py-single"));

    handle
        .sandbox
        .faults
        .add(FaultSpec::parse_short("kind=deployment_failure,endpoint=py,message=Health check failed").expect("fault"));
    let updated = env
        .aws(
            venv,
            &[
                "sagemaker",
                "update-endpoint",
                "--endpoint-name",
                "py",
                "--endpoint-config-name",
                "py-config",
            ],
        )
        .await;
    assert!(
        updated["EndpointArn"]
            .as_str()
            .is_some_and(|a| a.ends_with("endpoint/py"))
    );
    let after = wait_status(&sm, "py", EndpointStatus::InService).await;
    assert_eq!(after.endpoint_config_name(), Some("py-single"));
    let described = env
        .aws(venv, &["sagemaker", "describe-endpoint", "--endpoint-name", "py"])
        .await;
    assert_eq!(described["FailureReason"], "Health check failed");
    assert_eq!(described["EndpointConfigName"], "py-single");
    let out = env
        .aws_output(
            venv,
            &[
                "sagemaker",
                "delete-endpoint-config",
                "--endpoint-config-name",
                "py-config",
            ],
        )
        .await;
    assert!(out.status.success(), "delete-endpoint-config\n{}", show(&out));
}
