//! A Python MCP SDK server's `sampling/createMessage` answered by the sandbox's LLM endpoint
//! (`llm-tgi-chat`) over stdio and streamable HTTP: approved (auto, and asked and approved),
//! denied, declined by `never`, declined when no sampling model is configured; audited with the
//! tokens and without the messages' text; and through `sagedeck tools call --sampling-llm`.

use std::sync::{Arc, Mutex};

use sagedeck::aws::Fleet;
use sagedeck::aws::change::audit::{Audit, AuditContext};
use sagedeck::aws::change::guard::Audited;
use sagedeck::mcp::agent::{Shape, Template};
use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::sampling::{Sampler, SamplingApproval, SamplingLlm, SamplingRequest};
use sagedeck::mcp::{ConnectOptions, McpConnection, ServerEntry, TransportKind};
use serde_json::{Value, json};

use crate::common::{demo_config, run_cli_in, sandbox_with};
use crate::peers::{python, python_http, sampling_script, setup};
use crate::{args, stdio_entry, url_entry};

const QUESTION: &str = "the pager woke me twice tonight";

pub(crate) async fn stdio_server() -> ServerEntry {
    let py = setup(python).await;
    stdio_entry(
        "summarizer",
        &py.to_string_lossy(),
        &[&sampling_script(), "stdio"],
        &[("PYTHONNOUSERSITE", "1")],
    )
}

fn sampler(fleet: &Fleet, approval: SamplingApproval, audit: &std::path::Path) -> Sampler {
    let audited = Audited {
        audit: Arc::new(Audit::open(audit).expect("audit log")),
        ctx: AuditContext::default(),
    };
    Sampler::new(
        fleet.clone(),
        SamplingLlm::parse("llm-tgi-chat").unwrap(),
        Shape::Messages,
        Template::Chatml,
        approval,
    )
    .with_audit(audited, Some("sampling test".into()))
}

