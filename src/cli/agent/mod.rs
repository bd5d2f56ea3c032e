//! `sagedeck agent`: an LLM on a SageMaker endpoint driving the tools of MCP servers. Prints each
//! step as it happens and the final answer (`--json`: the transcript); `--transcript FILE.jsonl`
//! saves the trace; `--replay FILE` shows one again and, with `--from-step N`, re-runs it from
//! step N with another endpoint (`--llm`) or system prompt (`--system-prompt`).
//!
//! Exit codes: 0 final answer; 2 usage; 3 a server could not be reached; 5 read-only; 6 the audit
//! log cannot be written; 9 stopped without a final answer (max steps, token budget, deadline,
//! retries, denied, LLM error, cancelled).

pub mod view;

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::aws::change::audit::AuditContext;
use crate::aws::change::guard::Audited;
use crate::cli::args::{GlobalArgs, interrupts};
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_NO_ANSWER, EXIT_REFUSED, EXIT_USAGE, Exit};
use crate::cli::mcp::args::RegistryArgs;
use crate::cli::output::{print_json, say_err};
use crate::mcp::agent::trace::TranscriptFile;
use crate::mcp::agent::{
    Agent, AgentConfig, ApprovalMode, Message, Shape, Stop, Template, ToolFilter, Transcript, gather_tools,
    tool_warnings,
};
use crate::mcp::{ConnectOptions, McpHub, Registry};
use crate::tui::config::AgentDefaults;
use view::{ask_terminal, printer, show};

/// `sagedeck agent`.
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The question (read from stdin when absent).
    pub question: Option<String>,
    /// The LLM endpoint (default: `[agent] llm` of the config file).
    #[arg(long, value_name = "ENDPOINT")]
    pub llm: Option<String>,
    /// MCP server of the registry (repeatable; default: `[agent] servers`).
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// Offer only tools matching (`tool` or `server/tool`, `*` wildcard; repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// Never offer tools matching (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub deny: Vec<String>,
    /// Request shape (default messages; `openai`: the endpoint's OpenAI-compatible Chat
    /// Completions API with a bearer token minted from the session's credentials).
    #[arg(long, value_enum)]
    pub shape: Option<Shape>,
    /// Chat template for `--shape generate`: chatml, llama3, mistral, or a tokenizer_config.json.
    #[arg(long, value_name = "NAME|FILE")]
    pub template: Option<String>,
    /// Send the tools in the `tools` field and read native `tool_calls` (messages shape).
    #[arg(long)]
    pub native_tools: bool,
    /// Stream the replies (InvokeEndpointWithResponseStream; server-sent events on `openai`).
    #[arg(long)]
    pub stream: bool,
    /// Keep the run's LLM calls in one stateful session: `new` opens one at the first call, an
    /// id joins one.
    #[arg(long, value_name = "new|ID")]
    pub session: Option<String>,
    /// System prompt file; `{tools}` is replaced by the tool list (default: the seed's prompt).
    #[arg(long, value_name = "FILE")]
    pub system_prompt: Option<PathBuf>,
    /// LLM calls at most.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub max_steps: u32,
    /// Stop once this many tokens (in + out, as the container reports them) are used.
    #[arg(long, value_name = "N")]
    pub token_budget: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long, value_name = "S")]
    pub deadline: Option<f64>,
    /// Token limit of each reply.
    #[arg(long, default_value_t = 512, value_name = "N")]
    pub max_new_tokens: u32,
    /// Consecutive bad steps (unknown tool, malformed JSON, bad arguments, tool errors) sent back
    /// to the model before the run stops.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub max_retries: u32,
    /// Approval of tool calls (default: ask for tools not annotated read-only, or destructive).
    #[arg(long, value_enum)]
    pub approve: Option<ApprovalMode>,
    /// TargetVariant of the LLM calls.
    #[arg(long, value_name = "VARIANT")]
    pub target_variant: Option<String>,
    /// TargetModel of the LLM calls (multi-model endpoints).
    #[arg(long, value_name = "MODEL")]
    pub target_model: Option<String>,
    /// The inference component serving the LLM, on an endpoint that hosts components.
    #[arg(long, value_name = "IC")]
    pub inference_component: Option<String>,
    /// Seconds a tool call may go without an answer or progress.
    #[arg(long, default_value_t = 60.0, value_name = "S")]
    pub tool_timeout: f64,
    /// Save the trace as JSON Lines.
    #[arg(long, value_name = "FILE.jsonl")]
    pub transcript: Option<PathBuf>,
    /// Show a saved transcript (with `--from-step`, re-run it).
    #[arg(long, value_name = "FILE.jsonl")]
    pub replay: Option<PathBuf>,
    /// Re-run the replayed transcript from this step.
    #[arg(long, value_name = "N", requires = "replay")]
    pub from_step: Option<u32>,
    /// With `--from-step`: send this conversation instead of the step's (a JSON array of
    /// `{"role", "content"}`, e.g. the step's `messages` from `--replay FILE --json`, edited).
    #[arg(long, value_name = "FILE.json", requires = "from_step")]
    pub messages: Option<PathBuf>,
    /// Run offline on the embedded sandbox: its demo fleet (LLM `llm-tgi-chat`) and its demo MCP
    /// server (`sagedeck-demo`, the demo fleet's endpoints as tools).
    #[arg(long)]
    pub demo: bool,
    /// Registry options.
    #[command(flatten)]
    pub registry: RegistryArgs,
}

