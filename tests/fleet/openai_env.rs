//! `sagedeck openai-env`: the base URL from the runtime endpoint the CLI resolves (the sandbox's
//! with `--endpoint-url`) and a token in AWS's shape for the session's region; refused in
//! read-only mode; the audit log records the minting, the endpoint and the expiry, never the token.

use base64::Engine;

use crate::common::{run_cli, run_cli_in, sandbox};

fn presigned_url(token: &str) -> String {
    let b64 = token.strip_prefix("sagemaker-api-key-").expect("the token's prefix");
    let raw = base64::engine::general_purpose::STANDARD.decode(b64).expect("base64");
    String::from_utf8(raw).unwrap()
}

#[tokio::test]
async fn openai_env_prints_the_base_url_and_a_token_and_audits_without_it() {
    let sb = sandbox().await;
    let home = tempfile::tempdir().unwrap();
    let args = ["openai-env", "llm-tgi-chat", "--expires", "15m", "--shell", "json"];
    let out = run_cli_in(&sb, home.path(), &args, &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(
        v["OPENAI_BASE_URL"],
        format!("{}/endpoints/llm-tgi-chat/openai/v1", sb.endpoint_url())
    );
    let token = v["OPENAI_API_KEY"].as_str().unwrap().to_string();
    let url = presigned_url(&token);
    assert!(
        url.starts_with("sagemaker.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDSANDBOX%2F"),
        "{url}"
    );
    assert!(
        url.contains("%2Fus-east-1%2Fsagemaker%2Faws4_request") && url.contains("&X-Amz-Expires=900&"),
        "{url}"
    );
    assert!(url.ends_with("&Version=1"), "{url}");

    let audit = std::fs::read_to_string(home.path().join(".local/state/sagedeck/audit.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = audit.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "intent and result:\n{audit}");
    assert!(
        lines
            .iter()
            .all(|l| l["action"] == "openai.token" && l["target"] == "llm-tgi-chat"),
        "{audit}"
    );
    assert!(
        lines[0]["after"]["expires"].as_str().is_some_and(|e| e.ends_with('Z')),
        "{audit}"
    );
    let secret = &token["sagemaker-api-key-".len()..];
    for file in walk(&home.path().join(".local/state/sagedeck")) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            !text.contains(secret) && !text.contains("sagemaker-api-key-"),
            "{}",
            file.display()
        );
    }

    let out = run_cli(&sb, &["openai-env", "llm-tgi-chat", "--inference-component", "ic-a"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(&format!(
            "export OPENAI_BASE_URL='{}/endpoints/llm-tgi-chat/inference-components/ic-a/openai/v1'",
            sb.endpoint_url()
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("export OPENAI_API_KEY='sagemaker-api-key-"),
        "{}",
        out.stdout
    );
}

#[tokio::test]
async fn openai_env_is_refused_read_only_and_past_twelve_hours() {
    let sb = sandbox().await;
    let out = run_cli(&sb, &["--read-only", "openai-env", "llm-tgi-chat"]).await;
    assert_eq!(out.code, 5, "{}", out.stderr);
    assert!(
        out.stderr.contains("openai-env") && out.stdout.is_empty(),
        "{}",
        out.stderr
    );
    let out = run_cli(&sb, &["openai-env", "llm-tgi-chat", "--expires", "13h"]).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

/// Every file under `dir`.
pub fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            files.extend(walk(&p));
        } else {
            files.push(p);
        }
    }
    files
}

/// A mint's intent is fsync'd to the file before the token is asked for, and both its lines
/// reach the team's trail (`--audit-log-group`) — without the token.
#[tokio::test]
async fn openai_env_writes_the_team_trail_without_the_token() {
    let sb = sandbox().await;
    let home = tempfile::tempdir().unwrap();
    let group = "/sagedeck/audit";
    let args = [
        "openai-env",
        "llm-tgi-chat",
        "--expires",
        "15m",
        "--shell",
        "json",
        "--audit-log-group",
        group,
    ];
    let out = run_cli_in(&sb, home.path(), &args, &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
    let token = out.json()["OPENAI_API_KEY"].as_str().unwrap().to_string();
    let other = tempfile::tempdir().unwrap();
    let read = ["audit", "--log-group", group, "--since", "1h", "--json"];
    let seen = run_cli_in(&sb, other.path(), &read, &[]).await;
    assert_eq!(seen.code, 0, "{}", seen.stderr);
    let phases: Vec<String> = seen.json()["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["action"] == "openai.token" && r["target"] == "llm-tgi-chat")
        .map(|r| r["phase"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(phases, ["intent", "result"], "{}", seen.stdout);
    assert!(
        !seen.stdout.contains(&token["sagemaker-api-key-".len()..]),
        "{}",
        seen.stdout
    );
}
