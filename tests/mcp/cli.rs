//! `sagedeck tools list|call` and `sagedeck mcp serve --http` as a user runs them: the real
//! binary, an mcpServers file, exit codes, reasons on stderr, secrets never printed.

use std::time::Duration;

use sagedeck::sandbox::faults::FaultSpec;
use serde_json::json;

use crate::common::{cli_command, demo_config, run_cli, run_cli_env, sandbox_with, spawn_announced};
use crate::peers::{python, radio_script, setup};

fn write_config(dir: &tempfile::TempDir, servers: serde_json::Value) -> String {
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

fn own_server(endpoint_url: &str) -> serde_json::Value {
    json!({
        "command": env!("CARGO_BIN_EXE_sagedeck"),
        "args": ["mcp", "serve", "--demo-tools", "--endpoint-url", endpoint_url],
        "env": {"AWS_ACCESS_KEY_ID": "AKIDSANDBOX", "AWS_SECRET_ACCESS_KEY": "supersecret-123", "AWS_REGION": "us-east-1"}
    })
}

#[tokio::test]
async fn tools_list_and_call() {
    let sb = sandbox_with(demo_config()).await;
    let py = setup(python).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(
        &dir,
        json!({
            "demo": own_server(&sb.endpoint_url()),
            "radio": {"command": py.to_string_lossy(), "args": [radio_script(), "stdio"]},
            "broken": {"command": "sagedeck-no-such-server", "env": {"API_KEY": "supersecret-123"}},
            "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer supersecret-123"}}
        }),
    );
    let r = run_cli(&sb, &["tools", "list", "--mcp-config", &cfg]).await;
    assert_eq!(r.code, 3, "one server failed: {}", r.stderr);
    assert!(
        r.stdout.contains("classify_intent") && r.stdout.contains("top_song"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("broken: command not found"), "{}", r.stderr);
    assert!(r.stderr.contains("remote: cannot reach the server"), "{}", r.stderr);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(!all.contains("supersecret-123"), "a secret was printed:\n{all}");

    let j = run_cli(
        &sb,
        &["tools", "list", "--server", "demo", "--json", "--mcp-config", &cfg],
    )
    .await;
    assert_eq!(j.code, 0, "{}", j.stderr);
    let v = j.json();
    assert_eq!(v[0]["status"], "connected");
    assert_eq!(v[0]["tools"].as_array().unwrap().len(), 7);
    assert!(!j.stdout.contains("supersecret-123"));

    let c = run_cli(
        &sb,
        &[
            "tools",
            "call",
            "demo",
            "classify_intent",
            "--arg",
            "user_input=hello",
            "--json",
            "--mcp-config",
            &cfg,
        ],
    )
    .await;
    assert_eq!(c.code, 0, "{}", c.stderr);
    let v = c.json();
    assert_eq!(v["is_error"], false);
    assert_eq!(v["result"]["structured"]["sagemaker"]["attempts"], 1);
    assert!(v["duration_ms"].as_f64().unwrap() > 0.0);

    let human = run_cli(
        &sb,
        &[
            "tools",
            "call",
            "radio",
            "top_song",
            "--args",
            r#"{"sign": "WZPZ"}"#,
            "--mcp-config",
            &cfg,
        ],
    )
    .await;
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(human.stdout.contains("In the end"));

    sb.sandbox.faults.add(
        FaultSpec::parse_short(
            "kind=model_error,status=500,message=CUDA out of memory,endpoint=mcp-intent-classifier-prod",
        )
        .unwrap(),
    );
    let me = run_cli(
        &sb,
        &[
            "tools",
            "call",
            "demo",
            "classify_intent",
            "--arg",
            "user_input=x",
            "--mcp-config",
            &cfg,
        ],
    )
    .await;
    assert_eq!(me.code, 4, "an isError result: {}", me.stderr);
    assert!(
        me.stderr.contains("Model returned error 500: CUDA out of memory"),
        "{}",
        me.stderr
    );

    let unknown = run_cli(&sb, &["tools", "call", "demo", "nope", "--mcp-config", &cfg]).await;
    assert_eq!(unknown.code, 3);
    assert!(unknown.stderr.contains("JSON-RPC error -32602") && unknown.stderr.contains("classify_intent"));
    let py_unknown = run_cli(&sb, &["tools", "call", "radio", "nope", "--mcp-config", &cfg]).await;
    assert_eq!(py_unknown.code, 4, "python answers in-band: {}", py_unknown.stderr);
    assert!(py_unknown.stderr.contains("lists no tool `nope`"));

    let no_server = run_cli(&sb, &["tools", "call", "ghost", "x", "--mcp-config", &cfg]).await;
    assert_eq!(no_server.code, 2);
    assert!(no_server.stderr.contains("no server `ghost`"));
    let bad_json = run_cli(
        &sb,
        &["tools", "call", "demo", "x", "--args", "{oops", "--mcp-config", &cfg],
    )
    .await;
    assert_eq!(bad_json.code, 2);
    let failed = run_cli(&sb, &["tools", "call", "broken", "x", "--mcp-config", &cfg]).await;
    assert_eq!(failed.code, 3);
    assert_eq!(failed.stderr.lines().count(), 1, "{}", failed.stderr);
    let none = run_cli(&sb, &["tools", "list"]).await;
    assert_eq!(none.code, 2);
    assert!(none.stderr.contains("no MCP servers configured"));
}

