//! What sagedeck's own `mcp serve` offers beside its tools, read by sagedeck's own client over
//! streamable HTTP: the served endpoints as resources (read through the fleet layer), the
//! template for any endpoint filled, the `triage_endpoint` prompt; and the eliciting tool
//! `classify_on_variant` asking for the variant — accepted, declined, dismissed — on
//! 2025-11-25 (`elicitation/create`) and on 2026-07-28 (`input_required`, asked again with the
//! answer).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitationCapability, Implementation,
    InputRequest, ProtocolVersion,
};
use rmcp::{ClientLifecycleMode, ServiceExt, serve_client_with_lifecycle};
use sagedeck::mcp::agent::{Shape, Template};
use sagedeck::mcp::client::CallOptions;
use sagedeck::mcp::elicit::{ElicitAnswer, Elicitation, Elicitor};
use sagedeck::mcp::resources::{fill_template, prompt_lines};
use sagedeck::mcp::result::Block;
use sagedeck::mcp::sampling::{Sampler, SamplingApproval, SamplingLlm};
use sagedeck::mcp::server::{HttpServerHandle, ToolServer, serve_http};
use sagedeck::mcp::tools_config::ToolsConfig;
use sagedeck::mcp::{CallError, ConnectOptions, McpConnection, TransportKind};
use sagedeck::sandbox::SandboxHandle;
use serde_json::{Value, json};

use crate::common::{demo_config, fleet, sandbox_with};
use crate::{args, url_entry};

const LIMIT: Duration = Duration::from_secs(20);
const EP: &str = "mcp-intent-classifier-prod";

async fn demo_server(sb: &SandboxHandle) -> HttpServerHandle {
    let server = ToolServer::new(fleet(sb).await, ToolsConfig::demo());
    serve_http(server, "127.0.0.1:0".parse().unwrap(), None)
        .await
        .expect("binds loopback")
}

async fn connect(h: &HttpServerHandle, opts: &ConnectOptions) -> McpConnection {
    let entry = url_entry("sagedeck-demo", TransportKind::Http, &h.url(), &[]);
    McpConnection::connect(&entry, opts).await.expect("connects")
}

/// Connects as `sagedeck demo`'s console does: with a sampling model, hence on 2025-11-25
/// (whose server-to-client requests 2026-07-28 has not), and `elicitor` for elicitations.
async fn connect_as_the_demo_console(
    sb: &SandboxHandle,
    h: &HttpServerHandle,
    elicitor: Option<Elicitor>,
) -> McpConnection {
    let llm = SamplingLlm::parse("llm-tgi-chat").unwrap();
    let sampler = Sampler::new(
        fleet(sb).await,
        llm,
        Shape::Messages,
        Template::Chatml,
        SamplingApproval::Never,
    );
    let opts = ConnectOptions {
        elicitor,
        sampling: Some(Arc::new(sampler)),
        ..Default::default()
    };
    connect(h, &opts).await
}

