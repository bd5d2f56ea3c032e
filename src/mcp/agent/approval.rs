//! Approval of tool calls: `auto` calls every tool, `never` calls none, `ask` asks for every
//! call; without a mode, tools whose annotations do not say read-only (MCP's default) or say
//! destructive ask, and read-only ones run. Asking is the caller's: the loop hands an
//! [`ApprovalRequest`] to an [`Approver`] and gets a decision back (approve, deny, or edited
//! arguments).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolRef;
use super::parse::ParsedCall;
use super::trace::Step;

/// The approval mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Call every tool without asking.
    Auto,
    /// Ask before every call.
    Ask,
    /// Never call a tool.
    Never,
}

/// What the operator decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Call as proposed.
    Approve,
    /// Do not call.
    Deny,
    /// Call with these arguments instead.
    Edit(Value),
}

/// A call waiting for a decision.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// Step number.
    pub step: u32,
    /// Server.
    pub server: String,
    /// Tool.
    pub tool: String,
    /// Proposed arguments.
    pub arguments: Value,
    /// Why it asks (`--approve ask`, `not read-only`, `destructive`).
    pub why: String,
}

/// Decides calls that need asking (the CLI reads the terminal; tests answer directly).
pub type Approver = Arc<dyn Fn(ApprovalRequest) -> Decision + Send + Sync>;

/// Whether a call of `tool` must be asked about under `mode` (None: by annotations), and why.
pub fn needs_asking(mode: Option<ApprovalMode>, tool: &ToolRef) -> Option<String> {
    match mode {
        Some(ApprovalMode::Auto) => None,
        Some(ApprovalMode::Never) => Some("--approve never".into()),
        Some(ApprovalMode::Ask) => Some("--approve ask".into()),
        None => {
            let read_only = tool.read_only.unwrap_or(false);
            let destructive = !read_only && tool.destructive.unwrap_or(true);
            if destructive {
                Some("its annotations say it may be destructive".into())
            } else if !read_only {
                Some("its annotations do not say it is read-only".into())
            } else {
                None
            }
        }
    }
}

impl super::Agent {
    /// The arguments to call with (None: denied).
    pub(super) async fn approve(&self, rec: &mut Step, tool: &ToolRef, call: &ParsedCall) -> Option<Value> {
        let Some(why) = needs_asking(self.config.approval, tool) else {
            return Some(call.arguments.clone());
        };
        let never = self.config.approval == Some(super::ApprovalMode::Never);
        let decision = match (&self.approver, never) {
            (Some(ask), false) => {
                let req = ApprovalRequest {
                    step: rec.step,
                    server: tool.server.clone(),
                    tool: tool.name.clone(),
                    arguments: call.arguments.clone(),
                    why: why.clone(),
                };
                let ask = ask.clone();
                tokio::task::spawn_blocking(move || ask(req))
                    .await
                    .unwrap_or(Decision::Deny)
            }
            _ => Decision::Deny,
        };
        let (text, args) = match decision {
            Decision::Approve => ("approved".to_string(), Some(call.arguments.clone())),
            Decision::Edit(a) => {
                let violations = super::super::schema::validate(&tool.input_schema, &a);
                if violations.is_empty() {
                    (format!("approved with edited arguments {a}"), Some(a))
                } else {
                    let why = violations.join("; ");
                    (
                        format!("denied: the edited arguments {a} do not match the input schema: {why}"),
                        None,
                    )
                }
            }
            Decision::Deny => (format!("denied ({why})"), None),
        };
        rec.approval = Some(format!("{}: {text}", tool.name));
        args
    }
}
