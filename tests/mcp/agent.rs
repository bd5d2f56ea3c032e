//! The agent loop end to end: the seed's Radio Station (Python FastMCP) over stdio and legacy SSE,
//! the sandbox's LLM in both request shapes (and native tool calls, and streaming), and every bad
//! path with its stated outcome: unknown tool, malformed JSON, bad arguments, isError, max steps,
//! token budget (the step over it calls no tool), deadline, approval (never, denied, edited, edited
//! against the input schema), an unwritable audit log, and the
//! audit lines written before each call.

use std::sync::Arc;
use std::time::Duration;

use sagedeck::aws::change::audit::{Audit, AuditContext, AuditPhase};
use sagedeck::aws::change::guard::Audited;
use sagedeck::mcp::agent::run::Event;
use sagedeck::mcp::agent::{
    Agent, AgentConfig, ApprovalMode, Decision, Shape, Stop, Template, ToolFilter, Transcript, gather_tools,
};
use sagedeck::mcp::{ConnectOptions, McpHub, Registry, ServerEntry, TransportKind};
use sagedeck::sandbox::SandboxHandle;
use sagedeck::sandbox::faults::FaultSpec;
use serde_json::{Value, json};

use crate::common::{demo_config, fleet, sandbox_with};
use crate::peers::radio_http;
use crate::python::radio_stdio;
use crate::url_entry;

/// The seed's question.
pub const QUESTION: &str = "What is the most played song on WZPZ?";
const LLM: &str = "llm-tgi-chat";

/// A hub over one entry, connected.
async fn hub_of(entry: ServerEntry) -> McpHub {
    let hub = McpHub::new(
        &Registry {
            servers: vec![entry.clone()],
            source: None,
        },
        ConnectOptions::default(),
    );
    hub.connect(&entry.name).await.expect("the server connects");
    hub
}

pub(crate) struct Fixture {
    pub(crate) sb: SandboxHandle,
    pub(crate) hub: McpHub,
    pub(crate) audit_dir: tempfile::TempDir,
}

impl Fixture {
    pub(crate) async fn new(entry: ServerEntry) -> Fixture {
        Fixture {
            sb: sandbox_with(demo_config()).await,
            hub: hub_of(entry).await,
            audit_dir: tempfile::tempdir().unwrap(),
        }
    }

    pub(crate) fn audit_path(&self) -> std::path::PathBuf {
        self.audit_dir.path().join("audit.jsonl")
    }

    pub(crate) async fn agent(&self, config: AgentConfig) -> Agent {
        self.agent_with_audit(config, Audit::open(self.audit_path()).unwrap())
            .await
    }

    async fn agent_with_audit(&self, config: AgentConfig, audit: Audit) -> Agent {
        let server = self.hub.servers()[0].name.clone();
        let tools = gather_tools(&self.hub, &[server], &ToolFilter::default())
            .await
            .unwrap();
        Agent {
            fleet: fleet(&self.sb).await,
            hub: self.hub.clone(),
            tools,
            config: AgentConfig {
                llm: LLM.into(),
                approval: config.approval.or(Some(ApprovalMode::Auto)),
                ..config
            },
            audited: Audited {
                audit: Arc::new(audit),
                ctx: AuditContext::default(),
            },
            approver: None,
            on_event: Arc::new(|_: &Event| {}),
            cancel: tokio_util::sync::CancellationToken::new(),
            transcript_file: None,
        }
    }

    fn fault(&self, spec: &str) {
        self.sb
            .sandbox
            .faults
            .add(FaultSpec::parse_short(&format!("{spec},endpoint={LLM}")).unwrap());
    }
}

fn stop_of(t: &Transcript) -> Stop {
    t.end.as_ref().expect("the run ended").stop
}

fn answer_of(t: &Transcript) -> String {
    let end = t.end.as_ref().unwrap();
    assert_eq!(end.stop, Stop::FinalAnswer, "{:#?}", t.steps);
    end.answer.clone().unwrap()
}

