//! Tools in sampling (2025-11-25): the Python MCP SDK server's `pick_action` offers two runbook
//! tools in its `sampling/createMessage`; sagedeck answers with the sandbox's LLM endpoint in the
//! messages shape, which offers them natively and returns the model's call as `tool_use`
//! content (stopReason `toolUse`), then reads the tool's result back and answers in prose. The
//! generate shape, which has no tool format, declares no sampling tools and declines a request
//! that carries them, saying why.

#![allow(deprecated)] // sampling is deprecated by SEP-2577, still in 2025-11-25 and served here

use std::sync::Arc;

use rmcp::model::{CreateMessageRequestParams, Role, SamplingMessage, SamplingMessageContentBlock, Tool};
use sagedeck::aws::Fleet;
use sagedeck::aws::change::audit::{Audit, AuditContext};
use sagedeck::aws::change::guard::Audited;
use sagedeck::mcp::agent::{Shape, Template};
use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::sampling::{Sampler, SamplingApproval, SamplingLlm};
use sagedeck::mcp::{ConnectOptions, McpConnection};
use serde_json::{Value, json};

use crate::args;
use crate::common::{demo_config, sandbox_with};
use crate::sampling::{audit_lines, stdio_server};

const ASK: &str = "Restart the endpoint \"llm-tgi-chat\", it stopped answering";

fn sampler(fleet: &Fleet, shape: Shape, audit: &std::path::Path) -> Sampler {
    let audited = Audited {
        audit: Arc::new(Audit::open(audit).expect("audit log")),
        ctx: AuditContext::default(),
    };
    let llm = SamplingLlm::parse("llm-tgi-chat").unwrap();
    Sampler::new(fleet.clone(), llm, shape, Template::Chatml, SamplingApproval::Auto)
        .with_audit(audited, Some("sampling tools test".into()))
}

async fn pick_action(sampler: Arc<Sampler>) -> Value {
    let opts = ConnectOptions {
        sampling: Some(sampler),
        ..Default::default()
    };
    let conn = McpConnection::connect(&stdio_server().await, &opts)
        .await
        .expect("connects");
    let out = (conn
        .call_tool("pick_action", args(json!({"text": ASK})), CallOptions::default())
        .await)
        .expect("pick_action answers");
    conn.disconnect().await;
    assert!(!out.result.is_error, "{}", out.result.to_text());
    let text = out.result.first_text().expect("a text block");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn a_servers_tools_are_offered_to_the_model_and_its_call_comes_back_as_tool_use() {
    let sb = sandbox_with(demo_config()).await;
    let fleet = Fleet::for_url(&sb.endpoint_url()).await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let s = Arc::new(sampler(&fleet, Shape::Messages, &log));
    let r = pick_action(s.clone()).await;
    assert_eq!(r["declined"], false, "{r:#}");
    assert_eq!(r["stop_reason"], "toolUse", "{r:#}");
    let uses = r["tool_uses"].as_array().unwrap();
    assert_eq!(uses.len(), 1, "{r:#}");
    assert_eq!(uses[0]["name"], "restart_endpoint", "{r:#}");
    assert_eq!(uses[0]["input"], json!({"endpoint": "llm-tgi-chat"}), "{r:#}");
    // The tool's result went back to the model, which answered from it.
    assert_eq!(r["final_stop_reason"], "endTurn", "{r:#}");
    let last = r["final_text"].as_str().unwrap();
    assert!(last.contains("restart_endpoint") && last.contains("InService"), "{r:#}");
    assert_eq!(s.totals().answered, 2);
    let intent = &audit_lines(&log)[0];
    assert_eq!(
        intent["after"]["tools"],
        json!(["restart_endpoint", "page_oncall"]),
        "{intent:#}"
    );
    assert_eq!(intent["after"]["tool_choice"], "auto", "{intent:#}");
}

#[tokio::test]
async fn the_generate_shape_offers_no_sampling_tools_and_declines_them_saying_why() {
    let sb = sandbox_with(demo_config()).await;
    let fleet = Fleet::for_url(&sb.endpoint_url()).await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let s = Arc::new(sampler(&fleet, Shape::Generate, &log));
    assert!(!s.answers_tools());
    // The server sees no sampling tools declared, and does not send them.
    let r = pick_action(s.clone()).await;
    assert_eq!(r["declined"], true, "{r:#}");
    assert!(r["message"].as_str().unwrap().contains("tools"), "{r:#}");
    // A request that carries them anyway is declined before the model is called.
    let tool = Tool::new(
        "restart_endpoint",
        "Restart an endpoint",
        Arc::new(serde_json::Map::new()),
    );
    let mut params = CreateMessageRequestParams::new(
        vec![SamplingMessage::new(Role::User, SamplingMessageContentBlock::text(ASK))],
        64,
    );
    params.tools = Some(vec![tool]);
    let e = s.answer("runbook", &params).await.unwrap_err();
    assert_eq!(e.code.0, -32602, "{e:?}");
    assert!(e.message.contains("generate shape has no tool format"), "{}", e.message);
    assert_eq!((s.totals().answered, s.totals().declined), (0, 1));
    let refused = audit_lines(&log).pop().unwrap();
    assert!(
        refused["result"].as_str().unwrap().contains("no tool format"),
        "{refused:#}"
    );
}
