//! The statistical judge in promotion plans on the sandbox (10-second series, generated
//! traffic): a regressed canary fails by the judge alone (the ratio gate is set out of reach) and
//! the rollback's audit line carries the p-value; a noisy canary equal to its baseline passes; a
//! thin bake holds the plan; the thresholds are saved with the plan.

use sagedeck::sandbox::faults::FaultSpec;

use super::support::{EP, State, canary_config};
use crate::common::{poll_until, sandbox_with, sdk_config};

/// Gives the Canary as many instances as Stable (2), so that at 50 % each serves the same load
/// per instance: equal in everything, its latency differs from Stable's only by chance.
async fn equal_capacity(sb: &sagedeck::sandbox::SandboxHandle) {
    use aws_sdk_sagemaker::types::DesiredWeightAndCapacity;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    let canary = DesiredWeightAndCapacity::builder()
        .variant_name("Canary")
        .desired_instance_count(2)
        .build();
    sm.update_endpoint_weights_and_capacities()
        .endpoint_name(EP)
        .desired_weights_and_capacities(canary)
        .send()
        .await
        .expect("canary instances");
    poll_until(
        "the canary at 2 instances",
        std::time::Duration::from_secs(30),
        || async {
            let d = sm.describe_endpoint().endpoint_name(EP).send().await.ok()?;
            let serving = d.endpoint_status().is_some_and(|s| s.as_str() == "InService");
            let two = d
                .production_variants()
                .iter()
                .any(|v| v.variant_name() == Some("Canary") && v.current_instance_count() == Some(2));
            (serving && two).then_some(())
        },
    )
    .await;
}

/// `promote EP --canary Canary --steps STEPS --bake BAKE --auto --judge ...`, ratio gates out of
/// reach so that only the judge decides.
fn judged_args<'a>(steps: &'a str, bake: &'a str, min_points: &'a str) -> Vec<&'a str> {
    vec![
        "promote",
        EP,
        "--canary",
        "Canary",
        "--steps",
        steps,
        "--bake",
        bake,
        "--min-invocations",
        "10",
        "--max-p99-ratio",
        "1000",
        "--max-5xx-rate",
        "1",
        "--auto",
        "--poll-ms",
        "100",
        "--judge",
        "--judge-period",
        "10",
        "--judge-min-points",
        min_points,
        "--reason",
        "judged rollout",
        "--json",
    ]
}

fn judge_check<'a>(gate: &'a serde_json::Value, metric: &str) -> &'a serde_json::Value {
    gate["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == format!("judge_{metric}")))
        .unwrap_or_else(|| panic!("no judge_{metric} check: {gate:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_regressed_canary_fails_by_the_judge_with_its_p_value_audited() {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short(&format!("kind=slow,ms=300,endpoint={EP},variant=Canary")).unwrap());
    let st = State::new();
    let r = st.cli(&sb, &judged_args("50,100", "75s", "6")).await;
    assert_eq!(r.code, 7, "{}\n{}", r.stdout, r.stderr);
    let plan = r.json();
    assert_eq!(plan["phase"], "rolled_back", "{plan:#}");
    let gate = &plan["timeline"][0]["gate"];
    assert_eq!(gate["verdict"], "fail", "{gate:#}");
    let p99 = judge_check(gate, "model_latency_p99");
    assert_eq!(p99["ok"], false, "{gate:#}");
    assert!(p99["value"].as_f64().is_some_and(|p| p < 0.05), "{gate:#}");
    let p99_ratio = gate["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "p99_ratio"))
        .expect("ratio check");
    assert_eq!(
        p99_ratio["ok"], true,
        "the ratio gate alone would have passed: {gate:#}"
    );
    let rollback = st
        .audit()
        .into_iter()
        .find(|a| a.action == "promote.rollback")
        .expect("a rollback in the audit log");
    let why = rollback.reason.unwrap_or_default();
    assert!(
        why.contains("judge: model_latency_p99 fail: p=") && why.contains("canary"),
        "{why}"
    );
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(st.plan_path(EP)).expect("saved plan")).expect("json");
    assert_eq!(saved["judge"]["min_points"], 6, "{saved:#}");
    assert_eq!(saved["judge"]["period"], 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_noisy_canary_equal_to_its_baseline_passes_the_judge() {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    equal_capacity(&sb).await;
    let st = State::new();
    let r = st.cli(&sb, &judged_args("50", "75s", "6")).await;
    let plan = r.json();
    let gate = &plan["timeline"][0]["gate"];
    assert_eq!(r.code, 0, "{gate:#}\n{}", r.stderr);
    assert_eq!(gate["verdict"], "pass", "{gate:#}");
    for metric in ["model_latency_p99", "model_latency_p50", "5xx_rate", "4xx_rate"] {
        assert_eq!(judge_check(gate, metric)["ok"], true, "{metric}: {gate:#}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thin_bake_holds_the_plan_instead_of_passing() {
    let sb = sandbox_with(canary_config(Some(150.0))).await;
    let st = State::new();
    let r = st.cli(&sb, &judged_args("50,100", "25s", "6")).await;
    assert_eq!(r.code, 7, "{}\n{}", r.stdout, r.stderr);
    let plan = r.json();
    assert_eq!(plan["phase"], "held", "{plan:#}");
    let gate = &plan["timeline"][0]["gate"];
    assert_eq!(gate["verdict"], "no_verdict", "{gate:#}");
    assert!(judge_check(gate, "model_latency_p99")["ok"].is_null(), "{gate:#}");
    assert!(gate["reasons"].to_string().contains("inconclusive"), "{gate:#}");
}

#[tokio::test]
async fn invalid_judge_thresholds_are_usage_errors_and_nothing_is_sent() {
    let sb = sandbox_with(canary_config(None)).await;
    let st = State::new();
    for bad in [
        vec!["--judge", "--judge-alpha", "1.5"],
        vec!["--judge", "--judge-period", "45"],
        vec!["--judge-min-points", "3"],
    ] {
        let mut args = vec!["promote", EP, "--canary", "Canary", "--auto"];
        args.extend(bad.iter().copied());
        let r = st.cli(&sb, &args).await;
        assert_eq!(r.code, 2, "{bad:?}: {}", r.stderr);
    }
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 0);
    assert!(st.plan(EP).is_none());
}
