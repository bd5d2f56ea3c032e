//! The console's one read-only gate: every kind of job is tried through `App::submit`, in
//! read-only mode and out of it. A mutation is refused with a toast naming it and nothing is
//! queued; a read goes through. A new job kind does not compile here until it is given a sample.

use std::time::Duration;

use sagedeck::aws::change::weights::WeightPlan;
use sagedeck::aws::endpoints::inventory::EndpointInfo;
use sagedeck::aws::invoke::asynchronous::{AsyncAccepted, AsyncInput, AsyncSpec};
use sagedeck::aws::invoke::call::InvokeSpec;
use sagedeck::aws::promote::events::Control;
use sagedeck::aws::promote::plan::{Mode, PromotionSpec};
use sagedeck::aws::promote::report::Gates;
use sagedeck::aws::scaling::change::{ScalingChange, ScalingSnapshot, invocations_policy};
use sagedeck::tui::app::App;
use sagedeck::tui::event::{
    AgentJob, AgentKind, AgentRun, Effect, FleetJob, FleetKind, GuardJob, GuardKind, Job, JobKind, McpJob, McpKind,
};

use super::app::app_with_fleet;

/// One job of each kind (the matches are exhaustive: a new kind needs a sample here).
fn samples(app: &App, kind: JobKind) -> Vec<Job> {
    samples_on(app, kind, 0)
}

/// [`samples`] on the endpoint at `index` of the inventory.
fn samples_on(app: &App, kind: JobKind, index: usize) -> Vec<Job> {
    let seen = Box::new((*app.data.inventory[index]).clone());
    match kind {
        JobKind::Fleet(k) => fleet_samples(k, seen.name.clone())
            .into_iter()
            .map(Job::Fleet)
            .collect(),
        JobKind::Guard(k) => guard_samples(k, seen).into_iter().map(Job::Guard).collect(),
        JobKind::Mcp(McpKind::Connect) => vec![Job::Mcp(McpJob::Connect { server: None })],
        JobKind::Mcp(McpKind::Login) => vec![Job::Mcp(McpJob::Login { server: "s".into() })],
        JobKind::Mcp(McpKind::Logout) => vec![Job::Mcp(McpJob::Logout { server: "s".into() })],
        JobKind::Mcp(McpKind::ToolCall) => vec![Job::Mcp(McpJob::ToolCall {
            server: "s".into(),
            tool: "t".into(),
            arguments: None,
            repeat: 1,
            reason: None,
        })],
        JobKind::Mcp(McpKind::Catalog) => vec![Job::Mcp(McpJob::Catalog { server: "s".into() })],
        JobKind::Mcp(McpKind::Read) => vec![Job::Mcp(McpJob::Read {
            server: "s".into(),
            target: sagedeck::tui::event::ReadTarget::Resource("x://r".into()),
        })],
        JobKind::Mcp(McpKind::Subscribe) => vec![Job::Mcp(McpJob::Subscribe {
            server: "s".into(),
            uri: "x://r".into(),
            on: true,
        })],
        JobKind::Agent(AgentKind::Run) => vec![Job::Agent(AgentJob::Run(AgentRun {
            question: "What is the most played song on WZPZ?".into(),
            settings: sagedeck::tui::config::AgentDefaults {
                llm: Some("llm-tgi-chat".into()),
                servers: vec!["radio".into()],
                ..Default::default()
            },
            rerun: None,
            edited: None,
            transcript_path: None,
            reason: None,
        }))],
        JobKind::Cancel => vec![Job::Cancel(1)],
    }
}