/// The seed's conversation: step 1 calls top_song {"sign": "WZPZ"}, step 2 answers with its result.
pub(crate) fn assert_seed_run(t: &Transcript, label: &str) {
    assert_eq!(t.steps.len(), 2, "{label}: {:#?}", t.steps);
    let tool = t.steps[0]
        .tool
        .as_ref()
        .unwrap_or_else(|| panic!("{label}: no tool call"));
    assert_eq!(
        (tool.server.as_str(), tool.tool.as_str()),
        ("radio", "top_song"),
        "{label}"
    );
    assert_eq!(tool.arguments, json!({"sign": "WZPZ"}), "{label}");
    assert!(tool.result.contains("In the end"), "{label}");
    let answer = answer_of(t);
    assert!(
        answer.contains("In the end") && answer.contains("Linkin Park"),
        "{label}: {answer}"
    );
    assert_eq!(t.steps[0].invoked_variant.as_deref(), Some("AllTraffic"), "{label}");
    assert!(t.steps[0].tokens_out.is_some(), "{label}: tokens reported");
}

#[tokio::test]
async fn radio_over_stdio_in_both_request_shapes() {
    let f = Fixture::new(radio_stdio().await).await;
    let cases = [
        ("messages/text", Shape::Messages, Template::Chatml, false, false),
        ("messages/native", Shape::Messages, Template::Chatml, true, false),
        ("messages/native/stream", Shape::Messages, Template::Chatml, true, true),
        ("generate/chatml", Shape::Generate, Template::Chatml, false, false),
        ("generate/llama3/stream", Shape::Generate, Template::Llama3, false, true),
        ("generate/mistral", Shape::Generate, Template::Mistral, false, false),
    ];
    for (label, shape, template, native_tools, stream) in cases {
        let mut agent = f
            .agent(AgentConfig {
                shape,
                template,
                native_tools,
                stream,
                ..Default::default()
            })
            .await;
        let t = agent.run(QUESTION).await;
        assert_seed_run(&t, label);
        if shape == Shape::Generate {
            assert!(t.steps[0].request["inputs"].is_string(), "{label}");
        } else {
            assert!(t.steps[0].request["messages"].is_array(), "{label}");
        }
        assert_eq!(
            t.steps[0].parsed.as_ref().unwrap().source,
            if native_tools { "native" } else { "text" }
        );
        let instance = t.steps[0].instance.as_deref().unwrap_or_default();
        assert!(
            instance.starts_with("i-0"),
            "{label}: the instance that answered: {instance:?}"
        );
    }
}

/// A model's own template, as its tokenizer_config.json carries it (the ChatML one of Qwen-style
/// models, with Python string methods).
const TOKENIZER_CONFIG: &str = r#"{"bos_token": null, "eos_token": "<|im_end|>", "chat_template": "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'].strip() + '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"}"#;

#[tokio::test]
async fn a_models_own_jinja_template_drives_the_generate_shape() {
    let f = Fixture::new(radio_stdio().await).await;
    let path = f.audit_dir.path().join("tokenizer_config.json");
    std::fs::write(&path, TOKENIZER_CONFIG).unwrap();
    let template = Template::named(&path.to_string_lossy()).unwrap();
    assert_eq!(template.stop().as_deref(), Some("<|im_end|>"));
    let mut agent = f
        .agent(AgentConfig {
            shape: Shape::Generate,
            template,
            ..Default::default()
        })
        .await;
    let t = agent.run(QUESTION).await;
    assert_seed_run(&t, "jinja");
    let prompt = t.steps[1].request["inputs"].as_str().unwrap();
    assert!(
        prompt.starts_with("<|im_start|>system\nYou are a helpful assistant"),
        "{prompt}"
    );
    assert!(prompt.ends_with("<|im_start|>assistant\n"));
    assert_eq!(t.steps[0].request["parameters"]["stop"], json!(["<|im_end|>"]));
    assert!(
        Template::named("no-such-template")
            .unwrap_err()
            .contains("neither chatml")
    );
}