fn audit_lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn tools_call_is_audited_and_an_unwritable_log_refuses_it() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(&dir, json!({ "demo": own_server(&sb.endpoint_url()) }));
    let log = dir.path().join("audit.jsonl");
    let log_arg = log.to_string_lossy().into_owned();
    let call = |input: &'static str, audit: String| {
        let (sb, cfg) = (&sb, cfg.clone());
        async move {
            run_cli(
                sb,
                &[
                    "tools",
                    "call",
                    "demo",
                    "classify_intent",
                    "--arg",
                    &format!("user_input={input}"),
                    "--reason",
                    "INC-42 triage",
                    "--audit-file",
                    &audit,
                    "--mcp-config",
                    &cfg,
                ],
            )
            .await
        }
    };
    let ok = call("hello", log_arg.clone()).await;
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 2, "an intent and a result: {lines:?}");
    let (intent, result) = (&lines[0], &lines[1]);
    assert_eq!(intent["action"], "tool.call");
    assert_eq!(intent["target"], "demo/classify_intent");
    assert_eq!(intent["after"]["arguments"]["user_input"], "hello");
    assert_eq!(intent["reason"], "INC-42 triage");
    assert!(intent["result"].is_null(), "{intent}");
    assert!(
        intent["principal"].as_str().is_some_and(|p| p.starts_with("arn:aws:")),
        "the caller, from STS: {intent}"
    );
    assert_eq!(result["id"], intent["id"]);
    assert_eq!(result["result"], "ok");

    sb.sandbox.faults.add(
        FaultSpec::parse_short(
            "kind=model_error,status=500,message=CUDA out of memory,endpoint=mcp-intent-classifier-prod",
        )
        .unwrap(),
    );
    let failed = call("again", log_arg.clone()).await;
    assert_eq!(failed.code, 4, "{}", failed.stderr);
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 4, "{lines:?}");
    let r = lines[3]["result"].as_str().unwrap();
    assert!(
        r.starts_with("error: the tool answered isError") && r.contains("CUDA out of memory"),
        "{r}"
    );

    // A directory is not a writable log: the call is refused before it is sent.
    let refused = call("blocked", dir.path().to_string_lossy().into_owned()).await;
    assert_eq!(refused.code, 6, "{}", refused.stderr);
    assert!(refused.stdout.is_empty(), "nothing was called: {}", refused.stdout);
    assert!(
        refused.stderr.contains("cannot write the audit log") && refused.stderr.contains("nothing was sent"),
        "{}",
        refused.stderr
    );
    assert_eq!(audit_lines(&log).len(), 4);
}