/// The fleet runner's samples on `endpoint`.
fn fleet_samples(kind: FleetKind, endpoint: String) -> Vec<FleetJob> {
    match kind {
        FleetKind::Inventory => vec![FleetJob::Inventory { selected: None }],
        FleetKind::Metrics => vec![FleetJob::Metrics {
            endpoints: vec![],
            window: Duration::from_secs(900),
            detail: false,
        }],
        FleetKind::Describe => vec![FleetJob::Describe { endpoint }],
        FleetKind::ShadowJudge => vec![FleetJob::ShadowJudge { endpoint }],
        FleetKind::Chat => vec![FleetJob::Chat {
            endpoint,
            component: None,
            body: b"{}".to_vec(),
            session_id: None,
            reason: None,
        }],
        FleetKind::InvokeAsync => vec![FleetJob::InvokeAsync {
            spec: AsyncSpec {
                endpoint,
                input: AsyncInput::Body {
                    body: b"{}".to_vec(),
                    upload_prefix: None,
                },
                content_type: "application/json".into(),
                accept: None,
                inference_id: None,
                request_ttl_s: None,
                invocation_timeout_s: None,
            },
        }],
        FleetKind::AsyncFollow => vec![FleetJob::AsyncFollow {
            accepted: AsyncAccepted {
                endpoint,
                inference_id: "id".into(),
                output_location: Some("s3://b/o/id.out".into()),
                failure_location: None,
                uploaded_input: None,
            },
            deadline: 0.0,
        }],
        FleetKind::Invoke => vec![FleetJob::Invoke {
            spec: InvokeSpec {
                endpoint,
                body: b"{}".to_vec(),
                content_type: "application/json".into(),
                ..Default::default()
            },
            repeat: 1,
        }],
        FleetKind::Catalog => vec![FleetJob::Catalog {
            endpoint,
            prefix: "s3://b/p/".into(),
        }],
        FleetKind::ScalingView => vec![FleetJob::ScalingView { endpoint }],
        FleetKind::Components => vec![FleetJob::Components { endpoint }],
        FleetKind::Alarms => vec![FleetJob::Alarms],
        FleetKind::Logs => vec![FleetJob::Logs {
            query: sagedeck::aws::observe::logs::LogQuery {
                endpoint,
                ..Default::default()
            },
            streams: true,
            follow: false,
        }],
    }
}

/// The guard runner's samples on `seen`.
fn guard_samples(kind: GuardKind, seen: Box<EndpointInfo>) -> Vec<GuardJob> {
    let endpoint = seen.name.clone();
    match kind {
        GuardKind::ApplyWeights => vec![GuardJob::ApplyWeights {
            plan: WeightPlan {
                endpoint,
                before: vec![],
                after: vec![],
                changes: vec![],
            },
            seen,
            reason: None,
        }],
        GuardKind::Activity => vec![GuardJob::Activity],
        GuardKind::Promote => vec![GuardJob::Promote {
            spec: PromotionSpec {
                endpoint,
                canary: "Canary".into(),
                baseline: None,
                steps: vec![50.0, 100.0],
                bake: Duration::from_secs(60),
                gates: Gates::default(),
                mode: Mode::Auto,
                consolidate: true,
            },
            reason: None,
            extras: Default::default(),
        }],
        GuardKind::PromoteResume => [false, true]
            .map(|rollback| GuardJob::PromoteResume {
                endpoint: endpoint.clone(),
                rollback,
            })
            .to_vec(),
        GuardKind::PromoteControl => [Control::Proceed, Control::Hold, Control::Rollback]
            .map(|control| GuardJob::PromoteControl {
                endpoint: endpoint.clone(),
                control,
            })
            .to_vec(),
        GuardKind::Prewarm => vec![GuardJob::Prewarm {
            endpoint,
            models: vec!["a.tar.gz".into()],
            reason: None,
        }],
        GuardKind::ChangeScaling => scaling_samples(&endpoint),
        GuardKind::ChangeComponentScaling => vec![GuardJob::ChangeComponentScaling {
            endpoint: endpoint.clone(),
            component: "llm".into(),
            changes: vec![ScalingChange::ZeroInstances {
                variant: "AllTraffic".into(),
                from_config: "cfg".into(),
                was: None,
                max: Some(2),
            }],
            seen: Box::new(ScalingSnapshot {
                bounds: Some((0, 2)),
                policies: vec![],
                desired_instances: Some(1),
                alarms: vec![],
            }),
            reason: None,
        }],
        GuardKind::SetServerless => vec![GuardJob::SetServerless {
            plan: Box::new(sagedeck::aws::change::serverless::ServerlessPlan {
                endpoint,
                variant: "AllTraffic".into(),
                before: sagedeck::aws::endpoints::shape::ServerlessInfo {
                    memory_mb: 2048,
                    max_concurrency: 4,
                    desired_max_concurrency: 4,
                    provisioned: None,
                    desired_provisioned: None,
                },
                max_concurrency: 8,
                provisioned: Some(2),
            }),
            reason: None,
        }],
        GuardKind::SetCopies => [(1, 2, false), (0, 1, true)]
            .map(|(seen, copies, wake)| GuardJob::SetCopies {
                endpoint: endpoint.clone(),
                seen: sagedeck::aws::components::ComponentSnapshot {
                    component: "llm".into(),
                    desired_copies: seen,
                    model: Some("m".into()),
                },
                copies,
                wake,
                reason: None,
            })
            .to_vec(),
        GuardKind::UpdateComponent => vec![GuardJob::UpdateComponent {
            endpoint,
            seen: sagedeck::aws::components::ComponentSnapshot {
                component: "llm".into(),
                desired_copies: 2,
                model: Some("m".into()),
            },
            update: Box::new(sagedeck::aws::components::RollingUpdate {
                model: "m2".into(),
                batch: sagedeck::aws::components::BatchSize::Copies(1),
                bake_secs: 60,
                rollback_batch: None,
                timeout_secs: None,
                alarms: vec![],
            }),
            reason: None,
        }],
        GuardKind::Timeline => vec![GuardJob::Timeline { endpoint, since: 0.0 }],
        GuardKind::PlanLock => vec![GuardJob::PlanLock { endpoint }],
        GuardKind::DeployPlan => vec![super::deploy::plan_job(*seen)],
        GuardKind::Deploy => vec![super::deploy::deploy_job(*seen)],
        GuardKind::DeployAttach => vec![GuardJob::DeployAttach {
            endpoint,
            delete_leftover_gates: true,
        }],
    }
}

