//! Deployment guardrails with boto3 (`tests/compat/guardrails.py`): each policy type to success
//! with the statuses it goes through, a rollback by an alarm in ALARM, a refusal, and
//! UpdateRollbackFailed.

use sagedeck::sandbox::faults::FaultSpec;

use super::guardrails_sandbox;
use crate::common::peer_setup::show;
use crate::compat_boto3::{ClientEnv, venv_async};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_runs_each_policy_a_rollback_a_refusal_and_a_failed_rollback() {
    let venv = venv_async().await;
    let handle = guardrails_sandbox().await;
    handle
        .sandbox
        .faults
        .add(FaultSpec::parse_short("kind=rollback_failure,endpoint=py-urf,count=1").expect("fault spec"));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/compat/guardrails.py");
    let env = ClientEnv::new(handle.endpoint_url());
    let out = env.run(venv, "boto3 guardrails", &[script]).await;
    assert!(out.status.success(), "boto3 guardrails\n{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("boto3 guardrails ok"));
}
