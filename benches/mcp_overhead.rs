//! What MCP adds to a SageMaker call, each figure quoted against a baseline measured in the same
//! run, on the sandbox's demo fleet (no simulated model latency, no random errors):
//!
//! * **(a) client overhead**: `McpConnection::call_tool` (sagedeck's client: progress routing,
//!   cancellation, result rendering and outputSchema check) vs a bare rmcp client's `call_tool`,
//!   both against the same `sagedeck mcp serve` over streamable HTTP, calling `classify_intent`;
//! * **(b) server overhead**: `classify_intent` through `mcp serve` (bare rmcp client, over
//!   streamable HTTP and over an in-process duplex pipe) vs the raw InvokeEndpoint the tool makes,
//!   through the fleet layer (`Fleet::invoke`) with the same body.
//!
//! The arms are interleaved in blocks, every loop bounded in count; one process, a 2-worker
//! tokio runtime. Prints a table of p50/p95/p99 per arm and the differences at p50.
//!
//! Run: `CARGO_TARGET_DIR=target/bench cargo bench --bench mcp_overhead`
//! (`SAGEDECK_BENCH_CALLS` changes the calls per arm, default 600.)

mod common;

use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use sagedeck::aws::{Fleet, RetryPolicy};
use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::registry::ServerEntry;
use sagedeck::mcp::server::{ToolServer, serve_http};
use sagedeck::mcp::tools_config::ToolsConfig;
use sagedeck::mcp::{ConnectOptions, McpConnection, TransportKind};
use sagedeck::sandbox::{SandboxConfig, start};
use serde_json::json;

use common::{env_num, sdk_config};

const TOOL: &str = "classify_intent";
const BLOCK: usize = 50;

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p / 100.0) * (sorted.len() as f64 - 1.0)).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

struct Arm {
    name: &'static str,
    samples: Vec<f64>,
}

impl Arm {
    fn new(name: &'static str) -> Arm {
        Arm {
            name,
            samples: Vec::new(),
        }
    }

    fn sorted(&self) -> Vec<f64> {
        let mut v = self.samples.clone();
        v.sort_by(f64::total_cmp);
        v
    }

    fn p50(&self) -> f64 {
        pct(&self.sorted(), 50.0)
    }
}

