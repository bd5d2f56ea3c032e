//! The fleet runner's jobs (`worker/fleet.rs`): reads of the fleet layer, and invocations.

use std::time::Duration;

use super::Effect;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::invoke::asynchronous::{AsyncAccepted, AsyncSpec};
use crate::aws::invoke::call::InvokeSpec;

/// What the read-only refusal calls an invocation (the Invoke pane asks it before sending).
pub const INVOKING: &str = "invoking";

/// Plain fleet-layer calls: reads, and invocations.
#[derive(Debug, Clone)]
pub enum FleetJob {
    /// Refresh the fleet inventory: every ListEndpoints page, and describes of what changed
    /// (`aws::endpoints::refresh`).
    Inventory {
        /// The selected endpoint, always described fresh.
        selected: Option<String>,
    },
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
    /// Invoke an endpoint `repeat` times.
    Invoke {
        /// What to send.
        spec: InvokeSpec,
        /// How many times.
        repeat: u32,
    },
    /// One streamed Chat Completions call on the OpenAI path (the Invoke pane's OpenAI mode);
    /// the bearer token is minted in the worker and never leaves it.
    Chat {
        /// Endpoint.
        endpoint: String,
        /// The inference component, on an IC endpoint.
        component: Option<String>,
        /// The request (`"stream": true`).
        body: Vec<u8>,
        /// `SessionId` to send, if any.
        session_id: Option<String>,
        /// The operator's reason, on the audit log's record of the minted token.
        reason: Option<String>,
    },
    /// One request to an asynchronous endpoint (InvokeEndpointAsync, the body inline)
    /// ([`crate::tui::event::AppEvent::AsyncAccepted`]); the Invoke pane then follows it.
    InvokeAsync {
        /// What to send.
        spec: AsyncSpec,
    },
    /// Follows an asynchronous request until its output or failure object appears, looking with
    /// backoff as `invoke-async --wait` does, or until `deadline` (epoch seconds) passes
    /// ([`crate::tui::event::AppEvent::AsyncSettled`]).
    AsyncFollow {
        /// What InvokeEndpointAsync answered.
        accepted: AsyncAccepted,
        /// When the request is taken as expired.
        deadline: f64,
    },
    /// Judge an endpoint's shadow against production over the last hour, as `sagedeck shadow`
    /// does ([`crate::tui::event::AppEvent::ShadowJudged`]).
    ShadowJudge {
        /// Endpoint.
        endpoint: String,
    },
    /// List an MME's catalog.
    Catalog {
        /// Endpoint.
        endpoint: String,
        /// Its ModelDataUrl.
        prefix: String,
    },
    /// Read the Scaling pane's view of one endpoint ([`crate::tui::event::AppEvent::Scaling`]).
    ScalingView {
        /// Endpoint.
        endpoint: String,
    },
    /// Read an inference-components endpoint's components, described, and their metrics in one
    /// GetMetricData plan ([`crate::tui::event::AppEvent::Components`]).
    Components {
        /// Endpoint.
        endpoint: String,
    },
    /// Read the states of the CloudWatch alarms that watch the fleet's endpoints
    /// ([`crate::tui::event::AppEvent::Alarms`]).
    Alarms,
    /// Read an endpoint's container logs (its streams too when `streams`), every page
    /// ([`crate::tui::event::AppEvent::Logs`]); follow mode asks again from the newest line seen.
    Logs {
        /// What to read.
        query: crate::aws::observe::logs::LogQuery,
        /// Whether to list the streams as well.
        streams: bool,
        /// Whether this is a follow poll (new lines are appended).
        follow: bool,
    },
}

super::kinds!(FleetJob => FleetKind {
    Inventory,
    Metrics,
    Describe,
    Invoke,
    Chat,
    InvokeAsync,
    AsyncFollow,
    ShadowJudge,
    Catalog,
    ScalingView,
    Components,
    Alarms,
    Logs,
});

super::effects!(FleetJob, |job| match job {
    FleetJob::Invoke { .. } | FleetJob::InvokeAsync { .. } => Effect::Changes(INVOKING),
    FleetJob::Chat { reason, .. } => Effect::Audited(INVOKING, reason),
    FleetJob::AsyncFollow { .. }
    | FleetJob::ShadowJudge { .. }
    | FleetJob::Inventory { .. }
    | FleetJob::Metrics { .. }
    | FleetJob::Describe { .. }
    | FleetJob::Catalog { .. }
    | FleetJob::ScalingView { .. }
    | FleetJob::Components { .. }
    | FleetJob::Alarms
    | FleetJob::Logs { .. } => Effect::Reads,
});

impl FleetJob {
    /// The endpoint this job acts on; None for fleet-wide reads.
    pub fn endpoint(&self) -> Option<&str> {
        match self {
            FleetJob::Describe { endpoint }
            | FleetJob::ShadowJudge { endpoint }
            | FleetJob::Catalog { endpoint, .. }
            | FleetJob::ScalingView { endpoint }
            | FleetJob::Components { endpoint }
            | FleetJob::Chat { endpoint, .. } => Some(endpoint),
            FleetJob::Invoke { spec, .. } => Some(&spec.endpoint),
            FleetJob::InvokeAsync { spec } => Some(&spec.endpoint),
            FleetJob::AsyncFollow { accepted, .. } => Some(&accepted.endpoint),
            FleetJob::Logs { query, .. } => Some(&query.endpoint),
            FleetJob::Metrics {
                endpoints,
                detail: true,
                ..
            } => endpoints.first().map(|e| e.name.as_str()),
            FleetJob::Metrics { .. } | FleetJob::Inventory { .. } | FleetJob::Alarms => None,
        }
    }

    /// A short label for the status line.
    pub fn label(&self) -> String {
        match self {
            FleetJob::Inventory { .. } => "refreshing endpoints".into(),
            FleetJob::Metrics { .. } => "loading metrics".into(),
            FleetJob::Describe { endpoint } => format!("describing {endpoint}"),
            FleetJob::Invoke { spec, repeat } if *repeat > 1 => format!("invoking {} ×{repeat}", spec.endpoint),
            FleetJob::Invoke { spec, .. } => format!("invoking {}", spec.endpoint),
            FleetJob::Chat { endpoint, .. } => format!("chatting with {endpoint}"),
            FleetJob::InvokeAsync { spec } => format!("queueing a request on {}", spec.endpoint),
            FleetJob::AsyncFollow { accepted, .. } => format!("following request {}", accepted.inference_id),
            FleetJob::Catalog { endpoint, .. } => format!("listing models of {endpoint}"),
            FleetJob::ShadowJudge { endpoint } => format!("judging the shadow of {endpoint}"),
            FleetJob::ScalingView { endpoint } => format!("reading the autoscaling of {endpoint}"),
            FleetJob::Components { endpoint } => format!("reading the components of {endpoint}"),
            FleetJob::Alarms => "reading alarm states".into(),
            FleetJob::Logs { query, .. } => format!("reading logs of {}", query.endpoint),
        }
    }
}

impl FleetKind {
    /// A refresh the console runs on its own (not cancelled by Esc, not shown as the user's).
    /// A describe is one too: a running plan asks for one on each of its events, and Esc must
    /// reach the plan's stop menu rather than cancel that read (the describe overlay closes on
    /// Esc before any job is cancelled).
    pub fn is_refresh(self) -> bool {
        matches!(
            self,
            FleetKind::Inventory
                | FleetKind::Metrics
                | FleetKind::Alarms
                | FleetKind::Logs
                | FleetKind::Describe
                | FleetKind::Components
                | FleetKind::AsyncFollow
                | FleetKind::ShadowJudge
        )
    }
}
