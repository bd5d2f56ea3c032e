//! The typed messages of the console: jobs the UI asks background tasks to do, and the events
//! they send back. State changes only through [`AppEvent`]s.

use std::time::Duration;

use crate::aws::AwsError;
use crate::aws::catalog::Catalog;
use crate::aws::inventory::{EndpointInfo, Inventory};
use crate::aws::invoke::{InvokeFailure, InvokeResult, InvokeSpec};
use crate::aws::metrics::MetricsSnapshot;
use crate::aws::prewarm::{PrewarmEvent, PrewarmResult};
use crate::aws::scaling::ActivityInfo;
use crate::aws::weights::WeightPlan;

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
        spec: crate::aws::promote::PromotionSpec,
        /// The operator's reason (audited).
        reason: Option<String>,
        /// The judge, gate alarms and load the plan adds.
        extras: crate::aws::promote_run::PlanExtras,
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
        control: crate::aws::promote_run::Control,
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
        changes: Vec<crate::aws::scaling_change::ScalingChange>,
        /// The variant's autoscaling as the operator saw it.
        seen: Box<crate::aws::scaling_change::ScalingSnapshot>,
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
        query: crate::aws::logs::LogQuery,
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

/// What a job is, without its data: the worker dispatches on it, the app tracks jobs in flight
/// by it, and the read-only gate asks it whether the job changes anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// [`Job::Inventory`].
    Inventory,
    /// [`Job::Metrics`].
    Metrics,
    /// [`Job::Describe`].
    Describe,
    /// [`Job::ApplyWeights`].
    ApplyWeights,
    /// [`Job::Activity`].
    Activity,
    /// [`Job::Promote`].
    Promote,
    /// [`Job::PromoteResume`].
    PromoteResume,
    /// [`Job::PromoteControl`].
    PromoteControl,
    /// [`Job::Invoke`].
    Invoke,
    /// [`Job::Catalog`].
    Catalog,
    /// [`Job::Prewarm`].
    Prewarm,
    /// [`Job::McpConnect`].
    McpConnect,
    /// [`Job::ToolCall`].
    ToolCall,
    /// [`Job::Cancel`].
    Cancel,
    /// [`Job::AgentRun`].
    AgentRun,
    /// [`Job::ScalingView`].
    ScalingView,
    /// [`Job::ChangeScaling`].
    ChangeScaling,
    /// [`Job::Alarms`].
    Alarms,
    /// [`Job::Logs`].
    Logs,
    /// [`Job::Timeline`].
    Timeline,
}

/// Which part of the worker runs a kind of job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// Plain fleet-layer calls (reads, invocations).
    Fleet,
    /// Audited mutations and the audit log (`worker/guard.rs`).
    Guard,
    /// MCP servers (`worker/mcp.rs`).
    Mcp,
    /// The worker's own bookkeeping (cancel).
    Worker,
}

impl JobKind {
    /// Every kind, for the tests that prove the read-only gate covers each mutation.
    pub const ALL: [JobKind; 20] = [
        JobKind::Inventory,
        JobKind::Metrics,
        JobKind::Describe,
        JobKind::ApplyWeights,
        JobKind::Activity,
        JobKind::Promote,
        JobKind::PromoteResume,
        JobKind::PromoteControl,
        JobKind::Invoke,
        JobKind::Catalog,
        JobKind::Prewarm,
        JobKind::McpConnect,
        JobKind::ToolCall,
        JobKind::Cancel,
        JobKind::AgentRun,
        JobKind::ScalingView,
        JobKind::ChangeScaling,
        JobKind::Alarms,
        JobKind::Logs,
        JobKind::Timeline,
    ];

    /// The part of the worker that runs it.
    pub fn runner(self) -> Runner {
        match self {
            JobKind::Inventory
            | JobKind::Metrics
            | JobKind::Describe
            | JobKind::Invoke
            | JobKind::Catalog
            | JobKind::ScalingView
            | JobKind::Alarms
            | JobKind::Logs => Runner::Fleet,
            // It reads the audit log, which the guard holds.
            JobKind::Timeline => Runner::Guard,
            JobKind::ApplyWeights
            | JobKind::Activity
            | JobKind::Promote
            | JobKind::PromoteResume
            | JobKind::PromoteControl
            | JobKind::Prewarm
            | JobKind::ChangeScaling => Runner::Guard,
            JobKind::McpConnect | JobKind::ToolCall | JobKind::AgentRun => Runner::Mcp,
            JobKind::Cancel => Runner::Worker,
        }
    }

