//! The jobs the UI asks the background tasks to do: one enum per runner of the worker
//! ([`FleetJob`], [`GuardJob`], [`McpJob`], [`AgentJob`]) inside [`Job`], each declared in its
//! runner's file here with what it acts on, what it changes ([`Effect`], declared once per job)
//! and what the status line calls it. A new job is a variant of its runner's enum and that
//! runner's arm in `worker/`.

mod agent;
mod fleet;
mod guard;
mod mcp;

pub use agent::{AgentJob, AgentKind, AgentRun, RUNNING_THE_AGENT};
pub use fleet::{FleetJob, FleetKind, INVOKING};
pub use guard::{
    CHANGING_AUTOSCALING, CHANGING_WEIGHTS, DEPLOYING, GuardJob, GuardKind, PREWARMING, PROMOTION,
    RESUMING_A_PROMOTION, SETTING_CONCURRENCY, SETTING_COPIES, UPDATING_A_COMPONENT, WAKING_A_COMPONENT,
};
pub use mcp::{CALLING_TOOLS, McpJob, McpKind, ReadTarget};

/// What a job changes, declared once per job by its runner's `effect`: the read-only gate
/// (`App::submit`) refuses every job that is not [`Effect::Reads`], and the audit stamp gives an
/// [`Effect::Audited`] job without a reason of its own the session's. `R` is where the job keeps
/// its reason (`&Option<String>`, or `&mut` to stamp it).
#[derive(Debug, PartialEq, Eq)]
pub enum Effect<R> {
    /// It changes nothing (reads, holding a plan, bookkeeping).
    Reads,
    /// It changes something (named as the read-only refusal names it) and carries no reason of
    /// its own (invocations; controls of a plan that has its own).
    Changes(&'static str),
    /// It changes something (named as the read-only refusal names it) and carries the
    /// operator's reason, written to the audit log with it.
    Audited(&'static str, R),
}

impl<R> Effect<R> {
    /// What the job changes, as the read-only refusal names it; None when it changes nothing.
    pub fn mutation(&self) -> Option<&'static str> {
        match self {
            Effect::Reads => None,
            Effect::Changes(what) | Effect::Audited(what, _) => Some(what),
        }
    }
}

/// Declares a runner's job kinds from the names of its enum's variants: the `$kind` enum,
/// `$kind::ALL` and `$job::kind`. The generated match is exhaustive, so a variant missing here (or
/// a name that is no variant) does not compile.
macro_rules! kinds {
    ($job:ident => $kind:ident { $($variant:ident,)+ }) => {
        #[doc = concat!("What a [`", stringify!($job), "`] is, without its data.")]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $kind {
            $(
                #[doc = concat!("[`", stringify!($job), "::", stringify!($variant), "`].")]
                $variant,
            )+
        }

        impl $kind {
            /// Every kind, for the tests that try each against the read-only gate.
            pub const ALL: &'static [$kind] = &[$($kind::$variant),+];
        }

        impl $job {
            /// What kind of job this is.
            pub fn kind(&self) -> $kind {
                match self {
                    $($job::$variant { .. } => $kind::$variant,)+
                }
            }
        }
    };
}
use kinds;

/// Declares a runner's [`Effect`] per job, once: the one `match` given is compiled twice, as
/// `effect` (reading the reason) and `effect_mut` (to stamp it), so both always agree.
macro_rules! effects {
    ($job:ident, |$it:ident| $declaration:expr) => {
        impl $job {
            /// What this job changes and, when it is audited, its reason.
            pub fn effect(&self) -> $crate::tui::event::Effect<&Option<String>> {
                let $it = self;
                $declaration
            }

            /// [`Self::effect`], with the reason to fill in.
            pub fn effect_mut(&mut self) -> $crate::tui::event::Effect<&mut Option<String>> {
                let $it = self;
                $declaration
            }
        }
    };
}
use effects;

/// Work for the background tasks, by the runner that does it. Each job has an id; `Cancel`
/// aborts one in flight.
#[derive(Debug, Clone)]
pub enum Job {
    /// Reads and invocations (`worker/fleet.rs`).
    Fleet(FleetJob),
    /// Audited mutations and the audit log (`worker/guard/`).
    Guard(GuardJob),
    /// MCP servers (`worker/mcp/`).
    Mcp(McpJob),
    /// Agent runs (`worker/agent.rs`).
    Agent(AgentJob),
    /// Abort the job with this id (the worker's own).
    Cancel(u64),
}

/// What a job is without its data: the app tracks jobs in flight by it, and the tests try every
/// kind against the read-only gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// A [`FleetJob`].
    Fleet(FleetKind),
    /// A [`GuardJob`].
    Guard(GuardKind),
    /// An [`McpJob`].
    Mcp(McpKind),
    /// An [`AgentJob`].
    Agent(AgentKind),
    /// [`Job::Cancel`].
    Cancel,
}

impl JobKind {
    /// Every kind of every runner.
    pub fn all() -> impl Iterator<Item = JobKind> {
        let fleet = FleetKind::ALL.iter().copied().map(JobKind::Fleet);
        let guard = GuardKind::ALL.iter().copied().map(JobKind::Guard);
        let mcp = McpKind::ALL.iter().copied().map(JobKind::Mcp);
        let agent = AgentKind::ALL.iter().copied().map(JobKind::Agent);
        fleet.chain(guard).chain(mcp).chain(agent).chain([JobKind::Cancel])
    }