impl AgentArgs {
    /// Whether this invocation calls anything (read-only refuses it): every run but a replay
    /// that only shows.
    pub fn runs(&self) -> bool {
        self.replay.is_none() || self.from_step.is_some()
    }
}

fn defaults(g: &GlobalArgs) -> AgentDefaults {
    g.settings().agent.unwrap_or_default()
}

fn config_of(g: &GlobalArgs, a: &AgentArgs, d: &AgentDefaults, llm: String) -> Result<AgentConfig, String> {
    let shape = match (a.shape, d.shape.as_deref()) {
        (Some(s), _) => s,
        (None, None) => Shape::Messages,
        (None, Some(name)) => Shape::named(name).map_err(|e| format!("config: [agent] {e}"))?,
    };
    let template = Template::named(a.template.as_deref().or(d.template.as_deref()).unwrap_or("chatml"))?;
    let approval = match (a.approve, d.approve.as_deref()) {
        (Some(m), _) => Some(m),
        (None, Some("auto")) => Some(ApprovalMode::Auto),
        (None, Some("ask")) => Some(ApprovalMode::Ask),
        (None, Some("never")) => Some(ApprovalMode::Never),
        (None, None) => None,
        (None, Some(other)) => return Err(format!("config: [agent] approve `{other}` is not auto, ask or never")),
    };
    if a.native_tools && shape == Shape::Generate {
        return Err("--native-tools needs --shape messages (the openai shape always sends them)".into());
    }
    let streamed = a.stream || d.stream.unwrap_or(false);
    if streamed && shape != Shape::Openai && matches!(a.session.as_deref(), Some("new" | "NEW_SESSION")) {
        return Err("--session new cannot open a session on a response stream (SageMaker refuses NEW_SESSION there): open one with `sagedeck invoke ENDPOINT --session new` and pass its id".into());
    }
    if shape == Shape::Openai && (a.target_variant.is_some() || a.target_model.is_some()) {
        return Err(
            "--shape openai takes neither --target-variant nor --target-model (the OpenAI-compatible API has neither)"
                .into(),
        );
    }
    if a.stream && a.target_model.is_some() {
        return Err(
            "--stream cannot be used with --target-model (SageMaker does not stream from multi-model endpoints)".into(),
        );
    }
    let system_prompt = match &a.system_prompt {
        Some(p) => Some(std::fs::read_to_string(p).map_err(|e| format!("--system-prompt {}: {e}", p.display()))?),
        None => None,
    };
    let secs = |flag: &str, s: f64| {
        Duration::try_from_secs_f64(s)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| format!("{flag} {s} is not a positive number of seconds"))
    };
    let deadline = a.deadline.map(|d| secs("--deadline", d)).transpose()?;
    let tool_timeout = secs("--tool-timeout", a.tool_timeout)?;
    Ok(AgentConfig {
        llm,
        target_variant: a.target_variant.clone(),
        target_model: a.target_model.clone(),
        inference_component: a.inference_component.clone().or(d.inference_component.clone()),
        shape,
        template,
        native_tools: a.native_tools,
        stream: a.stream || d.stream.unwrap_or(false),
        session: a.session.clone(),
        system_prompt,
        max_steps: a.max_steps,
        token_budget: a.token_budget,
        deadline,
        max_new_tokens: a.max_new_tokens,
        max_retries: a.max_retries,
        approval,
        tool_timeout,
        reason: g.reason.clone(),
        ..Default::default()
    })
}

