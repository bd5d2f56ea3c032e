//! The legacy SSE transport against hostile servers: an `endpoint` event naming another origin
//! (a second listener must see no request, so no configured header leaves the SSE URL's origin)
//! and an endless line (refused once it passes the bound, never buffered whole).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::Body;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use axum::routing::{any, get};
use futures_util::{StreamExt, stream};
use serde_json::json;

use crate::common::{run_cli, sandbox};

/// Serves `router` on a loopback port; returns its base URL.
async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}")
}

fn event_stream(body: Body) -> Response {
    Response::builder()
        .header(CONTENT_TYPE, "text/event-stream")
        .body(body)
        .unwrap()
}

/// An SSE server whose only event is `endpoint` naming `endpoint`; the stream then stays open.
fn sse_naming(endpoint: String) -> Router {
    Router::new().route(
        "/sse",
        get(move || {
            let first = format!("event: endpoint\r\ndata: {endpoint}\r\n\r\n");
            let events = stream::once(async move { Ok::<_, std::io::Error>(first) }).chain(stream::pending());
            async move { event_stream(Body::from_stream(events)) }
        }),
    )
}

fn write_config(dir: &tempfile::TempDir, url: &str) -> String {
    let path = dir.path().join("mcp.json");
    let servers = json!({"mcpServers": {"legacy": {
        "url": url, "transport": "sse",
        "headers": {"Authorization": "Bearer origin-secret-1", "X-Api-Key": "origin-secret-2"}
    }}});
    std::fs::write(&path, servers.to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

#[tokio::test]
async fn an_endpoint_on_another_origin_is_refused_and_sees_no_request() {
    let sb = sandbox().await;
    let hits = Arc::new(AtomicUsize::new(0));
    let seen = hits.clone();
    let other = serve(Router::new().fallback(any(move || {
        seen.fetch_add(1, Ordering::SeqCst);
        async { "ok" }
    })))
    .await;
    let sse = serve(sse_naming(format!("{other}/messages/?session_id=1"))).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(&dir, &format!("{sse}/sse"));

    let list = run_cli(&sb, &["tools", "list", "--mcp-config", &cfg]).await;
    let call = run_cli(&sb, &["tools", "call", "legacy", "anything", "--mcp-config", &cfg]).await;
    for r in [&list, &call] {
        assert_eq!(r.code, 3, "a connection failure: {}", r.stderr);
        let line = r.stderr.trim_end();
        assert!(!line.contains('\n'), "one line: {line}");
        assert!(
            line.contains("legacy: the `endpoint` event names") && line.contains("another origin"),
            "{line}"
        );
        assert!(!format!("{}{}", r.stdout, r.stderr).contains("origin-secret"));
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "the other origin received a request");
}

#[tokio::test]
async fn an_endless_line_fails_with_a_bounded_error() {
    let sb = sandbox().await;
    let sse = serve(Router::new().route(
        "/sse",
        get(|| {
            let chunk = bytes::Bytes::from(vec![b'x'; 64 * 1024]);
            let first = stream::once(async { Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"data: ")) });
            let endless = stream::repeat(chunk).map(Ok);
            async move { event_stream(Body::from_stream(first.chain(endless))) }
        }),
    ))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(&dir, &format!("{sse}/sse"));
    let r = run_cli(&sb, &["tools", "list", "--mcp-config", &cfg, "--connect-timeout", "60"]).await;
    assert_eq!(r.code, 3, "{}", r.stderr);
    let limit = sagedeck::mcp::transport_sse::MAX_SSE_EVENT_BYTES;
    assert!(
        r.stderr.contains(&format!("exceeds {limit} bytes")) && !r.stderr.trim_end().contains('\n'),
        "{}",
        r.stderr
    );
}
