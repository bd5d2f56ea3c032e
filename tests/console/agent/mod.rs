//! The Agent pane: a whole run against the sandbox's LLM and the demo MCP server over the wire
//! (question → tool call → final answer, the audit log, the saved transcript, `g`, a re-run),
//! approval (approve, deny, edit), cancel with Esc, the read-only refusal, snapshots of the
//! conversation with its waterfall, a step's detail and the approval dialog, and the real
//! binary in tmux (`sagedeck demo`, ask, wait for the answer).
//!
//! `wire`: runs over the wire; `pane`: the pane from a fixed transcript (snapshots).

mod pane;
mod wire;

use std::time::Duration;

use sagedeck::tui::config::AgentDefaults;

use crate::common::tmux::Tmux;

pub use pane::finished_app;

pub(super) const QUESTION: &str = "Classify the intent of this message: 'book me a flight to Paris'";
pub(super) const LLM: &str = "llm-tgi-chat";
pub(super) const TOOL_EP: &str = "mcp-intent-classifier-prod";

pub(super) fn settings(approve: Option<&str>) -> AgentDefaults {
    AgentDefaults {
        llm: Some(LLM.into()),
        servers: vec!["sagedeck-demo".into()],
        approve: approve.map(str::to_string),
        ..Default::default()
    }
}

#[test]
fn sagedeck_demo_asks_the_agent_and_shows_the_final_answer() {
    let t = Tmux::start_sized("agent", "demo --fast --no-traffic --backfill-hours 1", "", 140, 40);
    t.wait_for("the fleet", Duration::from_secs(60), |s| s.contains(TOOL_EP));
    t.keys(&[":", "agent", "Enter"]);
    t.wait_for("the Agent pane, ready to ask", Duration::from_secs(10), |s| {
        s.contains("a: ask") && s.contains("LLM llm-tgi-chat") && s.contains("sagedeck-demo")
    });
    t.keys(&["a", QUESTION, "Enter"]);
    let screen = t.wait_for("the final answer", Duration::from_secs(90), |s| {
        s.contains("answer: According to classify_intent")
    });
    assert!(screen.contains("classify_intent"), "{screen}");
    t.keys(&["q"]);
}