#[tokio::test]
async fn radio_over_legacy_sse_streams_the_generate_shape() {
    let peer = radio_http("sse").await;
    let entry = url_entry(
        "radio",
        TransportKind::Sse,
        &format!("http://127.0.0.1:{}/sse", peer.port),
        &[],
    );
    let f = Fixture::new(entry).await;
    for shape in [Shape::Messages, Shape::Generate] {
        let mut agent = f
            .agent(AgentConfig {
                shape,
                stream: true,
                ..Default::default()
            })
            .await;
        let (tx, rx) = std::sync::mpsc::channel();
        agent.on_event = Arc::new(move |e: &Event| {
            if let Event::Token(t) = e {
                let _ = tx.send(t.clone());
            }
        });
        let t = agent.run(QUESTION).await;
        assert_seed_run(&t, &format!("sse {shape:?}"));
        let streamed: String = rx.try_iter().collect();
        assert!(
            streamed.contains("In the end"),
            "tokens arrive as they stream: {streamed}"
        );
    }
}

#[tokio::test]
async fn bad_replies_go_back_to_the_model_and_bounded_retries_stop_the_run() {
    let f = Fixture::new(radio_stdio().await).await;
    // Unknown tool, then malformed JSON: each goes back as an error; the next step succeeds.
    for (fault, problem) in [
        ("kind=unknown_tool,count=1", "unknown tool `top_song_v2`"),
        ("kind=malformed_tool_call,count=1", "JSON"),
    ] {
        f.fault(fault);
        let mut agent = f.agent(AgentConfig::default()).await;
        let t = agent.run(QUESTION).await;
        assert_eq!(t.steps.len(), 3, "{fault}: {:#?}", t.steps);
        assert!(
            t.steps[0].problem.as_ref().unwrap().contains(problem),
            "{:?}",
            t.steps[0].problem
        );
        assert!(t.steps[0].tool.is_none(), "nothing was called for a bad reply");
        let sent_back = &t.steps[1].messages.last().unwrap().content;
        assert!(sent_back.starts_with("Error: "), "{sent_back}");
        assert!(answer_of(&t).contains("In the end"));
    }
    // isError from the tool: sent back, retried, and after max_retries the run stops.
    let mut agent = f
        .agent(AgentConfig {
            max_retries: 1,
            ..Default::default()
        })
        .await;
    let t = agent.run("Please fail with the message 'off air'").await;
    assert_eq!(stop_of(&t), Stop::Retries, "{:#?}", t.steps);
    assert_eq!(t.steps.len(), 2);
    let tool = t.steps[0].tool.as_ref().unwrap();
    assert!(tool.is_error && tool.result.contains("off air"));
    assert!(
        t.end
            .as_ref()
            .unwrap()
            .detail
            .as_ref()
            .unwrap()
            .contains("answered an error")
    );
}

#[tokio::test]
async fn arguments_are_checked_against_the_schema_before_the_call() {
    let f = Fixture::new(radio_stdio().await).await;
    // A system prompt that describes top_song wrongly (a `station` argument) makes the model send
    // arguments the server's schema refuses; they never reach the server.
    let fake = json!({"name": "top_song", "description": "most played song on a station",
        "parameters": {"type": "object", "properties": {"station": {"type": "string"}}, "required": ["station"]}});
    let mut agent = f
        .agent(AgentConfig {
            system_prompt: Some(format!("Tools:\n{fake}\n{{tools}}\nAnswer with JSON.")),
            max_retries: 2,
            ..Default::default()
        })
        .await;
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::Retries);
    assert_eq!(t.steps.len(), 3);
    for s in &t.steps {
        assert!(
            s.problem.as_ref().unwrap().contains("bad arguments for `top_song`"),
            "{:?}",
            s.problem
        );
        assert!(
            s.problem.as_ref().unwrap().contains("sign"),
            "names the missing argument"
        );
        assert!(s.tool.is_none());
    }
}

#[tokio::test]
async fn steps_tokens_and_time_are_bounded() {
    let f = Fixture::new(radio_stdio().await).await;
    let mut agent = f
        .agent(AgentConfig {
            max_steps: 1,
            ..Default::default()
        })
        .await;
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::MaxSteps);
    assert_eq!(t.steps.len(), 1);

    let mut agent = f
        .agent(AgentConfig {
            token_budget: Some(10),
            ..Default::default()
        })
        .await;
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::TokenBudget);
    assert!(t.end.as_ref().unwrap().tokens >= 10);
    assert!(t.steps[0].tool.is_none(), "the step over the budget called its tool");
    let detail = t.end.as_ref().unwrap().detail.clone().unwrap();
    assert!(detail.contains("the call of `top_song` was not made"), "{detail}");

    f.fault("kind=slow,ms=5000,count=1");
    let mut agent = f
        .agent(AgentConfig {
            deadline: Some(Duration::from_millis(300)),
            ..Default::default()
        })
        .await;
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::Deadline);
    assert!(t.steps[0].tool.is_none());
}

