//! Endpoint configurations and models never change once created, so the fleet layer describes
//! each name once and remembers it: a refresh of an unchanged fleet costs one DescribeEndpoint
//! per endpoint (plus the list and autoscaling pages), and only new configurations or models are
//! described. Failures are not remembered. A name deleted and created again with other contents
//! would show the old contents until the process restarts (AWS names are reused rarely; the
//! console's `r` on a single endpoint does not bypass it either).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput;
use parking_lot::Mutex;

use super::{AwsError, Fleet};

/// What the inventory needs of a model: image, whether it is multi-model, its ModelDataUrl.
pub type ModelFacts = (Option<String>, bool, Option<String>);

/// Configurations and models described so far, by name (shared by every clone of a [`Fleet`]).
#[derive(Debug, Default)]
pub struct DescribeCache {
    configs: Mutex<HashMap<String, Arc<DescribeEndpointConfigOutput>>>,
    models: Mutex<HashMap<String, ModelFacts>>,
}

impl DescribeCache {
    /// Configurations and models remembered.
    pub fn len(&self) -> (usize, usize) {
        (self.configs.lock().len(), self.models.lock().len())
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == (0, 0)
    }
}

impl Fleet {
    /// DescribeEndpointConfig, once per name.
    pub async fn endpoint_config(
        &self,
        name: &str,
        calls: &AtomicUsize,
    ) -> Result<Arc<DescribeEndpointConfigOutput>, AwsError> {
        if let Some(c) = self.describe_cache.configs.lock().get(name) {
            return Ok(c.clone());
        }
        calls.fetch_add(1, Ordering::Relaxed);
        let out = self
            .sagemaker
            .describe_endpoint_config()
            .endpoint_config_name(name)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let out = Arc::new(out);
        self.describe_cache.configs.lock().insert(name.to_string(), out.clone());
        Ok(out)
    }

    /// DescribeModel's facts, once per name; `None` when the model cannot be described (deleted
    /// behind its endpoint, say).
    pub async fn model_facts(&self, name: &str, calls: &AtomicUsize) -> Option<ModelFacts> {
        if let Some(m) = self.describe_cache.models.lock().get(name) {
            return Some(m.clone());
        }
        calls.fetch_add(1, Ordering::Relaxed);
        let d = self.sagemaker.describe_model().model_name(name).send().await.ok()?;
        let c = d.primary_container().or_else(|| d.containers().first());
        let facts = (
            c.and_then(|c| c.image().map(str::to_string)),
            c.and_then(|c| c.mode()).is_some_and(|m| m.as_str() == "MultiModel"),
            c.and_then(|c| c.model_data_url().map(str::to_string)),
        );
        self.describe_cache
            .models
            .lock()
            .insert(name.to_string(), facts.clone());
        Some(facts)
    }
}
