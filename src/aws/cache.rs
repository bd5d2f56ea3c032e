//! What every clone of a [`Fleet`](crate::aws::Fleet) remembers: endpoint configurations and
//! models described once (they never change once created), and settled inference components by
//! their last-modified time. The reads that fill it are `endpoints/describe.rs` and
//! `components/inventory.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput;
use aws_sdk_sagemaker::operation::describe_inference_component::DescribeInferenceComponentOutput;
use parking_lot::Mutex;

/// What the inventory needs of a model: image, whether it is multi-model, its ModelDataUrl.
pub type ModelFacts = (Option<String>, bool, Option<String>);

/// Configurations and models described so far, by name (shared by every clone of a [`Fleet`](crate::aws::Fleet)).
#[derive(Debug, Default)]
pub struct DescribeCache {
    configs: Mutex<HashMap<String, Arc<DescribeEndpointConfigOutput>>>,
    models: Mutex<HashMap<String, ModelFacts>>,
    components: Mutex<HashMap<String, Arc<DescribeInferenceComponentOutput>>>,
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

    /// Remembers the configuration `name`, its variant lists trimmed to their length (a
    /// deserialized list of one 464-byte variant holds room for four: 1.4 KB of ten thousand
    /// configurations' 2.7 KB each).
    pub fn keep_config(
        &self,
        name: &str,
        mut config: DescribeEndpointConfigOutput,
    ) -> Arc<DescribeEndpointConfigOutput> {
        for list in [&mut config.production_variants, &mut config.shadow_production_variants] {
            if let Some(v) = list.as_mut() {
                v.shrink_to_fit();
            }
        }
        let config = Arc::new(config);
        self.configs.lock().insert(name.to_string(), config.clone());
        config
    }

    /// The facts of the model `name`, when described before.
    pub fn model(&self, name: &str) -> Option<ModelFacts> {
        self.models.lock().get(name).cloned()
    }

    /// Remembers the facts of the model `name`.
    pub fn keep_model(&self, name: &str, facts: ModelFacts) {
        self.models.lock().insert(name.to_string(), facts);
    }

    /// The component `name` as last described, when that description is still good for a
    /// listing whose LastModifiedTime is `modified` (epoch seconds): it was settled (InService,
    /// current copies = desired) and modified at that same time.
    pub fn component(&self, name: &str, modified: f64) -> Option<Arc<DescribeInferenceComponentOutput>> {
        let kept = self.components.lock().get(name).cloned()?;
        let same_time = kept.last_modified_time().map(|t| t.as_secs_f64()) == Some(modified);
        same_time.then_some(kept)
    }

    /// Remembers the component `name` when it is settled (InService with every copy placed);
    /// forgets it otherwise, so that a component in motion is described on every listing.
    pub fn keep_component(&self, name: &str, described: Arc<DescribeInferenceComponentOutput>) {
        let runtime = described.runtime_config();
        let settled = described.inference_component_status().map(|s| s.as_str()) == Some("InService")
            && runtime.and_then(|r| r.current_copy_count()) == runtime.and_then(|r| r.desired_copy_count());
        let mut kept = self.components.lock();
        if settled {
            kept.insert(name.to_string(), described);
        } else {
            kept.remove(name);
        }
    }
}
