//! The Components pane: insta snapshots of an IC endpoint with a component at zero, one waking
//! and one serving (with its metrics) at 80x24 and 140x40; the Endpoints table's IC mark and
//! the Variants header naming the components; the copies form and the wake, each a confirmed
//! SetCopies job carrying what was read; both refused at once in read-only mode; a wake followed
//! from WAKING to SERVING; a GPU partition profile and copies placed on two instance types; and
//! set copies applied over the wire against the sandbox.

use std::collections::BTreeMap;
use std::time::Duration;

use crossterm::event::KeyCode;
use sagedeck::aws::components::{Component, Copies, DeploymentSummary, Placement, Reservation};
use sagedeck::aws::endpoints::kind::EndpointKind;
use sagedeck::aws::observe::metrics::{ComponentMetrics, ComponentSummary, MetricsSnapshot};
use sagedeck::tui::app::App;
use sagedeck::tui::data::{ComponentsRead, Data};
use sagedeck::tui::event::{AppEvent, GuardJob, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::components::ZeroState;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::Overlay;

use crate::common::builders::{self, shared, variant};
use crate::common::tui::{self, press, tap};

const EP: &str = "llm-ic-endpoint";
/// When the fixtures were read (2026-09-21 20:00 UTC).
const END: f64 = 1_790_020_800.0;

fn component(name: &str, desired: i32, current: i32) -> Component {
    Component {
        name: name.into(),
        arn: format!("arn:aws:sagemaker:us-east-1:123456789012:inference-component/{name}"),
        endpoint: EP.into(),
        variant: "AllTraffic".into(),
        status: "InService".into(),
        model: Some(format!("{name}-model")),
        copies: Copies { desired, current },
        placement: (current > 0)
            .then(|| Placement {
                instance_type: "ml.g5.12xlarge".into(),
                copies: current,
            })
            .into_iter()
            .collect(),
        reservation: Some(Reservation {
            cpu_cores: Some(4.0),
            accelerators: Some(1.0),
            memory_min_mb: Some(16_384),
            memory_max_mb: Some(24_576),
            ..Default::default()
        }),
        created: END - 86_400.0,
        modified: END - 72.0,
        ..Default::default()
    }
}

/// Four components, as the inventory sorts them: a coder model waking for 1m12s, a summarizer at
/// zero, the tool-calling LLM serving two copies (with metrics and its last rolling update) and
/// its adapter.
fn components() -> Vec<Component> {
    let mut llm = component("tool-llm", 2, 2);
    llm.image = Some("763104351884.dkr.ecr.us-east-1.amazonaws.com/tgi-inference:2.4".into());
    llm.last_deployment = Some(DeploymentSummary {
        batch: Some("1 copy".into()),
        bake_secs: Some(120),
        timeout_secs: Some(3600),
        rollback_batch: Some("1 copy".into()),
        alarms: vec!["tool-llm-5xx".into()],
    });
    let mut adapter = component("tool-llm-adapter", 1, 1);
    adapter.model = None;
    adapter.base_component = Some("tool-llm".into());
    adapter.reservation = None;
    // A name from outside with a control character: written out, never sent to the terminal.
    let coder = component("coder\u{1b}[2J", 1, 0);
    let summarizer = component("summarizer", 0, 0);
    vec![coder, summarizer, llm, adapter]
}

fn metrics() -> MetricsSnapshot {
    let summary = ComponentSummary {
        model_latency_p50_ms: Some(212.0),
        model_latency_p99_ms: Some(1840.0),
        latest_samples: Some(61.0),
        invocations: 930.0,
        invocations_per_min: 62.0,
        errors_4xx: 3.0,
        errors_5xx: 1.0,
        invocations_per_copy: Some(30.5),
        no_capacity_failures: 0.0,
        cpu_utilization: Some(38.0),
        gpu_utilization: Some(71.0),
        memory_utilization: Some(64.0),
    };
    MetricsSnapshot {
        start: END - 900.0,
        end: END,
        period: 60,
        variants: Vec::new(),
        components: vec![ComponentMetrics {
            endpoint: EP.into(),
            component: "tool-llm".into(),
            summary,
            series: BTreeMap::new(),
        }],
        queries: 30,
        calls: 1,
        warnings: Vec::new(),
    }
}

fn read() -> ComponentsRead {
    ComponentsRead {
        components: components(),
        metrics: Some(metrics()),
        metrics_error: None,
        at: END,
    }
}

/// The console on the IC endpoint (and an ordinary one), its components read.
fn app() -> App {
    let ic = builders::endpoint(EP)
        .kind(EndpointKind::InferenceComponents)
        .created(END - 86_400.0)
        .modified(END - 3600.0)
        .variants([variant("AllTraffic")
            .no_model()
            .instance_type("ml.g5.12xlarge")
            .instances(1)])
        .build();
    let plain = builders::endpoint("mcp-intent-classifier-prod")
        .created(END - 86_400.0)
        .modified(END - 7200.0)
        .variants([variant("AllTraffic").instance_type("ml.m5.large").instances(2)])
        .build();
    let data = Data {
        context: tui::context(),
        inventory: shared(vec![ic, plain]),
        loaded: true,
        refresh_interval: Duration::from_secs(10),
        selected: Some(EP.into()),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.on_event(AppEvent::Components {
        endpoint: EP.into(),
        result: Ok(Box::new(read())),
    });
    app.switch(Tab::Components);
    app
}

fn toasts(app: &App) -> String {
    app.toasts
        .log
        .iter()
        .map(|t| t.text.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn components_pane_80x24() {
    let mut app = app();
    insta::assert_snapshot!(tui::render(&mut app, 80, 24));
}

#[test]
fn components_pane_140x40() {
    let mut app = app();
    tap(&mut app, KeyCode::Down);
    tap(&mut app, KeyCode::Down);
    insta::assert_snapshot!(tui::render(&mut app, 140, 40));
}

#[test]
fn each_row_says_at_zero_waking_or_serving() {
    let app = app();
    let read = app.data.components.get(EP).unwrap();
    let states: Vec<ZeroState> = read
        .components
        .iter()
        .map(|c| app.panes.components.zero_state(c))
        .collect();
    assert_eq!(states[0], ZeroState::Waking { since: END - 72.0 });
    assert_eq!(states[1], ZeroState::AtZero);
    assert_eq!(states[2], ZeroState::Serving);
    assert_eq!(states[0].badge(END), "WAKING 1m12s");
    let screen = tui::render(&mut app_on(Tab::Components), 140, 40);
    for badge in ["AT ZERO", "WAKING 1m12s", "SERVING"] {
        assert!(screen.contains(badge), "{badge} missing:\n{screen}");
    }
    assert!(
        screen.contains("coder\\x1b[2J"),
        "the control character is written out:\n{screen}"
    );
    assert!(!screen.contains('\u{1b}'));
}

fn app_on(tab: Tab) -> App {
    let mut app = app();
    app.switch(tab);
    app
}

#[test]
fn the_endpoints_table_marks_ic_endpoints_and_the_header_names_components() {
    let mut app = app_on(Tab::Endpoints);
    let wide = tui::render(&mut app, 140, 40);
    assert!(wide.contains("KIND"), "{wide}");
    let row = wide.lines().find(|l| l.contains(EP)).unwrap();
    assert!(row.contains(" IC "), "the IC mark: {row}");
    let plain = wide.lines().find(|l| l.contains("mcp-intent-classifier-prod")).unwrap();
    assert!(!plain.contains(" IC "), "{plain}");
    // On a narrow terminal the mark gives way before the name and status.
    let narrow = tui::render(&mut app, 50, 24);
    assert!(!narrow.contains("KIND") && narrow.contains(EP), "{narrow}");

    let mut app = app_on(Tab::Variants);
    let screen = tui::render(&mut app, 140, 40);
    // The header breaks between its label–value pairs: read its rows as one.
    let head: String = screen
        .lines()
        .skip(3)
        .take(4)
        .map(|l| l.trim_matches(['"', '│', ' ']))
        .collect::<Vec<_>>()
        .join(" ");
    for part in [
        "tool-llm SERVING 2/2",
        "summarizer AT ZERO 0/0",
        "instances AllTraffic ml.g5.12xlarge × 1",
    ] {
        assert!(head.contains(part), "{part} not in the header: {head}");
    }
}

#[test]
fn read_only_refuses_set_copies_and_wake_at_once() {
    let mut app = app();
    app.data.read_only = true;
    app.take_jobs();
    press(&mut app, "c");
    assert!(app.panes.components.form().is_none(), "the form does not open");
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    let said = toasts(&app);
    assert!(said.contains("read-only: setting copies is disabled"), "{said}");
    assert!(said.contains("read-only: waking a component is disabled"), "{said}");
    assert!(app.take_jobs().iter().all(|(_, j)| !matches!(j, Job::Guard(_))));
}

/// The SetCopies job a confirmation would start.
fn confirmed_job(app: &App) -> GuardJob {
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation")
    };
    match c.jobs.as_slice() {
        [Job::Guard(job @ GuardJob::SetCopies { .. })] => job.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_copies_form_confirms_before_and_after_with_what_it_read() {
    let mut app = app();
    tap(&mut app, KeyCode::Down);
    tap(&mut app, KeyCode::Down);
    press(&mut app, "c");
    let form = app.panes.components.form().unwrap();
    assert_eq!(
        (form.component.as_str(), form.seen, form.text.as_str()),
        ("tool-llm", 2, "2")
    );
    // The count it already has: nothing to change, said in the form.
    tap(&mut app, KeyCode::Enter);
    assert!(
        app.panes
            .components
            .form()
            .unwrap()
            .error
            .as_ref()
            .unwrap()
            .contains("nothing to change")
    );
    tap(&mut app, KeyCode::Backspace);
    press(&mut app, "3");
    tap(&mut app, KeyCode::Enter);
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation")
    };
    assert_eq!(c.title, "Set tool-llm to 3 copies?");
    assert!(c.lines[0].contains("2 → 3"), "{:?}", c.lines);
    let GuardJob::SetCopies { seen, copies, wake, .. } = confirmed_job(&app) else {
        unreachable!()
    };
    assert_eq!((seen.desired_copies, copies, wake), (2, 3, false));
    assert_eq!(seen.model.as_deref(), Some("tool-llm-model"));

    // An adapter has no copies of its own: refused in the form.
    app.overlay = None;
    tap(&mut app, KeyCode::End);
    press(&mut app, "c2");
    tap(&mut app, KeyCode::Enter);
    let why = app.panes.components.form().unwrap().error.clone().unwrap();
    assert!(why.contains("adapter on tool-llm"), "{why}");
}

#[test]
fn a_wake_is_confirmed_then_followed_until_it_serves() {
    let mut app = app();
    // Not at zero: `w` says so and asks nothing.
    tap(&mut app, KeyCode::End);
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    tap(&mut app, KeyCode::Home);
    tap(&mut app, KeyCode::Down);
    press(&mut app, "w");
    let job = confirmed_job(&app);
    let GuardJob::SetCopies { seen, copies, wake, .. } = &job else {
        unreachable!()
    };
    assert_eq!(
        (seen.component.as_str(), seen.desired_copies, *copies, *wake),
        ("summarizer", 0, 1, true)
    );
    app.on_key(tui::key(KeyCode::Char('y')));
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::SetCopies { .. })))
    );

    // Accepted: one copy asked, none placed yet: WAKING, counted from the wake.
    let mut woken = component("summarizer", 1, 0);
    app.on_event(AppEvent::CopiesSet {
        endpoint: EP.into(),
        component: "summarizer".into(),
        result: Ok(Box::new(woken.clone())),
    });
    let state = app.panes.components.zero_state(&woken);
    assert!(matches!(state, ZeroState::Waking { since } if since > END), "{state:?}");
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Fleet(sagedeck::tui::event::FleetJob::Components { .. }))),
        "read again at once to follow it"
    );

    // The next read finds a copy placed: SERVING, and the toast says how long it took.
    let mut next = read();
    next.at = sagedeck::format::now_epoch() + 75.0;
    woken.copies = Copies { desired: 1, current: 1 };
    next.components[1] = woken.clone();
    app.on_event(AppEvent::Components {
        endpoint: EP.into(),
        result: Ok(Box::new(next)),
    });
    assert_eq!(app.panes.components.zero_state(&woken), ZeroState::Serving);
    let said = toasts(&app);
    assert!(said.contains("summarizer serves: 1 copy up after 1m1"), "{said}");
}

