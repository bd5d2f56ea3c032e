//! The headless CLI as a user runs it: the real binary, `--endpoint-url` at the sandbox, human
//! and `--json` output, exit codes, and one-line errors for bad input.

use sagedeck::sandbox::faults::FaultSpec;

use crate::common::{CliRun, demo_config, run_cli, run_cli_env, sandbox_with};

/// One or two lines, no panic, no backtrace, no debug dump of an SDK error.
fn clean_failure(r: &CliRun) {
    let lines = r.stderr.lines().count();
    assert!(
        (1..=2).contains(&lines),
        "stderr should be one or two lines:\n{}",
        r.stderr
    );
    for bad in ["panicked", "backtrace", "SdkError", "ServiceError {", "DispatchFailure"] {
        assert!(!r.stderr.contains(bad), "stderr shows `{bad}`:\n{}", r.stderr);
    }
}

#[tokio::test]
async fn endpoints_describe_and_autoscaling() {
    let sb = sandbox_with(demo_config()).await;
    let r = run_cli(&sb, &["endpoints"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("NAME"));
    assert!(r.stdout.contains("mcp-multi-model-endpoint") && r.stdout.contains("MME"));
    assert!(r.stdout.contains("Stable 2-6"));
    let j = run_cli(&sb, &["endpoints", "--json"]).await.json();
    assert_eq!(j["endpoints"].as_array().unwrap().len(), 8);
    assert!(j["api_calls"].as_u64().unwrap() > 8);
    let d = run_cli(&sb, &["describe", "mcp-intent-classifier-prod"]).await;
    assert_eq!(d.code, 0);
    assert!(d.stdout.contains("Canary") && d.stdout.contains("mcp-endpoint-invocations-policy"));
    let dj = run_cli(&sb, &["describe", "mcp-intent-classifier-prod", "--json"])
        .await
        .json();
    assert_eq!(dj["endpoint"]["variants"][1]["name"], "Canary");
    let a = run_cli(&sb, &["autoscaling", "mcp-intent-classifier-prod", "--json"])
        .await
        .json();
    assert_eq!(a["autoscaling"][0]["max"], 6);
    let missing = run_cli(&sb, &["describe", "nope"]).await;
    assert_eq!(missing.code, 3);
    assert!(missing.stderr.contains("not found: Could not find endpoint"));
    clean_failure(&missing);
}

#[tokio::test]
async fn weights_show_plan_apply_and_refuse_bad_input() {
    let sb = sandbox_with(demo_config()).await;
    let r = run_cli(&sb, &["weights", "mcp-intent-classifier-prod", "--json"])
        .await
        .json();
    assert_eq!(r["variants"][0]["current_weight"], 9.0);
    for (args, needle) in [
        (vec!["--set", "Stable=-1"], ">= 0"),
        (vec!["--set", "Stable=NaN"], "finite"),
        (vec!["--set", "Stable=0", "--set", "Canary=0"], "all weights would be 0"),
        (vec!["--set", "Nope=1"], "no variant Nope"),
        (vec!["--set", "Stable=abc"], "not a number"),
        (vec!["--set", "Stable=1", "--set", "Stable=2"], "more than once"),
    ] {
        let mut a = vec!["weights", "mcp-intent-classifier-prod", "--yes"];
        a.extend(args);
        let r = run_cli(&sb, &a).await;
        assert_eq!(r.code, 2, "{a:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{a:?}: {}", r.stderr);
        clean_failure(&r);
    }
    assert_eq!(
        sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"),
        0,
        "invalid input sends nothing"
    );
    let no_tty = run_cli(&sb, &["weights", "mcp-intent-classifier-prod", "--set", "Canary=3"]).await;
    assert_eq!(no_tty.code, 2);
    assert!(no_tty.stderr.contains("--yes"));
    assert!(
        no_tty.stdout.contains("10.0% → 25.0%"),
        "the plan shows before → after:\n{}",
        no_tty.stdout
    );
    let r = run_cli(
        &sb,
        &[
            "weights",
            "mcp-intent-classifier-prod",
            "--set",
            "Stable=50%",
            "--set",
            "Canary=50%",
            "--yes",
            "--wait",
            "--json",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["plan"]["after"][1]["share"], 0.5);
    assert_eq!(j["final"]["status"], "InService");
    assert_eq!(j["final"]["variants"][1]["current_weight"], 50.0);
    let busy = run_cli(&sb, &["weights", "mcp-summarizer-staging", "--set", "Blue=1", "--yes"]).await;
    assert_eq!(busy.code, 6, "not InService is a guardrail refusal");
    assert!(busy.stderr.contains("Updating"));
}

#[tokio::test]
async fn invoke_outputs_exit_codes_and_retries() {
    let sb = sandbox_with(demo_config()).await;
    let ep = "mcp-intent-classifier-prod";
    let body = r#"{"inputs": "book a flight", "parameters": {"return_all_scores": true}}"#;
    let r = run_cli(&sb, &["invoke", ep, "--body", body, "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["body"].as_array().unwrap().len(), 6);
    assert_eq!(j["result"]["attempts"], 1);
    assert!(j["result"]["latency_ms"].as_f64().unwrap() > 0.0);
    let human = run_cli(&sb, &["invoke", ep, "--body", body, "--target-variant", "Canary"]).await;
    assert!(human.stdout.contains("\"label\""));
    assert!(human.stderr.contains("variant Canary"));

    let bad_json = run_cli(&sb, &["invoke", ep, "--body", "{\"inputs\": "]).await;
    assert_eq!(bad_json.code, 2);
    assert!(bad_json.stderr.contains("not valid JSON") && bad_json.stderr.contains("nothing was sent"));
    clean_failure(&bad_json);
    let no_file = run_cli(&sb, &["invoke", ep, "--body-file", "/nonexistent/body.json"]).await;
    assert_eq!(no_file.code, 2);
    clean_failure(&no_file);
    let invocations_before = sb.sandbox.request_count("InvokeEndpoint");

    let model_err = run_cli(&sb, &["invoke", ep, "--body", "1,2", "--content-type", "text/csv"]).await;
    assert_eq!(model_err.code, 4, "{}", model_err.stderr);
    assert!(model_err.stderr.contains("HTTP 415"));
    clean_failure(&model_err);
    assert_eq!(
        sb.sandbox.request_count("InvokeEndpoint"),
        invocations_before + 1,
        "invalid bodies were not sent; the model error was not retried"
    );

    sb.sandbox
        .faults
        .add(FaultSpec::parse_short(&format!("kind=throttle,endpoint={ep},count=2")).unwrap());
    let j = run_cli(&sb, &["invoke", ep, "--body", body, "--json"]).await.json();
    assert_eq!(j["result"]["attempts"], 3);
    assert_eq!(j["result"]["retried"], serde_json::json!(["throttling", "throttling"]));

    let missing = run_cli(&sb, &["invoke", "nope", "--body", "{}"]).await;
    assert_eq!(missing.code, 3);
    clean_failure(&missing);

    let rep = run_cli(&sb, &["invoke", ep, "--body", body, "--repeat", "60", "--json"])
        .await
        .json();
    assert_eq!(rep["succeeded"], 60);
    assert!(rep["latency"]["p99_ms"].as_f64().unwrap() >= rep["latency"]["p50_ms"].as_f64().unwrap());
    let split = rep["variants"].as_object().unwrap();
    assert_eq!(split.values().map(|v| v.as_u64().unwrap()).sum::<u64>(), 60);

    let stream = run_cli(
        &sb,
        &[
            "invoke",
            "llm-tgi-chat",
            "--stream",
            "--body",
            r#"{"inputs": "hi", "parameters": {"max_new_tokens": 4}}"#,
        ],
    )
    .await;
    assert_eq!(stream.code, 0, "{}", stream.stderr);
    assert_eq!(stream.stdout.matches("data:").count(), 4);
}

#[tokio::test]
async fn configuration_and_network_failures_are_one_line() {
    let sb = sandbox_with(demo_config()).await;
    let no_creds = run_cli_env(
        &sb,
        &["endpoints"],
        &[("AWS_ACCESS_KEY_ID", ""), ("AWS_SECRET_ACCESS_KEY", "")],
    )
    .await;
    assert_eq!(no_creds.code, 2, "{}", no_creds.stderr);
    assert!(
        no_creds.stderr.contains("no usable AWS credentials"),
        "{}",
        no_creds.stderr
    );
    clean_failure(&no_creds);
    let no_region = run_cli_env(&sb, &["endpoints"], &[("AWS_REGION", "")]).await;
    assert_eq!(no_region.code, 2);
    assert!(no_region.stderr.contains("no AWS region"));
    clean_failure(&no_region);

    sb.sandbox
        .faults
        .add(FaultSpec::parse_short("kind=expired_token,operation=*").unwrap());
    let expired = run_cli(&sb, &["describe", "llm-tgi-chat"]).await;
    assert_eq!(expired.code, 3);
    assert!(
        expired.stderr.contains("access denied") && expired.stderr.contains("sso login"),
        "{}",
        expired.stderr
    );
    clean_failure(&expired);
    sb.sandbox.faults.clear();

    // Nothing listens on port 9 of loopback.
    let mut cmd_args = vec!["endpoints"];
    cmd_args.extend(["--endpoint-url", "http://127.0.0.1:9"]);
    let unreachable = run_cli(&sb, &cmd_args).await;
    assert_eq!(unreachable.code, 3, "{}", unreachable.stderr);
    assert!(unreachable.stderr.contains("network error"), "{}", unreachable.stderr);
    clean_failure(&unreachable);
}

/// `sagedeck endpoints` against a control plane throttled at 10 calls a second (a burst of 5),
/// with a budget of 40: the budget's rate halves, the throttled describes are asked again after
/// a pause, every endpoint is listed and described, and stderr says it was throttled.
#[tokio::test]
async fn a_throttled_control_plane_still_lists_every_endpoint_and_says_so() {
    use sagedeck::sandbox::SandboxConfig;
    use sagedeck::sandbox::calls::throttle::ThrottleSpec;
    let sb = sandbox_with(SandboxConfig {
        extra_endpoints: 40,
        throttle: Some(ThrottleSpec {
            rate: 10.0,
            burst: Some(5),
        }),
        ..SandboxConfig::for_tests()
    })
    .await;
    let args = ["--json", "endpoints", "--control-plane-budget", "40"];
    let r = run_cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    let endpoints = j["endpoints"].as_array().expect("endpoints");
    assert_eq!(endpoints.len(), 40);
    let described = |e: &serde_json::Value| e["variants"].as_array().is_some_and(|v| !v.is_empty());
    assert!(endpoints.iter().all(described), "every endpoint described");
    assert!(j["throttled"].as_u64().is_some_and(|n| n > 0), "{j}");
    assert!(j.get("pending").is_none(), "none left waiting");
    assert!(
        r.stderr.starts_with("sagedeck: throttled: SageMaker throttled")
            && r.stderr.contains("every endpoint described")
            && r.stderr.lines().count() == 1,
        "{}",
        r.stderr
    );
}
