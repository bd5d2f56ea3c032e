//! The worker's resource and prompt jobs: a server's catalog (resources, templates, prompts),
//! a resource read or a prompt got (rendered into the lines the Tools pane shows), subscriptions;
//! what a connection reports unasked (list changes, resource updates) turned into events; and
//! the console's elicitor, which hands a server's request for input to the Tools pane.

use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use crate::mcp::elicit::Elicitor;
use crate::mcp::events::ServerEvent;
use crate::mcp::resources::{ReadPart, prompt_lines};
use crate::mcp::result::RenderedResult;
use crate::mcp::{McpConnection, McpHub};
use crate::tui::event::{AppEvent, ElicitSlot, ReadTarget};

/// How long a list, read or subscription may take.
const LIMIT: Duration = Duration::from_secs(30);

/// The console's elicitor: each request becomes an [`AppEvent::McpElicit`].
pub fn elicitor(events: UnboundedSender<AppEvent>) -> Elicitor {
    let (elicitor, mut rx) = Elicitor::channel();
    tokio::spawn(async move {
        while let Some(ask) = rx.recv().await {
            if let Err(unsent) = events.send(AppEvent::McpElicit(ElicitSlot::new(ask))) {
                // The console is gone: dropping the request answers cancel.
                drop(unsent);
                break;
            }
        }
    });
    elicitor
}

/// Lists a server's catalog and reports it.
pub(super) async fn catalog(hub: &McpHub, server: String, events: &UnboundedSender<AppEvent>) {
    let catalog = match hub.connection(&server) {
        Some(conn) => conn.catalog(LIMIT).await.map_err(|e| e.to_string()),
        None => Err(format!("{server} is not connected (c reconnects)")),
    };
    let _ = events.send(AppEvent::McpCatalog { server, catalog });
}

/// Reads a resource or gets a prompt and reports its lines.
pub(super) async fn read(hub: &McpHub, server: String, target: ReadTarget, events: &UnboundedSender<AppEvent>) {
    let what = target.label();
    let lines = match hub.connection(&server) {
        Some(conn) => read_lines(&conn, target).await,
        None => Err(format!("{server} is not connected (c reconnects)")),
    };
    let _ = events.send(AppEvent::McpContent { server, what, lines });
}

async fn read_lines(conn: &McpConnection, target: ReadTarget) -> Result<Vec<String>, String> {
    match target {
        ReadTarget::Resource(uri) => {
            let parts = conn.read_resource(&uri, LIMIT).await.map_err(|e| e.to_string())?;
            Ok(parts.iter().flat_map(part_lines).collect())
        }
        ReadTarget::Prompt { name, arguments } => {
            let got = conn
                .get_prompt(&name, arguments, LIMIT)
                .await
                .map_err(|e| e.to_string())?;
            let mut out: Vec<String> = got.description.iter().cloned().collect();
            for l in prompt_lines(&got) {
                out.push(format!("[{}]", l.role));
                let one = RenderedResult {
                    is_error: false,
                    blocks: vec![l.content],
                    structured: None,
                    schema_errors: None,
                };
                out.extend(one.to_text().lines().map(str::to_string));
            }
            Ok(out)
        }
    }
}

/// A part's lines: a heading with its URI and type, then its text or what its bytes are.
fn part_lines(p: &ReadPart) -> Vec<String> {
    let mime = p.mime_type.as_deref().unwrap_or("-");
    match (&p.text, p.binary_line()) {
        (_, Some(binary)) => vec![format!("{} {binary}", p.uri)],
        (Some(t), None) => std::iter::once(format!("{} ({mime})", p.uri))
            .chain(t.lines().map(str::to_string))
            .collect(),
        (None, None) => vec![format!("{} (empty)", p.uri)],
    }
}

/// Subscribes to (or unsubscribes from) a resource and reports it.
pub(super) async fn subscribe(hub: &McpHub, server: String, uri: String, on: bool, events: &UnboundedSender<AppEvent>) {
    let result = match hub.connection(&server) {
        Some(conn) if on => conn.subscribe_resource(&uri, LIMIT).await.map_err(|e| e.to_string()),
        Some(conn) => conn.unsubscribe_resource(&uri, LIMIT).await.map_err(|e| e.to_string()),
        None => Err(format!("{server} is not connected (c reconnects)")),
    };
    let _ = events.send(AppEvent::McpSubscribed {
        server,
        uri,
        on,
        result,
    });
}

/// What a connection reported unasked, as the console's events: list changes list the catalog
/// again, a resource update is forwarded. Returns whether the console still listens.
pub(super) async fn forward(hub: &McpHub, server: &str, ev: &ServerEvent, events: &UnboundedSender<AppEvent>) -> bool {
    match ev {
        ServerEvent::ResourcesChanged | ServerEvent::PromptsChanged => {
            catalog(hub, server.to_string(), events).await;
        }
        ServerEvent::ResourceUpdated { uri } => {
            let event = AppEvent::McpUpdated {
                server: server.to_string(),
                uri: uri.clone(),
            };
            return events.send(event).is_ok();
        }
        _ => {}
    }
    !events.is_closed()
}