#[test]
fn a_rolling_update_is_confirmed_with_its_policy_and_followed_to_its_outcome() {
    let mut app = app();
    tap(&mut app, KeyCode::Down);
    tap(&mut app, KeyCode::Down);
    press(&mut app, "u");
    let form = app.panes.components.update_form().unwrap();
    assert_eq!(
        (
            form.component.as_str(),
            form.values[1].as_str(),
            form.values[2].as_str()
        ),
        ("tool-llm", "1", "60s")
    );
    // The model it already serves: refused in the form.
    press(&mut app, "tool-llm-model");
    tap(&mut app, KeyCode::Enter);
    let why = app.panes.components.update_form().unwrap().error.clone().unwrap();
    assert!(why.contains("already serves"), "{why}");
    for _ in 0..5 {
        tap(&mut app, KeyCode::Backspace);
    }
    press(&mut app, "v2");
    tap(&mut app, KeyCode::Tab);
    tap(&mut app, KeyCode::Backspace);
    press(&mut app, "50%");
    tap(&mut app, KeyCode::Enter);
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation")
    };
    assert_eq!(c.title, "Roll tool-llm over to tool-llm-v2?");
    assert!(c.lines[0].contains("tool-llm-model → tool-llm-v2"), "{:?}", c.lines);
    assert!(
        c.lines[1].contains("MaximumBatchSize 50% capacity, WaitIntervalInSeconds 60"),
        "{:?}",
        c.lines
    );
    let Some(Job::Guard(GuardJob::UpdateComponent { seen, update, .. })) = c.jobs.first() else {
        panic!()
    };
    assert_eq!((seen.desired_copies, update.model.as_str()), (2, "tool-llm-v2"));
    app.on_key(tui::key(KeyCode::Char('y')));
    let llm = app.panes.components.selected(&app.data).unwrap().clone();
    assert_eq!(app.panes.components.rollout(&llm), Some("tool-llm-v2"));

    // Rolled back by an alarm: said with AWS's reason, no longer followed.
    let mut last = llm.clone();
    last.failure_reason = Some("alarm tool-llm-5xx fired".into());
    let report = sagedeck::aws::components::RolloutReport {
        outcome: sagedeck::aws::components::RolloutOutcome::RolledBack {
            reason: last.failure_reason.clone(),
        },
        from_model: Some("tool-llm-model".into()),
        to_model: "tool-llm-v2".into(),
        elapsed_secs: 200.0,
        last,
    };
    app.on_event(AppEvent::ComponentUpdate {
        endpoint: EP.into(),
        component: "tool-llm".into(),
        progress: sagedeck::tui::event::UpdateProgress::Done(Ok(Box::new(report))),
    });
    assert!(
        toasts(&app).contains("tool-llm rolled back to tool-llm-model: alarm tool-llm-5xx fired"),
        "{}",
        toasts(&app)
    );
    assert_eq!(app.panes.components.rollout(&llm), None);
    let shown = app.panes.components.selected(&app.data).unwrap();
    assert_eq!(shown.failure_reason.as_deref(), Some("alarm tool-llm-5xx fired"));
}

