//! Asynchronous endpoints through the CLI: the kind and S3 paths in `endpoints --json`,
//! `invoke-async --wait` followed to its output (inline, and uploaded under `--input-prefix`
//! first), to its failure, and to its expiry in the queue (the sandbox's `queue_expiry` fault:
//! exit 10, not a failure), and the synchronous `invoke` refused in one line.

use super::{ASYNC_BUCKET, async_endpoint};
use crate::common::{run_cli, sandbox, sdk_config};

#[tokio::test]
async fn an_async_request_is_followed_to_its_output() {
    let sb = sandbox().await;
    async_endpoint(&sdk_config(&sb).await, "queue").await;
    let listed = run_cli(&sb, &["--json", "endpoints"]).await;
    let ep = &listed.json()["endpoints"][0];
    assert_eq!(ep["kind"], "async", "{ep:#}");
    assert_eq!(
        ep["shape"]["async"]["output_path"],
        format!("s3://{ASYNC_BUCKET}/output"),
        "{ep:#}"
    );

    let inline = run_cli(
        &sb,
        &[
            "--json",
            "invoke-async",
            "queue",
            "--body",
            "1,2,3",
            "--content-type",
            "text/csv",
            "--inference-id",
            "inline-1",
            "--wait",
            "--timeout",
            "30",
        ],
    )
    .await;
    assert_eq!(inline.code, 0, "{}\n{}", inline.stdout, inline.stderr);
    let out = inline.json();
    assert_eq!(out["accepted"]["inference_id"], "inline-1", "{out:#}");
    assert_eq!(out["outcome"]["state"], "succeeded", "{out:#}");
    assert!(!out["body"].is_null(), "{out:#}");

    let prefix = format!("s3://{ASYNC_BUCKET}/input/");
    let uploaded = run_cli(
        &sb,
        &[
            "invoke-async",
            "queue",
            "--body",
            "4,5,6",
            "--content-type",
            "text/csv",
            "--input-prefix",
            &prefix,
            "--wait",
            "--timeout",
            "30",
        ],
    )
    .await;
    assert_eq!(uploaded.code, 0, "{}\n{}", uploaded.stdout, uploaded.stderr);
    assert!(
        uploaded.stdout.contains(&format!("Input        {prefix}")),
        "{}",
        uploaded.stdout
    );
    assert!(uploaded.stderr.contains("succeeded"), "{}", uploaded.stderr);

    // `metrics` shows the queue (EndpointName only) and the requests' processing time.
    let figures = crate::common::poll_until(
        "the queue in CloudWatch",
        std::time::Duration::from_secs(20),
        || async {
            let r = run_cli(&sb, &["--json", "metrics", "queue", "--since", "15m"]).await;
            let a = r.json()["shape"][0]["asynchronous"].clone();
            (a["backlog"].is_number() && a["total_processing_ms"].is_number()).then_some(a)
        },
    )
    .await;
    assert_eq!(figures["backlog_without_capacity"], false, "{figures:#}");
    assert!(figures["total_processing_ms"].as_f64() > Some(0.0), "{figures:#}");
    let table = run_cli(&sb, &["metrics", "queue", "--since", "15m"]).await;
    assert!(table.stdout.contains("Queue AllTraffic: backlog"), "{}", table.stdout);
    assert!(table.stdout.contains("backlog without capacity no"), "{}", table.stdout);
}

#[tokio::test]
async fn an_async_request_is_followed_to_its_failure() {
    let sb = sandbox().await;
    async_endpoint(&sdk_config(&sb).await, "queue").await;
    let missing = format!("s3://{ASYNC_BUCKET}/input/missing.json");
    let failed = run_cli(
        &sb,
        &[
            "invoke-async",
            "queue",
            "--input-location",
            &missing,
            "--wait",
            "--timeout",
            "30",
        ],
    )
    .await;
    assert_eq!(failed.code, 4, "{}\n{}", failed.stdout, failed.stderr);
    assert!(failed.stdout.contains("InferenceId"), "{}", failed.stdout);
    assert!(
        failed.stderr.contains("failed") && failed.stderr.contains("DownloadFailure"),
        "{}",
        failed.stderr
    );
}

#[tokio::test]
async fn a_request_that_expired_in_the_queue_is_told_from_a_failure() {
    use sagedeck::sandbox::faults::FaultSpec;
    let sb = sandbox().await;
    async_endpoint(&sdk_config(&sb).await, "queue").await;
    let fault = FaultSpec::parse_short("kind=queue_expiry,endpoint=queue,count=1").expect("fault spec");
    sb.sandbox.faults.add(fault);
    let args = ["invoke-async", "queue", "--body", "1,2,3", "--content-type", "text/csv"];
    let wait = ["--inference-id", "late-1", "--wait", "--timeout", "30"];
    let expired = run_cli(&sb, &[&args[..], &wait[..]].concat()).await;
    assert_eq!(expired.code, 10, "{}\n{}", expired.stdout, expired.stderr);
    // Progress lines while it is followed, then one line saying how it ended.
    let last = expired.stderr.trim().lines().last().unwrap_or_default();
    assert!(
        last.contains("late-1 expired in the queue") && last.contains("RequestTTLSeconds"),
        "{}",
        expired.stderr
    );
    assert!(!expired.stderr.contains("failed"), "{}", expired.stderr);

    // The fault is used up: the next request runs, and --json names the expired state.
    let ok = run_cli(&sb, &[&args[..], &["--wait", "--timeout", "30"][..]].concat()).await;
    assert_eq!(ok.code, 0, "{}\n{}", ok.stdout, ok.stderr);
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short("kind=queue_expiry,endpoint=queue,count=1").expect("fault spec"));
    let json = run_cli(
        &sb,
        &[&["--json"][..], &args[..], &["--wait", "--timeout", "30"][..]].concat(),
    )
    .await;
    assert_eq!(json.code, 10, "{}\n{}", json.stdout, json.stderr);
    let out = json.json();
    assert_eq!(out["outcome"]["state"], "expired", "{out:#}");
    let location = out["outcome"]["location"].as_str().unwrap_or_default();
    assert!(location.starts_with(&format!("s3://{ASYNC_BUCKET}/")), "{out:#}");
}

#[tokio::test]
async fn a_synchronous_invoke_names_invoke_async_in_one_line() {
    let sb = sandbox().await;
    async_endpoint(&sdk_config(&sb).await, "queue").await;
    let sync = run_cli(&sb, &["invoke", "queue", "--body", "{}"]).await;
    assert_eq!(sync.code, 2, "{}", sync.stderr);
    assert_eq!(sync.stderr.trim().lines().count(), 1, "{}", sync.stderr);
    assert!(sync.stderr.contains("sagedeck invoke-async queue"), "{}", sync.stderr);
    let json = run_cli(&sb, &["--json", "invoke", "queue", "--body", "{}"]).await;
    assert_eq!(json.json()["error"]["error"]["class"], "async_only", "{}", json.stdout);
}