fn read_question(a: &AgentArgs) -> Result<String, String> {
    if let Some(q) = &a.question {
        return Ok(q.clone());
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read the question from stdin: {e}"))?;
    let q = text.trim().to_string();
    if q.is_empty() {
        return Err("no question: give it as an argument or on stdin".into());
    }
    Ok(q)
}

fn exit_of(t: &Transcript) -> CmdResult {
    match t.end.as_ref().map(|e| e.stop) {
        Some(Stop::FinalAnswer) => Ok(()),
        Some(Stop::Refused) => Err(Exit::code(EXIT_REFUSED)),
        _ => Err(Exit::code(EXIT_NO_ANSWER)),
    }
}

/// Where the run happens: the fleet, the registry and, with `--demo`, the embedded sandbox.
struct Setting {
    fleet: crate::aws::Fleet,
    registry: Registry,
    sandbox: Option<crate::sandbox::SandboxHandle>,
}

/// The fleet and registry: AWS (or `--endpoint-url`) and the mcpServers file, or with `--demo`
/// the embedded sandbox's demo fleet and its demo MCP server added to the registry.
async fn setting(g: &GlobalArgs, a: &AgentArgs) -> Result<Setting, Exit> {
    let mut registry = Registry::load_default(a.registry.mcp_config.as_deref()).map_err(Exit::usage)?;
    if !a.demo {
        let fleet = g.connect().await?;
        return Ok(Setting {
            fleet,
            registry,
            sandbox: None,
        });
    }
    let config = crate::sandbox::SandboxConfig {
        bind: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        demo_fleet: true,
        traffic_rate: None,
        backfill_hours: 0,
        ..Default::default()
    };
    let handle = (crate::sandbox::start(config).await)
        .map_err(|e| Exit::new(EXIT_USAGE, format!("cannot start the sandbox: {e}")))?;
    let url = handle.endpoint_url();
    let exe = std::env::current_exe().map_err(|e| Exit::usage(format!("cannot find the sagedeck binary: {e}")))?;
    registry.servers.insert(0, crate::mcp::registry::demo_entry(&exe, &url));
    Ok(Setting {
        fleet: crate::aws::Fleet::for_url(&url).await,
        registry,
        sandbox: Some(handle),
    })
}

/// The endpoint and servers: flags, else the replayed run's, else `--demo`'s, else config.toml's.
fn targets(a: &AgentArgs, d: &AgentDefaults, replayed: Option<&Transcript>) -> Result<(String, Vec<String>), String> {
    let demo_llm = a.demo.then(|| DEMO_LLM.to_string());
    let llm = a
        .llm
        .clone()
        .or_else(|| replayed.map(|t| t.header.llm.clone()))
        .or(demo_llm)
        .or(d.llm.clone())
        .ok_or("no LLM endpoint: pass --llm ENDPOINT (or set [agent] llm in config.toml)")?;
    let demo_servers = if a.demo { vec![DEMO_SERVER.to_string()] } else { vec![] };
    let servers = [
        a.servers.clone(),
        replayed.map(|t| t.header.servers.clone()).unwrap_or_default(),
        demo_servers,
        d.servers.clone(),
    ]
    .into_iter()
    .find(|s| !s.is_empty())
    .ok_or("no MCP server: pass --server NAME (or set [agent] servers in config.toml)")?;
    Ok((llm, servers))
}

/// The demo's LLM endpoint.
const DEMO_LLM: &str = "llm-tgi-chat";
/// The demo's MCP server.
const DEMO_SERVER: &str = "sagedeck-demo";

/// Runs `sagedeck agent`.
pub async fn run(g: &GlobalArgs, a: AgentArgs) -> CmdResult {
    let replayed = a
        .replay
        .as_deref()
        .map(Transcript::read)
        .transpose()
        .map_err(Exit::usage)?;
    if let (Some(t), None) = (&replayed, a.from_step) {
        if g.json {
            print_json(t)?;
        } else {
            show(t)?;
        }
        return exit_of(t);
    }
    let d = defaults(g);
    let (llm, servers) = targets(&a, &d, replayed.as_ref()).map_err(Exit::usage)?;
    let config = config_of(g, &a, &d, llm).map_err(Exit::usage)?;
    let question = match &replayed {
        Some(t) => t.header.question.clone(),
        None => read_question(&a).map_err(Exit::usage)?,
    };
    let audit = g.open_audit()?;
    let setting = setting(g, &a).await?;
    if let Some(missing) = servers.iter().find(|s| setting.registry.get(s).is_none()) {
        return Err(Exit::usage(format!(
            "no server `{missing}` in the registry (have: {})",
            setting.registry.names().join(", ")
        )));
    }
    let ctx = AuditContext::from_fleet(&setting.fleet).await;
    g.attach_team(&audit, &setting.fleet, ctx.principal.as_deref());
    let hub = McpHub::new(
        &setting.registry,
        ConnectOptions {
            timeout: Duration::from_secs_f64(a.registry.connect_timeout.max(0.001)),
            ..Default::default()
        },
    );
    let result = drive(
        g,
        &a,
        setting.fleet,
        &hub,
        &servers,
        config,
        Audited { audit, ctx },
        replayed,
        &question,
    )
    .await;
    hub.shutdown().await;
    if let Some(sb) = setting.sandbox {
        sb.shutdown().await;
    }
    result
}

/// Gathers the tools, runs (or re-runs) and prints; returns the exit code.
#[allow(clippy::too_many_arguments)]
async fn drive(
    g: &GlobalArgs,
    a: &AgentArgs,
    fleet: crate::aws::Fleet,
    hub: &McpHub,
    servers: &[String],
    config: AgentConfig,
    audited: Audited,
    replayed: Option<Transcript>,
    question: &str,
) -> CmdResult {
    let filter = ToolFilter {
        allow: a.allow.clone(),
        deny: a.deny.clone(),
    };
    let tools = (gather_tools(hub, servers, &filter).await).map_err(|e| Exit::new(EXIT_AWS, e))?;
    for w in tool_warnings(hub, servers, &filter) {
        say_err(format!("sagedeck: warning: {w}"));
    }
    let transcript_file = (a.transcript.as_deref().map(TranscriptFile::create).transpose()).map_err(Exit::usage)?;
    let mut agent = Agent {
        fleet,
        hub: hub.clone(),
        tools,
        config,
        audited,
        approver: Some(Arc::new(ask_terminal)),
        on_event: printer(g.json),
        cancel: tokio_util::sync::CancellationToken::new(),
        transcript_file,
    };
    let cancel = agent.cancel.clone();
    let mut interrupts = interrupts();
    tokio::spawn(async move {
        if interrupts.recv().await.is_some() {
            cancel.cancel();
        }
    });
    let transcript = match (&replayed, a.from_step) {
        (Some(old), Some(n)) => {
            let messages = edited_messages(a).map_err(Exit::usage)?;
            agent.rerun(old, n, messages).await.map_err(Exit::usage)?
        }
        (Some(_), None) | (None, _) => agent.run(question).await,
    };
    if g.json {
        print_json(&transcript)?;
    }
    match agent.transcript_file.as_ref().and_then(|f| f.failure()) {
        // A transcript write that failed after the run began: said, and the exit is at least 6.
        Some(e) => {
            let code = (exit_of(&transcript).err()).map_or(EXIT_REFUSED, |x| x.exit_code().max(EXIT_REFUSED));
            Err(Exit::new(code, format!("warning: {e}")))
        }
        None => exit_of(&transcript),
    }
}

/// The conversation of `--messages FILE`, if given.
fn edited_messages(a: &AgentArgs) -> Result<Option<Vec<Message>>, String> {
    let Some(path) = &a.messages else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("--messages {}: {e}", path.display()))?;
    serde_json::from_str(&text).map(Some).map_err(|e| {
        format!(
            "--messages {}: not a JSON array of {{\"role\", \"content\"}}: {e}",
            path.display()
        )
    })
}
