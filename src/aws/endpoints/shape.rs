//! The figures an endpoint's shape brings beyond instances and weights: a serverless variant's
//! memory and concurrency, an asynchronous endpoint's S3 paths and topics, and the shadow
//! variants that receive a sampled copy of production traffic. Read from DescribeEndpoint (the
//! summaries' current and desired serverless configurations, the shadow summaries) and from the
//! endpoint configuration, which the inventory describes anyway.

use aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput;
use aws_sdk_sagemaker::types::{ProductionVariant, ProductionVariantServerlessConfig, ProductionVariantSummary};
use serde::{Deserialize, Serialize};

/// A serverless variant's figures: memory, max concurrency and provisioned concurrency, now and
/// being rolled out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerlessInfo {
    /// MemorySizeInMB.
    pub memory_mb: i32,
    /// MaxConcurrency now.
    pub max_concurrency: i32,
    /// MaxConcurrency being rolled out (the same as now when nothing is in flight).
    pub desired_max_concurrency: i32,
    /// ProvisionedConcurrency now (None: none provisioned, every call may start cold).
    pub provisioned: Option<i32>,
    /// ProvisionedConcurrency being rolled out.
    pub desired_provisioned: Option<i32>,
}

impl ServerlessInfo {
    /// The figures of a variant: the summary's current and desired configurations, else the
    /// configuration's (an endpoint still Creating, or a service that does not echo them).
    pub fn of(
        summary: Option<&ProductionVariantSummary>,
        config: Option<&ProductionVariant>,
    ) -> Option<ServerlessInfo> {
        let configured = config.and_then(|c| c.serverless_config());
        let current = summary.and_then(|s| s.current_serverless_config()).or(configured)?;
        let desired = summary.and_then(|s| s.desired_serverless_config()).unwrap_or(current);
        Some(ServerlessInfo::from_pair(current, desired))
    }

    fn from_pair(
        current: &ProductionVariantServerlessConfig,
        desired: &ProductionVariantServerlessConfig,
    ) -> ServerlessInfo {
        let max = current.max_concurrency().unwrap_or(0);
        ServerlessInfo {
            memory_mb: current.memory_size_in_mb().or(desired.memory_size_in_mb()).unwrap_or(0),
            max_concurrency: max,
            desired_max_concurrency: desired.max_concurrency().unwrap_or(max),
            provisioned: current.provisioned_concurrency(),
            desired_provisioned: desired.provisioned_concurrency(),
        }
    }

    /// Whether a change of concurrency is in flight.
    pub fn changing(&self) -> bool {
        self.max_concurrency != self.desired_max_concurrency || self.provisioned != self.desired_provisioned
    }

    /// `4 GB · max 20 · prov 5` (`prov 5→8` while it changes; no `prov` when none is set).
    pub fn text(&self) -> String {
        let memory = if self.memory_mb % 1024 == 0 {
            format!("{} GB", self.memory_mb / 1024)
        } else {
            format!("{} MB", self.memory_mb)
        };
        let max = if self.max_concurrency == self.desired_max_concurrency {
            format!("max {}", self.max_concurrency)
        } else {
            format!("max {}→{}", self.max_concurrency, self.desired_max_concurrency)
        };
        let prov = match (self.provisioned, self.desired_provisioned) {
            (None, None) => String::new(),
            (a, b) if a == b => format!(" · prov {}", a.unwrap_or(0)),
            (a, b) => format!(" · prov {}→{}", a.unwrap_or(0), b.unwrap_or(0)),
        };
        format!("{memory} · {max}{prov}")
    }
}

/// An asynchronous endpoint's configuration: where outputs and failures go, who is told.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsyncInfo {
    /// S3OutputPath.
    pub output_path: Option<String>,
    /// S3FailurePath.
    pub failure_path: Option<String>,
    /// The SNS topic told of a success.
    pub success_topic: Option<String>,
    /// The SNS topic told of an error.
    pub error_topic: Option<String>,
    /// MaxConcurrentInvocationsPerInstance (None: SageMaker chooses).
    pub max_concurrent_per_instance: Option<i32>,
}

impl AsyncInfo {
    /// The asynchronous part of a configuration, when it has one.
    pub fn of(config: &DescribeEndpointConfigOutput) -> Option<AsyncInfo> {
        let a = config.async_inference_config()?;
        let output = a.output_config();
        let topics = output.and_then(|o| o.notification_config());
        Some(AsyncInfo {
            output_path: output.and_then(|o| o.s3_output_path()).map(str::to_string),
            failure_path: output.and_then(|o| o.s3_failure_path()).map(str::to_string),
            success_topic: topics.and_then(|t| t.success_topic()).map(str::to_string),
            error_topic: topics.and_then(|t| t.error_topic()).map(str::to_string),
            max_concurrent_per_instance: a
                .client_config()
                .and_then(|c| c.max_concurrent_invocations_per_instance()),
        })
    }
}

/// The share of production requests a shadow of weight `shadow_weight` receives a copy of: its
/// weight over the production variants' (AWS samples by that ratio), at most all of them.
pub fn sampled_share(shadow_weight: f64, production_weight: f64) -> f64 {
    if production_weight <= 0.0 {
        return 0.0;
    }
    (shadow_weight / production_weight).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sls(max: i32, prov: Option<i32>) -> ProductionVariantServerlessConfig {
        ProductionVariantServerlessConfig::builder()
            .memory_size_in_mb(4096)
            .max_concurrency(max)
            .set_provisioned_concurrency(prov)
            .build()
    }

    #[test]
    fn serverless_figures_come_from_the_summary_else_the_configuration() {
        let config = ProductionVariant::builder()
            .variant_name("V")
            .serverless_config(sls(10, None))
            .build();
        let configured = ServerlessInfo::of(None, Some(&config)).unwrap();
        assert_eq!(configured.text(), "4 GB · max 10");
        assert!(!configured.changing());
        let summary = ProductionVariantSummary::builder()
            .variant_name("V")
            .current_serverless_config(sls(10, Some(2)))
            .desired_serverless_config(sls(20, Some(5)))
            .build();
        let live = ServerlessInfo::of(Some(&summary), Some(&config)).unwrap();
        assert_eq!(live.text(), "4 GB · max 10→20 · prov 2→5");
        assert!(live.changing());
        let plain = ProductionVariant::builder().variant_name("V").build();
        assert_eq!(ServerlessInfo::of(None, Some(&plain)), None);
    }

    #[test]
    fn a_shadow_samples_by_its_weight_over_production() {
        assert_eq!(sampled_share(0.5, 1.0), 0.5);
        assert_eq!(sampled_share(3.0, 1.0), 1.0);
        assert_eq!(sampled_share(1.0, 0.0), 0.0);
    }
}
