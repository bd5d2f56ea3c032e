//! Which instance answered a call. AWS does not say; a runtime that does (the embedded sandbox,
//! in `x-sandbox-instance-id`) is read by a per-call interceptor, since the SDK's typed output
//! has no member for it. The OpenAI path reads the same header from its reqwest response.

use std::sync::{Arc, Mutex};

use aws_sdk_sagemakerruntime::config::interceptors::BeforeDeserializationInterceptorContextRef;
use aws_sdk_sagemakerruntime::config::{ConfigBag, Intercept, RuntimeComponents};

/// The response header naming the instance that answered, where a runtime sends one.
pub const INSTANCE_HEADER: &str = "x-sandbox-instance-id";

/// Keeps the instance header of the call it is attached to.
#[derive(Debug, Clone, Default)]
pub struct InstanceReader(Arc<Mutex<Option<String>>>);

impl InstanceReader {
    /// The instance the last response named.
    pub fn instance(&self) -> Option<String> {
        self.0.lock().ok().and_then(|g| g.clone())
    }
}

impl Intercept for InstanceReader {
    fn name(&self) -> &'static str {
        "InstanceReader"
    }

    fn read_before_deserialization(
        &self,
        context: &BeforeDeserializationInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), aws_sdk_sagemakerruntime::error::BoxError> {
        let named = context.response().headers().get(INSTANCE_HEADER).map(str::to_string);
        if let Ok(mut slot) = self.0.lock() {
            *slot = named;
        }
        Ok(())
    }
}
