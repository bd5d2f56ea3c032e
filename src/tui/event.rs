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
    },
    /// Abort the job with this id.
    Cancel(u64),
}

impl Job {
    /// A short label for the status line.
    pub fn label(&self) -> String {
        match self {
            Job::Inventory => "refreshing endpoints".into(),
            Job::Metrics { .. } => "loading metrics".into(),
            Job::Describe { endpoint } => format!("describing {endpoint}"),
            Job::ApplyWeights { plan } => format!("updating weights of {}", plan.endpoint),
            Job::Invoke { spec, repeat } => {
                if *repeat > 1 {
                    format!("invoking {} ×{repeat}", spec.endpoint)
                } else {
                    format!("invoking {}", spec.endpoint)
                }
            }
            Job::Catalog { endpoint, .. } => format!("listing models of {endpoint}"),
            Job::Prewarm { endpoint, models } => format!("prewarming {} models of {endpoint}", models.len()),
            Job::Cancel(_) => "cancelling".into(),
        }
    }
}

/// What background tasks report.
#[derive(Debug, Clone)]
pub enum AppEvent {
    /// A job started (id and label), so the UI can show and cancel it.
    Started {
        /// Job id.
        id: u64,
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
    /// A prewarm ended.
    PrewarmDone {
        /// Endpoint.
        endpoint: String,
        /// Per-model results.
        result: Result<Vec<PrewarmResult>, AwsError>,
    },
}