/// Calls `summarize` on `entry` with `sampler` and returns its structured result.
async fn summarize(entry: &ServerEntry, sampler: Option<Arc<Sampler>>) -> Value {
    let opts = ConnectOptions {
        sampling: sampler,
        ..Default::default()
    };
    let conn = McpConnection::connect(entry, &opts).await.expect("connects");
    let out = conn
        .call_tool("summarize", args(json!({"text": QUESTION})), CallOptions::default())
        .await
        .expect("summarize answers");
    conn.disconnect().await;
    assert!(!out.result.is_error, "{}", out.result.to_text());
    // FastMCP answers a dict as JSON text.
    let text = out.result.first_text().expect("a text block");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

pub(crate) fn audit_lines(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Every way a request ends, on one transport.
async fn exercise(entry: &ServerEntry, fleet: &Fleet, dir: &std::path::Path, label: &str) {
    let log = dir.join(format!("{label}-audit.jsonl"));
    // auto: answered by the sandbox's model, which says what it was asked.
    let auto = Arc::new(sampler(fleet, SamplingApproval::Auto, &log));
    let r = summarize(entry, Some(auto.clone())).await;
    assert_eq!(r["declined"], false, "{label}: {r:#}");
    assert_eq!(
        (r["model"].as_str(), r["role"].as_str()),
        (Some("llm-tgi-chat"), Some("assistant")),
        "{label}"
    );
    assert!(r["text"].as_str().unwrap().contains(QUESTION), "{label}: {r:#}");
    assert_eq!(r["stop_reason"], "endTurn", "{label}");
    let totals = auto.totals();
    assert_eq!((totals.answered, totals.declined), (1, 0), "{label}");
    assert!(totals.tokens_in > 0 && totals.tokens_out > 0, "{label}: {totals:?}");
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 2, "{label}: {lines:#?}");
    assert_eq!(lines[0]["action"], "mcp.sampling");
    assert_eq!(lines[0]["after"]["server"], "summarizer");
    assert_eq!(lines[0]["after"]["messages"], 2, "system prompt and the user message");
    assert_eq!(lines[1]["result"], "ok");
    assert_eq!(lines[1]["after"]["usage"]["out"], totals.tokens_out, "{:#}", lines[1]);
    assert!(
        !std::fs::read_to_string(&log).unwrap().contains(QUESTION),
        "{label}: the messages' text is never written to the audit log"
    );

    // ask: the operator sees the server, the messages and the preferences; yes, then no.
    let seen: Arc<Mutex<Vec<SamplingRequest>>> = Arc::default();
    let answers = Arc::new(Mutex::new(vec![false, true]));
    let (s, a) = (seen.clone(), answers.clone());
    let ask = sampler(fleet, SamplingApproval::Ask, &log).with_approver(Arc::new(move |req| {
        s.lock().unwrap().push(req);
        a.lock().unwrap().pop().unwrap_or(false)
    }));
    let ask = Arc::new(ask);
    let approved = summarize(entry, Some(ask.clone())).await;
    assert_eq!(approved["declined"], false, "{label}: {approved:#}");
    let denied = summarize(entry, Some(ask.clone())).await;
    assert_eq!(
        (denied["declined"].clone(), denied["code"].clone()),
        (json!(true), json!(-1)),
        "{label}"
    );
    assert_eq!(denied["message"], "User rejected sampling request", "{label}");
    let shown = seen.lock().unwrap().clone();
    assert_eq!(shown.len(), 2, "{label}");
    assert_eq!(shown[0].server, "summarizer");
    assert_eq!(shown[0].preferences, "hints claude · intelligence 0.80");
    assert_eq!(shown[0].messages[0].content, "You are a terse summarizer.");
    assert!(shown[0].messages[1].content.contains(QUESTION));
    assert_eq!(ask.totals().declined, 1, "{label}");
    let refused = audit_lines(&log).pop().unwrap();
    assert!(
        refused["result"].as_str().unwrap().starts_with("refused:"),
        "{refused:#}"
    );

    // never: declined without asking anyone.
    let never = Arc::new(sampler(fleet, SamplingApproval::Never, &log));
    let r = summarize(entry, Some(never.clone())).await;
    assert_eq!(
        (r["declined"].clone(), r["code"].clone()),
        (json!(true), json!(-1)),
        "{label}"
    );
    assert_eq!(never.totals().answered, 0);

    // No sampling model: declined with -32601, saying how to enable it.
    let r = summarize(entry, None).await;
    assert_eq!(r["code"], -32601, "{label}: {r:#}");
    assert!(
        r["message"].as_str().unwrap().contains("--sampling-llm"),
        "{label}: {r:#}"
    );
}

#[tokio::test]
async fn sampling_is_answered_by_the_sandbox_llm_over_stdio_and_http() {
    let sb = sandbox_with(demo_config()).await;
    let fleet = Fleet::for_url(&sb.endpoint_url()).await;
    let dir = tempfile::tempdir().unwrap();
    exercise(&stdio_server().await, &fleet, dir.path(), "stdio").await;
    let peer = python_http(&sampling_script(), "streamable-http").await;
    let url = format!("http://127.0.0.1:{}/mcp", peer.port);
    let entry = url_entry("summarizer", TransportKind::Http, &url, &[]);
    exercise(&entry, &fleet, dir.path(), "http").await;
}

#[tokio::test]
async fn tools_call_answers_sampling_with_sampling_llm() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let py = setup(python).await;
    let registry = dir.path().join("mcp.json");
    let servers = json!({"mcpServers": {"summarizer": {
        "command": py, "args": [sampling_script(), "stdio"], "env": {"PYTHONNOUSERSITE": "1"}}}});
    std::fs::write(&registry, servers.to_string()).unwrap();
    let audit = dir.path().join("audit.jsonl");
    let (audit, registry) = (audit.to_str().unwrap(), registry.to_str().unwrap());
    let run = |extra: &'static [&'static str]| {
        let mut argv = vec![
            "--json",
            "--audit-file",
            audit,
            "tools",
            "call",
            "summarizer",
            "summarize",
        ];
        argv.extend(["--arg", "text=disk full on the canary", "--mcp-config", registry]);
        argv.extend(extra);
        let home = dir.path().to_path_buf();
        let sb = &sb;
        async move { run_cli_in(sb, &home, &argv, &[]).await }
    };
    let out = run(&["--sampling-llm", "llm-tgi-chat", "--approve-sampling", "auto"]).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let v = out.json();
    assert_eq!(v["result"]["blocks"][0]["value"]["model"], "llm-tgi-chat", "{v:#}");
    let summary = "sampling: 1 answered by llm-tgi-chat, 0 declined";
    assert!(out.stderr.contains(summary), "{}", out.stderr);
    // never declines; without --sampling-llm, the client declares no sampling.
    let out = run(&["--sampling-llm", "llm-tgi-chat", "--approve-sampling", "never"]).await;
    assert_eq!(out.json()["result"]["blocks"][0]["value"]["code"], -1, "{}", out.stdout);
    let out = run(&[]).await;
    assert_eq!(
        out.json()["result"]["blocks"][0]["value"]["code"],
        -32601,
        "{}",
        out.stdout
    );
}

