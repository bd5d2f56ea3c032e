//! The Scaling pane: insta snapshots of a hand-made view (policies, lint badges from the real
//! lint, chart, activities; the edit dialog and its before → after confirmation) at 80x24 and
//! 140x40, and the pane driven against the sandbox over the wire: an edit applies (read back
//! with the SDK), read-only refuses it, a change made behind its back is refused with the
//! difference, and the demo's autoscaling endpoint shows a scale-out.

use std::time::Duration;

use aws_sdk_applicationautoscaling::types::{ScalableDimension, ServiceNamespace};
use crossterm::event::KeyCode;
use sagedeck::aws::endpoints::autoscaling::ActivityInfo;
use sagedeck::aws::scaling::change::invocations_policy;
use sagedeck::aws::scaling::check::EndpointScaling;
use sagedeck::aws::scaling::lint::{MetricCheck, TargetBounds, lint};
use sagedeck::aws::scaling::spec::{Dimension, MetricRef, PolicySpec};
use sagedeck::aws::scaling::view::{ScalingView, TrackedMetric, VariantView, instance_history};
use sagedeck::tui::app::App;
use sagedeck::tui::event::FleetJob;
use sagedeck::tui::event::{AppEvent, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::widgets::Overlay;

use super::app::app_with_fleet;
use crate::common;
use crate::common::tui::{key, press, render as screen, tap};

const EP: &str = "mcp-intent-classifier-prod";
const END: f64 = 1_790_600_000.0;

/// The seed's latency policy on Stable, as written (three findings).
const SEED_P99: &str = r#"{
  "PolicyName": "mcp-endpoint-latency-policy", "ServiceNamespace": "sagemaker",
  "ResourceId": "endpoint/mcp-intent-classifier-prod/variant/Stable",
  "ScalableDimension": "sagemaker:variant:DesiredInstanceCount", "PolicyType": "TargetTrackingScaling",
  "TargetTrackingScalingPolicyConfiguration": {
    "TargetValue": 500.0,
    "CustomizedMetricSpecification": {"MetricName": "ModelLatency", "Namespace": "/aws/sagemaker/Endpoints",
      "Dimensions": [{"Name": "EndpointName", "Value": "mcp-intent-classifier-prod"},
                     {"Name": "VariantName", "Value": "Stable"}],
      "Statistic": "p99", "Unit": "Microseconds"},
    "ScaleInCooldown": 300, "ScaleOutCooldown": 60}}"#;

fn activity(ago: f64, from: i32, to: i32) -> ActivityInfo {
    ActivityInfo {
        resource_id: format!("endpoint/{EP}/variant/Stable"),
        description: format!("Setting desired instance count to {to}."),
        cause: format!(
            "monitor alarm TargetTracking-endpoint/{EP}/variant/Stable-Alarm{}-1f2e in state ALARM triggered policy mcp-endpoint-invocations-policy changing the desired capacity from {from} to {to}.",
            if to > from { "High" } else { "Low" }
        ),
        status: "Successful".into(),
        start: END - ago,
        end: Some(END - ago + 20.0),
    }
}

