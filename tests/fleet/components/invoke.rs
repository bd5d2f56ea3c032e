//! Invoking by inference component over the wire: `invoke --inference-component` (sync and
//! stream), an IC endpoint called without one (exit 2, its components named), a component at zero
//! copies (exit 3, `--wait-for-capacity` offered), `--wait-for-capacity` waking it (audited) and
//! succeeding, `components --wake` (and read-only refusing it, exit 5), an MCP tool spec with
//! `inference_component`, and the agent's LLM reached through a component.

use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::InferenceComponentRuntimeConfig;
use sagedeck::mcp::tools_config::ToolsConfig;
use sagedeck::sandbox::SandboxHandle;
use serde_json::{Value, json};

use super::setup::{component, ic_endpoint, model, wait_settled};
use crate::common::{fleet, poll_until, run_cli, sandbox, sandbox_with, sdk_config};

const BODY: &str = r#"{"inputs": "What is Amazon SageMaker?", "parameters": {"max_new_tokens": 16}}"#;

/// `llm` hosting `chat` and `summary` (one copy each); `zero` (ManagedInstanceScaling from 0)
/// hosting `idle`, scaled in to zero copies.
async fn components(sb: &SandboxHandle) -> Client {
    let sm = Client::new(&sdk_config(sb).await);
    model(&sm, "chat-model").await;
    ic_endpoint(&sm, "llm", 1).await;
    ic_endpoint(&sm, "zero", 0).await;
    component(&sm, "llm", "chat", "chat-model", 1).await;
    component(&sm, "llm", "summary", "chat-model", 1).await;
    component(&sm, "zero", "idle", "chat-model", 1).await;
    wait_settled(&sm, &["chat", "summary", "idle"]).await;
    scale_to_zero(&sm, "idle").await;
    sm
}

/// Scales `ic` in to zero copies and waits until none is left.
async fn scale_to_zero(sm: &Client, ic: &str) {
    sm.update_inference_component_runtime_config()
        .inference_component_name(ic)
        .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(0).build())
        .send()
        .await
        .unwrap_or_else(|e| panic!("scale {ic} to zero: {e:?}"));
    poll_until(&format!("{ic} at zero"), Duration::from_secs(30), || async {
        let (desired, current) = copies(sm, ic).await;
        let status = status(sm, ic).await;
        (desired == 0 && current == 0 && status == "InService").then_some(())
    })
    .await;
}

async fn copies(sm: &Client, ic: &str) -> (i32, i32) {
    let d = sm
        .describe_inference_component()
        .inference_component_name(ic)
        .send()
        .await
        .unwrap();
    let r = d.runtime_config();
    (
        r.and_then(|r| r.desired_copy_count()).unwrap_or(-1),
        r.and_then(|r| r.current_copy_count()).unwrap_or(-1),
    )
}

