//! The npm reference server `@modelcontextprotocol/server-everything` (TypeScript SDK): tool-list
//! changes right after connecting, progress that resets the timeout, a cancel it ignores (and
//! late progress after it), log notifications, image, resource-link and structured content.

use std::time::{Duration, Instant};

use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::events::ServerEvent;
use sagedeck::mcp::result::Block;
use sagedeck::mcp::{CallError, ConnectOptions, McpConnection, ServerEntry, TransportKind};
use serde_json::json;

use crate::common::poll_until;
use crate::peers::{everything, everything_http, setup};
use crate::{args, stdio_entry, timing, url_entry, wait_gone};

async fn everything_stdio() -> ServerEntry {
    let entry = setup(everything).await;
    stdio_entry("everything", "node", &[&entry.to_string_lossy(), "stdio"], &[])
}

async fn contents(conn: &McpConnection, label: &str) {
    let img = conn
        .call_tool("get-tiny-image", None, CallOptions::default())
        .await
        .unwrap();
    let image = img.result.blocks.iter().find_map(|b| match b {
        Block::Image { mime_type, bytes } => Some((mime_type.clone(), *bytes)),
        _ => None,
    });
    let (mime, bytes) = image.unwrap_or_else(|| panic!("{label}: no image in {:?}", img.result.blocks));
    assert_eq!(mime, "image/png");
    assert!(bytes.unwrap_or(0) > 0);
    assert!(img.result.to_text().contains("[image image/png"));

    let st = conn
        .call_tool(
            "get-structured-content",
            args(json!({"location": "Chicago"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(st.result.structured.as_ref().unwrap()["temperature"], 36, "{label}");
    assert_eq!(
        st.result.schema_errors,
        Some(vec![]),
        "{label}: validated against its outputSchema"
    );

    let links = conn
        .call_tool("get-resource-links", args(json!({"count": 2})), CallOptions::default())
        .await
        .unwrap();
    let n = links
        .result
        .blocks
        .iter()
        .filter(|b| matches!(b, Block::ResourceLink { .. }))
        .count();
    assert_eq!(n, 2, "{label}: {:?}", links.result.blocks);

    // The TypeScript SDK answers an unknown tool in-band.
    let unknown = conn
        .call_tool("no-such-tool", None, CallOptions::default())
        .await
        .unwrap();
    assert!(unknown.result.is_error, "{label}");
    assert!(unknown.result.first_text().unwrap().contains("no-such-tool"));
}

#[tokio::test]
async fn everything_over_stdio() {
    let entry = everything_stdio().await;
    let t = Instant::now();
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .unwrap();
    timing("server-everything stdio connect", t.elapsed());
    let mut events = conn.subscribe();

    // It registers more tools once initialized and says so: the list is fetched again.
    poll_until("tools/list_changed to be handled", Duration::from_secs(10), || {
        let log = conn.log();
        async move {
            log.tail(50)
                .iter()
                .any(|l| l.text.starts_with("tools/list_changed"))
                .then_some(())
        }
    })
    .await;
    let names: Vec<String> = conn.tools().iter().map(|t| t.name.to_string()).collect();
    for want in ["echo", "trigger-long-running-operation", "simulate-research-query"] {
        assert!(names.contains(&want.to_string()), "{names:?}");
    }

    contents(&conn, "stdio").await;

    // Progress restarts the 700 ms timeout: 5 steps of 300 ms.
    let t = Instant::now();
    let out = conn
        .call_tool(
            "trigger-long-running-operation",
            args(json!({"duration": 1.5, "steps": 5})),
            CallOptions {
                timeout: Duration::from_millis(700),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    timing("server-everything 1.5 s operation with progress", t.elapsed());
    assert_eq!(out.progress, 5);
    assert_eq!(out.last_progress.unwrap().total, Some(5.0));

    // It ignores a cancel and keeps reporting progress: the call ends at once, the late progress
    // is reported as such, and the session goes on.
    let cancel = tokio_util::sync::CancellationToken::new();
    let (ptx, mut prx) = tokio::sync::mpsc::unbounded_channel();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        if prx.recv().await.is_some() {
            c2.cancel();
        }
    });
    let e = conn
        .call_tool(
            "trigger-long-running-operation",
            args(json!({"duration": 1.6, "steps": 8})),
            CallOptions {
                cancel,
                progress: Some(ptx),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    // Cancelled before the 1.6 s operation ended: its progress goes on arriving after (below).
    assert_eq!(e, CallError::Cancelled);
    let late = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match events.recv().await {
                Ok(ServerEvent::Progress { late: true, .. }) => return true,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => return false,
            }
        }
    })
    .await;
    assert_eq!(late, Ok(true), "late progress after the cancel is reported");
    let echo = conn
        .call_tool("echo", args(json!({"message": "still here"})), CallOptions::default())
        .await
        .unwrap();
    assert!(echo.result.to_text().contains("still here"));

    // Log notifications reach the log and the listeners.
    conn.call_tool("toggle-simulated-logging", None, CallOptions::default())
        .await
        .unwrap();
    poll_until("a log notification", Duration::from_secs(10), || {
        let log = conn.log();
        async move {
            log.tail(100)
                .iter()
                .any(|l| matches!(l.source, sagedeck::mcp::events::LogSource::Notification(_)))
                .then_some(())
        }
    })
    .await;

    // Without progress, the timeout cancels the call.
    let e = conn
        .call_tool(
            "trigger-long-running-operation",
            args(json!({"duration": 2, "steps": 1})),
            CallOptions {
                timeout: Duration::from_millis(500),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(e, CallError::Timeout { progress: 0, .. }), "{e:?}");

    let pid = conn.child_pid().await.unwrap();
    conn.disconnect().await;
    wait_gone(pid, Duration::from_secs(5)).await;
}

#[tokio::test]
async fn everything_over_streamable_http() {
    let peer = everything_http("streamableHttp").await;
    let url = format!("http://127.0.0.1:{}/mcp", peer.port);
    let t = Instant::now();
    let conn = McpConnection::connect(
        &url_entry("e", TransportKind::Http, &url, &[]),
        &ConnectOptions::default(),
    )
    .await
    .unwrap();
    timing("server-everything streamable HTTP connect", t.elapsed());
    contents(&conn, "streamable-http").await;
    let out = conn
        .call_tool(
            "trigger-long-running-operation",
            args(json!({"duration": 0.6, "steps": 3})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.progress, 3);
    conn.disconnect().await;
    drop(peer);
}
