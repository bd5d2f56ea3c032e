//! `sagedeck agent` as a user runs it: the real binary against the sandbox's LLM, the Radio
//! Station and the demo's own MCP server (offline, end to end), `--json`, `--transcript`,
//! `--replay` (with `--from-step`), the question on stdin, exit code 9 and `--read-only`.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::agent::QUESTION;
use crate::common::{CliRun, cli_command, demo_config, run_cli, sandbox_with};
use crate::peers::{python, radio_script, setup};

fn write_config(dir: &tempfile::TempDir, servers: Value) -> String {
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

/// `sagedeck agent` on the sandbox's LLM with the Radio Station, every call approved.
pub(crate) fn radio_agent(cfg: &str) -> Vec<&str> {
    vec![
        "agent",
        "--llm",
        "llm-tgi-chat",
        "--server",
        "radio",
        "--mcp-config",
        cfg,
        "--approve",
        "auto",
    ]
}

/// Asserts the exit code and a line of standard output.
fn expect(r: &CliRun, code: i32, stdout_has: &str) {
    assert_eq!(r.code, code, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains(stdout_has), "{}", r.stdout);
}

pub(crate) async fn radio_config(dir: &tempfile::TempDir) -> String {
    let py = setup(python).await;
    write_config(
        dir,
        json!({"radio": {"command": py.to_string_lossy(), "args": [radio_script(), "stdio"], "env": {"PYTHONNOUSERSITE": "1"}}}),
    )
}

#[tokio::test]
async fn agent_answers_saves_replays_and_reruns() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = radio_config(&dir).await;
    let transcript = dir.path().join("run.jsonl");
    let audit = dir.path().join("audit.jsonl");
    let (t, a) = (transcript.to_string_lossy(), audit.to_string_lossy());
    let base = radio_agent(&cfg);
    let mut args: Vec<&str> = base.clone();
    args.extend([
        "--shape",
        "generate",
        "--template",
        "llama3",
        "--transcript",
        &t,
        "--audit-file",
        &a,
        QUESTION,
    ]);
    let r = run_cli(&sb, &args).await;
    expect(&r, 0, "call radio/top_song {\"sign\":\"WZPZ\"}");
    assert!(r.stdout.contains("answer: According to top_song"), "{}", r.stdout);
    let lines: Vec<Value> = std::fs::read_to_string(&transcript)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["run", "step", "step", "end"]);
    assert_eq!(lines[0]["template"], "llama3");
    assert!(
        lines[1]["request"]["inputs"]
            .as_str()
            .unwrap()
            .starts_with("<|begin_of_text|>")
    );
    assert!(lines[1]["llm_ms"].as_f64().unwrap() > 0.0);

    // Replaying only shows: allowed in read-only mode, nothing is sent.
    let r = run_cli(&sb, &["--read-only", "agent", "--replay", &t]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("question: What is the most played song on WZPZ?"));
    assert!(r.stdout.contains("answer: According to top_song"));

    // Re-run from step 2 in the other request shape: the conversation up to step 2 is reused.
    let mut rerun: Vec<&str> = base;
    rerun.extend([
        "--replay",
        &t,
        "--from-step",
        "2",
        "--shape",
        "messages",
        "--json",
        "--audit-file",
        &a,
    ]);
    let r = run_cli(&sb, &rerun).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["header"]["rerun_of"][1], 2);
    assert_eq!(v["steps"].as_array().unwrap().len(), 1);
    assert_eq!(v["steps"][0]["step"], 2);
    assert!(v["steps"][0]["request"]["messages"].is_array());
    assert!(v["end"]["answer"].as_str().unwrap().contains("In the end"));

    // Re-run step 1 with an edited conversation: another station.
    let mut messages = lines[1]["messages"].clone();
    messages[1]["content"] = json!("What is the most played song on WKRP?");
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, messages.to_string()).unwrap();
    let e = edited.to_string_lossy();
    let mut rerun: Vec<&str> = radio_agent(&cfg);
    rerun.extend(["--replay", &t, "--from-step", "1", "--messages", &e, "--audit-file", &a]);
    let r = run_cli(&sb, &rerun).await;
    expect(&r, 0, "call radio/top_song {\"sign\":\"WKRP\"}");
}

