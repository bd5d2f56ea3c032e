//! boto3 creating each endpoint shape the way AWS's developer guide does (`tests/compat/*_calls.py`),
//! against a quiet sandbox; then sagedeck's CLI on what boto3 made: `endpoints --json` gives each
//! its kind and shape.

use std::path::Path;

use sagedeck::sandbox::SandboxConfig;

use crate::common::peer_setup::show;
use crate::common::sandbox_with;
use crate::compat_boto3::{ClientEnv, venv_async};

/// Runs `tests/compat/SCRIPT` against a fresh sandbox and checks it ends with `last_line`; the
/// sandbox, with what the script left in it.
pub(crate) async fn run_script(script: &str, last_line: &str) -> sagedeck::sandbox::SandboxHandle {
    let venv = venv_async().await;
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat").join(script);
    let url = sb.endpoint_url();
    let out = env.run(venv, script, &[path.to_str().expect("utf-8 path"), &url]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stdout.contains(last_line), "{}", show(&out));
    sb
}

/// `sagedeck endpoints --json`'s entry for `name`.
async fn listed(sb: &sagedeck::sandbox::SandboxHandle, name: &str) -> serde_json::Value {
    let r = crate::common::run_cli(sb, &["--json", "endpoints"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let all = r.json()["endpoints"].as_array().cloned().unwrap_or_default();
    all.into_iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed: {}", r.stdout))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_creates_a_serverless_endpoint_as_aws_documents_it() {
    let sb = run_script("serverless_calls.py", "serverless checks passed").await;
    let ep = listed(&sb, "boto3-serverless").await;
    assert_eq!(ep["kind"], "serverless_provisioned", "{ep:#}");
    let figures = &ep["variants"][0]["serverless"];
    assert_eq!(
        (figures["memory_mb"].as_i64(), figures["max_concurrency"].as_i64()),
        (Some(4096), Some(4)),
        "{ep:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_creates_an_async_endpoint_and_follows_a_request_to_s3() {
    let sb = run_script("async_calls.py", "async checks passed").await;
    let ep = listed(&sb, "boto3-async").await;
    assert_eq!(ep["kind"], "async", "{ep:#}");
    assert!(
        ep["shape"]["async"]["output_path"]
            .as_str()
            .is_some_and(|p| p.starts_with("s3://")),
        "{ep:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_creates_an_endpoint_with_a_shadow_variant() {
    let sb = run_script("shadow_calls.py", "shadow checks passed").await;
    let ep = listed(&sb, "boto3-shadow").await;
    assert_eq!(ep["shape"]["shadow_variants"][0]["name"], "shadow", "{ep:#}");
}
