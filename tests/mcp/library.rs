//! Resources, prompts and elicitation against the Python `mcp` SDK's Library server
//! (`tests/mcp_peers/library_server.py`) over stdio and streamable HTTP: resources (text, binary,
//! titled with an icon), a resource template filled with arguments, prompts and their messages,
//! a subscription and its `resources/updated`, `resources/list_changed`, form elicitation
//! answered accept, decline and cancel, URL elicitation, a resource link with its title and icon.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use parking_lot::Mutex;
use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::elicit::{ElicitAnswer, Elicitation, Elicitor};
use sagedeck::mcp::events::ServerEvent;
use sagedeck::mcp::resources::fill_template;
use sagedeck::mcp::result::Block;
use sagedeck::mcp::{ConnectOptions, McpConnection, ServerEntry, TransportKind};
use serde_json::json;

use crate::common::poll_until;
use crate::peers::{library_script, python, python_http, setup};
use crate::{args, stdio_entry, url_entry};

const LIMIT: Duration = Duration::from_secs(30);

/// The Library over stdio, as a registry entry named `library`.
pub async fn library_stdio() -> ServerEntry {
    let py = setup(python).await;
    stdio_entry(
        "library",
        &py.to_string_lossy(),
        &[&library_script(), "stdio"],
        &[("PYTHONNOUSERSITE", "1")],
    )
}

/// The requests an elicitor was asked, answered in turn from `answers`.
type Asked = Arc<Mutex<Vec<(String, Elicitation)>>>;

fn answering(answers: Vec<ElicitAnswer>) -> (Elicitor, Asked) {
    let (elicitor, mut rx) = Elicitor::channel();
    let asked: Asked = Arc::default();
    let seen = asked.clone();
    tokio::spawn(async move {
        let mut answers = answers.into_iter();
        while let Some(ask) = rx.recv().await {
            seen.lock().push((ask.server.clone(), ask.request.clone()));
            ask.answer(answers.next().unwrap_or(ElicitAnswer::Cancel));
        }
    });
    (elicitor, asked)
}

async fn call_text(conn: &McpConnection, tool: &str, a: serde_json::Value) -> String {
    let out = conn.call_tool(tool, args(a), CallOptions::default()).await.unwrap();
    assert!(!out.result.is_error, "{tool}: {}", out.result.to_text());
    out.result.to_text()
}

async fn resources_and_prompts(conn: &McpConnection, label: &str) {
    assert!(conn.info().has_resources && conn.info().has_prompts, "{label}");
    let resources = conn.list_resources(LIMIT).await.unwrap();
    let catalog = resources.iter().find(|r| r.uri == "library://catalog").unwrap();
    assert_eq!(catalog.title.as_deref(), Some("Library catalog"), "{label}");
    assert_eq!(
        catalog.icons.as_ref().unwrap()[0].src,
        "https://library.example/catalog.png"
    );
    let templates = conn.list_resource_templates(LIMIT).await.unwrap();
    assert_eq!(templates[0].uri_template, "library://books/{isbn}", "{label}");

    let cover = conn.read_resource("library://cover.png", LIMIT).await.unwrap();
    assert_eq!(cover[0].mime_type.as_deref(), Some("image/png"), "{label}");
    assert_eq!(cover[0].size, Some(32), "{label}");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(cover[0].base64.as_deref().unwrap())
        .unwrap();
    assert_eq!(&bytes[..4], b"\x89PNG", "{label}");
    let uri = fill_template(
        &templates[0].uri_template,
        args(json!({"isbn": "978-3"})).as_ref().unwrap(),
    )
    .unwrap();
    let book = conn.read_resource(&uri, LIMIT).await.unwrap();
    assert_eq!(book[0].text.as_deref(), Some("book 978-3: on the shelf"), "{label}");

    let prompts = conn.list_prompts(LIMIT).await.unwrap();
    let summarize = prompts.iter().find(|p| p.name == "summarize").unwrap();
    assert_eq!(summarize.title.as_deref(), Some("Summarize a book"));
    let required: Vec<bool> = summarize
        .arguments
        .iter()
        .flatten()
        .map(|a| a.required == Some(true))
        .collect();
    assert_eq!(required, [true, false], "title required, tone not");
    let got = conn
        .get_prompt("interview", args(json!({"author": "Le Guin"})).unwrap(), LIMIT)
        .await
        .unwrap();
    let lines = sagedeck::mcp::resources::prompt_lines(&got);
    let roles: Vec<&str> = lines.iter().map(|l| l.role.as_str()).collect();
    assert_eq!(roles, ["user", "assistant"], "{label}");
    assert_eq!(
        lines[0].content,
        Block::Text {
            text: "Interview Le Guin.".into()
        }
    );
}

