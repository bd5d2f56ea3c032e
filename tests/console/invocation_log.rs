//! The console's variant log: the real worker, against the sandbox and sagedeck's own MCP server,
//! appends a line for every invocation of the Invoke dialog and every tool call, naming the
//! endpoint and the variant that answered, with the input's hash and never the input.

use std::time::Duration;

use sagedeck::aws::invoke::call::InvokeSpec;
use sagedeck::aws::invoke::log::{InvocationRecord, Status, read, sha256_hex};
use sagedeck::mcp::registry::demo_entry;
use sagedeck::mcp::{ConnectOptions, McpHub, Registry};
use sagedeck::tui::event::Job;
use sagedeck::tui::event::{FleetJob, McpJob};
use sagedeck::tui::worker::{GuardOptions, spawn_guarded};

use crate::common;

const EP: &str = "mcp-intent-classifier-prod";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_logs_invokes_and_tool_calls_with_their_variant() {
    let sb = common::sandbox_with(common::demo_config()).await;
    let entry = demo_entry(std::path::Path::new(env!("CARGO_BIN_EXE_sagedeck")), &sb.endpoint_url());
    let server = entry.name.clone();
    let registry = Registry {
        servers: vec![entry],
        source: None,
    };
    let hub = McpHub::new(&registry, ConnectOptions::default());
    hub.connect(&server).await.expect("the demo tool server connects");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("state/invocations.jsonl");
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let jobs = spawn_guarded(
        Default::default(),
        Some(common::fleet(&sb).await),
        Default::default(),
        tx,
        Some(hub.clone()),
        GuardOptions {
            audit_path: Some(dir.path().join("audit.jsonl")),
            plan_dir: Some(dir.path().join("plans")),
            invocation_log: Some(log.clone()),
            ..Default::default()
        },
    );
    let body = br#"{"inputs": "my secret invoice question"}"#.to_vec();
    let spec = InvokeSpec {
        endpoint: EP.into(),
        body: body.clone(),
        content_type: "application/json".into(),
        target_variant: Some("Canary".into()),
        ..Default::default()
    };
    jobs.submit(1, Job::Fleet(FleetJob::Invoke { spec, repeat: 2 }));
    let arguments = serde_json::json!({"user_input": "private words of a user", "target_variant": "Stable"});
    jobs.submit(
        2,
        Job::Mcp(McpJob::ToolCall {
            server: server.clone(),
            tool: "classify_intent".into(),
            arguments: arguments.as_object().cloned(),
            repeat: 1,
            reason: None,
        }),
    );
    let records: Vec<InvocationRecord> = common::poll_until("three lines", Duration::from_secs(60), || async {
        let r = read(&log).ok()?;
        (r.records.len() >= 3).then_some(r.records)
    })
    .await;
    let invokes: Vec<&InvocationRecord> = records.iter().filter(|r| r.source == "console-invoke").collect();
    assert_eq!(invokes.len(), 2, "{records:?}");
    for r in &invokes {
        assert_eq!(r.endpoint.as_deref(), Some(EP));
        assert_eq!(r.variant.as_deref(), Some("Canary"));
        assert_eq!(r.status, Status::Ok);
        assert_eq!(r.input_sha256, sha256_hex(&body));
        assert_eq!(r.request_bytes, body.len());
        assert!(r.response_bytes > 0 && r.latency_ms > 0.0);
    }
    let tool = records
        .iter()
        .find(|r| r.source == "console-tool")
        .expect("a tool line");
    assert_eq!(tool.tool.as_deref(), Some(format!("{server}/classify_intent").as_str()));
    assert_eq!(tool.endpoint.as_deref(), Some(EP));
    assert_eq!(tool.variant.as_deref(), Some("Stable"));
    assert_eq!(tool.status, Status::Ok);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains("secret invoice") && !text.contains("private words"),
        "{text}"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&log).unwrap().permissions().mode() & 0o777, 0o600);
    hub.shutdown().await;
}

/// `sagedeck demo` keeps a variant log in its state directory by default: an invocation from the
/// Invoke tab lands there, and `sagedeck variants-report` on it (as the README says) shows it.
#[test]
fn the_demo_keeps_a_variant_log_that_variants_report_reads() {
    let t = crate::common::tmux::Tmux::start_sized(
        "varlog",
        "demo --fast --no-traffic --backfill-hours 1 --update-secs 1",
        "",
        160,
        45,
    );
    t.wait_for("the fleet", Duration::from_secs(60), |s| {
        s.contains(EP) && s.contains("InService")
    });
    t.open_variants("classifier", EP);
    t.keys(&["5"]);
    t.wait_for("the Invoke form", Duration::from_secs(10), |s| s.contains("Request · "));
    t.keys(&["C-s"]);
    t.wait_for("the answer", Duration::from_secs(30), |s| {
        s.contains("Response · call #1")
    });
    t.keys(&["q"]);
    // The demo's state directory is under its private home.
    let log = t.home().join(".local/state/sagedeck/invocations.jsonl");
    let start = std::time::Instant::now();
    let records = loop {
        if let Some(r) = read(&log).ok().filter(|r| !r.records.is_empty()) {
            break r;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no line in {}",
            log.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(records.records[0].endpoint.as_deref(), Some(EP));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sagedeck"))
        .arg("variants-report")
        .arg(&log)
        .env("HOME", t.home())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.starts_with("ENDPOINT") && stdout.contains(EP),
        "{stdout}"
    );
}
