//! A server's sampling request in the console: its dialog shows the server, the model, the
//! preferences, the limit and every message (escaped), `y` sends it, `n`/Esc decline, and a
//! second request waits for the first to be answered. Snapshot at 100×20.

use crossterm::event::KeyCode;
use sagedeck::mcp::agent::Message;
use sagedeck::mcp::sampling::SamplingRequest;
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::Overlay;
use sagedeck::tui::widgets::sampling::SamplingAsk;
use sagedeck::tui::widgets::toasts::Toasts;

use crate::common::tui::{self, tap};

fn request(server: &str) -> SamplingRequest {
    SamplingRequest {
        server: server.into(),
        model: "llm-tgi-chat".into(),
        messages: vec![
            Message::new("system", "You explain intent labels to on-call engineers."),
            Message::new("user", "In one sentence, why is \"book me a flight\" travel?\x1b[2K"),
        ],
        preferences: "hints claude · intelligence 0.80".into(),
        max_tokens: 96,
        temperature: None,
        stop: vec![],
        tools: String::new(),
    }
}

fn ask(app: &mut App, server: &str) -> std::sync::mpsc::Receiver<bool> {
    let (answer, rx) = std::sync::mpsc::channel();
    app.on_event(AppEvent::SamplingAsked(SamplingAsk {
        request: request(server),
        answer,
    }));
    rx
}

#[test]
fn a_sampling_request_waits_in_a_dialog_until_answered() {
    let mut app = App::new(Data::default(), Theme::default_theme());
    let first = ask(&mut app, "sagedeck-demo");
    let second = ask(&mut app, "radio");
    app.toasts = Toasts::default();
    let screen = tui::render(&mut app, 100, 20);
    assert!(
        screen.contains("sagedeck-demo asks for a completion from llm-tgi-chat"),
        "{screen}"
    );
    assert!(
        screen.contains("\\x1b[2K"),
        "the server's control characters are written out: {screen}"
    );
    insta::assert_snapshot!("sampling_dialog", screen);

    tap(&mut app, KeyCode::Char('x'));
    assert!(first.try_recv().is_err(), "other keys answer nothing");
    tap(&mut app, KeyCode::Char('y'));
    assert_eq!(first.try_recv(), Ok(true));
    // The second request shows once the first is answered; Esc declines it.
    match &app.overlay {
        Some(Overlay::Sampling(a)) => assert_eq!(a.request.server, "radio"),
        other => panic!("expected the second request, got {other:?}"),
    }
    tap(&mut app, KeyCode::Esc);
    assert_eq!(second.try_recv(), Ok(false));
    assert!(app.overlay.is_none());
    let said: Vec<String> = app.toasts.log.iter().map(|t| t.text.clone()).collect();
    assert!(said.iter().any(|t| t.contains("radio declined")), "{said:?}");
}

/// The console's sampler (`[mcp] sampling_llm`) over the real demo server: the demo's
/// `explain_intent` asks for a completion, the dialog's event arrives, yes sends it to the
/// sandbox's LLM, and the explanation lands in the tool's result; the audit log has the request,
/// and so has the team's trail in CloudWatch Logs (`audit_log_group`).
#[tokio::test]
async fn the_console_answers_the_demo_servers_sampling_request_after_the_dialog() {
    use sagedeck::mcp::client::CallOptions;

    let sb = crate::common::sandbox_with(crate::common::demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let (hub, mut rx) = demo_hub(&sb, (Some(&audit), Some("/sagedeck/audit"))).await;
    let fleet = sagedeck::aws::Fleet::for_url(&sb.endpoint_url()).await;
    let arguments = serde_json::json!({"user_input": "refund my order"})
        .as_object()
        .cloned();
    let call = hub.call("sagedeck-demo", "explain_intent", arguments, CallOptions::default());
    let answer = async {
        match rx.recv().await {
            Some(AppEvent::SamplingAsked(ask)) => {
                assert_eq!(ask.request.server, "sagedeck-demo");
                assert!(
                    ask.request
                        .messages
                        .iter()
                        .any(|m| m.content.contains("refund my order"))
                );
                ask.decide(true);
            }
            other => panic!("expected a sampling request, got {other:?}"),
        }
    };
    let (out, ()) = tokio::join!(call, answer);
    let s = out.expect("explain_intent answers").result.structured.unwrap();
    assert_eq!(s["sampled_by"], "llm-tgi-chat", "{s:#}");
    assert!(s["explanation"].as_str().unwrap().contains("refund my order"), "{s:#}");
    let log = std::fs::read_to_string(&audit).unwrap();
    assert!(
        log.contains("\"mcp.sampling\"") && log.contains("\"approval\":\"approved\""),
        "{log}"
    );
    let fleet = &fleet;
    let phases = crate::common::poll_until(
        "the team's trail holds the request",
        std::time::Duration::from_secs(30),
        || async move {
            let records = fleet.read_team_trail("/sagedeck/audit", 0.0, 5).await.ok()?;
            let phases: Vec<String> = records
                .iter()
                .filter(|r| r.record.action == "mcp.sampling")
                .map(|r| format!("{:?}", r.record.phase))
                .collect();
            (phases.len() == 2).then_some(phases)
        },
    )
    .await;
    assert_eq!(phases, ["Intent", "Result"]);
    hub.shutdown().await;
}

/// The console's hub on the demo server of `sb`, connected, with the sampler `[mcp] sampling_llm
/// = "llm-tgi-chat"` gives it (auditing to `audit`: the file, the team's log group), and the
/// receiver of its dialogs' events.
pub(crate) async fn demo_hub(
    sb: &sagedeck::sandbox::SandboxHandle,
    audit: (Option<&std::path::Path>, Option<&str>),
) -> (sagedeck::mcp::McpHub, tokio::sync::mpsc::UnboundedReceiver<AppEvent>) {
    use sagedeck::mcp::{ConnectOptions, McpHub, Registry};
    use sagedeck::tui::config::McpDefaults;
    use sagedeck::tui::worker::sampling::console_sampler;

    let url = sb.endpoint_url();
    let fleet = sagedeck::aws::Fleet::for_url(&url).await;
    let settings = McpDefaults {
        sampling_llm: Some("llm-tgi-chat".into()),
        ..Default::default()
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let aws = sagedeck::aws::AwsOptions::default();
    let sampler = console_sampler(&settings, &aws, Some(&fleet), audit, (tx, None)).unwrap();
    assert!(sampler.is_some());
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_sagedeck"));
    let registry = Registry {
        servers: vec![sagedeck::mcp::registry::demo_entry(exe, &url)],
        ..Default::default()
    };
    let hub = McpHub::new(
        &registry,
        ConnectOptions {
            sampling: sampler,
            ..Default::default()
        },
    );
    hub.connect("sagedeck-demo").await.expect("the demo server starts");
    (hub, rx)
}
