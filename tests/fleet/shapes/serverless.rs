//! Serverless endpoints through the CLI: the kind and figures in `endpoints --json` (no instance
//! count), `--kind`, `sagedeck serverless` changing max and provisioned concurrency in place
//! (audited, refused in read-only mode), and the throttle at max concurrency seen by `invoke`.

use super::serverless_endpoint;
use crate::common::{run_cli, sandbox, sdk_config};

#[tokio::test]
async fn a_serverless_endpoint_shows_its_kind_and_figures_not_instances() {
    let sb = sandbox().await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    serverless_endpoint(&sm, "sls", 5, (4, None)).await;
    let listed = run_cli(&sb, &["--json", "endpoints"]).await;
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let ep = &listed.json()["endpoints"][0];
    assert_eq!(ep["kind"], "serverless", "{ep:#}");
    let v = &ep["variants"][0];
    assert_eq!(v["serverless"]["memory_mb"], 2048, "{v:#}");
    assert_eq!(v["serverless"]["max_concurrency"], 4, "{v:#}");
    assert!(v["serverless"]["provisioned"].is_null(), "{v:#}");
    let table = run_cli(&sb, &["endpoints"]).await;
    assert!(table.stdout.contains("serverless 2 GB · max 4"), "{}", table.stdout);
    assert!(
        !table.stdout.contains("× 0"),
        "no instance count for serverless:\n{}",
        table.stdout
    );
    let of_kind = run_cli(&sb, &["endpoints", "--kind", "sls"]).await;
    assert!(of_kind.stdout.contains("sls"), "{}", of_kind.stdout);
    let none = run_cli(&sb, &["--json", "endpoints", "--kind", "async"]).await;
    assert_eq!(
        none.json()["endpoints"].as_array().map(Vec::len),
        Some(0),
        "{}",
        none.stdout
    );
    // The first call starts cold: `metrics` shows the serverless figures, never instances.
    let call = ["invoke", "sls", "--body", "1,2,3", "--content-type", "text/csv"];
    assert_eq!(run_cli(&sb, &call).await.code, 0);
    let shown = crate::common::poll_until(
        "a cold start in CloudWatch",
        std::time::Duration::from_secs(20),
        || async {
            let r = run_cli(&sb, &["--json", "metrics", "sls", "--since", "15m"]).await;
            let figures = r.json()["shape"][0]["serverless"].clone();
            (figures["cold_starts"].as_f64() >= Some(1.0)).then_some(figures)
        },
    )
    .await;
    assert!(shown["model_setup_ms"].as_f64() > Some(0.0), "{shown:#}");
    assert!(shown["concurrency_utilization"].is_number(), "{shown:#}");
    let table = run_cli(&sb, &["metrics", "sls", "--since", "15m"]).await;
    assert!(
        table.stdout.contains("Serverless AllTraffic: cold starts"),
        "{}",
        table.stdout
    );
    assert!(!table.stdout.contains("Queue"), "{}", table.stdout);
}

#[tokio::test]
async fn max_and_provisioned_concurrency_change_in_place_audited() {
    let sb = sandbox().await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    serverless_endpoint(&sm, "sls", 5, (4, None)).await;
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let refused = crate::common::run_cli_in(
        &sb,
        home,
        &["--read-only", "serverless", "sls", "--max-concurrency", "8", "--yes"],
        &[],
    )
    .await;
    assert_eq!(refused.code, 5, "{}", refused.stderr);
    let changed = crate::common::run_cli_in(
        &sb,
        home,
        &[
            "--json",
            "serverless",
            "sls",
            "--max-concurrency",
            "8",
            "--provisioned",
            "2",
            "--yes",
            "--wait",
        ],
        &[],
    )
    .await;
    assert_eq!(changed.code, 0, "{}\n{}", changed.stdout, changed.stderr);
    let out = changed.json();
    assert_eq!(out["plan"]["before"]["max_concurrency"], 4, "{out:#}");
    let now = &out["final"]["variants"][0]["serverless"];
    assert_eq!(
        (now["max_concurrency"].as_i64(), now["provisioned"].as_i64()),
        (Some(8), Some(2)),
        "{out:#}"
    );
    assert_eq!(out["final"]["kind"], "serverless_provisioned", "{out:#}");
    // The audit log has the intent and its result, in that order.
    let audit = crate::common::run_cli_in(&sb, home, &["--json", "audit"], &[]).await;
    let text = audit.stdout;
    let intent = text.find("serverless.set").expect("the change is in the audit log");
    assert!(text[intent..].contains("\"max_concurrency\": 8"), "{text}");
    // Provisioned above max is refused before anything is sent.
    let bad = run_cli(&sb, &["serverless", "sls", "--provisioned", "9", "--yes"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("above max concurrency 8"), "{}", bad.stderr);
}

#[tokio::test]
async fn invoke_sees_the_throttle_at_max_concurrency() {
    let sb = sandbox().await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    // Each call holds its container for 30 s of simulated time: two run, the third is refused.
    serverless_endpoint(&sm, "busy", 30_000, (2, None)).await;
    let call = [
        "invoke",
        "busy",
        "--body",
        "1,2,3",
        "--content-type",
        "text/csv",
        "--max-attempts",
        "1",
    ];
    for n in 0..2 {
        let ok = run_cli(&sb, &call).await;
        assert_eq!(ok.code, 0, "call {n}: {}", ok.stderr);
    }
    let throttled = run_cli(&sb, &call).await;
    assert_eq!(throttled.code, 3, "{}", throttled.stderr);
    assert!(throttled.stderr.contains("throttled"), "{}", throttled.stderr);
}
