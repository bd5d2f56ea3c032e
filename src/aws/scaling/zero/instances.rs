//! The variant piece of scale to zero, written by `--scale-to-zero`: a new endpoint
//! configuration (the endpoint's current one copied whole, named from it and the time as
//! `deploy --model` names its own, the variant's ManagedInstanceScaling ENABLED with
//! MinInstanceCount 0 and its MaxInstanceCount kept), then UpdateEndpoint onto it (the live
//! instance counts retained), followed until the endpoint is InService again. The change is
//! compare-and-swapped on the configuration name it was planned from, checked with the rest of
//! the component's autoscaling before anything is sent (`change.rs`).

use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use aws_sdk_sagemaker::operation::RequestId;
use aws_sdk_sagemaker::types::{
    ManagedInstanceScalingStatus, ProductionVariant, ProductionVariantManagedInstanceScaling,
};

use crate::aws::change::guard::Difference;
use crate::aws::config::Fleet;
use crate::aws::deploy::new_config::fresh_config_name;
use crate::aws::error::AwsError;
use crate::aws::scaling::change::ScalingChange;

/// How long the endpoint may take to be InService again after the UpdateEndpoint.
const UPDATE_DEADLINE: Duration = Duration::from_secs(3600);
/// How often the endpoint is read while it updates.
const UPDATE_POLL: Duration = Duration::from_millis(500);

/// The variants of a configuration with `variant`'s ManagedInstanceScaling at 0..=max (`max`
/// when given, else the MaxInstanceCount it has, else its InitialInstanceCount, at least 1).
pub fn zeroed_variants(
    variants: &[ProductionVariant],
    variant: &str,
    max: Option<i32>,
) -> Result<Vec<ProductionVariant>, String> {
    if !variants.iter().any(|v| v.variant_name() == Some(variant)) {
        return Err(format!("the endpoint configuration has no variant {variant}"));
    }
    Ok(variants
        .iter()
        .map(|v| {
            let mut v = v.clone();
            if v.variant_name() == Some(variant) {
                let had = v.managed_instance_scaling.take();
                let max = max
                    .or(had.as_ref().and_then(|m| m.max_instance_count()))
                    .or(v.initial_instance_count())
                    .unwrap_or(1)
                    .max(1);
                v.managed_instance_scaling = Some(
                    ProductionVariantManagedInstanceScaling::builder()
                        .status(ManagedInstanceScalingStatus::Enabled)
                        .min_instance_count(0)
                        .max_instance_count(max)
                        .set_scale_in_policy(had.and_then(|m| m.scale_in_policy))
                        .build(),
                );
            }
            v
        })
        .collect())
}

impl Fleet {
    /// The differences between the configurations the `ZeroInstances` changes were planned on
    /// and the endpoint's configuration now (none when there is no such change).
    pub(crate) async fn config_differences(
        &self,
        endpoint: &str,
        changes: &[ScalingChange],
    ) -> Result<Vec<Difference>, AwsError> {
        let mut out = Vec::new();
        for change in changes {
            let ScalingChange::ZeroInstances {
                variant, from_config, ..
            } = change
            else {
                continue;
            };
            let calls = AtomicUsize::new(0);
            let info = self.describe_endpoint_info(endpoint, &calls).await?;
            let actual = info.config_name.clone().unwrap_or_default();
            if &actual != from_config {
                out.push(Difference {
                    variant: variant.clone(),
                    field: "endpoint_config".into(),
                    expected: from_config.clone(),
                    actual,
                });
            }
        }
        Ok(out)
    }

    /// Writes the new configuration and updates `endpoint` onto it (see the module docs);
    /// returns UpdateEndpoint's request id once the endpoint is InService on it.
    pub(crate) async fn send_zero_instances(
        &self,
        endpoint: &str,
        (variant, from_config): (&str, &str),
        max: Option<i32>,
    ) -> Result<Option<String>, AwsError> {
        let from = self
            .sagemaker
            .describe_endpoint_config()
            .endpoint_config_name(from_config)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let variants = zeroed_variants(from.production_variants(), variant, max).map_err(AwsError::Config)?;
        let name = fresh_config_name(from_config).await;
        self.derived_config_request(&from, &name, variants)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let out = self
            .sagemaker
            .update_endpoint()
            .endpoint_name(endpoint)
            .endpoint_config_name(&name)
            .retain_all_variant_properties(true)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        self.wait_in_service_on(endpoint, &name).await?;
        Ok(out.request_id().map(str::to_string))
    }

    /// Waits until `endpoint` is InService on `config`; an error when it settles otherwise
    /// (rolled back, failed) or the deadline passes.
    async fn wait_in_service_on(&self, endpoint: &str, config: &str) -> Result<(), AwsError> {
        let start = Instant::now();
        loop {
            let d = self
                .sagemaker
                .describe_endpoint()
                .endpoint_name(endpoint)
                .send()
                .await
                .map_err(AwsError::from_sdk)?;
            let status = d.endpoint_status().map(|s| s.as_str()).unwrap_or_default();
            let on = d.endpoint_config_name().unwrap_or_default();
            match status {
                "InService" if on == config => return Ok(()),
                "InService" | "Failed" | "UpdateRollbackFailed" => {
                    return Err(AwsError::Config(format!(
                        "UpdateEndpoint {endpoint} onto {config} did not complete: {status} on {on}{}",
                        d.failure_reason().map(|r| format!(" ({r})")).unwrap_or_default()
                    )));
                }
                _ if start.elapsed() > UPDATE_DEADLINE => {
                    return Err(AwsError::Config(format!(
                        "UpdateEndpoint {endpoint} onto {config}: still {status} after {}s",
                        UPDATE_DEADLINE.as_secs()
                    )));
                }
                _ => tokio::time::sleep(UPDATE_POLL).await,
            }
        }
    }
}
