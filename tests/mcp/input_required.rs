//! 2026-07-28 input requests by retry: an rmcp server (its server API, over streamable HTTP)
//! answers `tools/call` with `resultType: "input_required"` — an elicitation, or a sampling
//! request — and an opaque request state; sagedeck asks its elicitor (a form answered here; the
//! CLI's `--elicit FILE`), calls again with the answers and the state echoed, and shows the
//! result; a sampling request without `--sampling-llm` fails the call saying how to enable it.

use std::sync::Arc;

use parking_lot::Mutex;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InputRequests, InputRequiredResult,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::elicit::Elicitation;
use sagedeck::mcp::{CallError, ConnectOptions, McpConnection, TransportKind};
use sagedeck::sandbox::SandboxConfig;
use serde_json::{Value, json};

use crate::common::{run_cli, sandbox_with};
use crate::url_entry;

/// A server whose `book` tool needs a seat (an elicitation) and whose `summarize` tool needs a
/// completion (a sampling request) before it answers; it keeps the retries it saw.
#[derive(Clone, Default)]
struct Asking {
    retries: Arc<Mutex<Vec<Value>>>,
}

fn input_requests(v: Value) -> InputRequests {
    serde_json::from_value(v).expect("input requests")
}

impl Asking {
    fn book(&self, request: &CallToolRequestParams) -> CallToolResponse {
        let Some(answers) = &request.input_responses else {
            let asked = input_requests(json!({"seat": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "Which seat?",
                "requestedSchema": {"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]}
            }}}));
            return InputRequiredResult::new(Some(asked), Some("round-1".into())).into();
        };
        self.retries
            .lock()
            .push(json!({"responses": answers, "state": request.request_state}));
        let text = match answers["seat"]["action"].as_str() {
            Some("accept") => format!(
                "booked {} ({})",
                answers["seat"]["content"]["seat"].as_str().unwrap_or("?"),
                request.request_state.as_deref().unwrap_or("no state")
            ),
            other => format!("not booked: {other:?}"),
        };
        CallToolResult::success(vec![ContentBlock::text(text)]).into()
    }
}

impl ServerHandler for Asking {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "book" => Ok(self.book(&request)),
            "summarize" => Ok(InputRequiredResult::from_input_requests(input_requests(json!({
                "llm": {"method": "sampling/createMessage", "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize the incident"}}],
                    "maxTokens": 50
                }}
            })))
            .into()),
            _ => Err(ErrorData::invalid_params("unknown tool", None)),
        }
    }
}

#[tokio::test]
async fn an_input_request_is_answered_and_the_call_sent_again() {
    let server = Asking::default();
    let (url, task) = crate::serve_rmcp(server.clone()).await;
    let (elicitor, asked) = crate::accepting_elicitor(json!({"seat": "12A"}));
    let opts = ConnectOptions {
        elicitor: Some(elicitor),
        ..Default::default()
    };
    let conn = McpConnection::connect(&url_entry("asking", TransportKind::Http, &url, &[]), &opts)
        .await
        .unwrap();
    assert_eq!(conn.info().protocol_version, "2026-07-28");
    let out = conn.call_tool("book", None, CallOptions::default()).await.unwrap();
    assert_eq!(out.result.first_text().as_deref(), Some("booked 12A (round-1)"));
    assert_eq!(out.input_rounds, 1);
    match &asked.lock()[..] {
        [Elicitation::Form { message, schema }] => {
            assert_eq!(message, "Which seat?");
            assert_eq!(schema["required"], json!(["seat"]));
        }
        other => panic!("one form asked, got {other:?}"),
    }
    let retries = server.retries.lock().clone();
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert_eq!(retries[0]["state"], "round-1", "the state is echoed");
    assert!(
        conn.log()
            .tail(20)
            .iter()
            .any(|l| l.text.contains("book: input_required (elicitation seat)")),
        "the log says what was asked"
    );

    let e = conn
        .call_tool("summarize", None, CallOptions::default())
        .await
        .unwrap_err();
    match &e {
        CallError::JsonRpc { message, .. } => assert!(
            message.starts_with("the server asked for a completion:") && message.contains("--sampling-llm"),
            "{e}"
        ),
        other => panic!("expected the sampling refusal, got {other:?}"),
    }
    conn.disconnect().await;
    task.abort();
}

#[tokio::test]
async fn tools_call_answers_an_input_request_from_the_elicit_file() {
    let (url, task) = crate::serve_rmcp(Asking::default()).await;
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(&cfg, json!({"mcpServers": {"asking": {"url": url}}}).to_string()).unwrap();
    let answers = dir.path().join("answers.json");
    std::fs::write(
        &answers,
        json!({"action": "accept", "content": {"seat": "3C"}}).to_string(),
    )
    .unwrap();
    let (cfg, answers) = (cfg.to_string_lossy(), answers.to_string_lossy());
    let args = [
        "tools",
        "call",
        "asking",
        "book",
        "--json",
        "--elicit",
        &answers,
        "--mcp-config",
        &cfg,
    ];
    let r = run_cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["input_rounds"], 1, "{v:#}");
    assert!(v["result"].to_string().contains("booked 3C (round-1)"), "{v:#}");
    task.abort();
}
