//! Load during bake on the sandbox: on an endpoint with no other traffic, `--load` gives the
//! gate a verdict (the same plan without it has none), the load reaches both variants through
//! TargetVariant, and invalid load flags are usage errors with nothing sent.

use super::support::{EP, State, canary_config};
use crate::common::sandbox_with;

fn args(extra: &[&'static str]) -> Vec<&'static str> {
    let mut a = vec![
        "promote",
        EP,
        "--canary",
        "Canary",
        "--steps",
        "50",
        "--bake",
        "3s",
        "--min-invocations",
        "10",
        "--max-p99-ratio",
        "100",
        "--auto",
        "--poll-ms",
        "100",
        "--json",
    ];
    a.extend_from_slice(extra);
    a
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_gives_a_verdict_on_an_endpoint_without_traffic() {
    let sb = sandbox_with(canary_config(None)).await;
    let st = State::new();
    let r = st.cli(&sb, &args(&["--load", "40"])).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let plan = r.json();
    let gate = &plan["timeline"][0]["gate"];
    assert_eq!(gate["verdict"], "pass", "{gate:#}");
    assert!(gate["canary"]["invocations"].as_f64().unwrap() >= 10.0, "{gate:#}");
    assert!(gate["baseline"]["invocations"].as_f64().unwrap() >= 10.0, "{gate:#}");
    let invoked = sb.sandbox.request_count("InvokeEndpoint");
    assert!(invoked >= 20, "{invoked} invocations");

    // Without load, the same quiet endpoint gives no verdict.
    let quiet = sandbox_with(canary_config(None)).await;
    let st = State::new();
    let r = st.cli(&quiet, &args(&[])).await;
    assert_eq!(r.code, 7, "{}", r.stderr);
    assert_eq!(r.json()["timeline"][0]["gate"]["verdict"], "no_verdict");
    assert_eq!(quiet.sandbox.request_count("InvokeEndpoint"), 0);
}

#[tokio::test]
async fn invalid_load_flags_are_usage_errors() {
    let sb = sandbox_with(canary_config(None)).await;
    let st = State::new();
    for bad in [
        &["--load", "0"][..],
        &["--load", "5", "--load-body", "/nonexistent/body.json"][..],
    ] {
        let r = st.cli(&sb, &args(bad)).await;
        assert_eq!(r.code, 2, "{bad:?}: {}", r.stderr);
    }
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 0);
}
