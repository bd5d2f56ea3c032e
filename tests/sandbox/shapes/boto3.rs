//! boto3 creating each endpoint shape the way AWS's developer guide does (`tests/compat/*_calls.py`),
//! against a quiet sandbox.

use std::path::Path;

use sagedeck::sandbox::SandboxConfig;

use crate::common::peer_setup::show;
use crate::common::sandbox_with;
use crate::compat_boto3::{ClientEnv, venv_async};

/// Runs `tests/compat/SCRIPT` against a fresh sandbox and checks it ends with `last_line`.
pub(crate) async fn run_script(script: &str, last_line: &str) {
    let venv = venv_async().await;
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat").join(script);
    let url = sb.endpoint_url();
    let out = env.run(venv, script, &[path.to_str().expect("utf-8 path"), &url]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stdout.contains(last_line), "{}", show(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_creates_a_serverless_endpoint_as_aws_documents_it() {
    run_script("serverless_calls.py", "serverless checks passed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_creates_an_async_endpoint_and_follows_a_request_to_s3() {
    run_script("async_calls.py", "async checks passed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_creates_an_endpoint_with_a_shadow_variant() {
    run_script("shadow_calls.py", "shadow checks passed").await;
}