/// A view of the classifier: Stable 2-6 with the seed's invocations policy (400) and its broken
/// latency policy; findings from the real lint; an hour of invocations per instance.
pub(crate) fn hand_made_view(app: &App) -> ScalingView {
    let info = app.data.endpoint(EP).unwrap().clone();
    let invocations = invocations_policy(
        EP,
        "Stable",
        "mcp-endpoint-invocations-policy",
        400.0,
        (Some(300), Some(60)),
    );
    let p99 = PolicySpec::from_json(SEED_P99).unwrap();
    let state = EndpointScaling {
        info,
        targets: vec![TargetBounds {
            variant: "Stable".into(),
            min: 2,
            max: 6,
        }],
        policies: vec![invocations, p99],
    };
    let dims = ["EndpointName", "VariantName"]
        .iter()
        .zip([EP, "Stable"])
        .map(|(n, v)| Dimension {
            name: n.to_string(),
            value: v.to_string(),
        })
        .collect();
    let checks = vec![MetricCheck {
        metric: MetricRef {
            namespace: "/aws/sagemaker/Endpoints".into(),
            metric_name: "ModelLatency".into(),
            dimensions: dims,
        },
        listed: false,
        elsewhere: vec!["AWS/SageMaker".into()],
    }];
    let findings = lint(&state.lint_input(checks));
    let activities = vec![activity(600.0, 4, 2), activity(1800.0, 2, 4)];
    let timestamps: Vec<f64> = (0..60).map(|i| END - 3600.0 + 60.0 * f64::from(i)).collect();
    let values: Vec<f64> = (0..60)
        .map(|i| match i {
            0..30 => 520.0,
            30..50 => 150.0,
            _ => 700.0,
        })
        .collect();
    let tracked = vec![TrackedMetric {
        policy: "mcp-endpoint-invocations-policy".into(),
        label: "InvocationsPerInstance Sum".into(),
        unit: "/instance/min".into(),
        scale: 1.0,
        target: 400.0,
        scale_in: true,
        series: sagedeck::aws::observe::metrics::Series { timestamps, values },
        error: None,
    }];
    let acts: Vec<&ActivityInfo> = activities.iter().collect();
    let stable = VariantView {
        variant: "Stable".into(),
        bounds: Some((2, 6)),
        serverless: false,
        desired: 2,
        current: 2,
        tracked,
        instances: instance_history(2, &acts, END - 3600.0, END),
    };
    let canary = VariantView {
        variant: "Canary".into(),
        bounds: None,
        serverless: false,
        desired: 1,
        current: 1,
        tracked: vec![],
        instances: instance_history(1, &[], END - 3600.0, END),
    };
    ScalingView {
        state,
        findings,
        activities,
        variants: vec![stable, canary],
        components: vec![],
        components_error: None,
        start: END - 3600.0,
        end: END,
    }
}

pub(crate) fn shown(view: ScalingView) -> App {
    let mut app = app_with_fleet(0);
    app.data.selected = Some(EP.into());
    app.switch(Tab::Scaling);
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Fleet(FleetJob::ScalingView { endpoint }) if endpoint == EP)),
        "showing the pane asks for its view"
    );
    app.on_event(AppEvent::Scaling {
        endpoint: EP.into(),
        result: Ok(Box::new(view)),
    });
    app
}

#[test]
fn the_pane_shows_policies_lint_badges_chart_and_what_comes_next() {
    let app = app_with_fleet(0);
    let view = hand_made_view(&app);
    assert_eq!(view.findings.len(), 3, "{:#?}", view.findings);
    let mut app = shown(view);
    let wide = screen(&mut app, 140, 40);
    for want in [
        "[statistic]",
        "[no such metric]",
        "[units]",
        "target min 2 · max 6 · desired 2 · current 2",
        "next: scale out to 4 — InvocationsPerInstance Sum 700 vs target 400",
        "ceil(2 × 700/400 = 3.50) within 2-6",
        "4 → 2",
        "2 → 4",
    ] {
        assert!(wide.contains(want), "{want} not in\n{wide}");
    }
    insta::assert_snapshot!("scaling_140x40", wide);
    insta::assert_snapshot!("scaling_80x24", screen(&mut app, 80, 24));
    // The findings, each with what, why and fix.
    press(&mut app, "f");
    let detail = screen(&mut app, 140, 40);
    assert!(detail.contains("what:") && detail.contains("why") && detail.contains("fix"));
    insta::assert_snapshot!("scaling_findings_140x40", detail);
    tap(&mut app, KeyCode::Esc);
    // The other variant: no target, no policy.
    press(&mut app, "v");
    let canary = screen(&mut app, 140, 40);
    assert!(canary.contains("no scalable target") && canary.contains("no scaling policy"));
}

#[test]
fn an_edit_shows_before_and_after_and_names_its_keys() {
    let app = app_with_fleet(0);
    let mut app = shown(hand_made_view(&app));
    press(&mut app, "m");
    let editor = screen(&mut app, 80, 24);
    assert!(editor.contains("min max: 2 6"), "{editor}");
    insta::assert_snapshot!("scaling_edit_80x24", editor);
    insta::assert_snapshot!("scaling_edit_140x40", screen(&mut app, 140, 40));
    tap(&mut app, KeyCode::Backspace);
    press(&mut app, "8");
    tap(&mut app, KeyCode::Enter);
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation: {:?}", app.panes.scaling.editor())
    };
    assert_eq!(c.lines[0], "Stable scalable target: min 2, max 6 → min 2, max 8");
    let confirm = screen(&mut app, 140, 40);
    assert!(confirm.contains("y / Enter") && confirm.contains("n / Esc"));
    insta::assert_snapshot!("scaling_confirm_140x40", confirm);
    insta::assert_snapshot!("scaling_confirm_80x24", screen(&mut app, 80, 24));
    // An impossible count is refused in the editor, saying why; nothing is queued.
    tap(&mut app, KeyCode::Esc);
    press(&mut app, "n");
    tap(&mut app, KeyCode::Backspace);
    press(&mut app, "9");
    tap(&mut app, KeyCode::Enter);
    let why = app.panes.scaling.editor().and_then(|e| e.error.clone()).unwrap();
    assert!(why.contains("outside Stable's MinCapacity 2 - MaxCapacity 6"), "{why}");
    assert!(app.take_jobs().is_empty());
}

