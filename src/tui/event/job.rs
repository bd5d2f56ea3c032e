//! The jobs the UI asks the background tasks to do, with what each one acts on, changes and is
//! called on the status line.

use std::time::Duration;

use super::JobKind;
use crate::aws::change::weights::WeightPlan;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::invoke::call::InvokeSpec;

/// Work for the background tasks. Each job has an id; `Cancel` aborts one in flight.
#[derive(Debug, Clone)]
pub enum Job {
    /// Reload the fleet inventory.
    Inventory,
    /// Reload metrics for these endpoints over a window.
    Metrics {
        /// Endpoints (with their variants).
        endpoints: Vec<EndpointInfo>,
        /// Window length.
        window: Duration,
        /// Whether the result feeds the Latency pane's charts (else the fleet table).
        detail: bool,
    },
    /// Full description of one endpoint (for the describe view).
    Describe {
        /// Endpoint.
        endpoint: String,
    },
    /// Apply a weight plan and follow the endpoint until InService.
    ApplyWeights {
        /// The plan.
        plan: WeightPlan,
        /// The endpoint as the operator saw it (compare-and-swap: refused if it changed since).
        seen: Box<EndpointInfo>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Read the audit log for the Activity tab ([`AppEvent::Activity`]).
    Activity,
    /// Start a promotion plan (in its own task; progress as [`AppEvent::Promotion`]).
    Promote {
        /// The plan.
        spec: crate::aws::promote::plan::PromotionSpec,
        /// The operator's reason (audited).
        reason: Option<String>,
        /// The judge, gate alarms and load the plan adds.
        extras: crate::aws::promote::events::PlanExtras,
    },
    /// Resume (or roll back) an endpoint's saved, unfinished plan.
    PromoteResume {
        /// Endpoint.
        endpoint: String,
        /// Roll back instead of resuming.
        rollback: bool,
    },
    /// Answer a running plan (proceed, hold, roll back).
    PromoteControl {
        /// Endpoint.
        endpoint: String,
        /// The decision.
        control: crate::aws::promote::events::Control,
    },
    /// Invoke an endpoint `repeat` times.
    Invoke {
        /// What to send.
        spec: InvokeSpec,
        /// How many times.
        repeat: u32,
    },
    /// List an MME's catalog.
    Catalog {
        /// Endpoint.
        endpoint: String,
        /// Its ModelDataUrl.
        prefix: String,
    },
    /// Prewarm models of an MME.
    Prewarm {
        /// Endpoint.
        endpoint: String,
        /// Model keys.
        models: Vec<String>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Connect MCP servers (all of them when `server` is None), reporting [`AppEvent::McpServers`].
    McpConnect {
        /// One server by name.
        server: Option<String>,
    },
    /// Call an MCP tool `repeat` times (Esc sends `notifications/cancelled`).
    ToolCall {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
        /// Arguments.
        arguments: Option<rmcp::model::JsonObject>,
        /// How many times.
        repeat: u32,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Abort the job with this id.
    Cancel(u64),
    /// Run the agent loop (an LLM endpoint driving MCP tools) on a question, or re-run a
    /// transcript from a step; progress as [`AppEvent::Agent`]. It invokes an endpoint and calls
    /// tools, so read-only refuses it; every LLM and tool call is audited before it is sent.
    AgentRun {
        /// The question (a re-run asks its transcript's).
        question: String,
        /// LLM endpoint, request shape, template, servers, approval mode.
        settings: crate::tui::config::AgentDefaults,
        /// Re-run this transcript from this step instead.
        rerun: Option<(Box<crate::mcp::agent::Transcript>, u32)>,
        /// With `rerun`: the conversation to send at that step instead of the step's (edited).
        edited: Option<Vec<crate::mcp::agent::Message>>,
        /// The file the transcript is saved to (`.jsonl`), if any.
        transcript_path: Option<std::path::PathBuf>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Read the Scaling pane's view of one endpoint ([`AppEvent::Scaling`]).
    ScalingView {
        /// Endpoint.
        endpoint: String,
    },
    /// Change a variant's autoscaling (bounds, a policy, its removal, the instance count now):
    /// compare-and-swapped against `seen`, audited before it is sent ([`AppEvent::ScalingChanged`]).
    ChangeScaling {
        /// Endpoint.
        endpoint: String,
        /// Variant.
        variant: String,
        /// What to send, in order.
        changes: Vec<crate::aws::scaling::change::ScalingChange>,
        /// The variant's autoscaling as the operator saw it.
        seen: Box<crate::aws::scaling::change::ScalingSnapshot>,
        /// The operator's reason (audited; the session's `:reason` when None at submit).
        reason: Option<String>,
    },
    /// Read the states of the CloudWatch alarms that watch the fleet's endpoints
    /// ([`AppEvent::Alarms`]).
    Alarms,
    /// Read an endpoint's container logs (its streams too when `streams`), every page
    /// ([`AppEvent::Logs`]); follow mode asks again from the newest line seen.
    Logs {
        /// What to read.
        query: crate::aws::observe::logs::LogQuery,
        /// Whether to list the streams as well.
        streams: bool,
        /// Whether this is a follow poll (new lines are appended).
        follow: bool,
    },
    /// Build an endpoint's timeline since `since` (epoch seconds), audit log included
    /// ([`AppEvent::Timeline`]).
    Timeline {
        /// Endpoint.
        endpoint: String,
        /// From (epoch seconds).
        since: f64,
    },
}

impl Job {
    /// What this job would change, as the read-only refusal names it; None when it changes
    /// nothing (reads, holding a plan, cancelling).
    pub fn mutation(&self) -> Option<&'static str> {
        use crate::aws::promote::events::Control;
        match self {
            Job::PromoteResume { rollback: true, .. } => Some("rolling a promotion back"),
            Job::PromoteControl { control, .. } => match control {
                Control::Proceed => JobKind::PromoteControl.mutation(),
                Control::Rollback => Some("rolling a promotion back"),
                Control::Hold => None,
            },
            Job::ChangeScaling { changes, .. } => {
                use crate::aws::scaling::change::ScalingChange;
                match changes.first() {
                    Some(ScalingChange::Bounds { .. }) => Some("changing autoscaling bounds"),
                    Some(ScalingChange::Policy { .. }) => Some("changing a scaling policy"),
                    Some(ScalingChange::RemovePolicy { .. }) => Some("removing a scaling policy"),
                    Some(ScalingChange::Instances { .. }) => Some("setting the instance count"),
                    None => JobKind::ChangeScaling.mutation(),
                }
            }
            other => other.kind().mutation(),
        }
    }

    /// Gives a mutation without a reason of its own the session's reason (`:reason`, or
    /// `--reason` at start); other jobs are left as they are.
    pub fn stamp_reason(&mut self, session: Option<&str>) {
        let Some(session) = session else { return };
        if let Job::ApplyWeights { reason, .. }
        | Job::Prewarm { reason, .. }
        | Job::ToolCall { reason, .. }
        | Job::AgentRun { reason, .. }
        | Job::Promote { reason, .. }
        | Job::ChangeScaling { reason, .. } = self
            && reason.is_none()
        {
            *reason = Some(session.to_string());
        }
    }

    /// Whether this job changes something and has no reason yet.
    pub fn lacks_reason(&self) -> bool {
        matches!(
            self,
            Job::ApplyWeights { reason: None, .. }
                | Job::Prewarm { reason: None, .. }
                | Job::ToolCall { reason: None, .. }
                | Job::AgentRun { reason: None, .. }
                | Job::Promote { reason: None, .. }
                | Job::ChangeScaling { reason: None, .. }
        )
    }

    /// The endpoint this job acts on (its profile and region are the endpoint's own in a
    /// multi-region view); None for fleet-wide jobs.
    pub fn endpoint(&self) -> Option<&str> {
        match self {
            Job::Describe { endpoint }
            | Job::PromoteResume { endpoint, .. }
            | Job::PromoteControl { endpoint, .. }
            | Job::Catalog { endpoint, .. }
            | Job::Prewarm { endpoint, .. }
            | Job::ScalingView { endpoint }
            | Job::ChangeScaling { endpoint, .. }
            | Job::Timeline { endpoint, .. } => Some(endpoint),
            Job::ApplyWeights { plan, .. } => Some(&plan.endpoint),
            Job::Promote { spec, .. } => Some(&spec.endpoint),
            Job::Invoke { spec, .. } => Some(&spec.endpoint),
            Job::Logs { query, .. } => Some(&query.endpoint),
            Job::Metrics {
                endpoints,
                detail: true,
                ..
            } => endpoints.first().map(|e| e.name.as_str()),
            // Fleet-wide reads, MCP (the console's own profile and region), bookkeeping.
            Job::Metrics { .. }
            | Job::Inventory
            | Job::Activity
            | Job::Alarms
            | Job::McpConnect { .. }
            | Job::ToolCall { .. }
            | Job::AgentRun { .. }
            | Job::Cancel(_) => None,
        }
    }

    /// A short label for the status line.
    pub fn label(&self) -> String {
        match self {
            Job::Inventory => "refreshing endpoints".into(),
            Job::Metrics { .. } => "loading metrics".into(),
            Job::Describe { endpoint } => format!("describing {endpoint}"),
            Job::ApplyWeights { plan, .. } => format!("updating weights of {}", plan.endpoint),
            Job::Activity => "refreshing activity".into(),
            Job::Promote { spec, .. } => format!("starting the promotion of {}", spec.endpoint),
            Job::PromoteResume {
                endpoint,
                rollback: false,
            } => format!("resuming the promotion of {endpoint}"),
            Job::PromoteResume { endpoint, .. } => format!("rolling back the promotion of {endpoint}"),
            Job::PromoteControl { endpoint, control } => format!("{control:?} the promotion of {endpoint}"),
            Job::Invoke { spec, repeat } => {
                if *repeat > 1 {
                    format!("invoking {} ×{repeat}", spec.endpoint)
                } else {
                    format!("invoking {}", spec.endpoint)
                }
            }
            Job::Catalog { endpoint, .. } => format!("listing models of {endpoint}"),
            Job::Prewarm { endpoint, models, .. } => format!("prewarming {} models of {endpoint}", models.len()),
            Job::McpConnect { server: Some(s) } => format!("refreshing MCP server {s}"),
            Job::McpConnect { server: None } => "refreshing MCP servers".into(),
            Job::ToolCall { tool, repeat, .. } if *repeat > 1 => format!("calling tool {tool} ×{repeat}"),
            Job::ToolCall { tool, .. } => format!("calling tool {tool}"),
            Job::Cancel(_) => "cancelling".into(),
            Job::AgentRun {
                rerun: Some((t, n)), ..
            } => format!("re-running agent run {} from step {n}", t.header.run_id),
            Job::AgentRun { settings, .. } => {
                format!(
                    "agent run on {}",
                    settings.llm.as_deref().unwrap_or("(no LLM endpoint)")
                )
            }
            Job::ScalingView { endpoint } => format!("reading the autoscaling of {endpoint}"),
            Job::ChangeScaling { endpoint, variant, .. } => format!("changing the autoscaling of {endpoint} {variant}"),
            Job::Alarms => "reading alarm states".into(),
            Job::Logs { query, .. } => format!("reading logs of {}", query.endpoint),
            Job::Timeline { endpoint, .. } => format!("reading what changed on {endpoint}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prewarm(reason: Option<&str>) -> Job {
        Job::Prewarm {
            endpoint: "mme".into(),
            models: vec!["a.tar.gz".into()],
            reason: reason.map(str::to_string),
        }
    }

    #[test]
    fn the_session_reason_fills_only_mutations_without_one() {
        let mut own = prewarm(Some("typed for this change"));
        own.stamp_reason(Some("INC-1"));
        assert!(matches!(&own, Job::Prewarm { reason: Some(r), .. } if r == "typed for this change"));
        let mut none = prewarm(None);
        assert!(none.lacks_reason());
        none.stamp_reason(None);
        assert!(none.lacks_reason(), "no session reason: still none");
        none.stamp_reason(Some("INC-1"));
        assert!(matches!(&none, Job::Prewarm { reason: Some(r), .. } if r == "INC-1"));
        assert!(!none.lacks_reason());
        let mut read = Job::Inventory;
        read.stamp_reason(Some("INC-1"));
        assert!(!read.lacks_reason(), "reads are not mutations");
    }
}