#[tokio::test]
async fn stopping_without_an_answer_is_exit_9_and_read_only_refuses_runs() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = radio_config(&dir).await;
    let audit = dir.path().join("audit.jsonl");
    let a = audit.to_string_lossy();
    let mut args = radio_agent(&cfg);
    args.extend(["--max-steps", "1", "--audit-file", &a, QUESTION]);
    let r = run_cli(&sb, &args).await;
    expect(&r, 9, "stopped: --max-steps reached without a final answer");

    let mut ro = vec!["--read-only"];
    ro.extend(args.iter().copied());
    let r = run_cli(&sb, &ro).await;
    assert_eq!(r.code, 5);
    assert!(r.stderr.contains("refused: agent"), "{}", r.stderr);
    let audit_lines = std::fs::read_to_string(&audit).unwrap().lines().count();
    // The first run's LLM call and tool call (intent and result each); the refused one added none.
    assert_eq!(audit_lines, 4, "the refused run wrote and sent nothing");

    let help = run_cli(&sb, &["--help"]).await;
    assert!(
        help.stdout.contains("9 agent stopped without a final answer"),
        "{}",
        help.stdout
    );
    let usage = run_cli(&sb, &["agent", "--server", "radio", "--mcp-config", &cfg, "q"]).await;
    assert_eq!(usage.code, 2);
    assert!(usage.stderr.contains("--llm"), "{}", usage.stderr);
}

#[tokio::test]
async fn the_demo_server_and_the_sandbox_llm_converse_offline_with_the_question_on_stdin() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(
        &dir,
        json!({"sagedeck-demo": {
            "command": env!("CARGO_BIN_EXE_sagedeck"),
            "args": ["mcp", "serve", "--demo-tools", "--endpoint-url", sb.endpoint_url()],
            "env": {"AWS_ACCESS_KEY_ID": "AKIDSANDBOX", "AWS_SECRET_ACCESS_KEY": "x", "AWS_REGION": "us-east-1"}}}),
    );
    let home = tempfile::tempdir().unwrap();
    let args = [
        "agent",
        "--llm",
        "llm-tgi-chat",
        "--server",
        "sagedeck-demo",
        "--mcp-config",
        &cfg,
        "--native-tools",
        "--stream",
        "--json",
    ];
    let mut cmd = cli_command(&sb, home.path(), &args, &[]);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"Classify the intent of this message: 'book me a flight to Paris'\n")
        .await
        .unwrap();
    drop(stdin);
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let tool = &v["steps"][0]["tool"];
    assert_eq!(tool["tool"], "classify_intent");
    assert_eq!(tool["arguments"], json!({"user_input": "book me a flight to Paris"}));
    // The demo tool's answer names the endpoint behind it; the final answer uses it.
    assert!(tool["result"].as_str().unwrap().contains("mcp-intent-classifier-prod"));
    assert!(
        v["end"]["answer"]
            .as_str()
            .unwrap()
            .contains("According to classify_intent")
    );
}

#[tokio::test]
async fn agent_demo_runs_offline_on_the_embedded_sandbox() {
    // The sandbox started here only gives run_cli its URL; `--demo` starts its own.
    let sb = sandbox_with(crate::common::demo_config()).await;
    let r = run_cli(
        &sb,
        &[
            "agent",
            "--demo",
            "--stream",
            "Score the churn of a customer with 4 support calls, 2 tenure years, 1 late payment, 0.8 monthly charges",
        ],
    )
    .await;
    expect(&r, 0, "call sagedeck-demo/score_churn");
    assert!(r.stdout.contains("answer: According to score_churn"), "{}", r.stdout);
    // Streamed tokens are printed as they arrive, before each step's summary.
    assert!(r.stdout.contains("  … {   \"tool\": \"score_churn\""), "{}", r.stdout);
    assert!(r.stdout.contains("  … According to score_churn"), "{}", r.stdout);
}

#[tokio::test]
async fn defaults_come_from_the_config_file_per_profile() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = radio_config(&dir).await;
    let home = tempfile::tempdir().unwrap();
    let conf_dir = home.path().join(".config/sagedeck");
    std::fs::create_dir_all(&conf_dir).unwrap();
    std::fs::write(
        conf_dir.join("config.toml"),
        "[agent]\nllm = \"no-such-endpoint\"\nservers = [\"radio\"]\napprove = \"auto\"\n\
         [profiles.oncall.agent]\nllm = \"llm-tgi-chat\"\nservers = [\"radio\"]\napprove = \"auto\"\nshape = \"generate\"\ntemplate = \"mistral\"\n",
    )
    .unwrap();
    let args = ["--profile", "oncall", "agent", "--mcp-config", &cfg, "--json", QUESTION];
    let mut cmd = cli_command(&sb, home.path(), &args, &[("XDG_CONFIG_HOME", "")]);
    let out = cmd.output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["header"]["llm"], "llm-tgi-chat");
    assert_eq!(v["header"]["template"], "mistral");
    assert!(
        v["steps"][0]["request"]["inputs"]
            .as_str()
            .unwrap()
            .starts_with("<s>[INST]")
    );
}
