//! An endpoint's AsyncInferenceConfig as its endpoint configuration keeps it: the queue's
//! concurrency per instance and the S3 paths outputs and failures are written to.

use serde_json::Value;

use crate::sandbox::world::state::World;

/// What asynchronous inference needs of the configuration.
#[derive(Debug, Clone)]
pub struct AsyncSettings {
    /// ClientConfig.MaxConcurrentInvocationsPerInstance (AWS chooses when absent; the sandbox 4).
    pub per_instance: usize,
    /// OutputConfig.S3OutputPath, without a trailing slash.
    pub output_path: String,
    /// OutputConfig.S3FailurePath, without a trailing slash.
    pub failure_path: Option<String>,
}

/// The async settings of endpoint `name`'s configuration; None for a real-time endpoint.
pub fn async_settings(world: &World, name: &str) -> Option<AsyncSettings> {
    let ep = world.endpoints.get(name)?;
    let config = world.configs.get(&ep.config_name)?;
    let a = config.extra.get("AsyncInferenceConfig")?;
    let output = a.get("OutputConfig");
    let path = |k: &str| {
        output
            .and_then(|o| o.get(k))
            .and_then(Value::as_str)
            .map(|p| p.trim_end_matches('/').to_string())
    };
    Some(AsyncSettings {
        per_instance: a
            .pointer("/ClientConfig/MaxConcurrentInvocationsPerInstance")
            .and_then(Value::as_u64)
            .unwrap_or(4)
            .max(1) as usize,
        output_path: path("S3OutputPath").unwrap_or_default(),
        failure_path: path("S3FailurePath"),
    })
}

/// Splits `s3://bucket/key`.
pub fn split_s3(url: &str) -> Option<(String, String)> {
    let (bucket, key) = url.strip_prefix("s3://")?.split_once('/')?;
    (!bucket.is_empty() && !key.is_empty()).then(|| (bucket.to_string(), key.to_string()))
}