// ---- over the wire ----

pub(crate) struct Console {
    pub(crate) app: App,
    jobs: sagedeck::tui::worker::Jobs,
    rx: tokio::sync::mpsc::UnboundedReceiver<AppEvent>,
    pub(crate) _dir: tempfile::TempDir,
}

impl Console {
    pub(crate) async fn start(sb: &sagedeck::sandbox::SandboxHandle, endpoint: &str) -> Console {
        let dir = tempfile::tempdir().unwrap();
        let (jobs, mut rx) = common::tui::guarded_worker_on(sb, dir.path(), None).await;
        let app = common::tui::loaded_app(&jobs, &mut rx).await;
        let mut c = Console {
            app,
            jobs,
            rx,
            _dir: dir,
        };
        c.app.data.selected = Some(endpoint.into());
        c.app.switch(Tab::Scaling);
        c.pump("the autoscaling view", |a| a.panes.scaling.view(&a.data).is_some())
            .await;
        c
    }

    /// Jobs to the worker, events back (with the pane's ticks), until `done` holds.
    pub(crate) async fn pump(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let tick = |app: &mut App| {
            app.schedule_refreshes();
            let mut out = sagedeck::tui::panes::Outbox::default();
            sagedeck::tui::panes::Pane::on_tick(&mut app.panes.scaling, true, &app.data, &mut out);
            for j in out.jobs {
                app.submit(j);
            }
        };
        let deadline = Duration::from_secs(120);
        common::tui::pump_until(&mut self.app, &self.jobs, &mut self.rx, (what, deadline), done, tick).await
    }

