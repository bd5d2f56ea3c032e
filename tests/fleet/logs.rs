//! `sagedeck logs` against the sandbox's CloudWatch Logs: streams per variant and instance,
//! lines merged by time across pages, filter patterns, tracebacks marked, follow mode.

use std::time::Duration;

use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::{cli_command, demo_config, invoke_times, poll_until, run_cli, sandbox_with};

const CLASSIFIER: &str = "mcp-intent-classifier-prod";
const GROUP: &str = "/aws/sagemaker/Endpoints/mcp-intent-classifier-prod";

async fn started() -> SandboxHandle {
    let sb = sandbox_with(demo_config()).await;
    poll_until("the classifier's cold starts", Duration::from_secs(10), || async {
        let d = sb.sandbox.logs.data.lock();
        (d.groups.get(GROUP).map_or(0, |g| g.streams.len()) == 3).then_some(())
    })
    .await;
    sb
}

async fn fail_invocations(sb: &SandboxHandle, n: usize) {
    let spec = format!("kind=model_error,status=500,endpoint={CLASSIFIER},count={n},message=CUDA out of memory");
    sb.sandbox.faults.add(FaultSpec::parse_short(&spec).unwrap());
    assert_eq!(invoke_times(sb, CLASSIFIER, n).await, n);
}

#[tokio::test]
async fn logs_merge_streams_and_mark_tracebacks() {
    let sb = started().await;
    fail_invocations(&sb, 2).await;
    let j = run_cli(&sb, &["logs", CLASSIFIER, "--json"]).await.json();
    assert_eq!(j["log_group"], GROUP);
    assert_eq!(j["streams"].as_array().unwrap().len(), 3);
    let lines = j["lines"].as_array().unwrap();
    let times: Vec<i64> = lines.iter().map(|l| l["timestamp_ms"].as_i64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "merged by time");
    let variants: std::collections::BTreeSet<&str> = lines.iter().map(|l| l["variant"].as_str().unwrap()).collect();
    assert_eq!(variants.into_iter().collect::<Vec<_>>(), ["Canary", "Stable"]);
    // Every line of a traceback is marked, the indented source lines too; cold starts are not.
    let code_lines: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["message"].as_str().unwrap().starts_with("    result = "))
        .collect();
    assert_eq!(code_lines.len(), 2);
    assert!(code_lines.iter().all(|l| l["error"] == true));
    let started_lines = lines
        .iter()
        .filter(|l| l["message"].as_str().unwrap().contains("Model server started"));
    assert!(started_lines.clone().count() == 3 && started_lines.into_iter().all(|l| l["error"] == false));
    let human = run_cli(&sb, &["logs", CLASSIFIER, "--filter", "RuntimeError"]).await;
    assert_eq!(human.code, 0, "{}", human.stderr);
    let out: Vec<&str> = human.stdout.lines().collect();
    assert_eq!(out.len(), 2, "{}", human.stdout);
    assert!(
        out.iter()
            .all(|l| l.contains("  ! RuntimeError: CUDA out of memory") && l.contains("/i-0"))
    );
    assert!(human.stderr.contains("3 stream(s)"), "{}", human.stderr);
    let canary = run_cli(&sb, &["logs", CLASSIFIER, "--variant", "Canary", "--json"])
        .await
        .json();
    assert_eq!(canary["streams"].as_array().unwrap().len(), 1);
    assert!(
        canary["lines"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["variant"] == "Canary")
    );
}

#[tokio::test]
async fn a_log_line_reaches_the_terminal_with_its_control_characters_written_out() {
    let sb = started().await;
    let spec =
        format!("kind=model_error,status=500,endpoint={CLASSIFIER},count=1,message=boom\x1b]52;c;AAAA\x07\x1b[2J");
    sb.sandbox.faults.add(FaultSpec::parse_short(&spec).unwrap());
    assert_eq!(invoke_times(&sb, CLASSIFIER, 1).await, 1);
    let human = run_cli(&sb, &["logs", CLASSIFIER, "--filter", "RuntimeError"]).await;
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(!human.stdout.contains('\x1b'), "{:?}", human.stdout);
    assert!(
        human.stdout.contains("boom\\x1b]52;c;AAAA\\x07\\x1b[2J"),
        "{:?}",
        human.stdout
    );
}

#[tokio::test]
async fn logs_read_every_page_of_a_large_group() {
    let sb = started().await;
    let filler: Vec<String> = (0..7_000).map(|i| format!("GET /ping 200 #{i}")).collect();
    let now = sagedeck::sandbox::now_epoch();
    sb.sandbox.logs.append(GROUP, "Stable/i-0bulk", now, &filler);
    let j = run_cli(&sb, &["logs", CLASSIFIER, "--json"]).await.json();
    let lines = j["lines"].as_array().unwrap();
    assert!(j["pages"].as_u64().unwrap() >= 2, "{}", j["pages"]);
    let bulk: Vec<&str> = lines
        .iter()
        .filter(|l| l["stream"] == "Stable/i-0bulk")
        .map(|l| l["message"].as_str().unwrap())
        .collect();
    assert_eq!(bulk.len(), 7_000);
    assert_eq!(bulk[6_999], "GET /ping 200 #6999");
    let filtered = run_cli(&sb, &["logs", CLASSIFIER, "--filter", "\"#6999\"", "--json"])
        .await
        .json();
    assert_eq!(filtered["lines"].as_array().unwrap().len(), 1);
    let missing = run_cli(&sb, &["logs", "no-such-endpoint"]).await;
    assert_eq!(missing.code, 3);
    assert!(missing.stderr.contains("has no logs yet"), "{}", missing.stderr);
}

#[tokio::test]
async fn follow_prints_new_lines_as_they_arrive() {
    let sb = started().await;
    let home = tempfile::tempdir().unwrap();
    let args = [
        "logs",
        CLASSIFIER,
        "--follow",
        "--interval",
        "1s",
        "--json",
        "--filter",
        "?Traceback ?started",
    ];
    let mut child = cli_command(&sb, home.path(), &args, &[])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen: Vec<serde_json::Value> = Vec::new();
    let mut next_line = async || {
        let line = tokio::time::timeout(Duration::from_secs(30), reader.next_line()).await;
        serde_json::from_str::<serde_json::Value>(&line.unwrap().unwrap().unwrap()).unwrap()
    };
    for _ in 0..3 {
        seen.push(next_line().await);
    }
    assert!(
        seen.iter()
            .all(|l| l["message"].as_str().unwrap().contains("Model server started"))
    );
    fail_invocations(&sb, 1).await;
    let fresh = next_line().await;
    assert!(fresh["message"].as_str().unwrap().starts_with("Traceback"), "{fresh}");
    assert_eq!(fresh["error"], true);
    child.start_kill().unwrap();
    let _ = child.wait().await;
}