/// `tools call` with a team trail: the intent and the result land in the CloudWatch Logs group
/// too, with the reason, read back by `sagedeck audit --log-group` (another HOME).
#[tokio::test]
async fn tools_call_writes_the_team_trail() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(&dir, json!({ "demo": own_server(&sb.endpoint_url()) }));
    let log = dir.path().join("audit.jsonl");
    let call = [
        "tools",
        "call",
        "demo",
        "classify_intent",
        "--arg",
        "user_input=hello",
        "--reason",
        "INC-7 triage",
        "--audit-file",
        log.to_str().unwrap(),
        "--audit-log-group",
        "/sagedeck/audit",
        "--mcp-config",
        &cfg,
    ];
    let ok = run_cli_env(&sb, &call, &[("SAGEDECK_HOST", "host-a")]).await;
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(!ok.stderr.contains("warning"), "{}", ok.stderr);
    assert_eq!(audit_lines(&log).len(), 2, "the file guards as before");

    let read = ["audit", "--log-group", "/sagedeck/audit", "--since", "1h", "--json"];
    let seen = run_cli_env(&sb, &read, &[("AWS_ACCESS_KEY_ID", "AKIDSANDBOXBOB")]).await;
    assert_eq!(seen.code, 0, "{}", seen.stderr);
    let j = seen.json();
    let calls: Vec<&serde_json::Value> = j["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["action"] == "tool.call")
        .collect();
    let phases: Vec<&str> = calls.iter().map(|r| r["phase"].as_str().unwrap()).collect();
    assert_eq!(phases, ["intent", "result"], "{calls:#?}");
    assert!(
        calls.iter().all(|r| r["target"] == "demo/classify_intent"
            && r["reason"] == "INC-7 triage"
            && r["stream"].as_str().is_some_and(|s| s.ends_with("@host-a"))),
        "{calls:#?}"
    );
    assert_eq!(calls[1]["result"], "ok");
}

#[tokio::test]
async fn mcp_serve_over_http_requires_the_token() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let server = cli_command(
        &sb,
        home.path(),
        &[
            "mcp",
            "serve",
            "--demo-tools",
            "--http",
            "127.0.0.1:0",
            "--token",
            "t0ken-xyz",
        ],
        &[],
    );
    let (mut server, url) = spawn_announced(server).await;
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
    assert!(!url.contains("t0ken-xyz"));

    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(
        &dir,
        json!({
            "with": {"url": url, "headers": {"Authorization": "Bearer ${SAGEDECK_TEST_TOKEN}"}},
            "without": {"url": url}
        }),
    );
    let env = [("SAGEDECK_TEST_TOKEN", "t0ken-xyz")];
    let ok = run_cli_env(
        &sb,
        &[
            "tools",
            "call",
            "with",
            "score_churn",
            "--mcp-config",
            &cfg,
            "--args",
            r#"{"support_calls": 1, "tenure_years": 4, "late_payments": 0, "monthly_charges": 0.5, "has_fiber": 0}"#,
        ],
        &env,
    )
    .await;
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(ok.stdout.contains("churn_probability"));
    assert!(ok.stderr.contains("endpoint xgboost-churn-csv"), "{}", ok.stderr);
    let denied = run_cli_env(
        &sb,
        &["tools", "list", "--server", "without", "--mcp-config", &cfg],
        &env,
    )
    .await;
    assert_eq!(denied.code, 3);
    assert!(
        denied.stderr.contains("HTTP 401") && denied.stderr.contains("token?"),
        "{}",
        denied.stderr
    );
    let unset = run_cli(&sb, &["tools", "list", "--mcp-config", &cfg]).await;
    assert_eq!(unset.code, 2, "an unset ${{VAR}} is a configuration error");
    assert!(unset.stderr.contains("SAGEDECK_TEST_TOKEN"));
    server.start_kill().unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(5), server.wait()).await;
}
