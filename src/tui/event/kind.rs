//! What a job is without its data: [`JobKind`], declared once with its list of every kind, and
//! [`Runner`], the part of the worker that runs each kind.

use super::Job;

/// Declares the job kinds once, one per [`Job`] variant and in its order: it generates the
/// [`JobKind`] enum, [`JobKind::ALL`] (every kind, in step with the enum by construction) and
/// [`Job::kind`]. A new job is a [`Job`] variant plus one line here.
macro_rules! job_kinds {
    ($($kind:ident,)+) => {
        /// What a job is, without its data: the worker dispatches on it, the app tracks jobs in
        /// flight by it, and the read-only gate asks it whether the job changes anything.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum JobKind {
            $(
                #[doc = concat!("[`Job::", stringify!($kind), "`].")]
                $kind,
            )+
        }

        impl JobKind {
            /// Every kind, for the tests that prove the read-only gate covers each mutation.
            pub const ALL: [JobKind; [$(JobKind::$kind),+].len()] = [$(JobKind::$kind),+];
        }

        impl Job {
            /// What kind of job this is.
            pub fn kind(&self) -> JobKind {
                match self {
                    $(Job::$kind { .. } => JobKind::$kind,)+
                }
            }
        }
    };
}

job_kinds! {
    Inventory,
    Metrics,
    Describe,
    ApplyWeights,
    Activity,
    Promote,
    PromoteResume,
    PromoteControl,
    Invoke,
    Catalog,
    Prewarm,
    McpConnect,
    ToolCall,
    Cancel,
    AgentRun,
    ScalingView,
    ChangeScaling,
    Alarms,
    Logs,
    Timeline,
}

/// Which part of the worker runs a kind of job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// Plain fleet-layer calls (reads, invocations).
    Fleet,
    /// Audited mutations and the audit log (`worker/guard/`).
    Guard,
    /// MCP servers (`worker/mcp.rs`).
    Mcp,
    /// The worker's own bookkeeping (cancel).
    Worker,
}

impl JobKind {
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