    /// What a job of this kind changes, as the read-only refusal names it (None: it changes
    /// nothing). [`Job::mutation`] refines it for the variants that depend on their data.
    pub fn mutation(self) -> Option<&'static str> {
        match self {
            JobKind::ApplyWeights => Some("changing weights"),
            JobKind::Promote => Some("promotion"),
            JobKind::PromoteResume => Some("resuming a promotion"),
            JobKind::PromoteControl => Some("proceeding with a promotion"),
            JobKind::Invoke => Some("invoking"),
            JobKind::Prewarm => Some("prewarming"),
            JobKind::ToolCall => Some("calling tools"),
            JobKind::AgentRun => Some("running the agent"),
            JobKind::ChangeScaling => Some("changing autoscaling"),
            JobKind::Inventory
            | JobKind::Metrics
            | JobKind::Describe
            | JobKind::Activity
            | JobKind::Catalog
            | JobKind::McpConnect
            | JobKind::ScalingView
            | JobKind::Cancel
            | JobKind::Alarms
            | JobKind::Logs
            | JobKind::Timeline => None,
        }
    }

    /// A refresh the console runs on its own (not cancelled by Esc, not shown as the user's).
    pub fn is_refresh(self) -> bool {
        matches!(
            self,
            JobKind::Inventory
                | JobKind::Metrics
                | JobKind::Activity
                | JobKind::Alarms
                | JobKind::Logs
                | JobKind::Timeline
        )
    }
}

impl Job {
    /// What kind of job this is.
    pub fn kind(&self) -> JobKind {
        match self {
            Job::Inventory => JobKind::Inventory,
            Job::Metrics { .. } => JobKind::Metrics,
            Job::Describe { .. } => JobKind::Describe,
            Job::ApplyWeights { .. } => JobKind::ApplyWeights,
            Job::Activity => JobKind::Activity,
            Job::Promote { .. } => JobKind::Promote,
            Job::PromoteResume { .. } => JobKind::PromoteResume,
            Job::PromoteControl { .. } => JobKind::PromoteControl,
            Job::Invoke { .. } => JobKind::Invoke,
            Job::Catalog { .. } => JobKind::Catalog,
            Job::Prewarm { .. } => JobKind::Prewarm,
            Job::McpConnect { .. } => JobKind::McpConnect,
            Job::ToolCall { .. } => JobKind::ToolCall,
            Job::Cancel(_) => JobKind::Cancel,
            Job::AgentRun { .. } => JobKind::AgentRun,
            Job::ScalingView { .. } => JobKind::ScalingView,
            Job::ChangeScaling { .. } => JobKind::ChangeScaling,
            Job::Alarms => JobKind::Alarms,
            Job::Logs { .. } => JobKind::Logs,
            Job::Timeline { .. } => JobKind::Timeline,
        }
    }

