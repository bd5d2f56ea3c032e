//! The variant log and `sagedeck variants-report`: `mcp serve --invocation-log` driven by a real
//! MCP client (the `tools call` CLI over streamable HTTP) records each call with the variant that
//! answered, without the input; the report judges a slow, failing canary against its baseline
//! and finds nothing between equal variants; lines that are not records are counted, not fatal.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use sagedeck::aws::invoke::log::{InvocationLog, InvocationRecord, Status, read};

use crate::common::{cli_command, demo_config, poll_until, run_cli, run_cli_in, sandbox_with, spawn_announced};

const EP: &str = "mcp-intent-classifier-prod";

#[tokio::test]
async fn mcp_serve_logs_every_call_with_its_variant_and_no_input() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("logs/invocations.jsonl");
    let log_arg = log.to_string_lossy().into_owned();
    let serve = [
        "mcp",
        "serve",
        "--demo-tools",
        "--http",
        "127.0.0.1:0",
        "--invocation-log",
        &log_arg,
    ];
    let (mut server, url) = spawn_announced(cli_command(&sb, home.path(), &serve, &[])).await;
    let cfg = home.path().join("mcp.json");
    std::fs::write(&cfg, json!({"mcpServers": {"deck": {"url": url}}}).to_string()).unwrap();
    let cfg = cfg.to_string_lossy().into_owned();
    for pin in ["Canary", "Canary", "Stable", ""] {
        let mut args = json!({"user_input": "the very private question"});
        if !pin.is_empty() {
            args["target_variant"] = json!(pin);
        }
        let args = args.to_string();
        let call = [
            "tools",
            "call",
            "deck",
            "classify_intent",
            "--mcp-config",
            &cfg,
            "--args",
            &args,
        ];
        let r = run_cli_in(&sb, home.path(), &call, &[]).await;
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    // Each line is in the file as soon as its call answered, while the server still runs.
    let records = poll_until("four lines", Duration::from_secs(10), || async {
        let r = read(&log).ok()?;
        (r.records.len() == 4).then_some(r.records)
    })
    .await;
    let variants: Vec<Option<&str>> = records.iter().map(|r| r.variant.as_deref()).collect();
    assert_eq!(&variants[..3], [Some("Canary"), Some("Canary"), Some("Stable")]);
    assert!(
        variants[3].is_some(),
        "the weighted call names the variant that answered"
    );
    for r in &records {
        assert_eq!(
            (r.source.as_str(), r.tool.as_deref()),
            ("mcp-serve", Some("classify_intent"))
        );
        assert_eq!((r.endpoint.as_deref(), r.status), (Some(EP), Status::Ok));
        assert!(r.latency_ms > 0.0 && r.request_bytes > 0 && r.response_bytes > 0);
        assert_eq!(r.input_sha256.len(), 64);
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains("private question"),
        "the input is hashed, never written:\n{text}"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&log).unwrap().permissions().mode() & 0o777, 0o600);
    server.start_kill().unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(5), server.wait()).await;

    let report = run_cli(&sb, &["variants-report", &log_arg, "--json"]).await.json();
    let rows = &report["endpoints"][0]["variants"];
    let canary = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["variant"] == "Canary")
        .unwrap();
    assert!(canary["count"].as_u64().unwrap() >= 2);
    assert_eq!(report["records"], 4);
}

/// A deterministic noise in [0, 1).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// 20 minutes of `per_minute` calls of `endpoint`/`variant`: latency `base` ms plus up to 10 ms
/// of noise, every `fail_every`-th call failing.
fn traffic(
    log: &InvocationLog,
    (endpoint, variant): (&str, &str),
    per_minute: u32,
    base: f64,
    fail_every: usize,
    seed: u64,
) {
    let mut noise = Noise(seed);
    let start = 1_780_000_000.0;
    for minute in 0..20u32 {
        for i in 0..per_minute {
            let mut r = InvocationRecord::new("test", b"{}");
            r.epoch = start + f64::from(minute) * 60.0 + f64::from(i) * 60.0 / f64::from(per_minute + 1);
            r.endpoint = Some(endpoint.into());
            r.variant = Some(variant.into());
            r.latency_ms = base + 10.0 * noise.next();
            if ((minute * per_minute + i) as usize).is_multiple_of(fail_every) {
                r.status = Status::Error;
                r.error_class = Some("model_error".into());
            }
            assert!(log.append(r, b"{}").is_none());
        }
    }
}