#[tokio::test]
async fn the_demo_server_asks_its_client_to_explain_an_intent() {
    let sb = sandbox_with(demo_config()).await;
    let fleet = Fleet::for_url(&sb.endpoint_url()).await;
    let dir = tempfile::tempdir().unwrap();
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_sagedeck"));
    let entry = sagedeck::mcp::registry::demo_entry(exe, &sb.endpoint_url());
    let call = |sampler: Option<Arc<Sampler>>| {
        let entry = entry.clone();
        async move {
            let opts = ConnectOptions {
                sampling: sampler,
                ..Default::default()
            };
            let conn = McpConnection::connect(&entry, &opts)
                .await
                .expect("the demo server starts");
            let input = args(json!({"user_input": "book me a flight to Paris"}));
            let out = conn
                .call_tool("explain_intent", input, CallOptions::default())
                .await
                .unwrap();
            conn.disconnect().await;
            assert!(!out.result.is_error, "{}", out.result.to_text());
            out.result.structured.clone().unwrap()
        }
    };
    let log = dir.path().join("audit.jsonl");
    let r = call(Some(Arc::new(sampler(&fleet, SamplingApproval::Auto, &log)))).await;
    assert!(r["intent"].is_string(), "{r:#}");
    assert_eq!(r["sampled_by"], "llm-tgi-chat", "{r:#}");
    let explanation = r["explanation"].as_str().unwrap();
    assert!(explanation.contains("book me a flight to Paris"), "{r:#}");
    // A client without sampling still gets the endpoint's answer, and why there is no more.
    let r = call(None).await;
    assert!(r["intent"].is_string() && r["explanation"].is_null(), "{r:#}");
    assert_eq!(r["sampling_declined"], "the client offers no sampling", "{r:#}");
}

/// A sampler answering in the `openai` shape (Chat Completions with a minted bearer token).
fn openai_sampler(fleet: &Fleet, audit: &std::path::Path) -> Sampler {
    let audited = Audited {
        audit: Arc::new(Audit::open(audit).expect("audit log")),
        ctx: AuditContext::default(),
    };
    let llm = SamplingLlm::parse("llm-tgi-chat").unwrap();
    Sampler::new(
        fleet.clone(),
        llm,
        Shape::Openai,
        Template::Chatml,
        SamplingApproval::Auto,
    )
    .with_audit(audited, Some("sampling test".into()))
}

#[tokio::test]
async fn sampling_through_the_openai_api_mints_its_token_through_the_audit_log_once() {
    let sb = sandbox_with(demo_config()).await;
    let fleet = Fleet::for_url(&sb.endpoint_url()).await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let sampler = Arc::new(openai_sampler(&fleet, &log));
    for question in ["first question", "second question"] {
        let r = summarize(&stdio_server().await, Some(sampler.clone())).await;
        assert_eq!(r["declined"], false, "{question}: {r:#}");
        assert_eq!(r["model"], "llm-tgi-chat", "{r:#}");
    }
    assert_eq!(sampler.totals().answered, 2);
    let lines = audit_lines(&log);
    let actions: Vec<(&str, &str)> = (lines.iter())
        .map(|l| (l["action"].as_str().unwrap(), l["result"].as_str().unwrap_or("intent")))
        .collect();
    // The first request mints the token (its record written before it is minted); the second
    // uses it.
    assert_eq!(
        actions,
        [
            ("mcp.sampling", "intent"),
            ("openai.token", "intent"),
            ("openai.token", "ok"),
            ("mcp.sampling", "ok"),
            ("mcp.sampling", "intent"),
            ("mcp.sampling", "ok"),
        ],
        "{lines:#?}"
    );
    let minted = &lines[1];
    assert_eq!(minted["target"], "llm-tgi-chat");
    assert_eq!(minted["reason"], "sampling test");
    assert!(minted["after"]["expires"].is_string(), "{minted:#}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains("CallWithBearerToken"),
        "the token is never written: {text}"
    );
}
