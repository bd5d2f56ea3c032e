//! What every clone of a [`Fleet`](crate::aws::Fleet) remembers: endpoint configurations and
//! models described once (they never change once created). The reads that fill it are
//! `endpoints/describe.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput;
use parking_lot::Mutex;

/// What the inventory needs of a model: image, whether it is multi-model, its ModelDataUrl.
pub type ModelFacts = (Option<String>, bool, Option<String>);

/// Configurations and models described so far, by name (shared by every clone of a [`Fleet`](crate::aws::Fleet)).
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

    /// The configuration `name`, when described before.
    pub fn config(&self, name: &str) -> Option<Arc<DescribeEndpointConfigOutput>> {
        self.configs.lock().get(name).cloned()
    }

    /// Remembers the configuration `name`.
    pub fn keep_config(&self, name: &str, config: Arc<DescribeEndpointConfigOutput>) {
        self.configs.lock().insert(name.to_string(), config);
    }

    /// The facts of the model `name`, when described before.
    pub fn model(&self, name: &str) -> Option<ModelFacts> {
        self.models.lock().get(name).cloned()
    }

    /// Remembers the facts of the model `name`.
    pub fn keep_model(&self, name: &str, facts: ModelFacts) {
        self.models.lock().insert(name.to_string(), facts);
    }
}