/// One autoscaling change of each sort on `endpoint`.
fn scaling_samples(endpoint: &str) -> Vec<GuardJob> {
    [
        ScalingChange::Bounds { min: 1, max: 4 },
        ScalingChange::Policy {
            spec: Box::new(invocations_policy(endpoint, "Stable", "p", 120.0, (None, None))),
        },
        ScalingChange::RemovePolicy { name: "p".into() },
        ScalingChange::Instances { count: 2 },
    ]
    .map(|change| GuardJob::ChangeScaling {
        endpoint: endpoint.to_string(),
        variant: "Stable".into(),
        changes: vec![change],
        seen: Box::new(ScalingSnapshot {
            bounds: Some((2, 6)),
            policies: vec![],
            desired_instances: Some(2),
            alarms: vec![],
        }),
        reason: None,
    })
    .to_vec()
}

/// The mutations read-only must refuse, by what the refusal names.
const REFUSED: &[&str] = &[
    "changing weights",
    "promotion",
    "resuming a promotion",
    "rolling a promotion back",
    "proceeding with a promotion",
    "invoking",
    "prewarming",
    "calling tools",
    "running the agent",
    "changing autoscaling bounds",
    "changing a scaling policy",
    "removing a scaling policy",
    "setting the instance count",
    "setting up scale to zero",
    "setting serverless concurrency",
    "setting copies",
    "waking a component",
    "updating a component",
    "deploying",
];

#[test]
fn read_only_refuses_every_mutating_job_at_submission_and_nothing_else() {
    let mut mutations = 0;
    for kind in JobKind::all() {
        let mut app = app_with_fleet(0);
        for job in samples(&app, kind) {
            let what = job.mutation();
            app.data.read_only = true;
            app.take_jobs();
            let toasts_before = app.toasts.log.len();
            let id = app.submit(job.clone());
            match what {
                Some(what) => {
                    mutations += 1;
                    assert!(REFUSED.contains(&what), "{kind:?}: unexpected mutation name {what}");
                    assert_eq!(id, None, "{kind:?} ({what}) went through in read-only mode");
                    assert!(app.take_jobs().is_empty(), "{kind:?}: queued while read-only");
                    let toast = &app.toasts.log[toasts_before..];
                    assert!(
                        toast
                            .iter()
                            .any(|t| t.text.starts_with(&format!("read-only: {what} is disabled"))
                                && t.text.ends_with("nothing was sent")),
                        "{kind:?}: no refusal toast: {toast:?}"
                    );
                }
                None => {
                    assert!(id.is_some(), "{kind:?} is a read but was refused");
                    assert_eq!(app.take_jobs().len(), 1);
                }
            }
            // Out of read-only, the same job is queued.
            app.data.read_only = false;
            assert!(app.submit(job).is_some(), "{kind:?} refused without read-only");
        }
    }
    assert_eq!(mutations, 22, "every mutating sample was tried");
}

