//! boto3 creating an IC endpoint and a component the way AWS's developer guide does
//! (`tests/compat/ic_calls.py`), invoking with `InferenceComponentName`, scaling to zero and back,
//! and the AWS CLI reading the component back.

use std::path::Path;

use crate::common::peer_setup::show;
use crate::common::{demo_config, sandbox_with};
use crate::compat_boto3::{ClientEnv, venv_async};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_sets_up_an_ic_endpoint_as_aws_documents_it_and_invokes_by_component() {
    let venv = venv_async().await;
    let sb = sandbox_with(demo_config()).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/ic_calls.py");
    let url = sb.endpoint_url();
    let out = env
        .run(venv, "ic_calls.py", &[script.to_str().expect("utf-8 path"), &url])
        .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stdout.contains("inference component checks passed"), "{}", show(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_aws_cli_reads_the_demo_components() {
    let venv = venv_async().await;
    let sb = sandbox_with(sagedeck::sandbox::SandboxConfig {
        demo_components: true,
        ..demo_config()
    })
    .await;
    let env = ClientEnv::new(sb.endpoint_url());
    let listed = env
        .aws(
            venv,
            &[
                "sagemaker",
                "list-inference-components",
                "--endpoint-name-equals",
                "llm-ic-endpoint",
            ],
        )
        .await;
    let names: Vec<&str> = listed["InferenceComponents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["InferenceComponentName"].as_str())
        .collect();
    assert_eq!(names, ["llm-ic-tools-adapter", "llm-ic-chat"], "newest first: {listed}");
    let adapter = env
        .aws(
            venv,
            &[
                "sagemaker",
                "describe-inference-component",
                "--inference-component-name",
                "llm-ic-tools-adapter",
            ],
        )
        .await;
    assert_eq!(
        adapter["Specification"]["BaseInferenceComponentName"], "llm-ic-chat",
        "{adapter}"
    );
    assert_eq!(adapter["RuntimeConfig"]["CurrentCopyCount"], 0, "{adapter}");
    assert!(
        adapter["CreationTime"].is_number(),
        "epoch seconds, as AWS sends them: {adapter}"
    );
}
