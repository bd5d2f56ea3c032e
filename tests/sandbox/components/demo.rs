//! The demo fleet's IC endpoint: the tool-calling LLM and an adapter on it, both at zero copies
//! with no instance; waking the base (copies 0 → 1) brings an instance and a copy up, and then
//! the adapter answers a chat through the LLM.

use std::time::Duration;

use aws_sdk_sagemaker::types::InferenceComponentRuntimeConfig;
use aws_sdk_sagemakerruntime::error::ProvideErrorMetadata;
use aws_sdk_sagemakerruntime::primitives::Blob;
use sagedeck::sandbox::SandboxConfig;
use sagedeck::sandbox::runtime::component::NO_CAPACITY;
use sagedeck::sandbox::world::fleet::{IC_ADAPTER, IC_BASE, IC_ENDPOINT};
use serde_json::json;

use super::instances;
use crate::common::{demo_config, poll_until, sandbox_with, sdk_config};

#[tokio::test]
async fn the_demo_ic_endpoint_starts_at_zero_and_wakes() {
    let sb = sandbox_with(SandboxConfig {
        demo_components: true,
        ..demo_config()
    })
    .await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    let rt = aws_sdk_sagemakerruntime::Client::new(&conf);
    let listed = sm
        .list_inference_components()
        .endpoint_name_equals(IC_ENDPOINT)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.inference_components().len(), 2);
    for ic in [IC_BASE, IC_ADAPTER] {
        let d = sm
            .describe_inference_component()
            .inference_component_name(ic)
            .send()
            .await
            .unwrap();
        let rc = d.runtime_config().unwrap();
        assert_eq!(
            (rc.desired_copy_count(), rc.current_copy_count()),
            (Some(0), Some(0)),
            "{ic}"
        );
    }
    assert_eq!(instances(&sm, IC_ENDPOINT).await, (0, 0));
    let ask = || {
        rt.invoke_endpoint()
            .endpoint_name(IC_ENDPOINT)
            .inference_component_name(IC_ADAPTER)
            .content_type("application/json")
            .body(Blob::new(
                json!({"messages": [{"role": "user", "content": "Which endpoints are failing?"}]}).to_string(),
            ))
            .send()
    };
    let e = ask().await.unwrap_err();
    assert_eq!(e.message(), Some(NO_CAPACITY));
    // Wake: one copy of the base; an instance comes up, then the copy.
    sm.update_inference_component_runtime_config()
        .inference_component_name(IC_BASE)
        .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(1).build())
        .send()
        .await
        .unwrap();
    let answer = poll_until("the adapter answering", Duration::from_secs(15), || async {
        ask().await.ok()
    })
    .await;
    assert!(answer.body().is_some_and(|b| !b.as_ref().is_empty()));
    assert_eq!(instances(&sm, IC_ENDPOINT).await, (1, 1));
}