fn code(e: CallError) -> i32 {
    match e {
        CallError::JsonRpc { code, .. } => code,
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

#[tokio::test]
async fn own_server_offers_its_endpoints_as_resources_and_a_triage_prompt() {
    let sb = sandbox_with(demo_config()).await;
    let h = demo_server(&sb).await;
    let conn = connect(&h, &ConnectOptions::default()).await;
    assert!(
        conn.info().has_resources && conn.info().has_prompts,
        "{:?}",
        conn.info()
    );
    let catalog = conn.catalog(LIMIT).await.unwrap();
    let names: Vec<&str> = catalog.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            EP,
            "llm-tgi-chat",
            "xgboost-churn-csv",
            "mcp-multi-model-endpoint",
            "mcp-async-summarizer"
        ]
    );
    let uri = format!("sagemaker://us-east-1/endpoints/{EP}");
    assert_eq!(catalog.resources[0].uri, uri);
    assert_eq!(catalog.resources[0].mime_type.as_deref(), Some("application/json"));

    // Read through the fleet layer: status, variants and weights, the tools served on it.
    let parts = conn.read_resource(&uri, LIMIT).await.unwrap();
    assert_eq!((parts.len(), parts[0].uri.as_str()), (1, uri.as_str()));
    let v: Value = serde_json::from_str(parts[0].text.as_deref().unwrap()).unwrap();
    assert_eq!(
        (v["endpoint"].as_str(), v["status"].as_str()),
        (Some(EP), Some("InService")),
        "{v:#}"
    );
    let variants: Vec<&str> = (v["variants"].as_array().unwrap().iter())
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert!(variants.contains(&"Stable") && variants.contains(&"Canary"), "{v:#}");
    let shares: f64 = (v["variants"].as_array().unwrap().iter())
        .map(|x| x["traffic_share"].as_f64().unwrap())
        .sum();
    assert!((shares - 1.0).abs() < 1e-6, "the shares add up: {v:#}");
    assert_eq!(
        v["tools"],
        json!(["classify_intent", "explain_intent", "classify_on_variant"])
    );

    // The template names any endpoint; one SageMaker does not know is resource-not-found
    // (-32002, which 2026-07-28 spells -32602: SEP-2164).
    assert_eq!(catalog.templates.len(), 1);
    let template = &catalog.templates[0].uri_template;
    let filled = fill_template(template, args(json!({"name": "llm-tgi-chat"})).as_ref().unwrap()).unwrap();
    let parts = conn.read_resource(&filled, LIMIT).await.unwrap();
    let v: Value = serde_json::from_str(parts[0].text.as_deref().unwrap()).unwrap();
    assert_eq!(
        (v["endpoint"].as_str(), v["tools"].clone()),
        (Some("llm-tgi-chat"), json!(["generate_text"]))
    );
    let missing = fill_template(template, args(json!({"name": "no-such-endpoint"})).as_ref().unwrap()).unwrap();
    assert_eq!(conn.info().protocol_version, "2026-07-28");
    let e = conn.read_resource(&missing, LIMIT).await.unwrap_err().to_string();
    assert!(
        e.contains("-32602") && e.contains("no endpoint no-such-endpoint"),
        "{e}"
    );
    let elsewhere = format!("sagemaker://eu-west-1/endpoints/{EP}");
    assert_eq!(code(conn.read_resource(&elsewhere, LIMIT).await.unwrap_err()), -32602);

    // The triage prompt embeds the endpoint's resource and its recent errors.
    let prompt = &catalog.prompts[0];
    assert_eq!(prompt.name, "triage_endpoint");
    let arg = &prompt.arguments.as_ref().unwrap()[0];
    assert_eq!((arg.name.as_str(), arg.required), ("endpoint", Some(true)));
    let got = conn
        .get_prompt("triage_endpoint", args(json!({"endpoint": EP})).unwrap(), LIMIT)
        .await
        .unwrap();
    let lines = prompt_lines(&got);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(
        matches!(&lines[0].content, Block::Text { text } if text.contains(EP)),
        "{lines:#?}"
    );
    let embedded = serde_json::to_value(&got.messages[1].content).unwrap();
    assert_eq!(embedded["type"], "resource", "{embedded:#}");
    assert_eq!(embedded["resource"]["uri"], uri.as_str());
    assert!(embedded["resource"]["text"].as_str().unwrap().contains("\"InService\""));
    let Block::Text { text: errors } = &lines[2].content else {
        panic!("{lines:#?}")
    };
    let group = format!("/aws/sagemaker/Endpoints/{EP}");
    assert!(
        errors.contains(&group) && !errors.contains("could not be read"),
        "{errors}"
    );
    let no_arg = conn.get_prompt("triage_endpoint", Default::default(), LIMIT).await;
    assert_eq!(code(no_arg.unwrap_err()), -32602);
    conn.disconnect().await;
    h.shutdown().await;
}

/// Answers each elicitation with the next of `answers`, keeping what was asked.
fn answering(answers: Vec<ElicitAnswer>) -> (Elicitor, Arc<Mutex<Vec<Elicitation>>>) {
    let (elicitor, mut asks) = Elicitor::channel();
    let seen: Arc<Mutex<Vec<Elicitation>>> = Arc::default();
    let kept = seen.clone();
    tokio::spawn(async move {
        let mut answers = answers.into_iter();
        while let Some(ask) = asks.recv().await {
            kept.lock().unwrap().push(ask.request.clone());
            ask.answer(answers.next().unwrap_or(ElicitAnswer::Cancel));
        }
    });
    (elicitor, seen)
}

#[tokio::test]
async fn the_eliciting_tool_asks_for_the_variant_before_invoking() {
    let sb = sandbox_with(demo_config()).await;
    let h = demo_server(&sb).await;
    let canary = ElicitAnswer::Accept {
        content: Some(json!({"target_variant": "Canary"})),
    };
    let (elicitor, seen) = answering(vec![canary, ElicitAnswer::Decline, ElicitAnswer::Cancel]);
    // On 2025-11-25, where the server asks with elicitation/create.
    let conn = connect_as_the_demo_console(&sb, &h, Some(elicitor)).await;
    assert_eq!(conn.info().protocol_version, "2025-11-25");
    let call = |input: Value| {
        let conn = &conn;
        async move {
            (conn
                .call_tool("classify_on_variant", args(input), CallOptions::default())
                .await)
                .expect("answers")
                .result
        }
    };
    let accepted = call(json!({"user_input": "refund my order"})).await;
    assert!(!accepted.is_error, "{}", accepted.to_text());
    let s = accepted.structured.unwrap();
    assert!(s["intent"].is_string(), "{s:#}");
    assert_eq!(s["sagemaker"]["target_variant"], "Canary", "{s:#}");
    assert_eq!(s["sagemaker"]["invoked_variant"], "Canary", "{s:#}");
    {
        let asked = seen.lock().unwrap();
        let Elicitation::Form { message, schema } = &asked[0] else {
            panic!("{asked:?}")
        };
        assert!(message.contains(EP), "{message}");
        assert_eq!(
            schema["properties"]["target_variant"]["enum"],
            json!(["Stable", "Canary"])
        );
    }
    let declined = call(json!({"user_input": "refund my order"})).await;
    assert!(
        declined.is_error && declined.to_text().contains("declined"),
        "{}",
        declined.to_text()
    );
    let dismissed = call(json!({"user_input": "refund my order"})).await;
    assert!(
        dismissed.is_error && dismissed.to_text().contains("dismissed"),
        "{}",
        dismissed.to_text()
    );
    // A call that names the variant is not asked.
    let given = call(json!({"user_input": "refund my order", "target_variant": "Stable"})).await;
    assert_eq!(given.structured.unwrap()["sagemaker"]["invoked_variant"], "Stable");
    assert_eq!(seen.lock().unwrap().len(), 3, "asked three times, not four");
    conn.disconnect().await;
    h.shutdown().await;
}

