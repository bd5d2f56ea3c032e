//! `sagedeck agent`'s limits through the real binary: invalid `--deadline` / `--tool-timeout`,
//! an `--allow` / `--deny` pattern that matches nothing, SageMaker's 6 MB request cap (a 3 MB tool
//! result is shortened to fit; a replayed conversation over it is never sent).

use serde_json::{Value, json};

use crate::common::{demo_config, run_cli, sandbox_with};
use crate::peers::{peers_dir, python, setup};

async fn hostile_config(dir: &tempfile::TempDir) -> String {
    let py = setup(python).await;
    let script = peers_dir().join("hostile_server.py");
    let servers = json!({"mcpServers": {"evil": {"command": py.to_string_lossy(), "args": [script], "env": {"PYTHONNOUSERSITE": "1"}}}});
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, servers.to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

fn agent<'a>(cfg: &'a str, audit: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
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
    v
}

/// The `request_bytes` of every LLM call's intent in the audit log.
fn request_sizes(audit: &std::path::Path) -> Vec<u64> {
    std::fs::read_to_string(audit)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["action"] == "agent.llm" && l["phase"] == "intent")
        .map(|l| l["after"]["request_bytes"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn bad_limits_are_invalid_input_and_unused_patterns_are_warned_of() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = hostile_config(&dir).await;
    let audit = dir.path().join("audit.jsonl");
    let a = audit.to_string_lossy().into_owned();
    for (flag, value) in [("--deadline", "-5"), ("--deadline", "nan"), ("--tool-timeout", "-1")] {
        let arg = format!("{flag}={value}");
        let r = run_cli(&sb, &agent(&cfg, &a, &[&arg, "Read the clipboard notes"])).await;
        assert_eq!(r.code, 2, "{arg}: {}", r.stderr);
        assert!(
            r.stderr.contains(flag) && r.stderr.contains("is not a positive number of seconds"),
            "{}",
            r.stderr
        );
    }
    assert!(!audit.exists(), "nothing was sent");

    let extra = [
        "--deny",
        "nosuch*",
        "--allow",
        "clipboard_*",
        "Read the clipboard notes",
    ];
    let r = run_cli(&sb, &agent(&cfg, &a, &extra)).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("sagedeck: warning: --deny `nosuch*` matches no tool of evil"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("--allow `clipboard_*`"), "{}", r.stderr);
}

#[tokio::test]
async fn a_3_mib_tool_result_is_shortened_to_keep_the_request_under_6_mb() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = hostile_config(&dir).await;
    let audit = dir.path().join("audit.jsonl");
    let a = audit.to_string_lossy().into_owned();
    // 3 MiB, twice (text and structured content): 6.29 MB, and the conversation on top.
    let r = run_cli(&sb, &agent(&cfg, &a, &["Give a big result of 3145728 bytes"])).await;
    let head: String = r.stdout.chars().take(2000).collect();
    assert_eq!(r.code, 0, "{head}\n{}", r.stderr);
    assert!(r.stdout.contains("call evil/big_result {\"bytes\":3145728}"), "{head}");
    let note = "the tool's result (6.29 MB) was shortened to";
    assert!(r.stdout.lines().any(|l| l.contains(note)), "{head}");
    let sizes = request_sizes(&audit);
    assert_eq!(sizes.len(), 2, "{sizes:?}");
    assert!(sizes.iter().all(|s| *s <= 6 * 1024 * 1024), "{sizes:?}");
}

#[tokio::test]
async fn a_replayed_conversation_over_6_mb_is_not_sent() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = hostile_config(&dir).await;
    let audit = dir.path().join("audit.jsonl");
    let a = audit.to_string_lossy().into_owned();
    let big = "y".repeat(7_000_000);
    let header = json!({"type": "run", "run_id": "run-big", "question": "Read the clipboard notes", "llm": "llm-tgi-chat",
        "shape": "messages", "template": null, "servers": ["evil"], "system_prompt": "", "started": 0.0, "rerun_of": null});
    let step = json!({"type": "step", "step": 1, "messages": [{"role": "user", "content": big}], "request": {},
        "raw_reply": "", "parsed": null, "problem": null, "approval": null, "tool": null, "llm_ms": 0.0,
        "llm_attempts": 1, "tokens_in": null, "tokens_out": null, "invoked_variant": null, "own_ms": 0.0});
    let replay = dir.path().join("big.jsonl");
    std::fs::write(&replay, format!("{header}\n{step}\n")).unwrap();
    let p = replay.to_string_lossy().into_owned();
    let r = run_cli(&sb, &agent(&cfg, &a, &["--replay", &p, "--from-step", "1"])).await;
    assert_eq!(r.code, 9, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("stopped: the next request would be over SageMaker's 6 MB limit"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("SageMaker takes at most 6.29 MB"), "{}", r.stdout);
    assert!(request_sizes(&audit).is_empty(), "nothing was sent");
}