fn write_log(path: &Path) {
    let log = InvocationLog::open(path, false).unwrap();
    // Every 4th canary call fails, and it is twice as slow; the baseline fails 1 in 50.
    traffic(&log, ("ep-regressed", "Stable"), 20, 20.0, 50, 1);
    traffic(&log, ("ep-regressed", "Canary"), 10, 40.0, 4, 2);
    // Two equal variants: the same latency and failure rate, different noise.
    traffic(&log, ("ep-equal", "A"), 10, 20.0, 50, 3);
    traffic(&log, ("ep-equal", "B"), 10, 20.0, 50, 4);
    drop(log);
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(b"not a record\n{\"time\": 1}\n").unwrap();
}

#[tokio::test]
async fn variants_report_fails_a_slow_failing_canary_and_passes_equal_variants() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inv.jsonl");
    write_log(&path);
    let file = path.to_string_lossy().into_owned();

    let r = run_cli(&sb, &["variants-report", &file, "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("skipped 2 line(s)"), "{}", r.stderr);
    let j = r.json();
    assert_eq!((j["bad_lines"].as_u64(), j["records"].as_u64()), (Some(2), Some(1000)));
    let regressed = &j["endpoints"][1];
    assert_eq!(regressed["endpoint"], "ep-regressed");
    assert_eq!(regressed["baseline"], "Stable");
    let canary = &regressed["variants"][1];
    assert_eq!(
        (canary["variant"].as_str(), canary["outcome"].as_str()),
        (Some("Canary"), Some("fail"))
    );
    assert!(canary["error_rate"].as_f64().unwrap() > regressed["variants"][0]["error_rate"].as_f64().unwrap());
    assert!(canary["p50_ms"].as_f64().unwrap() > 40.0);
    for metric in ["latency_p50", "latency_p99", "error_rate"] {
        let v = canary["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["metric"] == metric)
            .unwrap();
        assert_eq!(v["outcome"], "fail", "{metric}: {v}");
        assert!(v["p_value"].as_f64().unwrap() < 0.01, "{metric}: {v}");
    }
    let equal = &j["endpoints"][0];
    assert_eq!(equal["endpoint"], "ep-equal");
    let b = &equal["variants"][1];
    assert_eq!(b["outcome"], "pass", "{b}");

    let human = run_cli(&sb, &["variants-report", &file, "--endpoint", "ep-regressed"]).await;
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(human.stdout.starts_with("ENDPOINT"), "{}", human.stdout);
    assert!(!human.stdout.contains("ep-equal"), "{}", human.stdout);
    assert!(human.stdout.contains("Canary vs Stable: fail"), "{}", human.stdout);
    assert!(human.stdout.contains("latency_p99 fail: p="), "{}", human.stdout);
    // Older than the window: nothing to compare, not an error.
    let recent = run_cli(&sb, &["variants-report", &file, "--since", "1h", "--json"])
        .await
        .json();
    assert_eq!(recent["records"], 0);
    let baseline = run_cli(&sb, &["variants-report", &file, "--baseline", "Canary", "--json"])
        .await
        .json();
    assert_eq!(baseline["endpoints"][1]["baseline"], "Canary");
    let missing = run_cli(&sb, &["variants-report", "/nonexistent/inv.jsonl"]).await;
    assert_eq!(missing.code, 3, "{}", missing.stderr);
}

#[test]
fn the_invocation_log_refuses_a_symbolic_link_and_leaves_its_target_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("shared.txt");
    std::fs::write(&target, "someone else's file\n").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.path().join("inv.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let e = InvocationLog::open(&link, false).unwrap_err();
    assert!(e.contains("symbolic link") && e.contains("inv.jsonl"), "{e}");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "the link's target was not chmodded");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "someone else's file\n");
}