async fn notifications(conn: &McpConnection, label: &str) {
    let mut events = conn.subscribe();
    assert!(conn.info().resources_subscribe, "{label}");
    assert!(
        call_text(conn, "touch", json!({"uri": "library://catalog"}))
            .await
            .contains("not subscribed")
    );
    conn.subscribe_resource("library://catalog", LIMIT).await.unwrap();
    assert!(
        call_text(conn, "touch", json!({"uri": "library://catalog"}))
            .await
            .contains("updated")
    );
    call_text(conn, "add_book", json!({"isbn": "9"})).await;
    let (mut updated, mut changed) = (false, false);
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !(updated && changed) {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(ServerEvent::ResourceUpdated { uri })) => updated |= uri == "library://catalog",
            Ok(Ok(ServerEvent::ResourcesChanged)) => changed = true,
            Ok(Ok(_)) => {}
            other => panic!("{label}: updated {updated}, list changed {changed}: {other:?}"),
        }
    }
    let resources = conn.list_resources(LIMIT).await.unwrap();
    assert!(resources.iter().any(|r| r.uri == "library://new/9"), "{label}");
    conn.unsubscribe_resource("library://catalog", LIMIT).await.unwrap();
    assert!(
        call_text(conn, "touch", json!({"uri": "library://catalog"}))
            .await
            .contains("not subscribed")
    );

    let link = conn
        .call_tool("link_book", args(json!({"isbn": "9"})), CallOptions::default())
        .await
        .unwrap();
    let Some(Block::ResourceLink { title, icons, .. }) = link.result.blocks.first() else {
        panic!("{label}: {:?}", link.result.blocks)
    };
    assert_eq!(title.as_deref(), Some("Book 9"));
    assert_eq!(icons, &["https://library.example/book.png"]);
    assert!(
        link.result.to_text().contains("Book 9 (book-9)"),
        "{}",
        link.result.to_text()
    );
}

async fn elicitation(entry: &ServerEntry, label: &str) {
    let (elicitor, asked) = answering(vec![
        ElicitAnswer::Accept {
            content: Some(json!({"days": 3, "pickup": true})),
        },
        ElicitAnswer::Decline,
        ElicitAnswer::Cancel,
        ElicitAnswer::Accept { content: None },
    ]);
    let opts = ConnectOptions {
        elicitor: Some(elicitor),
        ..Default::default()
    };
    let conn = McpConnection::connect(entry, &opts).await.unwrap();
    let dune = json!({"title": "Dune"});
    assert!(
        call_text(&conn, "reserve", dune.clone())
            .await
            .contains("reserved Dune for 3 days (pickup True)")
    );
    assert!(
        call_text(&conn, "reserve", dune.clone())
            .await
            .contains("reservation decline")
    );
    assert!(call_text(&conn, "reserve", dune).await.contains("reservation cancel"));
    assert!(
        call_text(&conn, "verify_card", json!({}))
            .await
            .contains("verification accept")
    );
    let asked = asked.lock().clone();
    assert_eq!(asked.len(), 4, "{label}");
    assert_eq!(asked[0].0, entry.name);
    let Elicitation::Form { message, schema } = &asked[0].1 else {
        panic!("{label}: {asked:?}")
    };
    assert_eq!(message, "Reserve Dune: for how long?");
    assert_eq!(schema["properties"]["days"]["type"], "integer", "{label}: {schema}");
    let Elicitation::Url { url, .. } = &asked[3].1 else {
        panic!("{label}: {asked:?}")
    };
    assert_eq!(url, "https://library.example/verify?c=1");
    let log: Vec<String> = conn.log().tail(100).into_iter().map(|l| l.text).collect();
    assert!(
        log.iter().any(|l| l.contains("elicitation/create cancelled")),
        "{label}: {log:?}"
    );
    conn.disconnect().await;

    // Nobody to ask: declined, and the log says why.
    let conn = McpConnection::connect(entry, &ConnectOptions::default()).await.unwrap();
    assert!(
        call_text(&conn, "reserve", json!({"title": "Emma"}))
            .await
            .contains("reservation decline")
    );
    let log: Vec<String> = conn.log().tail(100).into_iter().map(|l| l.text).collect();
    assert!(log.iter().any(|l| l.contains("declined (nobody to ask)")), "{log:?}");
    conn.disconnect().await;
}

#[tokio::test]
async fn library_over_stdio() {
    let entry = library_stdio().await;
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .unwrap();
    assert!(conn.info().protocol_version.starts_with("2025-"), "{:?}", conn.info());
    resources_and_prompts(&conn, "stdio").await;
    notifications(&conn, "stdio").await;
    conn.disconnect().await;
    elicitation(&entry, "stdio").await;
}

#[tokio::test]
async fn library_over_streamable_http() {
    let peer = python_http(&library_script(), "streamable-http").await;
    let url = format!("http://127.0.0.1:{}/mcp", peer.port);
    let entry = url_entry("library", TransportKind::Http, &url, &[]);
    let conn = poll_until("the library to answer over HTTP", LIMIT, || {
        let entry = entry.clone();
        async move { McpConnection::connect(&entry, &ConnectOptions::default()).await.ok() }
    })
    .await;
    resources_and_prompts(&conn, "http").await;
    notifications(&conn, "http").await;
    conn.disconnect().await;
    elicitation(&entry, "http").await;
}
