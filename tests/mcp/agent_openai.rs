//! `--shape openai`: the agent answers the seed's question with `top_song` of the Radio Station
//! (over stdio and over legacy SSE) through the sandbox's OpenAI-compatible Chat Completions API,
//! with native tool calls, whole and streamed as server-sent events, the bearer token minted in
//! the fleet layer, its minting recorded in the audit log — and the token found in no transcript,
//! audit line or step record.

use sagedeck::mcp::TransportKind;
use sagedeck::mcp::agent::trace::TranscriptFile;
use sagedeck::mcp::agent::{AgentConfig, Shape};

use crate::agent::{Fixture, QUESTION, assert_seed_run};
use crate::peers::radio_http;
use crate::python::radio_stdio;
use crate::url_entry;

fn openai(stream: bool) -> AgentConfig {
    AgentConfig {
        shape: Shape::Openai,
        stream,
        ..Default::default()
    }
}

#[tokio::test]
async fn radio_over_stdio_through_the_openai_api_whole_and_streamed_and_no_token_is_kept() {
    let f = Fixture::new(radio_stdio().await).await;
    let transcript = f.audit_dir.path().join("run.jsonl");
    for stream in [false, true] {
        let mut agent = f.agent(openai(stream)).await;
        agent.transcript_file = Some(TranscriptFile::create(&transcript).unwrap());
        let t = agent.run(QUESTION).await;
        let label = format!("openai stream={stream}");
        assert_seed_run(&t, &label);
        let request = &t.steps[0].request;
        assert_eq!(request["tools"][0]["function"]["name"], "top_song", "{label}");
        assert_eq!(request["model"], "llm-tgi-chat", "{label}");
        assert_eq!(request.get("stream").is_some(), stream, "{label}");
        assert_eq!(t.steps[0].parsed.as_ref().unwrap().source, "native", "{label}");
        let instance = t.steps[0].instance.as_deref().unwrap_or_default();
        assert!(
            instance.starts_with("i-0"),
            "{label}: the instance that answered: {instance:?}"
        );
        let answered = &t.steps[1].request["messages"];
        let tool_msg = answered
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool")
            .unwrap();
        assert!(tool_msg["tool_call_id"].is_string(), "{label}: {tool_msg}");
        assert!(!format!("{t:?}").contains("sagemaker-api-key-"), "{label}");
    }
    // Each run minted its token through the audit log: the record, never the token.
    let audit = std::fs::read_to_string(f.audit_path()).unwrap();
    let minted = audit
        .lines()
        .filter(|l| l.contains("\"openai.token\"") && l.contains("llm-tgi-chat"));
    assert!(minted.count() >= 2, "one record per run at least:\n{audit}");
    for file in [transcript, f.audit_path()] {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("\"openai\""), "{}: the shape is recorded", file.display());
        assert!(!text.contains("sagemaker-api-key-"), "{}", file.display());
    }
}

#[tokio::test]
async fn radio_over_legacy_sse_through_the_openai_api_streamed() {
    let peer = radio_http("sse").await;
    let url = format!("http://127.0.0.1:{}/sse", peer.port);
    let f = Fixture::new(url_entry("radio", TransportKind::Sse, &url, &[])).await;
    let mut agent = f.agent(openai(true)).await;
    let t = agent.run(QUESTION).await;
    assert_seed_run(&t, "openai over legacy SSE");
}

#[tokio::test]
async fn a_run_keeps_one_session_on_one_instance() {
    let f = Fixture::new(radio_stdio().await).await;
    for shape in [Shape::Messages, Shape::Openai] {
        let mut agent = f
            .agent(AgentConfig {
                shape,
                native_tools: true,
                session: Some("new".into()),
                ..Default::default()
            })
            .await;
        let t = agent.run(QUESTION).await;
        assert_seed_run(&t, &format!("{shape:?} with a session"));
        let id = t.steps[0].session.clone().expect("the first call opened a session");
        assert_eq!(t.steps[1].session.as_deref(), Some(id.as_str()), "{:#?}", t.steps);
        let instance = t.steps[0].instance.clone().expect("the instance that answered");
        assert_eq!(
            t.steps[1].instance.as_deref(),
            Some(instance.as_str()),
            "{:#?}",
            t.steps
        );
    }
}

#[tokio::test]
async fn sagedeck_agent_shape_openai_answers_and_refuses_a_session_on_a_stream() {
    let sb = crate::common::sandbox_with(crate::common::demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = crate::agent_cli::radio_config(&dir).await;
    let audit = dir.path().join("audit.jsonl");
    let a = audit.to_string_lossy();
    let mut args = crate::agent_cli::radio_agent(&cfg);
    args.extend(["--shape", "openai", "--stream", "--json", "--audit-file", &a, QUESTION]);
    let r = crate::common::run_cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let answer = r.json()["end"]["answer"].as_str().unwrap_or_default().to_string();
    assert!(answer.contains("In the end"), "{}", r.stdout);
    assert!(!r.stdout.contains("sagemaker-api-key-") && !r.stderr.contains("sagemaker-api-key-"));
    assert!(!std::fs::read_to_string(&audit).unwrap().contains("sagemaker-api-key-"));

    let mut args = crate::agent_cli::radio_agent(&cfg);
    args.extend(["--stream", "--session", "new", QUESTION]);
    let r = crate::common::run_cli(&sb, &args).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("NEW_SESSION"), "{}", r.stderr);
}
