//! sagedeck's own `mcp serve` with the demo tools: over stdio through the real binary (pointed
//! at an in-process sandbox with `--endpoint-url`), and over streamable HTTP with and without a
//! bearer token.

use std::time::{Duration, Instant};

use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::registry::demo_entry;
use sagedeck::mcp::result::Block;
use sagedeck::mcp::server::{ToolServer, serve_http};
use sagedeck::mcp::tools_config::ToolsConfig;
use sagedeck::mcp::{CallError, ConnectError, ConnectOptions, McpConnection, TransportKind, endpoint_link};
use sagedeck::sandbox::SandboxHandle;
use serde_json::{Value, json};

use crate::common::{demo_config, fleet, sandbox_with};
use crate::{args, timing, url_entry, wait_gone};

/// The registry entry that runs the real binary's `mcp serve --demo-tools` against `sb`.
pub fn own_stdio_entry(sb: &SandboxHandle) -> sagedeck::mcp::ServerEntry {
    demo_entry(std::path::Path::new(env!("CARGO_BIN_EXE_sagedeck")), &sb.endpoint_url())
}

fn sm(out: &sagedeck::mcp::CallOutcome) -> Value {
    out.result.structured.as_ref().expect("structured content")["sagemaker"].clone()
}

#[tokio::test]
async fn stdio_demo_tools_end_to_end() {
    let sb = sandbox_with(demo_config()).await;
    let t = Instant::now();
    let conn = McpConnection::connect(&own_stdio_entry(&sb), &ConnectOptions::default())
        .await
        .expect("sagedeck mcp serve connects");
    timing("own server stdio connect (spawn + handshake + tools/list)", t.elapsed());
    let info = conn.info();
    assert_eq!(info.name, "sagedeck-demo");
    assert!(!info.protocol_version.is_empty() && info.has_tools);
    let names: Vec<String> = conn.tools().iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, crate::common::DEMO_TOOL_NAMES);
    let ci = conn.tool("classify_intent").unwrap();
    assert!(ci.output_schema.is_some());
    assert_eq!(ci.annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
    assert_eq!(
        endpoint_link(Some(&ci), None).map(|l| l.endpoint),
        Some("mcp-intent-classifier-prod".to_string())
    );

    // The seed's classify_intent, with its variant and attempts.
    let t = Instant::now();
    let out = conn
        .call_tool(
            "classify_intent",
            args(json!({"user_input": "I want my money back"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    timing("own server stdio tools/call classify_intent", t.elapsed());
    assert!(!out.result.is_error, "{:?}", out.result);
    assert_eq!(out.result.schema_errors, Some(vec![]));
    let s = out.result.structured.clone().unwrap();
    assert!(s["intent"].is_string() && s["score"].as_f64().unwrap() > 0.0, "{s}");
    assert_eq!(sm(&out)["endpoint"], "mcp-intent-classifier-prod");
    assert!(["Stable", "Canary"].contains(&sm(&out)["invoked_variant"].as_str().unwrap()));
    assert_eq!(sm(&out)["attempts"], 1);
    assert_eq!(out.progress, 0, "a fast call sends no progress");
    let link = endpoint_link(Some(&ci), out.result.structured.as_ref()).unwrap();
    assert_eq!(link.attempts, Some(1));
    assert!(link.invoked_variant.is_some());

    let canary = conn
        .call_tool(
            "classify_intent",
            args(json!({"user_input": "hi", "target_variant": "Canary"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(sm(&canary)["invoked_variant"], "Canary");

    let generated = conn
        .call_tool(
            "generate_text",
            args(json!({"prompt": "Once", "max_new_tokens": 8})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(generated.result.structured.as_ref().unwrap()["generated_text"].is_string());

    let churn = conn
        .call_tool(
            "score_churn",
            args(json!({"support_calls": 5, "tenure_years": 1, "late_payments": 2, "monthly_charges": 0.8, "has_fiber": 1})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    let p = churn.result.structured.as_ref().unwrap()["churn_probability"]
        .as_f64()
        .unwrap();
    assert!((0.0..=1.0).contains(&p));

    let tenant = conn
        .call_tool(
            "tenant_classify",
            args(json!({"user_input": "hello"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(sm(&tenant)["target_model"], "tenant-acme-finetuned-v2.tar.gz");
    let other = conn
        .call_tool(
            "tenant_classify",
            args(json!({"user_input": "hello", "target_model": "tenant-globex-finetuned-v1.tar.gz"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(sm(&other)["target_model"], "tenant-globex-finetuned-v1.tar.gz");

    // rmcp answers an unknown tool with a JSON-RPC error; bad arguments are an in-band error.
    match conn.call_tool("nope", None, CallOptions::default()).await {
        Err(CallError::JsonRpc { code, message, .. }) => {
            assert_eq!(code, -32602);
            assert!(message.contains("nope"));
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
    let bad = conn
        .call_tool("classify_intent", args(json!({"text": "x"})), CallOptions::default())
        .await
        .unwrap();
    assert!(bad.result.is_error);
    let why = bad.result.first_text().unwrap();
    assert!(why.contains("user_input") && why.contains("text"), "{why}");

    let pid = conn.child_pid().await.expect("a child process");
    conn.disconnect().await;
    wait_gone(pid, Duration::from_secs(5)).await;
}

async fn http_server(sb: &SandboxHandle, token: Option<&str>) -> sagedeck::mcp::server::HttpServerHandle {
    let server = ToolServer::new(fleet(sb).await, ToolsConfig::demo());
    serve_http(server, "127.0.0.1:0".parse().unwrap(), token.map(str::to_string))
        .await
        .expect("binds loopback")
}

#[tokio::test]
async fn http_with_and_without_the_token() {
    let sb = sandbox_with(demo_config()).await;
    let h = http_server(&sb, Some("s3cret-token")).await;
    assert!(h.addr.ip().is_loopback());
    let url = h.url();
    let opts = ConnectOptions {
        timeout: Duration::from_secs(10),
        ..Default::default()
    };
    let none = McpConnection::connect(&url_entry("h", TransportKind::Http, &url, &[]), &opts).await;
    match none {
        Err(ConnectError::Unauthorized { status }) => assert_eq!(status, 401),
        other => panic!("expected 401, got {other:?}"),
    }
    let wrong = url_entry("h", TransportKind::Http, &url, &[("Authorization", "Bearer nope")]);
    assert!(matches!(
        McpConnection::connect(&wrong, &opts).await,
        Err(ConnectError::Unauthorized { .. })
    ));
    let good = url_entry(
        "h",
        TransportKind::Http,
        &url,
        &[("Authorization", "Bearer s3cret-token")],
    );
    let t = Instant::now();
    let conn = McpConnection::connect(&good, &opts)
        .await
        .expect("the token is accepted");
    timing("own server streamable HTTP connect", t.elapsed());
    assert_eq!(conn.tools().len(), 7);
    let t = Instant::now();
    let out = conn
        .call_tool(
            "classify_intent",
            args(json!({"user_input": "hello"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    timing("own server streamable HTTP tools/call", t.elapsed());
    assert!(!out.result.is_error);
    conn.disconnect().await;
    h.shutdown().await;

    // Without a token configured, no header is needed; the wrong path or transport is explained.
    let open = http_server(&sb, None).await;
    let conn = McpConnection::connect(&url_entry("o", TransportKind::Http, &open.url(), &[]), &opts)
        .await
        .unwrap();
    assert_eq!(conn.tools().len(), 7);
    conn.disconnect().await;
    let base = format!("http://{}", open.addr);
    for (transport, path) in [(TransportKind::Http, "/other"), (TransportKind::Sse, "/sse")] {
        let e = McpConnection::connect(&url_entry("x", transport, &format!("{base}{path}"), &[]), &opts)
            .await
            .unwrap_err();
        assert!(matches!(e, ConnectError::WrongTransport { .. }), "{e:?}");
        assert!(e.to_string().contains("wrong transport"), "{e}");
    }
    let e = McpConnection::connect(&url_entry("x", TransportKind::Sse, &open.url(), &[]), &opts)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("wrong transport"), "{e}");
    open.shutdown().await;
    let gone = McpConnection::connect(&url_entry("g", TransportKind::Http, &url, &[]), &opts)
        .await
        .unwrap_err();
    assert!(matches!(gone, ConnectError::Unreachable { .. }), "{gone:?}");
    assert!(gone.to_string().contains("connection refused"), "{gone}");
}

#[tokio::test]
async fn results_render_and_blocks_are_json() {
    let sb = sandbox_with(demo_config()).await;
    let h = http_server(&sb, None).await;
    let conn = McpConnection::connect(
        &url_entry("o", TransportKind::Http, &h.url(), &[]),
        &ConnectOptions::default(),
    )
    .await
    .unwrap();
    let out = conn
        .call_tool(
            "classify_intent",
            args(json!({"user_input": "weather?"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(matches!(&out.result.blocks[0], Block::Json { value } if value.get("intent").is_some()));
    let text = out.result.to_text();
    assert!(
        text.contains("\"sagemaker\"") && text.contains("matches the outputSchema"),
        "{text}"
    );
    assert_eq!(out.raw["isError"], false);
    conn.disconnect().await;
    h.shutdown().await;
}

/// p50 of `n` runs of `f`, in milliseconds.
async fn p50<F, Fut>(n: usize, mut f: F) -> f64
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        f().await;
        v.push(t.elapsed().as_secs_f64() * 1e3);
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[n / 2]
}

/// p50 of 40 successful `score_churn` calls with `a` over `conn`, in milliseconds.
async fn p50_score_churn(conn: &McpConnection, a: &Option<serde_json::Map<String, Value>>) -> f64 {
    p50(40, || async {
        assert!(
            !conn
                .call_tool("score_churn", a.clone(), CallOptions::default())
                .await
                .unwrap()
                .result
                .is_error
        );
    })
    .await
}

#[tokio::test]
async fn tool_call_overhead_over_the_raw_invocation() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let spec = ToolsConfig::demo()
        .tool("score_churn")
        .unwrap()
        .request(
            json!({"support_calls": 1, "tenure_years": 2, "late_payments": 0, "monthly_charges": 0.4, "has_fiber": 0})
                .as_object()
                .unwrap(),
        )
        .unwrap();
    let policy = sagedeck::aws::RetryPolicy::none();
    let raw = p50(40, || async {
        f.invoke(&spec, &policy).await.unwrap();
    })
    .await;
    let a = args(
        json!({"support_calls": 1, "tenure_years": 2, "late_payments": 0, "monthly_charges": 0.4, "has_fiber": 0}),
    );
    let stdio = McpConnection::connect(&own_stdio_entry(&sb), &ConnectOptions::default())
        .await
        .unwrap();
    let over_stdio = p50_score_churn(&stdio, &a).await;
    stdio.disconnect().await;
    let h = http_server(&sb, None).await;
    let http = McpConnection::connect(
        &url_entry("o", TransportKind::Http, &h.url(), &[]),
        &ConnectOptions::default(),
    )
    .await
    .unwrap();
    let over_http = p50_score_churn(&http, &a).await;
    http.disconnect().await;
    h.shutdown().await;
    eprintln!(
        "timing: p50 raw InvokeEndpoint {raw:.2} ms, tools/call over stdio {over_stdio:.2} ms, over streamable HTTP {over_http:.2} ms"
    );
}
