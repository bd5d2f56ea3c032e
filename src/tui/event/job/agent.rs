//! The agent runner's jobs (`worker/agent.rs`): agent runs.

use super::Effect;

/// What the read-only refusal calls an agent run (the Agent pane asks it before asking).
pub const RUNNING_THE_AGENT: &str = "running the agent";

/// The agent loop's jobs. A run invokes an endpoint and calls tools, so read-only refuses it;
/// every LLM and tool call is audited before it is sent.
#[derive(Debug, Clone)]
pub enum AgentJob {
    /// Run the agent loop (an LLM endpoint driving MCP tools) on a question, or re-run a
    /// transcript from a step; progress as [`crate::tui::event::AppEvent::Agent`].
    Run(AgentRun),
}

/// One agent run: what to ask, with which settings, or which transcript to re-run.
#[derive(Debug, Clone)]
pub struct AgentRun {
    /// The question (a re-run asks its transcript's).
    pub question: String,
    /// LLM endpoint, request shape, template, servers, approval mode.
    pub settings: crate::tui::config::AgentDefaults,
    /// Re-run this transcript from this step instead.
    pub rerun: Option<(Box<crate::mcp::agent::Transcript>, u32)>,
    /// With `rerun`: the conversation to send at that step instead of the step's (edited).
    pub edited: Option<Vec<crate::mcp::agent::Message>>,
    /// The file the transcript is saved to (`.jsonl`), if any.
    pub transcript_path: Option<std::path::PathBuf>,
    /// The operator's reason (audited; the session's `:reason` when None at submit).
    pub reason: Option<String>,
}

super::kinds!(AgentJob => AgentKind { Run, });

super::effects!(AgentJob, |job| match job {
    AgentJob::Run(AgentRun { reason, .. }) => Effect::Audited(RUNNING_THE_AGENT, reason),
});

impl AgentJob {
    /// A short label for the status line.
    pub fn label(&self) -> String {
        match self {
            AgentJob::Run(AgentRun {
                rerun: Some((t, n)), ..
            }) => format!("re-running agent run {} from step {n}", t.header.run_id),
            AgentJob::Run(AgentRun { settings, .. }) => {
                let llm = settings.llm.as_deref().unwrap_or("(no LLM endpoint)");
                format!("agent run on {llm}")
            }
        }
    }
}
