//! The worker's agent runs: the headless loop of `mcp::agent` (which writes every LLM call and
//! tool call to the audit log with the run id and step before sending it), driven from the
//! console. Its events go out as [`AppEvent::Agent`]; a call that needs approval is sent to the
//! pane with a channel for the decision, and the loop waits on it (or on cancel).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::mcp::McpHub;
use crate::mcp::agent::trace::TranscriptFile;
use crate::mcp::agent::{
    Agent, AgentConfig, ApprovalMode, ApprovalRequest, Approver, Decision, Event, Shape, Template, ToolFilter,
    Transcript, gather_tools,
};
use crate::tui::config::AgentDefaults;
use crate::tui::event::{AgentJob, AgentRun, AgentUpdate, AppEvent};

/// The loop's configuration from the console's settings (`[agent]` of config.toml).
pub fn agent_config(s: &AgentDefaults, llm: String) -> Result<AgentConfig, String> {
    let shape = match s.shape.as_deref() {
        None => Shape::Messages,
        Some(name) => Shape::named(name).map_err(|e| format!("[agent] {e}"))?,
    };
    let approval = match s.approve.as_deref() {
        None => None,
        Some("auto") => Some(ApprovalMode::Auto),
        Some("ask") => Some(ApprovalMode::Ask),
        Some("never") => Some(ApprovalMode::Never),
        Some(other) => return Err(format!("[agent] approve `{other}` is not auto, ask or never")),
    };
    Ok(AgentConfig {
        llm,
        inference_component: s.inference_component.clone(),
        shape,
        template: Template::named(s.template.as_deref().unwrap_or("chatml"))?,
        approval,
        stream: s.stream.unwrap_or(false),
        session: s.session.clone(),
        ..Default::default()
    })
}

/// Runs one agent job to its end and reports [`AgentUpdate::Done`].
pub(super) async fn run(
    hub: Option<&McpHub>,
    id: u64,
    job: AgentJob,
    cancel: CancellationToken,
    events: &UnboundedSender<AppEvent>,
    audited: super::mcp::Audited<'_>,
) {
    let AgentJob::Run(run) = job;
    let result = match hub {
        Some(hub) => drive(hub, id, run, cancel, events, audited).await,
        None => Err("no MCP servers are configured".into()),
    };
    let _ = events.send(AppEvent::Agent {
        id,
        update: AgentUpdate::Done(result),
    });
}

async fn drive(
    hub: &McpHub,
    id: u64,
    job: AgentRun,
    cancel: CancellationToken,
    events: &UnboundedSender<AppEvent>,
    (guard, fleet): super::mcp::Audited<'_>,
) -> Result<Box<Transcript>, String> {
    let fleet = fleet.as_ref().map_err(|e| e.to_string())?;
    let old = job.rerun.as_ref().map(|(t, _)| t);
    let llm = job
        .settings
        .llm
        .clone()
        .or_else(|| old.map(|t| t.header.llm.clone()))
        .ok_or("no LLM endpoint: set [agent] llm in config.toml")?;
    let mut config = agent_config(&job.settings, llm)?;
    config.reason = job.reason.clone();
    let servers = match (&job.settings.servers, old) {
        (s, _) if !s.is_empty() => s.clone(),
        (_, Some(t)) => t.header.servers.clone(),
        _ => return Err("no MCP server: set [agent] servers in config.toml".into()),
    };
    let audited = guard
        .audited(fleet)
        .await
        .map_err(|e| format!("audit log: {e}; nothing was sent"))?;
    let tools = gather_tools(hub, &servers, &ToolFilter::default()).await?;
    let ev = events.clone();
    let on_event: crate::mcp::agent::run::OnEvent = Arc::new(move |e: &Event| {
        let update = AgentUpdate::Event(e.clone());
        let _ = ev.send(AppEvent::Agent { id, update });
    });
    let mut agent = Agent {
        fleet: fleet.clone(),
        hub: hub.clone(),
        tools,
        config,
        audited,
        approver: Some(approver(id, events.clone(), cancel.clone())),
        on_event,
        cancel,
        transcript_file: transcript_file(job.transcript_path.as_deref()),
    };
    let t = match &job.rerun {
        Some((old, from)) => agent.rerun(old, *from, job.edited.clone()).await?,
        None => agent.run(&job.question).await,
    };
    Ok(Box::new(t))
}

/// Asks the pane: sends the request with a channel and waits (on a blocking thread, as the loop
/// runs approvers) for the decision; a dropped channel or a cancelled run denies.
fn approver(id: u64, events: UnboundedSender<AppEvent>, cancel: CancellationToken) -> Approver {
    Arc::new(move |request: ApprovalRequest| {
        let (answer, rx) = std::sync::mpsc::channel();
        let update = AgentUpdate::Ask { request, answer };
        if events.send(AppEvent::Agent { id, update }).is_err() {
            return Decision::Deny;
        }
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(d) => return d,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) if !cancel.is_cancelled() => {}
                Err(_) => return Decision::Deny,
            }
        }
    })
}

/// The transcript file (its directory created if needed); None when there is none or it cannot
/// be written (the run goes on; the pane still has it).
fn transcript_file(path: Option<&std::path::Path>) -> Option<TranscriptFile> {
    let path = path?;
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    TranscriptFile::create(path).map_err(|e| tracing::warn!("{e}")).ok()
}
