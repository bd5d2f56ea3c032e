//! `sagedeck invoke --session`: `new` opens a session (its id and expiry printed), the id keeps
//! three calls on one instance (the one the runtime names), `--close-session` closes it.

use serde_json::Value;

use crate::common::deploy::{SESSIONS_ENDPOINT as ENDPOINT, three_instance_llm};
use crate::common::{run_cli, sandbox};

const BODY: &str = r#"{"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 8}"#;

async fn invoke(sb: &sagedeck::sandbox::SandboxHandle, extra: &[&str]) -> Value {
    let mut args = vec!["--json", "invoke", ENDPOINT, "--body", BODY];
    args.extend_from_slice(extra);
    let out = run_cli(sb, &args).await;
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    out.json()["result"].clone()
}

#[tokio::test]
async fn a_session_keeps_three_calls_on_one_instance_and_closes() {
    let sb = sandbox().await;
    three_instance_llm(&sb).await;
    let opened = invoke(&sb, &["--session", "new"]).await;
    assert_eq!(opened["session"]["opened"], true, "{opened}");
    let id = opened["session"]["id"].as_str().expect("a session id").to_string();
    assert!(
        opened["session"]["expires"].as_str().is_some_and(|e| e.ends_with('Z')),
        "{opened}"
    );
    let instance = opened["instance"]
        .as_str()
        .expect("the instance that answered")
        .to_string();
    for _ in 0..2 {
        let kept = invoke(&sb, &["--session", &id]).await;
        assert_eq!(kept["instance"], instance.as_str(), "{kept}");
        assert_eq!(kept["session"]["id"], id.as_str(), "{kept}");
    }
    let out = run_cli(&sb, &["invoke", ENDPOINT, "--session", &id, "--close-session"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains(&format!("session {id} (closed)")), "{}", out.stderr);
    assert!(out.stderr.contains(&format!("instance {instance}")), "{}", out.stderr);
    let refused = run_cli(&sb, &["invoke", ENDPOINT, "--body", BODY, "--session", &id]).await;
    assert_ne!(refused.code, 0, "a closed session is refused: {}", refused.stderr);
}
