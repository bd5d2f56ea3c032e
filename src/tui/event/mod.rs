//! The typed messages of the console: jobs the UI asks background tasks to do ([`Job`], one
//! enum per runner, and [`JobKind`], what each is without its data), and the events they send back ([`AppEvent`]).
//! State changes only through [`AppEvent`]s.

mod job;

pub use job::*;

/// A server's elicitation waiting for its answer, shared so that the event can be cloned: the
/// first to take it answers.
#[derive(Debug, Clone)]
pub struct ElicitSlot(pub std::sync::Arc<parking_lot::Mutex<Option<crate::mcp::elicit::ElicitAsk>>>);

impl ElicitSlot {
    /// Wraps a request.
    pub fn new(ask: crate::mcp::elicit::ElicitAsk) -> ElicitSlot {
        ElicitSlot(std::sync::Arc::new(parking_lot::Mutex::new(Some(ask))))
    }

    /// The request, once.
    pub fn take(&self) -> Option<crate::mcp::elicit::ElicitAsk> {
        self.0.lock().take()
    }
}

use crate::aws::AwsError;
use crate::aws::endpoints::autoscaling::ActivityInfo;
use crate::aws::endpoints::catalog::Catalog;
use crate::aws::endpoints::inventory::{EndpointInfo, Inventory};
use crate::aws::invoke::call::{InvokeFailure, InvokeResult};
use crate::aws::invoke::prewarm::{PrewarmEvent, PrewarmResult};
use crate::aws::observe::metrics::MetricsSnapshot;

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
    /// A refresh in progress: a ListEndpoints page or a batch of describes, before the
    /// [`AppEvent::Inventory`] that ends it.
    InventoryProgress {
        /// The pair (index into the view's profile × region pairs) it is from; None in a
        /// single-region view.
        origin: Option<usize>,
        /// What was listed or described.
        progress: crate::aws::endpoints::progressive::InventoryProgress,
    },
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
    /// Bytes of a streamed Chat Completions answer (server-sent events, as they arrived).
    ChatPart {
        /// Job id.
        id: u64,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A Chat Completions call ended: the session it left, or why it failed.
    Chatted {
        /// Job id.
        id: u64,
        /// The session info, or the classified failure.
        result: Result<crate::aws::invoke::session::SessionInfo, AwsError>,
    },
    /// InvokeEndpointAsync answered (or refused) a request of the Invoke pane.
    AsyncAccepted {
        /// Job id.
        id: u64,
        /// The request's id and locations, or the classified failure.
        result: Result<crate::aws::invoke::asynchronous::AsyncAccepted, AwsError>,
    },
    /// An asynchronous request ended: its output or failure object, None when its deadline
    /// passed first (expired), or why it could not be looked at.
    AsyncSettled {
        /// Its InferenceId.
        inference_id: String,
        /// How it ended.
        result: Result<Option<crate::aws::invoke::asynchronous::AsyncOutcome>, AwsError>,
    },
    /// The judge's report on an endpoint's shadow against production.
    ShadowJudged {
        /// Endpoint.
        endpoint: String,
        /// The report, or why the judge could not run.
        result: Result<Box<crate::aws::promote::shadow::ShadowReport>, AwsError>,
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
    /// A step of an OAuth login to an MCP server (the URL to open, then how it ended).
    McpLogin {
        /// Server name.
        server: String,
        /// The step.
        step: crate::mcp::oauth::LoginStep,
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
    /// A server's resources, templates and prompts as listed now, or why they could not be.
    McpCatalog {
        /// Server name.
        server: String,
        /// The lists.
        catalog: Result<crate::mcp::resources::Catalog, String>,
    },
    /// A resource read or a prompt got: its lines as shown, or why it failed.
    McpContent {
        /// Server name.
        server: String,
        /// What was read (`URI`, `prompt NAME`).
        what: String,
        /// The lines.
        lines: Result<Vec<String>, String>,
    },
    /// A subscription was made or ended (or failed).
    McpSubscribed {
        /// Server name.
        server: String,
        /// The resource.
        uri: String,
        /// Subscribed (true) or unsubscribed.
        on: bool,
        /// Why it failed.
        result: Result<(), String>,
    },
    /// A subscribed resource changed (`notifications/resources/updated`).
    McpUpdated {
        /// Server name.
        server: String,
        /// The resource.
        uri: String,
    },
    /// A server asks for input: the Tools pane shows the form and answers it.
    McpElicit(crate::tui::event::ElicitSlot),
    /// The audit log as read (all lines, oldest first), or why it could not be read.
    Activity(Result<Vec<crate::aws::change::audit::AuditRecord>, String>),
    /// The alarms that watch each endpoint, with their states, or why they could not be read.
    Alarms(Result<std::collections::HashMap<String, Vec<crate::aws::observe::alarms::AlarmStatus>>, String>),
    /// Progress of a running promotion plan.
    Promotion {
        /// Endpoint.
        endpoint: String,
        /// What happened.
        event: Box<crate::aws::promote::events::PromotionEvent>,
    },
    /// A promotion plan stopped running (completed, rolled back, held) or could not start.
    PromotionEnded {
        /// Endpoint.
        endpoint: String,
        /// The final state, or why it failed.
        result: Result<Box<crate::aws::promote::plan::PlanState>, String>,
    },
    /// What the team's audit trail says of a plan on an endpoint, read before a plan is
    /// confirmed there: the last one announced and not ended (None: none, or no trail
    /// configured), or why it could not be read.
    PlanLock {
        /// Endpoint.
        endpoint: String,
        /// The plan announced, or why the trail was not read.
        result: Result<Option<crate::aws::promote::announce::Announced>, String>,
    },
    /// Plans a previous console or CLI left unfinished, found at start.
    UnfinishedPlans(Vec<crate::aws::promote::plan::PlanState>),
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
        result: Result<
            (
                Option<Vec<crate::aws::observe::logs::StreamInfo>>,
                crate::aws::observe::logs::LogRead,
            ),
            AwsError,
        >,
    },
    /// An endpoint's timeline (oldest first), or why it could not be read.
    Timeline {
        /// Endpoint.
        endpoint: String,
        /// The events.
        result: Result<Vec<crate::aws::observe::timeline::TimelineEvent>, AwsError>,
        /// Where reading CloudTrail stands (None when it was not read).
        trail: Option<crate::aws::trail::TrailStatus>,
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
        result: Result<Box<crate::aws::scaling::view::ScalingView>, AwsError>,
    },
    /// An inference-components endpoint's components and their metrics
    /// ([`FleetJob::Components`]).
    Components {
        /// Endpoint.
        endpoint: String,
        /// The read, or why the components could not be listed.
        result: Result<Box<crate::tui::data::ComponentsRead>, AwsError>,
    },
    /// A serverless variant's concurrency change ended ([`GuardJob::SetServerless`]): the
    /// endpoint InService again with it, or the refusal or error (nothing sent, or what failed).
    ServerlessSet {
        /// Endpoint.
        endpoint: String,
        /// The endpoint after the change, or why not.
        result: Result<Box<EndpointInfo>, String>,
    },
    /// A copy-count change ended ([`GuardJob::SetCopies`]): the component as described after
    /// it was sent, or the refusal (it changed since it was read) or the error.
    CopiesSet {
        /// Endpoint.
        endpoint: String,
        /// Component.
        component: String,
        /// The component after the change was accepted, or why nothing was sent.
        result: Result<Box<crate::aws::components::Component>, String>,
    },
    /// A rolling update of a component ([`GuardJob::UpdateComponent`]): each state it passes
    /// through, then how it ended.
    ComponentUpdate {
        /// Endpoint.
        endpoint: String,
        /// Component.
        component: String,
        /// What happened.
        progress: UpdateProgress,
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
    /// A deployment planned from the Variants pane's form: the plan, or every refusal in one line.
    DeployPlanned {
        /// Endpoint.
        endpoint: String,
        /// The plan, or why it is refused.
        result: Result<Box<crate::aws::deploy::plan::DeployPlan>, String>,
    },
    /// A read of a deployment the console started (or follows).
    Deployment {
        /// Endpoint.
        endpoint: String,
        /// The stepper as read.
        stepper: Box<crate::aws::deploy::stepper::Stepper>,
    },
    /// A deployment the console started ended (its outcome), or could not start or be watched.
    DeploymentEnded {
        /// Endpoint.
        endpoint: String,
        /// The outcome, or why there is none.
        result: Result<crate::aws::deploy::stepper::Outcome, String>,
    },
    /// Progress of an agent run.
    Agent {
        /// Job id.
        id: u64,
        /// What happened.
        update: AgentUpdate,
    },
    /// A server's sampling request waits for the operator (`--approve-sampling ask`).
    SamplingAsked(crate::tui::widgets::sampling::SamplingAsk),
}

/// How a component's rolling update goes.
#[derive(Debug, Clone)]
pub enum UpdateProgress {
    /// Sent: the component as it now is (Updating, copies moving).
    State(Box<crate::aws::components::Component>),
    /// It ended: rolled out, rolled back or failed; or it was refused or could not be followed.
    Done(Result<Box<crate::aws::components::RolloutReport>, String>),
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