#[tokio::test]
async fn on_2026_07_28_the_eliciting_tool_answers_input_required_and_takes_the_answer() {
    let sb = sandbox_with(demo_config()).await;
    let server = ToolServer::new(fleet(&sb).await, ToolsConfig::demo());
    let (s, c) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(s).await {
            let _ = running.waiting().await;
        }
    });
    let mut caps = ClientCapabilities::default();
    caps.elicitation = Some(ElicitationCapability::default());
    let info = ClientConfig::new(caps, Implementation::new("mrtr-test", "1"));
    let mode = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    };
    let client = serve_client_with_lifecycle(info, c, mode).await.expect("handshake");
    let input = json!({"user_input": "where is my parcel"});
    let params = CallToolRequestParams::new("classify_on_variant").with_arguments(input.as_object().unwrap().clone());
    let CallToolResponse::InputRequired(asked) = client.call_tool_once(params.clone()).await.unwrap() else {
        panic!("expected input_required")
    };
    let requests = asked.input_requests.unwrap();
    let Some(InputRequest::Elicitation(e)) = requests.get("choice") else {
        panic!("{requests:?}")
    };
    let form = serde_json::to_value(&e.params).unwrap();
    assert_eq!(
        form["requestedSchema"]["required"],
        json!(["target_variant"]),
        "{form:#}"
    );
    let answer = json!({"action": "accept", "content": {"target_variant": "Stable"}});
    let again = params
        .clone()
        .with_input_responses([("choice".to_string(), answer)].into());
    let CallToolResponse::Complete(r) = client.call_tool_once(again).await.unwrap() else {
        panic!("expected the result")
    };
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(r.structured_content.unwrap()["sagemaker"]["invoked_variant"], "Stable");
    let declined = params.with_input_responses([("choice".to_string(), json!({"action": "decline"}))].into());
    let CallToolResponse::Complete(r) = client.call_tool_once(declined).await.unwrap() else {
        panic!("expected the result")
    };
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let _ = client.cancel().await;
}

#[tokio::test]
async fn the_python_sdk_client_reads_an_endpoint_resource() {
    let sb = sandbox_with(demo_config()).await;
    let h = demo_server(&sb).await;
    let uri = format!("sagemaker://us-east-1/endpoints/{EP}");
    let v = crate::peers::python_client("read_resource.py", &[h.url().as_str(), uri.as_str()]).await;
    assert_eq!(v["resources"][0], uri.as_str(), "{v:#}");
    assert_eq!(
        v["templates"],
        json!(["sagemaker://us-east-1/endpoints/{name}"]),
        "{v:#}"
    );
    let part = &v["contents"][0];
    assert_eq!(
        (part["uri"].as_str(), part["mimeType"].as_str()),
        (Some(uri.as_str()), Some("application/json"))
    );
    let described: Value = serde_json::from_str(part["text"].as_str().unwrap()).unwrap();
    assert_eq!(described["status"], "InService", "{described:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_subscribed_endpoint_is_reported_updated_when_its_weights_change() {
    use sagedeck::mcp::events::ServerEvent;

    let sb = sandbox_with(demo_config()).await;
    let h = demo_server(&sb).await;
    // resources/subscribe is 2025-11-25's.
    let conn = connect_as_the_demo_console(&sb, &h, None).await;
    let mut events = conn.subscribe();
    let uri = format!("sagemaker://us-east-1/endpoints/{EP}");
    conn.subscribe_resource(&uri, LIMIT).await.expect("subscribes");
    let bad = conn
        .subscribe_resource("sagemaker://us-east-1/endpoints/a b", LIMIT)
        .await;
    assert_eq!(code(bad.unwrap_err()), -32002);
    let canary = aws_sdk_sagemaker::types::DesiredWeightAndCapacity::builder()
        .variant_name("Canary")
        .desired_weight(0.5)
        .build();
    (fleet(&sb).await.sagemaker.update_endpoint_weights_and_capacities())
        .endpoint_name(EP)
        .desired_weights_and_capacities(canary)
        .send()
        .await
        .expect("the weights change");
    let updated = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match events.recv().await {
                Ok(ServerEvent::ResourceUpdated { uri }) => break uri,
                Ok(_) => {}
                Err(e) => panic!("{e}"),
            }
        }
    })
    .await
    .expect("notifications/resources/updated within 20 s");
    assert_eq!(updated, uri);
    conn.unsubscribe_resource(&uri, LIMIT).await.expect("unsubscribes");
    conn.disconnect().await;
    h.shutdown().await;
}
