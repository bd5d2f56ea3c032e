//! A rolling update's policy: the model it rolls to, its batch (copies or a share of the
//! capacity), the bake after each batch, the rollback batch, the execution timeout and the alarms
//! that roll it back, checked against AWS's ranges and turned into the `DeploymentConfig` that
//! UpdateInferenceComponent carries.

use aws_sdk_sagemaker::types::{
    Alarm, AutoRollbackConfig, InferenceComponentCapacitySize, InferenceComponentCapacitySizeType,
    InferenceComponentDeploymentConfig, InferenceComponentRollingUpdatePolicy,
};
use serde::Serialize;

/// A rolling update's batch: a number of copies, or a share of the component's capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum BatchSize {
    /// COPY_COUNT.
    Copies(i32),
    /// CAPACITY_PERCENT.
    Percent(i32),
}

impl BatchSize {
    /// Parses `25%` (a share of the copies, 1–100) or `2` (copies, at least 1).
    pub fn parse(text: &str) -> Result<BatchSize, String> {
        let text = text.trim();
        let (num, percent) = match text.strip_suffix('%') {
            Some(p) => (p.trim(), true),
            None => (text, false),
        };
        let n: i32 = num
            .parse()
            .map_err(|_| format!("batch `{text}` is neither a copy count (2) nor a share (25%)"))?;
        match (percent, n) {
            (true, 1..=100) => Ok(BatchSize::Percent(n)),
            (true, _) => Err(format!("batch share must be 1% to 100% (got {n}%)")),
            (false, 1..) => Ok(BatchSize::Copies(n)),
            (false, _) => Err(format!("batch must be at least 1 copy (got {n})")),
        }
    }

    /// As the API carries it.
    pub fn to_sdk(self) -> InferenceComponentCapacitySize {
        let (kind, value) = match self {
            BatchSize::Copies(n) => (InferenceComponentCapacitySizeType::CopyCount, n),
            BatchSize::Percent(p) => (InferenceComponentCapacitySizeType::CapacityPercent, p),
        };
        InferenceComponentCapacitySize::builder()
            .r#type(kind)
            .value(value)
            .build()
    }
}

impl std::fmt::Display for BatchSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BatchSize::Copies(1) => write!(f, "1 copy"),
            BatchSize::Copies(n) => write!(f, "{n} copies"),
            BatchSize::Percent(p) => write!(f, "{p}% capacity"),
        }
    }
}

/// A rolling update of a component to another model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RollingUpdate {
    /// The model the component will serve.
    pub model: String,
    /// MaximumBatchSize.
    pub batch: BatchSize,
    /// WaitIntervalInSeconds: the bake after each batch (0–3600).
    pub bake_secs: i32,
    /// RollbackMaximumBatchSize (AWS's default when None).
    pub rollback_batch: Option<BatchSize>,
    /// MaximumExecutionTimeoutInSeconds (600–28800; AWS's default when None).
    pub timeout_secs: Option<i32>,
    /// AutoRollbackConfiguration alarms (at most 10).
    pub alarms: Vec<String>,
}

impl RollingUpdate {
    /// Checks the policy against AWS's ranges.
    pub fn validate(&self) -> Result<(), String> {
        if self.model.trim().is_empty() {
            return Err("--model needs the name of a SageMaker model".into());
        }
        if !(0..=3600).contains(&self.bake_secs) {
            return Err(format!("--bake must be 0 to 3600 seconds (got {}s)", self.bake_secs));
        }
        if let Some(t) = self.timeout_secs
            && !(600..=28800).contains(&t)
        {
            return Err(format!("the execution timeout must be 600 to 28800 seconds (got {t}s)"));
        }
        if self.alarms.len() > 10 {
            return Err(format!(
                "at most 10 alarms roll an update back (got {})",
                self.alarms.len()
            ));
        }
        Ok(())
    }

    /// The DeploymentConfig it sends.
    pub fn deployment_config(&self) -> InferenceComponentDeploymentConfig {
        let policy = InferenceComponentRollingUpdatePolicy::builder()
            .maximum_batch_size(self.batch.to_sdk())
            .wait_interval_in_seconds(self.bake_secs)
            .set_maximum_execution_timeout_in_seconds(self.timeout_secs)
            .set_rollback_maximum_batch_size(self.rollback_batch.map(BatchSize::to_sdk))
            .build();
        let alarms = (!self.alarms.is_empty()).then(|| {
            AutoRollbackConfig::builder()
                .set_alarms(Some(
                    self.alarms
                        .iter()
                        .map(|a| Alarm::builder().alarm_name(a).build())
                        .collect(),
                ))
                .build()
        });
        InferenceComponentDeploymentConfig::builder()
            .rolling_update_policy(policy)
            .set_auto_rollback_configuration(alarms)
            .build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_parse_as_copies_or_shares() {
        assert_eq!(BatchSize::parse("25%"), Ok(BatchSize::Percent(25)));
        assert_eq!(BatchSize::parse("2"), Ok(BatchSize::Copies(2)));
        assert!(BatchSize::parse("0").is_err());
        assert!(BatchSize::parse("120%").is_err());
        assert!(BatchSize::parse("a").is_err());
        assert_eq!(BatchSize::Percent(25).to_string(), "25% capacity");
    }
}