#[test]
fn a_partitioned_component_shows_its_profile_and_placement_per_instance_type() {
    let mut app = app();
    let mut read = read();
    let mig = &mut read.components[0];
    mig.reservation = Some(Reservation {
        instance_type: Some("ml.g5.12xlarge".into()),
        cpu_cores: Some(2.0),
        accelerators: Some(1.0),
        partition_profile: Some("mig-3g.40gb".into()),
        memory_min_mb: Some(8192),
        ..Default::default()
    });
    mig.copies = Copies { desired: 3, current: 3 };
    mig.placement = vec![
        Placement {
            instance_type: "ml.g5.12xlarge".into(),
            copies: 2,
        },
        Placement {
            instance_type: "ml.g6.12xlarge".into(),
            copies: 1,
        },
    ];
    app.on_event(AppEvent::Components {
        endpoint: EP.into(),
        result: Ok(Box::new(read)),
    });
    let screen = tui::render(&mut app, 140, 40);
    let row = screen.lines().find(|l| l.contains("coder")).unwrap_or_default();
    assert!(
        row.contains("mig-3g.40gb"),
        "the profile in the reservation column: {screen}"
    );
    for want in [
        "GPU partition mig-3g.40gb",
        "ml.g5.12xlarge 2 copies, ml.g6.12xlarge 1 copy",
    ] {
        assert!(screen.contains(want), "{want} not in\n{screen}");
    }
}
