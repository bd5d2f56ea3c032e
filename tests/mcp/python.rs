//! The seed's Radio Station server on the Python `mcp` SDK (FastMCP), over stdio, streamable
//! HTTP and the legacy HTTP+SSE transport the seed runs (`mcp.run(transport="sse")`).

use std::time::{Duration, Instant};

use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::{CallError, ConnectError, ConnectOptions, McpConnection, ServerEntry, TransportKind};
use serde_json::json;

use crate::peers::{python, radio_http, radio_script, setup};
use crate::{args, stdio_entry, timing, url_entry, wait_gone};

/// The Radio Station over stdio, as a registry entry named `radio`.
pub async fn radio_stdio() -> ServerEntry {
    let py = setup(python).await;
    stdio_entry(
        "radio",
        &py.to_string_lossy(),
        &[&radio_script(), "stdio"],
        &[("PYTHONNOUSERSITE", "1")],
    )
}

/// What every transport must do with the Radio Station.
async fn exercise(conn: &McpConnection, label: &str) {
    let names: Vec<String> = conn.tools().iter().map(|t| t.name.to_string()).collect();
    for want in ["top_song", "count_slowly", "fail"] {
        assert!(names.contains(&want.to_string()), "{label}: {names:?}");
    }
    let top = conn.tool("top_song").unwrap();
    assert_eq!(top.input_schema["required"], json!(["sign"]), "{label}");

    let t = Instant::now();
    let out = conn
        .call_tool("top_song", args(json!({"sign": "WZPZ"})), CallOptions::default())
        .await
        .unwrap();
    timing(&format!("python {label} tools/call top_song"), t.elapsed());
    assert!(!out.result.is_error, "{label}");
    let text = out.result.to_text();
    assert!(text.contains("In the end") && text.contains("WZPZ"), "{label}: {text}");

    // Progress reaches the caller's channel; the 400 ms timeout restarts with each of the
    // progress notifications (4 × 150 ms in all).
    let (ptx, mut prx) = tokio::sync::mpsc::unbounded_channel();
    let opts = CallOptions {
        timeout: Duration::from_millis(400),
        progress: Some(ptx),
        ..Default::default()
    };
    let out = conn
        .call_tool("count_slowly", args(json!({"steps": 4, "delay_ms": 150})), opts)
        .await
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(out.progress, 4, "{label}");
    let mut seen = Vec::new();
    while let Ok(p) = prx.try_recv() {
        seen.push(p.progress);
    }
    assert_eq!(seen, [1.0, 2.0, 3.0, 4.0], "{label}");
    assert_eq!(out.last_progress.unwrap().fraction(), Some(1.0));
    assert!(out.result.to_text().contains("counted to 4"));

    // Without progress the timeout fires, and the call is cancelled.
    let opts = CallOptions {
        timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let e = conn
        .call_tool("count_slowly", args(json!({"steps": 1, "delay_ms": 1500})), opts)
        .await
        .unwrap_err();
    assert!(matches!(e, CallError::Timeout { progress: 0, .. }), "{label}: {e:?}");

    // Python answers a failing tool and an unknown tool in-band.
    let out = conn
        .call_tool(
            "fail",
            args(json!({"message": "the station is off air"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(out.result.is_error);
    assert!(out.result.first_text().unwrap().contains("the station is off air"));
    let out = conn
        .call_tool("no_such_tool", None, CallOptions::default())
        .await
        .unwrap();
    assert!(out.result.is_error, "{label}: python answers an unknown tool in-band");
    assert!(out.result.first_text().unwrap().contains("no_such_tool"));

    // The session is still usable after the timeout.
    let out = conn
        .call_tool("top_song", args(json!({"sign": "WKRP"})), CallOptions::default())
        .await
        .unwrap();
    assert!(out.result.to_text().contains("WKRP"));
}

#[tokio::test]
async fn python_over_stdio() {
    let entry = radio_stdio().await;
    let t = Instant::now();
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .unwrap();
    timing("python stdio connect", t.elapsed());
    assert_eq!(conn.info().name, "Radio Station Server");
    exercise(&conn, "stdio").await;
    // Its stderr went to the server's log, not to the terminal (after the Python SDK's lines
    // about the `server/discover` probe it does not know).
    let log = conn.log().stderr_tail(200).join("\n");
    assert!(log.contains("radio station: starting"), "{log}");
    let pid = conn.child_pid().await.unwrap();
    conn.disconnect().await;
    wait_gone(pid, Duration::from_secs(5)).await;
}

#[tokio::test]
async fn python_over_streamable_http() {
    let peer = radio_http("streamable-http").await;
    let url = format!("http://127.0.0.1:{}/mcp", peer.port);
    let t = Instant::now();
    let conn = McpConnection::connect(
        &url_entry("radio-http", TransportKind::Http, &url, &[]),
        &ConnectOptions::default(),
    )
    .await
    .unwrap();
    timing("python streamable HTTP connect", t.elapsed());
    exercise(&conn, "streamable-http").await;
    conn.disconnect().await;
    // The SSE transport against a streamable HTTP server is explained.
    let e = McpConnection::connect(
        &url_entry("x", TransportKind::Sse, &url, &[]),
        &ConnectOptions::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, ConnectError::WrongTransport { .. }), "{e:?}");
    drop(peer);
}

#[tokio::test]
async fn python_over_legacy_sse_as_the_seed_runs_it() {
    let peer = radio_http("sse").await;
    let url = format!("http://127.0.0.1:{}/sse", peer.port);
    let entry = url_entry("radio-sse", TransportKind::Sse, &url, &[]);
    let t = Instant::now();
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .unwrap();
    timing("python legacy SSE connect", t.elapsed());
    exercise(&conn, "sse").await;
    conn.disconnect().await;
    // Streamable HTTP against the SSE server: 405, explained.
    let e = McpConnection::connect(
        &url_entry("x", TransportKind::Http, &url, &[]),
        &ConnectOptions::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, ConnectError::WrongTransport { .. }), "{e:?}");
    assert!(e.to_string().contains("\"sse\""), "{e}");
    drop(peer);
}

#[tokio::test]
async fn stdio_failures_are_explained_in_one_line() {
    let py = setup(python).await;
    let py = py.to_string_lossy();
    let opts = ConnectOptions {
        timeout: Duration::from_secs(20),
        ..Default::default()
    };
    let e = McpConnection::connect(&stdio_entry("x", "sagedeck-no-such-command", &[], &[]), &opts)
        .await
        .unwrap_err();
    assert_eq!(e.class(), "command_not_found");
    // A Python server that dies on import: the exit code and its last stderr lines.
    let dies = stdio_entry(
        "x",
        &py,
        &[
            "-c",
            "import sys; print('loading', file=sys.stderr); import no_such_module",
        ],
        &[],
    );
    let e = McpConnection::connect(&dies, &opts).await.unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, ConnectError::Exited { code: Some(1), .. }), "{e:?}");
    assert!(
        text.contains("exited with code 1") && text.contains("No module named 'no_such_module'"),
        "{text}"
    );
    assert!(!text.contains('\n'));
    // A process that never speaks MCP: a timeout, and the child is not left behind.
    let silent = stdio_entry("x", &py, &["-c", "import time; time.sleep(60)"], &[]);
    let short = ConnectOptions {
        timeout: Duration::from_millis(1500),
        ..Default::default()
    };
    let e = McpConnection::connect(&silent, &short).await.unwrap_err();
    assert!(matches!(e, ConnectError::Timeout { .. }), "{e:?}");
}
