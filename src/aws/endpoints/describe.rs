//! Endpoint configurations and models never change once created, so the fleet layer describes
//! each name once and remembers it: a refresh of an unchanged fleet costs one DescribeEndpoint
//! per endpoint (plus the list and autoscaling pages), and only new configurations or models are
//! described. Failures are not remembered. A name deleted and created again with other contents
//! would show the old contents until the process restarts (AWS names are reused rarely; the
//! console's `r` on a single endpoint does not bypass it either).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput;

use crate::aws::cache::ModelFacts;
use crate::aws::{AwsError, Fleet};

impl Fleet {
    /// DescribeEndpointConfig, once per name.
    pub async fn endpoint_config(
        &self,
        name: &str,
        calls: &AtomicUsize,
    ) -> Result<Arc<DescribeEndpointConfigOutput>, AwsError> {
        if let Some(c) = self.describe_cache.config(name) {
            return Ok(c);
        }
        calls.fetch_add(1, Ordering::Relaxed);
        let call = self
            .sagemaker
            .describe_endpoint_config()
            .endpoint_config_name(name)
            .send();
        let out = self
            .budget
            .metered(async { call.await.map_err(AwsError::from_sdk) })
            .await?;
        Ok(self.describe_cache.keep_config(name, out))
    }

    /// DescribeModel's facts, once per name; `None` when the model cannot be described (deleted
    /// behind its endpoint, say).
    pub async fn model_facts(&self, name: &str, calls: &AtomicUsize) -> Option<ModelFacts> {
        if let Some(m) = self.describe_cache.model(name) {
            return Some(m);
        }
        calls.fetch_add(1, Ordering::Relaxed);
        let call = self.sagemaker.describe_model().model_name(name).send();
        let d = self
            .budget
            .metered(async { call.await.map_err(AwsError::from_sdk) })
            .await
            .ok()?;
        let c = d.primary_container().or_else(|| d.containers().first());
        let facts = (
            c.and_then(|c| c.image().map(str::to_string)),
            c.and_then(|c| c.mode()).is_some_and(|m| m.as_str() == "MultiModel"),
            c.and_then(|c| c.model_data_url().map(str::to_string)),
        );
        self.describe_cache.keep_model(name, facts.clone());
        Some(facts)
    }
}