#[tokio::test]
async fn approval_never_denied_edited_and_by_annotations() {
    let f = Fixture::new(radio_stdio().await).await;
    let mut agent = f
        .agent(AgentConfig {
            approval: Some(ApprovalMode::Never),
            ..Default::default()
        })
        .await;
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::Denied);
    assert!(t.steps[0].tool.is_none());

    // The Radio Station's tools carry no annotations: not read-only by MCP's defaults, so they
    // ask; with nobody to ask, the call is denied.
    let mut agent = f.agent(AgentConfig::default()).await;
    agent.config.approval = None;
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::Denied);
    let approval = t.steps[0].approval.as_ref().unwrap();
    assert!(
        approval.contains("denied (its annotations say it may be destructive)"),
        "{approval}"
    );

    let mut agent = f
        .agent(AgentConfig {
            approval: Some(ApprovalMode::Ask),
            ..Default::default()
        })
        .await;
    agent.approver = Some(Arc::new(|req| {
        assert_eq!(req.arguments, json!({"sign": "WZPZ"}));
        Decision::Edit(json!({"sign": "WKRP"}))
    }));
    let t = agent.run(QUESTION).await;
    assert!(answer_of(&t).contains("WKRP"), "the edited arguments were sent");
    agent.approver = Some(Arc::new(|_| Decision::Deny));
    assert_eq!(stop_of(&agent.run(QUESTION).await), Stop::Denied);

    // Edited arguments are checked against the tool's input schema: none is sent otherwise.
    agent.approver = Some(Arc::new(|_| Decision::Edit(json!({"sign": 5}))));
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::Denied);
    assert!(t.steps[0].tool.is_none(), "the edited call was sent");
    let approval = t.steps[0].approval.as_ref().unwrap();
    assert!(approval.contains("do not match the input schema"), "{approval}");
}

#[tokio::test]
async fn every_call_is_audited_before_it_is_sent() {
    let f = Fixture::new(radio_stdio().await).await;
    let mut agent = f.agent(AgentConfig::default()).await;
    let t = agent.run(QUESTION).await;
    answer_of(&t);
    let lines = Audit::read(f.audit_path(), None).unwrap();
    let seq: Vec<(String, AuditPhase, Value)> = lines
        .iter()
        .map(|l| (l.action.clone(), l.phase, l.after.clone()))
        .collect();
    let kinds: Vec<(&str, AuditPhase)> = seq.iter().map(|(a, p, _)| (a.as_str(), *p)).collect();
    assert_eq!(
        kinds,
        [
            ("agent.llm", AuditPhase::Intent),
            ("agent.llm", AuditPhase::Result),
            ("agent.tool", AuditPhase::Intent),
            ("agent.tool", AuditPhase::Result),
            ("agent.llm", AuditPhase::Intent),
            ("agent.llm", AuditPhase::Result),
        ]
    );
    assert_eq!(seq[0].2["run_id"], json!(t.header.run_id));
    assert_eq!(seq[2].2["step"], 1);
    assert_eq!(seq[2].2["arguments"], json!({"sign": "WZPZ"}));
    assert_eq!(lines[2].target, "radio/top_song");
    assert_eq!(seq[4].2["step"], 2);

    // An audit log that cannot be written stops the run before the LLM is invoked: the one-shot
    // fault below is still there for the next run.
    f.fault("kind=model_error,status=500,count=1");
    let mut agent = f
        .agent_with_audit(AgentConfig::default(), Audit::open("/dev/full").unwrap())
        .await;
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::Refused);
    let mut agent = f.agent(AgentConfig::default()).await;
    let t = agent.run(QUESTION).await;
    assert_eq!(stop_of(&t), Stop::LlmError, "the fault was not consumed before");
    assert!(t.end.unwrap().detail.unwrap().contains("500"));
}
