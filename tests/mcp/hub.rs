//! The layer the console's Tools tab uses: several servers with their status, calls routed by
//! server, the endpoint behind a tool; and an rmcp server that pages its tool list and changes it.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::events::ServerEvent;
use sagedeck::mcp::{ConnectOptions, McpConnection, McpHub, Registry, ServerStatus, TransportKind, endpoint_link};
use serde_json::json;

use crate::common::{demo_config, poll_until, sandbox_with};
use crate::own_server::own_stdio_entry;
use crate::{stdio_entry, url_entry, wait_gone};

#[tokio::test]
async fn hub_tracks_status_and_routes_calls() {
    let sb = sandbox_with(demo_config()).await;
    let registry = Registry {
        servers: vec![
            own_stdio_entry(&sb),
            stdio_entry("broken", "sagedeck-no-such-server", &[], &[]),
        ],
        source: None,
    };
    let hub = McpHub::new(&registry, ConnectOptions::default());
    assert!(hub.servers().iter().all(|s| s.status == ServerStatus::Idle));
    hub.connect_all().await;
    let views = hub.servers();
    match &views[0].status {
        ServerStatus::Connected {
            protocol_version,
            connect_ms,
        } => {
            assert!(!protocol_version.is_empty() && *connect_ms > 0.0)
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(views[0].tools.len(), 7);
    assert_eq!(views[0].server.as_deref(), Some("sagedeck-demo 0.1.0"));
    match &views[1].status {
        ServerStatus::Failed { class, reason } => {
            assert_eq!(class, "command_not_found");
            assert!(reason.contains("sagedeck-no-such-server"));
        }
        other => panic!("{other:?}"),
    }
    let out = hub
        .call(
            "sagedeck-demo",
            "classify_intent",
            json!({"user_input": "book a table"}).as_object().cloned(),
            CallOptions::default(),
        )
        .await
        .unwrap();
    let tool = views[0].tools.iter().find(|t| t.name == "classify_intent");
    let link = endpoint_link(tool, out.result.structured.as_ref()).unwrap();
    assert_eq!(link.endpoint, "mcp-intent-classifier-prod");
    assert_eq!(link.attempts, Some(1));
    assert!(hub.call("broken", "x", None, CallOptions::default()).await.is_err());
    let pid = hub.connection("sagedeck-demo").unwrap().child_pid().await.unwrap();
    hub.shutdown().await;
    assert_eq!(hub.servers()[0].status, ServerStatus::Disconnected);
    wait_gone(pid, Duration::from_secs(5)).await;
}

/// An rmcp server whose tool list comes in pages of two, and grows when `add_tool` is called.
#[derive(Clone)]
struct Paged {
    tools: Arc<Mutex<Vec<Tool>>>,
}

fn tool(name: &str) -> Tool {
    let schema = json!({"type": "object", "properties": {}})
        .as_object()
        .cloned()
        .unwrap();
    Tool::new(name.to_string(), format!("tool {name}"), Arc::new(schema))
}

impl ServerHandler for Paged {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start: usize = request.and_then(|r| r.cursor).and_then(|c| c.parse().ok()).unwrap_or(0);
        let all = self.tools.lock().clone();
        let end = (start + 2).min(all.len());
        let mut page = ListToolsResult::with_all_items(all[start.min(end)..end].to_vec());
        page.next_cursor = (end < all.len()).then(|| end.to_string());
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "add_tool" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let n = {
            let mut tools = self.tools.lock();
            let n = tools.len();
            tools.push(tool(&format!("extra_{n}")));
            n + 1
        };
        let _ = context.peer.notify_tool_list_changed().await;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("{n} tools"))]).into())
    }
}

#[tokio::test]
async fn paged_tool_lists_and_list_changed() {
    let tools: Vec<Tool> = ["add_tool", "a", "b", "c", "d"].iter().map(|n| tool(n)).collect();
    let server = Paged {
        tools: Arc::new(Mutex::new(tools)),
    };
    let (url, task) = crate::serve_rmcp(server).await;
    let entry = url_entry("paged", TransportKind::Http, &url, &[]);
    let conn = McpConnection::connect(&entry, &ConnectOptions::default())
        .await
        .unwrap();
    assert_eq!(conn.tools().len(), 5, "all three pages are listed");
    let mut events = conn.subscribe();
    let out = conn.call_tool("add_tool", None, CallOptions::default()).await.unwrap();
    assert_eq!(out.result.first_text().as_deref(), Some("6 tools"));
    let changed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Ok(ServerEvent::ToolsChanged { count }) = events.recv().await {
                return count;
            }
        }
    })
    .await
    .expect("a ToolsChanged event");
    assert_eq!(changed, 6);
    poll_until("the re-listed tools", Duration::from_secs(5), || {
        let n = conn.tools().len();
        async move { (n == 6).then_some(()) }
    })
    .await;
    assert!(conn.tool("extra_5").is_some());
    conn.disconnect().await;
    task.abort();
}
