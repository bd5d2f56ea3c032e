//! Shared setup for integration tests: a sandbox on a free loopback port and SDK configuration
//! pointing at it, exactly as a user's `--endpoint-url` would.
#![allow(dead_code)]

use std::time::Duration;

use sagedeck::sandbox::{SandboxConfig, SandboxHandle, start};

/// Starts an empty, quiet sandbox with fast timings.
pub async fn sandbox() -> SandboxHandle {
    sandbox_with(SandboxConfig::for_tests()).await
}

/// Starts a sandbox with the given configuration.
pub async fn sandbox_with(config: SandboxConfig) -> SandboxHandle {
    start(config).await.expect("sandbox starts")
}

/// SDK configuration for the sandbox: static test credentials, us-east-1, its endpoint URL.
pub async fn sdk_config(handle: &SandboxHandle) -> aws_config::SdkConfig {
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_sagemaker::config::Credentials::new(
            "AKIDSANDBOX",
            "sandbox-secret",
            None,
            None,
            "tests",
        ))
        .endpoint_url(handle.endpoint_url())
        .load()
        .await
}

/// Polls `check` until it returns `Some`, or panics with `what` after `deadline`.
pub async fn poll_until<T, F, Fut>(what: &str, deadline: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = std::time::Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if start.elapsed() > deadline {
            panic!("timed out after {deadline:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
