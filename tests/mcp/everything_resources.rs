//! Resources, resource templates and prompts of the npm reference server
//! `@modelcontextprotocol/server-everything` (TypeScript SDK), over stdio and streamable HTTP,
//! and the protocol revision agreed with it.

use std::time::Duration;

use sagedeck::mcp::resources::{fill_template, prompt_lines, template_variables};
use sagedeck::mcp::{ConnectOptions, McpConnection, TransportKind};
use serde_json::{Map, Value};

use crate::peers::{everything, everything_http, setup};
use crate::{stdio_entry, url_entry};

const LIMIT: Duration = Duration::from_secs(30);

async fn resources_and_prompts(conn: &McpConnection, label: &str) {
    assert!(!conn.info().protocol_version.is_empty(), "{label}");
    assert!(
        conn.info().has_resources && conn.info().has_prompts,
        "{label}: {:?}",
        conn.info()
    );
    let resources = conn.list_resources(LIMIT).await.unwrap();
    assert!(!resources.is_empty(), "{label}: no resources");
    let first = &resources[0];
    let parts = conn.read_resource(&first.uri, LIMIT).await.unwrap();
    assert!(!parts.is_empty(), "{label}: {} read empty", first.uri);
    assert_eq!(parts[0].uri, first.uri, "{label}");
    assert!(
        parts[0].text.is_some() || parts[0].size.is_some(),
        "{label}: {:?}",
        parts[0]
    );

    let templates = conn.list_resource_templates(LIMIT).await.unwrap();
    let t = templates.first().unwrap_or_else(|| panic!("{label}: no templates"));
    let mut args = Map::new();
    for v in template_variables(&t.uri_template) {
        args.insert(v, Value::String("1".into()));
    }
    let uri = fill_template(&t.uri_template, &args).unwrap();
    let parts = conn.read_resource(&uri, LIMIT).await.unwrap();
    assert!(!parts.is_empty(), "{label}: template {uri} read empty");

    let prompts = conn.list_prompts(LIMIT).await.unwrap();
    let simple = prompts
        .iter()
        .find(|p| p.arguments.iter().flatten().all(|a| a.required != Some(true)))
        .unwrap_or_else(|| panic!("{label}: no prompt without required arguments"));
    let got = conn.get_prompt(&simple.name, Map::new(), LIMIT).await.unwrap();
    let lines = prompt_lines(&got);
    assert!(!lines.is_empty(), "{label}: prompt {} has no messages", simple.name);
    assert!(
        lines.iter().all(|l| l.role == "user" || l.role == "assistant"),
        "{label}"
    );

    // A prompt missing a required argument is refused by the server: an error, not a panic.
    if let Some(p) = prompts
        .iter()
        .find(|p| p.arguments.iter().flatten().any(|a| a.required == Some(true)))
    {
        assert!(
            conn.get_prompt(&p.name, Map::new(), LIMIT).await.is_err(),
            "{label}: {}",
            p.name
        );
    }
}

#[tokio::test]
async fn everything_resources_over_stdio() {
    let entry = setup(everything).await;
    let entry = stdio_entry("everything", "node", &[&entry.to_string_lossy(), "stdio"], &[]);
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .unwrap();
    resources_and_prompts(&conn, "stdio").await;
    conn.disconnect().await;
}

#[tokio::test]
async fn everything_resources_over_streamable_http() {
    let peer = everything_http("streamableHttp").await;
    let url = format!("http://127.0.0.1:{}/mcp", peer.port);
    let conn = McpConnection::connect(
        &url_entry("e", TransportKind::Http, &url, &[]),
        &ConnectOptions::default(),
    )
    .await
    .unwrap();
    resources_and_prompts(&conn, "streamable-http").await;
    conn.disconnect().await;
}