#[test]
fn only_the_gate_decides_a_confirmed_change_in_read_only_mode() {
    // A confirmation opened before read-only was turned on still sends nothing.
    let mut app = app_with_fleet(0);
    let jobs = samples(&app, JobKind::Guard(GuardKind::Prewarm));
    app.overlay = Some(sagedeck::tui::widgets::Overlay::Confirm(
        sagedeck::tui::widgets::confirm::Confirm {
            title: "Prewarm?".into(),
            lines: vec![],
            jobs,
            danger: false,
            force: Vec::new(),
        },
    ));
    app.data.read_only = true;
    app.take_jobs();
    app.on_key(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('y')));
    assert!(app.take_jobs().is_empty());
    assert!(
        app.toasts
            .log
            .iter()
            .any(|t| t.text.starts_with("read-only: prewarming is disabled")),
    );
}

/// A mixed view: the first two endpoints are the read-only `prod` profile's (us-east-1), the
/// others `dev`'s (eu-west-1).
fn mixed_view() -> App {
    use sagedeck::aws::endpoints::multi::FleetTarget;
    use sagedeck::tui::event::AppEvent;
    use sagedeck::tui::regions::RegionRow;
    let mut app = app_with_fleet(0);
    let row = |profile: &str, region: &str| RegionRow {
        target: FleetTarget {
            profile: Some(profile.into()),
            region: region.into(),
        },
        profile: profile.into(),
        account: Some("123456789012".into()),
        error: None,
        endpoints: 2,
    };
    app.data.read_only_profiles = vec!["prod".into()];
    app.on_event(AppEvent::Regions {
        regions: vec![row("prod", "us-east-1"), row("dev", "eu-west-1")],
        origins: vec![0, 0, 1, 1],
    });
    app
}

#[test]
fn in_a_mixed_view_the_read_only_profile_is_refused_and_the_other_allowed() {
    let mut refused = 0;
    for kind in JobKind::all() {
        let mut app = mixed_view();
        for job in samples_on(&app, kind, 0) {
            app.take_jobs();
            let before = app.toasts.log.len();
            let id = app.submit(job.clone());
            match (job.mutation(), job.endpoint()) {
                (Some(what), Some(_)) => {
                    refused += 1;
                    assert_eq!(id, None, "{kind:?} ({what}) went through on prod");
                    assert!(app.take_jobs().is_empty());
                    let toast = &app.toasts.log[before..];
                    assert!(
                        toast.iter().any(|t| t
                            .text
                            .starts_with(&format!("read-only: {what} is disabled for profile prod (us-east-1)"))),
                        "{kind:?}: {toast:?}"
                    );
                }
                _ => assert!(id.is_some(), "{kind:?} refused without acting on prod's endpoint"),
            }
        }
        for job in samples_on(&app, kind, 2) {
            let id = app
                .submit(job.clone())
                .unwrap_or_else(|| panic!("{kind:?} refused on dev"));
            let want = job.endpoint().map(|_| "eu-west-1");
            assert_eq!(app.take_target(id).map(|t| t.region).as_deref(), want, "{kind:?}");
        }
    }
    assert_eq!(refused, 20, "every mutating sample on an endpoint was tried");
}

#[test]
fn the_session_reason_is_stamped_on_every_audited_job_and_no_other() {
    let mut audited = 0;
    for kind in JobKind::all() {
        let mut app = app_with_fleet(0);
        app.data.reason = Some("INC-7".into());
        for job in samples(&app, kind) {
            let declared = job.effect();
            let was_audited = matches!(declared, Effect::Audited(_, None));
            let mutation = declared.mutation();
            app.take_jobs();
            app.submit(job).unwrap_or_else(|| panic!("{kind:?} refused"));
            let [(_, queued)] = &app.take_jobs()[..] else {
                panic!("{kind:?}: not queued once")
            };
            assert_eq!(queued.mutation(), mutation, "{kind:?}: the stamp changed what it is");
            match queued.effect() {
                Effect::Audited(_, reason) => {
                    audited += 1;
                    assert!(was_audited);
                    assert_eq!(reason.as_deref(), Some("INC-7"), "{kind:?}: not stamped");
                }
                _ => assert!(!was_audited && !queued.lacks_reason(), "{kind:?}"),
            }
        }
    }
    // Weights, promotion, prewarm, four autoscaling changes, a component's scale-to-zero plan, a
    // serverless concurrency change, copies set, a wake and a rolling update, a deployment, a tool
    // call, an agent run.
    assert_eq!(audited, 16, "every audited sample was stamped");
}