    /// What this job would change, as the read-only refusal names it; None when it changes
    /// nothing (reads, holding a plan, cancelling).
    pub fn mutation(&self) -> Option<&'static str> {
        use crate::aws::promote_run::Control;
        match self {
            Job::PromoteResume { rollback: true, .. } => Some("rolling a promotion back"),
            Job::PromoteControl { control, .. } => match control {
                Control::Proceed => JobKind::PromoteControl.mutation(),
                Control::Rollback => Some("rolling a promotion back"),
                Control::Hold => None,
            },
            Job::ChangeScaling { changes, .. } => {
                use crate::aws::scaling_change::ScalingChange;
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

/// What background tasks report.
#[derive(Debug, Clone)]
pub enum AppEvent {
    /// A job started (id, kind and label), so the UI can show and cancel it.
    Started {
        /// Job id.
        id: u64,
        /// What kind of job.
        kind: JobKind,
        /// Label.
        label: String,
    },
    /// A job ended (finished, failed, or cancelled).
    Finished {
        /// Job id.
        id: u64,
        /// Whether it was cancelled.
        cancelled: bool,
    },
    /// The inventory.
    Inventory(Result<Inventory, AwsError>),
    /// A multi-region refresh: every profile × region pair and the pair of each endpoint of the
    /// [`AppEvent::Inventory`] that follows.
    Regions {
        /// One row per pair.
        regions: Vec<crate::tui::regions::RegionRow>,
        /// The pair (index into `regions`) of every endpoint.
        origins: Vec<usize>,
    },
    /// Metrics.
    Metrics {
        /// Whether for the Latency pane.
        detail: bool,
        /// The snapshot.
        result: Result<MetricsSnapshot, AwsError>,
    },
    /// A description: the endpoint, recent scaling activities, and the raw JSON document.
    Described {
        /// Endpoint.
        endpoint: String,
        /// Document to show.
        result: Result<(EndpointInfo, Vec<ActivityInfo>), AwsError>,
    },
    /// A weight change progressed (the endpoint as last described).
    WeightsProgress(EndpointInfo),
    /// A weight change ended.
    WeightsDone {
        /// Endpoint.
        endpoint: String,
        /// Final state, or the refusal.
        result: Result<EndpointInfo, AwsError>,
    },
    /// One invocation finished (of a possibly repeated job).
    Invoked {
        /// Job id.
        id: u64,
        /// Index within the repeat (0-based).
        index: u32,
        /// Outcome.
        result: Result<InvokeResult, InvokeFailure>,
    },
    /// An MME catalog.
    Catalog {
        /// Endpoint.
        endpoint: String,
        /// The catalog.
        result: Result<Catalog, AwsError>,
    },
    /// Prewarm progress.
    Prewarm {
        /// Endpoint.
        endpoint: String,
        /// What happened.
        event: PrewarmEvent,
    },
    /// MCP servers as they stand now (status, tools), with their logs.
    McpServers {
        /// Every server.
        servers: Vec<crate::mcp::ServerView>,
        /// Logs of the connected ones, by name.
        logs: Vec<(String, crate::mcp::events::ServerLog)>,
    },
    /// Progress of a tool call.
    ToolProgress {
        /// Job id.
        id: u64,
        /// The notification.
        progress: crate::mcp::events::Progress,
    },
    /// One tool call answered (of a possibly repeated job).
    ToolResult {
        /// Job id.
        id: u64,
        /// Index within the repeat (0-based).
        index: u32,
        /// Outcome.
        result: Result<crate::mcp::CallOutcome, crate::mcp::CallError>,
    },
    /// The audit log as read (all lines, oldest first), or why it could not be read.
    Activity(Result<Vec<crate::aws::audit::AuditRecord>, String>),
    /// The alarms that watch each endpoint, with their states, or why they could not be read.
    Alarms(Result<std::collections::HashMap<String, Vec<crate::aws::alarms::AlarmStatus>>, String>),
    /// Progress of a running promotion plan.
    Promotion {
        /// Endpoint.
        endpoint: String,
        /// What happened.
        event: Box<crate::aws::promote_run::PromotionEvent>,
    },
    /// A promotion plan stopped running (completed, rolled back, held) or could not start.
    PromotionEnded {
        /// Endpoint.
        endpoint: String,
        /// The final state, or why it failed.
        result: Result<Box<crate::aws::promote::PlanState>, String>,
    },
    /// Plans a previous console or CLI left unfinished, found at start.
    UnfinishedPlans(Vec<crate::aws::promote::PlanState>),
    /// A message for a toast (audit warnings, refused controls).
    Notice {
        /// Whether it is an error.
        error: bool,
        /// The text.
        text: String,
    },
    /// Container logs read (or why not).
    Logs {
        /// Endpoint.
        endpoint: String,
        /// Whether a follow poll.
        follow: bool,
        /// The streams (when asked) and the lines.
        result: Result<(Option<Vec<crate::aws::logs::StreamInfo>>, crate::aws::logs::LogRead), AwsError>,
    },
    /// An endpoint's timeline (oldest first), or why it could not be read.
    Timeline {
        /// Endpoint.
        endpoint: String,
        /// The events.
        result: Result<Vec<crate::aws::timeline::TimelineEvent>, AwsError>,
    },
    /// A prewarm ended.
    PrewarmDone {
        /// Endpoint.
        endpoint: String,
        /// Per-model results.
        result: Result<Vec<PrewarmResult>, AwsError>,
    },
    /// The Scaling pane's view of an endpoint.
    Scaling {
        /// Endpoint.
        endpoint: String,
        /// The view, or why it could not be read.
        result: Result<Box<crate::aws::scaling_view::ScalingView>, AwsError>,
    },
    /// An autoscaling change ended: the request ids, or the refusal (every difference when the
    /// variant changed since it was read) or the error.
    ScalingChanged {
        /// Endpoint.
        endpoint: String,
        /// Variant.
        variant: String,
        /// Request ids, or why nothing (or not everything) was applied.
        result: Result<Vec<Option<String>>, String>,
    },
    /// Progress of an agent run.
    Agent {
        /// Job id.
        id: u64,
        /// What happened.
        update: AgentUpdate,
    },
}

/// What an agent run reports.
#[derive(Debug, Clone)]
pub enum AgentUpdate {
    /// The loop's own event (step started, token, calling, step, end).
    Event(crate::mcp::agent::Event),
    /// A tool call waits for the operator: the decision goes back on `answer`.
    Ask {
        /// The call.
        request: crate::mcp::agent::ApprovalRequest,
        /// Where the decision goes (dropping it denies).
        answer: std::sync::mpsc::Sender<crate::mcp::agent::Decision>,
    },
    /// The run ended: its transcript, or why it could not start.
    Done(Result<Box<crate::mcp::agent::Transcript>, String>),
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