    pub(crate) fn toasts(&self) -> String {
        self.app
            .toasts
            .log
            .iter()
            .map(|t| t.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

async fn bounds(sb: &sagedeck::sandbox::SandboxHandle, endpoint: &str) -> (i32, i32) {
    let aas = aws_sdk_applicationautoscaling::Client::new(&common::sdk_config(sb).await);
    let out = aas
        .describe_scalable_targets()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_ids(format!("endpoint/{endpoint}/variant/Stable"))
        .send()
        .await
        .unwrap();
    let t = &out.scalable_targets()[0];
    (t.min_capacity(), t.max_capacity())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_applies_read_only_refuses_and_a_change_since_is_refused() {
    let sb = common::sandbox_with(common::demo_config()).await;
    let mut c = Console::start(&sb, EP).await;
    assert_eq!(bounds(&sb, EP).await, (2, 6));

    // Read-only: the editor does not open, nothing is queued.
    c.app.data.read_only = true;
    press(&mut c.app, "m");
    assert!(c.app.panes.scaling.editor().is_none());
    assert!(c.toasts().contains("read-only: changing autoscaling is disabled"));
    c.app.data.read_only = false;

    // min/max 2-8, confirmed: applied, read back with the SDK.
    press(&mut c.app, "m");
    tap(&mut c.app, KeyCode::Backspace);
    press(&mut c.app, "8");
    tap(&mut c.app, KeyCode::Enter);
    assert!(matches!(c.app.overlay, Some(Overlay::Confirm(_))));
    c.app.on_key(key(KeyCode::Char('y')));
    c.pump("the change to apply", |a| {
        a.toasts.log.iter().any(|t| t.text.contains("change(s) applied"))
    })
    .await;
    assert_eq!(bounds(&sb, EP).await, (2, 8));
    let audit = std::fs::read_to_string(c._dir.path().join("audit.jsonl")).unwrap();
    assert!(audit.contains("autoscaling.bounds"), "not audited: {audit}");
    c.pump("the view to show max 8", |a| {
        a.panes
            .scaling
            .view(&a.data)
            .is_some_and(|v| v.variants[0].bounds == Some((2, 8)))
    })
    .await;

    // Confirmed in read-only mode (the dialog was open before): refused by the gate.
    press(&mut c.app, "m");
    tap(&mut c.app, KeyCode::Backspace);
    press(&mut c.app, "7");
    tap(&mut c.app, KeyCode::Enter);
    c.app.data.read_only = true;
    c.app.on_key(key(KeyCode::Char('y')));
    assert!(c.app.take_jobs().is_empty());
    c.app.data.read_only = false;
    assert_eq!(bounds(&sb, EP).await, (2, 8));

    // Changed behind the console's back after it read: refused with the difference.
    press(&mut c.app, "m");
    tap(&mut c.app, KeyCode::Backspace);
    press(&mut c.app, "5");
    tap(&mut c.app, KeyCode::Enter);
    let aas = aws_sdk_applicationautoscaling::Client::new(&common::sdk_config(&sb).await);
    aas.register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(format!("endpoint/{EP}/variant/Stable"))
        .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
        .min_capacity(3)
        .max_capacity(9)
        .send()
        .await
        .unwrap();
    c.app.on_key(key(KeyCode::Char('y')));
    c.pump("the refusal", |a| {
        a.toasts.log.iter().any(|t| t.text.contains("not changed"))
    })
    .await;
    let toasts = c.toasts();
    assert!(
        toasts.contains("min-max") && toasts.contains("2-8") && toasts.contains("3-9"),
        "{toasts}"
    );
    assert_eq!(bounds(&sb, EP).await, (3, 9));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_autoscaling_endpoint_shows_a_scale_out() {
    let sb = common::sandbox_with(sagedeck::sandbox::SandboxConfig {
        traffic_rate: Some(1.0),
        ..common::demo_config()
    })
    .await;
    let demo = "mcp-autoscaling-demo";
    // Load well past 120 invocations per instance per minute, on top of the generator's wave.
    let load = {
        let sb_url = sb.endpoint_url();
        tokio::spawn(async move {
            let cfg = sagedeck::aws::config::local_sdk_config(&sb_url).await;
            let rt = aws_sdk_sagemakerruntime::Client::new(&cfg);
            loop {
                let calls = (0..8).map(|_| {
                    rt.invoke_endpoint()
                        .endpoint_name(demo)
                        .content_type("application/json")
                        .body(aws_sdk_sagemakerruntime::primitives::Blob::new(r#"{"inputs": "hi"}"#))
                        .send()
                });
                futures_util::future::join_all(calls).await;
            }
        })
    };
    let mut c = Console::start(&sb, demo).await;
    c.pump("a scale-out in the pane", |a| {
        a.panes
            .scaling
            .view(&a.data)
            .is_some_and(|v| v.activities.iter().any(|x| x.cause.contains("AlarmHigh")))
    })
    .await;
    load.abort();
    let text = screen(&mut c.app, 140, 40);
    assert!(text.contains("1 → "), "{text}");
    assert!(text.contains("InvocationsPerInstance Sum"), "{text}");
}

#[test]
fn the_real_binary_shows_the_scaling_tab_with_its_chart_on_the_demo() {
    use crate::common::tmux::Tmux;
    let t = Tmux::start_sized("scaling", "demo --fast", "", 140, 40);
    t.wait_for("the fleet", Duration::from_secs(60), |s| {
        s.contains("mcp-autoscaling-demo") && s.contains("InService")
    });
    t.keys(&["/", "autoscaling-demo", "Enter", ":", "scaling", "Enter"]);
    let screen = t.wait_for("the Scaling tab with its chart", Duration::from_secs(60), |s| {
        s.contains("Scaling · mcp-autoscaling-demo")
            && s.contains("mcp-autoscaling-demo-invocations")
            && s.contains("InvocationsPerInstance Sum metric")
            && s.contains("instances")
            && s.contains("-60m")
            && s.contains("next: ")
    });
    assert!(screen.contains("target min 1 · max 4"), "{screen}");
    if let Ok(path) = std::env::var("SAGEDECK_SCALING_SCREEN") {
        std::fs::write(path, &screen).unwrap();
    }
    t.keys(&["q"]);
}