fn args() -> JsonObject {
    json!({"user_input": "I want my money back"})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

async fn bare_call(client: &RunningService<RoleClient, ()>) -> f64 {
    let t = Instant::now();
    let r = client
        .call_tool(CallToolRequestParams::new(TOOL).with_arguments(args()))
        .await
        .expect("bare rmcp call");
    assert!(r.is_error != Some(true), "{r:?}");
    t.elapsed().as_secs_f64() * 1e6
}

async fn sagedeck_call(conn: &McpConnection) -> f64 {
    let t = Instant::now();
    let r = conn
        .call_tool(TOOL, Some(args()), CallOptions::default())
        .await
        .expect("sagedeck call");
    assert!(!r.result.is_error, "{:?}", r.result);
    t.elapsed().as_secs_f64() * 1e6
}

async fn raw_invoke(fleet: &Fleet, spec: &sagedeck::aws::invoke::call::InvokeSpec, policy: &RetryPolicy) -> f64 {
    let t = Instant::now();
    fleet.invoke(spec, policy).await.expect("raw invoke");
    t.elapsed().as_secs_f64() * 1e6
}

fn print(title: &str, arms: &[&Arm]) {
    println!("\n{title}");
    println!(
        "{:<48} {:>6} {:>10} {:>10} {:>10}",
        "arm", "calls", "p50 µs", "p95 µs", "p99 µs"
    );
    for a in arms {
        let s = a.sorted();
        println!(
            "{:<48} {:>6} {:>10.1} {:>10.1} {:>10.1}",
            a.name,
            s.len(),
            pct(&s, 50.0),
            pct(&s, 95.0),
            pct(&s, 99.0)
        );
    }
}

fn main() {
    let calls = env_num("SAGEDECK_BENCH_CALLS", 600) as usize;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(run(calls));
}

async fn run(calls: usize) {
    let handle = start(SandboxConfig {
        demo_fleet: true,
        ..SandboxConfig::for_tests()
    })
    .await
    .expect("sandbox");
    let conf = sdk_config(&handle.endpoint_url()).await;
    let fleet = Fleet::from_sdk_config(&conf, "bench".into(), Some(handle.endpoint_url()));
    let config = ToolsConfig::demo();
    let spec = config.tool(TOOL).expect("demo tool").request(&args()).expect("request");
    let policy = RetryPolicy::default();
    let server = ToolServer::new(fleet.clone(), config);
    let http = serve_http(server.clone(), "127.0.0.1:0".parse().expect("addr"), None)
        .await
        .expect("mcp serve over HTTP");
    let url = http.url();

    // Clients: sagedeck's over HTTP, bare rmcp over HTTP, bare rmcp over a duplex pipe.
    let entry = ServerEntry {
        name: "bench".into(),
        transport: TransportKind::Http,
        command: None,
        args: vec![],
        env: Default::default(),
        cwd: None,
        url: Some(url.clone()),
        headers: Default::default(),
        oauth: Default::default(),
    };
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .expect("sagedeck client connects");
    let bare_http = ().serve(StreamableHttpClientTransport::from_uri(url.clone())).await.expect("bare HTTP client");
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let served = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = served.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let bare_duplex = ().serve(tokio::io::split(client_io)).await.expect("bare duplex client");

    // Warm-up: connections, the sandbox's first-call paths, the allocator.
    for _ in 0..50 {
        sagedeck_call(&conn).await;
        bare_call(&bare_http).await;
        bare_call(&bare_duplex).await;
        raw_invoke(&fleet, &spec, &policy).await;
    }

    let mut a_sagedeck = Arm::new("(a) sagedeck McpConnection::call_tool, HTTP");
    let mut a_bare = Arm::new("(a) bare rmcp call_tool, HTTP");
    let mut b_duplex = Arm::new("(b) mcp serve classify_intent, duplex (bare)");
    let mut b_raw = Arm::new("(b) raw InvokeEndpoint via Fleet::invoke");
    let started = Instant::now();
    let limit = Duration::from_secs(600);
    let mut done = 0;
    while done < calls && started.elapsed() < limit {
        let n = BLOCK.min(calls - done);
        for _ in 0..n {
            a_sagedeck.samples.push(sagedeck_call(&conn).await);
        }
        for _ in 0..n {
            a_bare.samples.push(bare_call(&bare_http).await);
        }
        for _ in 0..n {
            b_duplex.samples.push(bare_call(&bare_duplex).await);
        }
        for _ in 0..n {
            b_raw.samples.push(raw_invoke(&fleet, &spec, &policy).await);
        }
        done += n;
    }

    print(
        "(a) client overhead: sagedeck's client vs a bare rmcp client, same server (mcp serve, streamable HTTP)",
        &[&a_sagedeck, &a_bare],
    );
    let (s, b) = (a_sagedeck.p50(), a_bare.p50());
    println!("    added at p50: {:+.1} µs ({:.3}× the bare call)", s - b, s / b);
    print(
        "(b) mcp serve tool latency vs the raw InvokeEndpoint it makes (fleet layer, sandbox)",
        &[&a_bare, &b_duplex, &b_raw],
    );
    let raw = b_raw.p50();
    for arm in [&a_bare, &b_duplex] {
        let p = arm.p50();
        let verdict = if p - raw < 1000.0 { "under" } else { "OVER" };
        println!(
            "    {}: added at p50 {:+.1} µs ({:.3}× raw) — {verdict} the 1 ms target",
            arm.name,
            p - raw,
            p / raw
        );
    }

    conn.disconnect().await;
    let _ = bare_http.cancel().await;
    let _ = bare_duplex.cancel().await;
    http.shutdown().await;
    handle.shutdown().await;
}
