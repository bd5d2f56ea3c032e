//! `sagedeck mcp serve --http` against raw HTTP requests: foreign browser origins and `null` are
//! refused (403) unless given with `--allow-origin`, the bearer scheme is accepted in any case, and a
//! session DELETE is answered as the MCP spec says (204, then 404 for the gone session).

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;

use crate::common::{cli_command, demo_config, sandbox_with, spawn_announced};

const TOKEN: &str = "guard-t0ken";
const ALLOWED: &str = "https://console.example:8443";
/// `mcp serve` of the demo tools over HTTP on any free loopback port.
const SERVE: [&str; 5] = ["mcp", "serve", "--demo-tools", "--http", "127.0.0.1:0"];

/// Starts `mcp serve --http` with a token and one allowed origin; returns the child and its URL.
async fn start_server(
    sb: &sagedeck::sandbox::SandboxHandle,
    home: &std::path::Path,
) -> (tokio::process::Child, String) {
    let args = [&SERVE[..], &["--token", TOKEN, "--allow-origin", ALLOWED]].concat();
    spawn_announced(cli_command(sb, home, &args, &[])).await
}

/// POSTs an `initialize` request with `auth` and `origin` headers.
async fn initialize(url: &str, auth: &str, origin: Option<&str>) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let mut req = reqwest::Client::new()
        .post(url)
        .header("authorization", auth)
        .header("accept", "application/json, text/event-stream")
        .json(&body);
    if let Some(o) = origin {
        req = req.header("origin", o);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn origins_bearer_scheme_and_session_delete() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let (mut server, url) = start_server(&sb, home.path()).await;
    let bearer = format!("Bearer {TOKEN}");
    let own = url.trim_end_matches("/mcp").to_string();
    let port = own.rsplit(':').next().unwrap().to_string();

    for foreign in [
        "null",
        "https://evil.example",
        "http://127.0.0.1:1",
        "https://console.example:9443",
    ] {
        let r = initialize(&url, &bearer, Some(foreign)).await;
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "Origin {foreign}");
    }
    let localhost = format!("http://localhost:{port}");
    for allowed in [None, Some(own.as_str()), Some(localhost.as_str()), Some(ALLOWED)] {
        let r = initialize(&url, &bearer, allowed).await;
        assert_eq!(r.status(), StatusCode::OK, "Origin {allowed:?}");
    }

    for scheme in ["BEARER", "bearer", "BeArEr"] {
        let r = initialize(&url, &format!("{scheme} {TOKEN}"), None).await;
        assert_eq!(r.status(), StatusCode::OK, "scheme {scheme}");
    }
    let r = initialize(&url, &format!("Basic {TOKEN}"), None).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);

    let r = initialize(&url, &bearer, None).await;
    let session = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    drop(r);
    let delete = || {
        reqwest::Client::new()
            .delete(&url)
            .header("authorization", &bearer)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
    };
    assert_eq!(delete().await.unwrap().status(), StatusCode::NO_CONTENT);
    assert_eq!(
        delete().await.unwrap().status(),
        StatusCode::NOT_FOUND,
        "the session is gone"
    );

    server.start_kill().unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(5), server.wait()).await;
}

#[tokio::test]
async fn a_malformed_allowed_origin_is_invalid_input() {
    let sb = sandbox_with(demo_config()).await;
    for bad in ["console.example", "https://console.example/app", "ftp://x"] {
        let r = crate::common::run_cli(&sb, &[&SERVE[..], &["--allow-origin", bad]].concat()).await;
        assert_eq!(r.code, 2, "{bad}: {}", r.stderr);
        assert!(r.stderr.contains("--allow-origin"), "{}", r.stderr);
    }
}
