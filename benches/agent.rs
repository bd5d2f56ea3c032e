//! The agent loop's own cost beside the LLM's and the tool's:
//!
//! * **per step, end to end**: agent runs on the sandbox's demo fleet (the TGI-style LLM
//!   `llm-tgi-chat` with its simulated model latency) calling `classify_intent` of `mcp serve
//!   --demo-tools` over streamable HTTP in-process; each step's trace splits its time into the LLM
//!   call, the tool call and sagedeck's own time (building the body, rendering the template,
//!   parsing, checking the arguments, audit lines, trace). Medians are printed per request shape:
//!   `/invocations` (messages, with the tools in the prompt or native; generate) against the
//!   OpenAI-compatible path (`openai`: Chat Completions over reqwest with a bearer token, minted
//!   at the run's first call and reused).
//! * **criterion**: finding the tool call in a 32 KB reply (prose with the call at the end in a
//!   fence, and prose alone), and building a step's generate body (Llama 3 template).
//!
//! Run: `CARGO_TARGET_DIR=target/bench cargo bench --bench agent`
//! (`SAGEDECK_BENCH_RUNS` changes the agent runs per shape, default 40.)

mod common;

use std::sync::Arc;

use criterion::{Criterion, criterion_group};
use sagedeck::aws::Fleet;
use sagedeck::aws::change::audit::{Audit, AuditContext};
use sagedeck::aws::change::guard::Audited;
use sagedeck::mcp::agent::parse::find_call;
use sagedeck::mcp::agent::run::Event;
use sagedeck::mcp::agent::shape::{BodySpec, body};
use sagedeck::mcp::agent::{Agent, AgentConfig, ApprovalMode, Message, Shape, Template, ToolFilter, gather_tools};
use sagedeck::mcp::server::{ToolServer, serve_http};
use sagedeck::mcp::tools_config::ToolsConfig;
use sagedeck::mcp::{ConnectOptions, McpHub, Registry, ServerEntry, TransportKind};
use sagedeck::sandbox::{SandboxConfig, start};

use common::{env_num, median, sdk_config};

const QUESTION: &str = "Classify the intent of this message: 'book me a flight to Paris'";

fn reply_32k(with_call: bool) -> String {
    let sentence = "The endpoint answered within its latency budget, and the canary's share {stays} as planned. ";
    let mut text = String::new();
    while text.len() < 32 * 1024 - 200 {
        text.push_str(sentence);
    }
    if with_call {
        text.push_str("\n```json\n{\"tool\": \"classify_intent\", \"arguments\": {\"user_input\": \"book me a flight\", \"options\": {\"a\": [1, {\"b\": 2}]}}}\n```\n");
    }
    text
}

fn parsing(c: &mut Criterion) {
    let with_call = reply_32k(true);
    let prose = reply_32k(false);
    c.bench_function("find_call 32 KB reply, call at the end in a fence", |b| {
        b.iter(|| find_call(std::hint::black_box(&with_call)))
    });
    c.bench_function("find_call 32 KB reply, prose only", |b| {
        b.iter(|| find_call(std::hint::black_box(&prose)))
    });
    let messages = vec![
        Message::new(
            "system",
            "You are a helpful assistant with access to these tools: ...".repeat(20),
        ),
        Message::new("user", QUESTION),
        Message::new(
            "assistant",
            "{\"tool\": \"classify_intent\", \"arguments\": {\"user_input\": \"x\"}}",
        ),
        Message::new("user", "Tool classify_intent returned:\n{\"label\": \"book_flight\"}"),
    ];
    let template = Template::Llama3;
    let spec = BodySpec {
        shape: Shape::Generate,
        template: &template,
        tools: None,
        max_new_tokens: 512,
        stream: false,
    };
    c.bench_function("generate body, llama3 template, 4 messages", |b| {
        b.iter(|| body(&spec, std::hint::black_box(&messages)))
    });
}

criterion_group!(benches, parsing);

async fn end_to_end(runs: u64) {
    let sb = start(SandboxConfig {
        demo_fleet: true,
        traffic_rate: None,
        backfill_hours: 0,
        random_errors: false,
        ..SandboxConfig::default()
    })
    .await
    .expect("sandbox");
    let url = sb.endpoint_url();
    let fleet = Fleet::from_sdk_config(&sdk_config(&url).await, "bench".into(), Some(url));
    let http = serve_http(
        ToolServer::new(fleet.clone(), ToolsConfig::demo()),
        "127.0.0.1:0".parse().expect("addr"),
        None,
    )
    .await
    .expect("mcp serve over HTTP");
    let entry = ServerEntry {
        name: "demo".into(),
        transport: TransportKind::Http,
        command: None,
        args: vec![],
        env: Default::default(),
        cwd: None,
        url: Some(http.url()),
        headers: Default::default(),
        oauth: Default::default(),
    };
    let hub = McpHub::new(
        &Registry {
            servers: vec![entry],
            source: None,
        },
        ConnectOptions::default(),
    );
    let tools = gather_tools(&hub, &["demo".into()], &ToolFilter::default())
        .await
        .expect("tools");
    let dir = tempfile::tempdir().expect("dir");
    println!("\nper step, medians over {runs} runs of 2 steps (ms):");
    println!(
        "{:<18} {:>9} {:>9} {:>10} {:>13} {:>15}",
        "shape", "LLM", "tool", "sagedeck", "of it: audit", "sagedeck-audit"
    );
    for (label, shape, template, native_tools) in [
        ("messages", Shape::Messages, Template::Chatml, false),
        ("messages/native", Shape::Messages, Template::Chatml, true),
        ("openai", Shape::Openai, Template::Chatml, true),
        ("generate/llama3", Shape::Generate, Template::Llama3, false),
    ] {
        let mut agent = Agent {
            fleet: fleet.clone(),
            hub: hub.clone(),
            tools: tools.clone(),
            config: AgentConfig {
                llm: "llm-tgi-chat".into(),
                shape,
                template,
                native_tools,
                approval: Some(ApprovalMode::Auto),
                ..Default::default()
            },
            audited: Audited {
                audit: Arc::new(Audit::open(dir.path().join("audit.jsonl")).expect("audit")),
                ctx: AuditContext::default(),
            },
            approver: None,
            on_event: Arc::new(|_: &Event| {}),
            cancel: tokio_util::sync::CancellationToken::new(),
            transcript_file: None,
        };
        let (mut llm, mut tool, mut own, mut audit, mut rest) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let t = agent.run(QUESTION).await;
            assert!(t.end.as_ref().and_then(|e| e.answer.as_ref()).is_some(), "{:?}", t.end);
            for s in &t.steps {
                llm.push(s.llm_ms);
                own.push(s.own_ms);
                audit.push(s.audit_ms);
                rest.push(s.own_ms - s.audit_ms);
                if let Some(x) = &s.tool {
                    tool.push(x.ms);
                }
            }
        }
        println!(
            "{label:<18} {:>9.2} {:>9.2} {:>10.3} {:>13.3} {:>15.3}",
            median(llm),
            median(tool),
            median(own),
            median(audit),
            median(rest)
        );
    }
    hub.shutdown().await;
    http.shutdown().await;
}

fn main() {
    let runs = env_num("SAGEDECK_BENCH_RUNS", 40);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(end_to_end(runs));
    benches();
    Criterion::default().configure_from_args().final_summary();
}