    /// A refresh the console runs on its own (not cancelled by Esc, not shown as the user's).
    pub fn is_refresh(self) -> bool {
        match self {
            JobKind::Fleet(k) => k.is_refresh(),
            JobKind::Guard(k) => k.is_refresh(),
            JobKind::Mcp(_) | JobKind::Agent(_) | JobKind::Cancel => false,
        }
    }
}

impl From<FleetJob> for Job {
    fn from(job: FleetJob) -> Job {
        Job::Fleet(job)
    }
}

impl From<GuardJob> for Job {
    fn from(job: GuardJob) -> Job {
        Job::Guard(job)
    }
}

impl From<McpJob> for Job {
    fn from(job: McpJob) -> Job {
        Job::Mcp(job)
    }
}

impl From<AgentJob> for Job {
    fn from(job: AgentJob) -> Job {
        Job::Agent(job)
    }
}

impl Job {
    /// What kind of job this is.
    pub fn kind(&self) -> JobKind {
        match self {
            Job::Fleet(j) => JobKind::Fleet(j.kind()),
            Job::Guard(j) => JobKind::Guard(j.kind()),
            Job::Mcp(j) => JobKind::Mcp(j.kind()),
            Job::Agent(j) => JobKind::Agent(j.kind()),
            Job::Cancel(_) => JobKind::Cancel,
        }
    }

    /// What this job changes, as its runner declares it.
    pub fn effect(&self) -> Effect<&Option<String>> {
        match self {
            Job::Fleet(j) => j.effect(),
            Job::Guard(j) => j.effect(),
            Job::Mcp(j) => j.effect(),
            Job::Agent(j) => j.effect(),
            Job::Cancel(_) => Effect::Reads,
        }
    }

    fn effect_mut(&mut self) -> Effect<&mut Option<String>> {
        match self {
            Job::Fleet(j) => j.effect_mut(),
            Job::Guard(j) => j.effect_mut(),
            Job::Mcp(j) => j.effect_mut(),
            Job::Agent(j) => j.effect_mut(),
            Job::Cancel(_) => Effect::Reads,
        }
    }

    /// What this job would change, as the read-only refusal names it; None when it changes
    /// nothing (reads, holding a plan, cancelling).
    pub fn mutation(&self) -> Option<&'static str> {
        self.effect().mutation()
    }

    /// Gives an audited job without a reason of its own the session's reason (`:reason`, or
    /// `--reason` at start); other jobs are left as they are.
    pub fn stamp_reason(&mut self, session: Option<&str>) {
        if let (Some(session), Effect::Audited(_, reason @ None)) = (session, self.effect_mut()) {
            *reason = Some(session.to_string());
        }
    }

    /// Whether this job is audited and has no reason yet.
    pub fn lacks_reason(&self) -> bool {
        matches!(self.effect(), Effect::Audited(_, None))
    }

    /// The endpoint this job acts on (its profile and region are the endpoint's own in a
    /// multi-region view); None for fleet-wide jobs, MCP and agent runs (the console's own
    /// profile and region) and bookkeeping.
    pub fn endpoint(&self) -> Option<&str> {
        match self {
            Job::Fleet(j) => j.endpoint(),
            Job::Guard(j) => j.endpoint(),
            Job::Mcp(_) | Job::Agent(_) | Job::Cancel(_) => None,
        }
    }

    /// A short label for the status line.
    pub fn label(&self) -> String {
        match self {
            Job::Fleet(j) => j.label(),
            Job::Guard(j) => j.label(),
            Job::Mcp(j) => j.label(),
            Job::Agent(j) => j.label(),
            Job::Cancel(_) => "cancelling".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prewarm(reason: Option<&str>) -> Job {
        Job::Guard(GuardJob::Prewarm {
            endpoint: "mme".into(),
            models: vec!["a.tar.gz".into()],
            reason: reason.map(str::to_string),
        })
    }

    fn reason(job: &Job) -> Option<&str> {
        match job.effect() {
            Effect::Audited(_, r) => r.as_deref(),
            _ => None,
        }
    }

    #[test]
    fn the_session_reason_fills_only_audited_jobs_without_one() {
        let mut own = prewarm(Some("typed for this change"));
        own.stamp_reason(Some("INC-1"));
        assert_eq!(reason(&own), Some("typed for this change"));
        let mut none = prewarm(None);
        assert!(none.lacks_reason());
        none.stamp_reason(None);
        assert!(none.lacks_reason(), "no session reason: still none");
        none.stamp_reason(Some("INC-1"));
        assert_eq!(reason(&none), Some("INC-1"));
        assert!(!none.lacks_reason());
        let mut read = Job::Fleet(FleetJob::Inventory { selected: None });
        read.stamp_reason(Some("INC-1"));
        assert!(!read.lacks_reason(), "reads are not mutations");
        assert_eq!(read.effect(), Effect::Reads);
    }

    #[test]
    fn every_kind_is_listed_once() {
        let all: Vec<JobKind> = JobKind::all().collect();
        let unique: std::collections::HashSet<_> = all.iter().collect();
        assert_eq!(unique.len(), all.len());
        assert!(all.contains(&JobKind::Guard(GuardKind::Timeline)));
    }
}