async fn status(sm: &Client, ic: &str) -> String {
    let d = sm
        .describe_inference_component()
        .inference_component_name(ic)
        .send()
        .await
        .unwrap();
    d.inference_component_status()
        .map(|s| s.as_str().to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_component_is_invoked_sync_and_streamed_and_an_ic_endpoint_without_one_names_them() {
    let sb = sandbox().await;
    components(&sb).await;

    let r = run_cli(
        &sb,
        &[
            "invoke",
            "llm",
            "--inference-component",
            "chat",
            "--body",
            BODY,
            "--json",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.json()["body"].is_object() || r.json()["body"].is_array(),
        "{}",
        r.stdout
    );

    let r = run_cli(
        &sb,
        &[
            "invoke",
            "llm",
            "--inference-component",
            "chat",
            "--body",
            BODY,
            "--stream",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(!r.stdout.trim().is_empty(), "no parts streamed: {}", r.stderr);
    assert!(r.stderr.contains(" parts, "), "{}", r.stderr);

    // Without a component: exit 2, one line naming what to pass.
    let r = run_cli(&sb, &["invoke", "llm", "--body", BODY]).await;
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains("inference components"))
        .unwrap_or_default();
    assert!(
        line.contains("pass --inference-component (one of: chat, summary)"),
        "{}",
        r.stderr
    );
    let r = run_cli(&sb, &["invoke", "llm", "--body", BODY, "--json"]).await;
    assert_eq!(r.code, 2);
    assert_eq!(
        r.json()["error"]["error"]["class"],
        "component_required",
        "{}",
        r.stdout
    );

    // The stream says the same.
    let r = run_cli(&sb, &["invoke", "llm", "--body", BODY, "--stream"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("pass --inference-component"), "{}", r.stderr);
}

#[tokio::test]
async fn a_component_at_zero_is_its_own_error_and_wait_for_capacity_wakes_it_audited() {
    let sb = sandbox().await;
    let sm = components(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let audit = audit.to_str().unwrap();

    let r = run_cli(
        &sb,
        &["invoke", "zero", "--inference-component", "idle", "--body", BODY],
    )
    .await;
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("inference component idle has no copies")
            && r.stderr.contains("--wait-for-capacity")
            && r.stderr.contains("sagedeck components zero --wake idle"),
        "{}",
        r.stderr
    );
    assert_eq!(copies(&sm, "idle").await, (0, 0), "a plain call wakes nothing");

    let r = run_cli(
        &sb,
        &[
            "invoke",
            "zero",
            "--inference-component",
            "idle",
            "--body",
            BODY,
            "--wait-for-capacity",
            "--deadline",
            "2m",
            "--audit-file",
            audit,
            "--reason",
            "first call of the day",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("idle is at zero copies: waking it"), "{}", r.stderr);
    assert!(r.stderr.contains("idle: serving · copies 1/1"), "{}", r.stderr);
    assert!(!r.stdout.trim().is_empty());
    let (desired, current) = copies(&sm, "idle").await;
    assert_eq!((desired, current), (1, 1));

    let lines: Vec<Value> = std::fs::read_to_string(audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let wake: Vec<&Value> = lines.iter().filter(|l| l["action"] == "component.wake").collect();
    assert_eq!(wake.len(), 2, "an intent and its result: {lines:#?}");
    assert_eq!(wake[0]["phase"], "intent");
    assert_eq!(wake[0]["target"], "idle");
    assert_eq!(wake[0]["before"]["desired_copies"], 0);
    assert_eq!(wake[0]["reason"], "first call of the day");
    assert_eq!(wake[1]["result"], "ok");

    // The stream waits the same way: scaled in again, it is woken and streams.
    scale_to_zero(&sm, "idle").await;
    let stream = [
        "invoke",
        "zero",
        "--inference-component",
        "idle",
        "--body",
        BODY,
        "--stream",
        "--wait-for-capacity",
        "--audit-file",
        audit,
    ];
    let r = run_cli(&sb, &stream).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("waking it") && r.stderr.contains(" parts, "),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.trim().is_empty());

    // --wait-for-capacity goes with a component, and not with --repeat.
    let r = run_cli(&sb, &["invoke", "zero", "--body", BODY, "--wait-for-capacity"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = run_cli(
        &sb,
        &[
            "invoke",
            "zero",
            "--inference-component",
            "idle",
            "--body",
            BODY,
            "--wait-for-capacity",
            "--repeat",
            "3",
        ],
    )
    .await;
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[tokio::test]
async fn components_wake_follows_to_serving_and_read_only_refuses_it() {
    let sb = sandbox().await;
    let sm = components(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let audit = audit.to_str().unwrap();

    let r = run_cli(&sb, &["--read-only", "components", "zero", "--wake", "idle", "--yes"]).await;
    assert_eq!(r.code, 5, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("components --wake changes things and read-only is on"),
        "{}",
        r.stderr
    );
    assert_eq!(copies(&sm, "idle").await, (0, 0), "nothing was sent");

    let r = run_cli(
        &sb,
        &["components", "llm", "--wake", "idle", "--yes", "--audit-file", audit],
    )
    .await;
    assert_eq!(r.code, 2, "a component of another endpoint: {}", r.stderr);
    assert!(
        r.stderr.contains("idle is a component of zero, not of llm"),
        "{}",
        r.stderr
    );

    let r = run_cli(
        &sb,
        &[
            "components",
            "zero",
            "--wake",
            "idle",
            "--yes",
            "--wait",
            "--audit-file",
            audit,
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("idle on zero/AllTraffic: copies 0 → 1"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("woke idle: copies 0 → 1"), "{}", r.stdout);
    assert!(r.stdout.contains("idle serves after"), "{}", r.stdout);
    assert_eq!(copies(&sm, "idle").await, (1, 1));

    // Already awake: nothing is sent.
    let r = run_cli(
        &sb,
        &["components", "zero", "--wake", "idle", "--yes", "--audit-file", audit],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("nothing to wake"), "{}", r.stderr);
    let wakes = std::fs::read_to_string(audit)
        .unwrap()
        .lines()
        .filter(|l| l.contains("component.wake"))
        .count();
    assert_eq!(wakes, 2, "one wake: an intent and its result");
}

#[tokio::test]
async fn a_tool_spec_with_an_inference_component_calls_it() {
    let sb = sandbox().await;
    components(&sb).await;
    let config = ToolsConfig::parse(
        r#"
[[tools]]
name = "ask_chat"
description = "Ask the chat component"
endpoint = "llm"
inference_component = "chat"
"#,
    )
    .unwrap();
    let spec = config.tool("ask_chat").unwrap().clone();
    let server = sagedeck::mcp::server::ToolServer::new(fleet(&sb).await, config);
    let args = json!({"inputs": "hello"});
    let out = server
        .run_tool(&spec, args.as_object().unwrap(), &Default::default())
        .await;
    assert!(!out.is_error.unwrap_or(false), "{out:?}");
    let block = &out.structured_content.as_ref().unwrap()["sagemaker"];
    assert_eq!(block["inference_component"], "chat", "{block}");
    assert_eq!(block["endpoint"], "llm");

    // The same tool without the component is refused with the component class's line.
    let bare = ToolsConfig::parse(
        r#"
[[tools]]
name = "ask_llm"
description = "Ask the endpoint"
endpoint = "llm"
"#,
    )
    .unwrap();
    let spec = bare.tool("ask_llm").unwrap().clone();
    let server = sagedeck::mcp::server::ToolServer::new(fleet(&sb).await, bare);
    let out = server
        .run_tool(&spec, args.as_object().unwrap(), &Default::default())
        .await;
    assert!(out.is_error.unwrap_or(false));
    let text = format!("{:?}", out.content);
    assert!(text.contains("pass --inference-component"), "{text}");
}

#[tokio::test]
async fn the_agent_asks_its_llm_through_a_component() {
    let sb = sandbox_with(crate::common::demo_config()).await;
    components(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    let servers = json!({"mcpServers": {"sagedeck-demo": {
        "command": env!("CARGO_BIN_EXE_sagedeck"),
        "args": ["mcp", "serve", "--demo-tools", "--endpoint-url", sb.endpoint_url()],
        "env": {"AWS_ACCESS_KEY_ID": "AKIDSANDBOX", "AWS_SECRET_ACCESS_KEY": "x", "AWS_REGION": "us-east-1"}}}});
    std::fs::write(&cfg, servers.to_string()).unwrap();
    let cfg = cfg.to_str().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let question = "Classify the intent of this message: 'book me a flight to Paris'";
    let mut args = vec![
        "agent",
        "--llm",
        "llm",
        "--server",
        "sagedeck-demo",
        "--mcp-config",
        cfg,
    ];
    args.extend([
        "--native-tools",
        "--approve",
        "auto",
        "--json",
        "--audit-file",
        audit.to_str().unwrap(),
    ]);
    let with = [args.clone(), vec!["--inference-component", "chat", question]].concat();
    let r = run_cli(&sb, &with).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let v = r.json();
    assert_eq!(v["steps"][0]["tool"]["tool"], "classify_intent", "{v:#}");
    assert!(
        v["end"]["answer"]
            .as_str()
            .unwrap()
            .contains("According to classify_intent")
    );

    // Without the component the LLM call is refused: no answer (exit 9), the class's line.
    let without = [args, vec![question]].concat();
    let r = run_cli(&sb, &without).await;
    assert_eq!(r.code, 9, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("pass --inference-component"), "{}", r.stdout);
}

#[tokio::test]
async fn prewarm_warms_a_component_and_says_when_it_is_at_zero() {
    let sb = sandbox().await;
    components(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let audit = audit.to_str().unwrap();
    let r = run_cli(
        &sb,
        &[
            "prewarm",
            "llm",
            "--inference-component",
            "chat",
            "--audit-file",
            audit,
            "--json",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let v = r.json();
    assert_eq!(v["results"][0]["model"], "chat", "{v:#}");
    assert_eq!(v["results"][0]["loaded"], true);
    let logged = std::fs::read_to_string(audit).unwrap();
    assert!(logged.contains(r#""inference_component":"chat""#), "{logged}");

    let r = run_cli(
        &sb,
        &[
            "prewarm",
            "zero",
            "--inference-component",
            "idle",
            "--audit-file",
            audit,
            "--json",
        ],
    )
    .await;
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.json()["results"][0]["error"]["class"], "no_capacity", "{}", r.stdout);
}
