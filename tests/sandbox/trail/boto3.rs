//! CloudTrail and CloudWatch Logs' writes from boto3 (`tests/compat/trail_calls.py`, in the venv
//! `compat_boto3.rs` builds; the test fails when it cannot be built): a teammate's change under
//! his own key, a refused call, LookupEvents' paginator and refusals, a throttled call, and
//! PutLogEvents' rules.

use std::path::Path;

use sagedeck::sandbox::cloudtrail::identity::BOB_KEY;

use super::unthrottled;
use crate::common::{demo_config, peer_setup::show, sandbox_with};
use crate::compat_boto3::{ClientEnv, venv_async};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_reads_a_teammates_change_and_writes_the_shared_trail() {
    let venv = venv_async().await;
    let sb = sandbox_with(unthrottled(demo_config())).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/trail_calls.py");
    let out = env
        .run(
            venv,
            "trail_calls.py",
            &[script.to_str().expect("utf-8 path"), &sb.endpoint_url()],
        )
        .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "boto3 trail calls failed\n{}", show(&out));
    assert!(stdout.contains("trail checks passed"), "{stdout}");
    // What boto3 did is what the sandbox holds: bob's change applied, the audit stream written.
    let canary = {
        let world = sb.sandbox.world.read();
        let ep = world
            .endpoints
            .get("mcp-intent-classifier-prod")
            .expect("the demo endpoint");
        ep.variant("Canary").map(|v| v.desired_weight)
    };
    assert_eq!(canary, Some(2.0));
    assert!(sb.sandbox.logs.has_stream("/sagedeck/audit", "bob/host-b"));
    assert_eq!(BOB_KEY, "AKIDSANDBOXBOB", "the script signs with bob's key");

    // The AWS CLI (its own vendored botocore) reads the same trail, paging on its own.
    let listed = env
        .aws(
            venv,
            &[
                "cloudtrail",
                "lookup-events",
                "--lookup-attributes",
                "AttributeKey=EventName,AttributeValue=ListEndpoints",
                "--page-size",
                "5",
            ],
        )
        .await;
    let events = listed["Events"].as_array().expect("Events");
    assert_eq!(events.len(), 12, "every page followed: {listed}");
    assert!(events.iter().all(|e| e["Username"] == "bob"), "{listed}");
}
