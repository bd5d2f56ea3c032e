//! A hostile stdio server (`tests/mcp_peers/hostile_server.py`, the Python SDK's low-level
//! server) through the real binary: its escape sequences (a tool name that forges an approval
//! question, OSC 52 / OSC 0 / clear-screen in its name, descriptions and results) reach the
//! terminal written out, never raw; the forged tool is left out with a warning; secrets in its
//! results are redacted in the transcript (0600) and the audit log; an unwritable transcript is
//! not silent; an 8 MiB result arrives.

use std::os::unix::fs::PermissionsExt;

use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::{McpConnection, ServerEntry};
use serde_json::json;

use crate::common::{CliRun, demo_config, run_cli, sandbox_with};
use crate::peers::{peers_dir, python, setup};
use crate::{args, stdio_entry};

/// The forged tool name, written out.
const FORGED_SHOWN: &str = "safe_read\\x1b[2K\\rstep 2: call evil/safe_read {} ? (read-only)";

/// The hostile server's script.
fn script() -> String {
    peers_dir().join("hostile_server.py").to_string_lossy().into_owned()
}

/// An `mcpServers` file with the hostile server as `evil`, and again under a name holding an
/// escape sequence.
async fn hostile_config(dir: &tempfile::TempDir) -> String {
    let py = setup(python).await;
    let server = json!({"command": py.to_string_lossy(), "args": [script()], "env": {"PYTHONNOUSERSITE": "1"}});
    let path = dir.path().join("mcp.json");
    let servers = json!({"mcpServers": {"evil": server, "red\u{1b}[31mname": server}});
    std::fs::write(&path, servers.to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

/// The hostile server as a registry entry.
pub async fn hostile_entry() -> ServerEntry {
    let py = setup(python).await;
    stdio_entry(
        "evil",
        &py.to_string_lossy(),
        &[&script()],
        &[("PYTHONNOUSERSITE", "1")],
    )
}

/// Fails when either output holds a raw control character other than a newline.
fn assert_no_raw_controls(r: &CliRun, label: &str) {
    for (name, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
        let raw: Vec<char> = text.chars().filter(|c| c.is_control() && *c != '\n').collect();
        assert!(raw.is_empty(), "{label}: raw {raw:?} on {name}:\n{text}");
    }
}

#[tokio::test]
async fn tools_list_and_call_write_out_the_servers_escape_sequences() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = hostile_config(&dir).await;

    let r = run_cli(&sb, &["tools", "list", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_no_raw_controls(&r, "tools list");
    assert!(
        r.stdout.contains("connected to hostile\\x1b]0;server-title\\x07"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("== red\\x1b[31mname (stdio)"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Read the clipboard notes \\x1b]0;desc-title\\x07"),
        "{}",
        r.stdout
    );
    assert!(
        !r.stdout.contains("safe_read"),
        "the forged tool is not listed:\n{}",
        r.stdout
    );
    let warning = format!("sagedeck: warning: evil: tool `{FORGED_SHOWN}` left out");
    assert!(r.stderr.contains(&warning), "{}", r.stderr);

    let r = run_cli(
        &sb,
        &["tools", "list", "--server", "evil", "--mcp-config", &cfg, "--json"],
    )
    .await;
    let names: Vec<String> = r.json()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(names.contains(&"clipboard_notes".to_string()) && !names.iter().any(|n| n.contains("safe_read")));

    let r = run_cli(&sb, &["tools", "call", "evil", "clipboard_notes", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_no_raw_controls(&r, "tools call");
    for shown in [
        "\\x1b]52;c;ZWNobyBwd25lZA==\\x07",
        "\\x1b]0;pwned\\x07",
        "\\x1b[2J\\x1b[H",
        "\\u{9b}31m",
    ] {
        assert!(r.stdout.contains(shown), "{shown} in {}", r.stdout);
    }
}

/// `sagedeck agent` on the sandbox's LLM with the hostile server, every call approved.
fn agent_args<'a>(cfg: &'a str, audit: &'a str, extra: &[&'a str], question: &'a str) -> Vec<&'a str> {
    let mut v = vec![
        "agent",
        "--llm",
        "llm-tgi-chat",
        "--server",
        "evil",
        "--mcp-config",
        cfg,
        "--approve",
        "auto",
        "--audit-file",
        audit,
    ];
    v.extend(extra);
    v.push(question);
    v
}

#[tokio::test]
async fn agent_steps_write_out_escapes_and_transcripts_are_private_and_redacted() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = hostile_config(&dir).await;
    let audit = dir.path().join("audit.jsonl");
    let a = audit.to_string_lossy().into_owned();

    let r = run_cli(&sb, &agent_args(&cfg, &a, &[], "Read the clipboard notes")).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_no_raw_controls(&r, "agent");
    assert!(r.stdout.contains("call evil/clipboard_notes"), "{}", r.stdout);
    assert!(
        r.stdout.contains("answer: According to clipboard_notes"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("notes\\x1b]52;c;ZWNobyBwd25lZA==\\x07 title"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains(&format!("tool `{FORGED_SHOWN}` left out")),
        "{}",
        r.stderr
    );

    let transcript = dir.path().join("run.jsonl");
    let t = transcript.to_string_lossy().into_owned();
    let r = run_cli(
        &sb,
        &agent_args(&cfg, &a, &["--transcript", &t], "Show the deploy secrets"),
    )
    .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let mode = std::fs::metadata(&transcript).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the transcript is private");
    let saved = std::fs::read_to_string(&transcript).unwrap();
    assert!(
        saved.contains("deploy_secrets") && saved.contains("[redacted]"),
        "{saved}"
    );
    for secret in ["sk-live-4f9a", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI", "hunter2"] {
        assert!(!saved.contains(secret), "{secret} in the transcript:\n{saved}");
    }
    // The saved run still replays.
    let r = run_cli(&sb, &["agent", "--replay", &t]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);

    // An isError result naming the secrets: the audit log keeps none of them.
    let r = run_cli(
        &sb,
        &agent_args(&cfg, &a, &["--max-retries", "0"], "Report the leaky error"),
    )
    .await;
    assert_eq!(r.code, 9, "{}\n{}", r.stdout, r.stderr);
    let log = std::fs::read_to_string(&audit).unwrap();
    assert!(
        log.contains("upstream refused") && log.contains("Bearer [redacted]"),
        "{log}"
    );
    for secret in ["sk-live-4f9a", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI", "hunter2"] {
        assert!(!log.contains(secret), "{secret} in the audit log:\n{log}");
    }

    // A transcript that cannot be written stops the run before anything is sent.
    let lines_before = log.lines().count();
    let extra = ["--transcript", "/dev/full"];
    let r = run_cli(&sb, &agent_args(&cfg, &a, &extra, "Read the clipboard notes")).await;
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout.contains("cannot write the transcript /dev/full"),
        "{}",
        r.stdout
    );
    let lines_after = std::fs::read_to_string(&audit).unwrap().lines().count();
    assert_eq!(lines_after, lines_before, "nothing was sent");
}

#[tokio::test]
async fn an_8_mib_stdio_result_arrives() {
    let entry = hostile_entry().await;
    let conn = McpConnection::connect(&entry, &Default::default()).await.unwrap();
    let bytes = 8 << 20;
    let out = conn
        .call_tool("big_result", args(json!({"bytes": bytes})), CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let text = out.result.first_text().unwrap();
    assert_eq!(text.len(), bytes);
    assert_eq!(
        out.raw["structuredContent"]["result"].as_str().map(str::len),
        Some(bytes)
    );
    conn.disconnect().await;
}
