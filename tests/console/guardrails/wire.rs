//! Over the wire: the sandbox, the real worker, and the App fed with its events.

use super::*;
use sagedeck::aws::change::audit::AuditPhase;
use sagedeck::tui::event::GuardJob;
use sagedeck::tui::worker::{GuardOptions, JobLimits, spawn_guarded};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::common::tui::{feed_until as wait_for, submit_all};

const DEMO_EP: &str = "mcp-intent-classifier-prod";
const UPDATE: &str = "UpdateEndpointWeightsAndCapacities";

/// The audit records written in the rig's directory.
fn audit_records(dir: &tempfile::TempDir) -> Vec<sagedeck::aws::change::audit::AuditRecord> {
    sagedeck::aws::change::audit::Audit::read(dir.path().join("audit.jsonl"), None).unwrap()
}

/// The weight-editor keys: `w`, Down, `5`, Enter (the next key answers the confirmation).
fn weight_editor_keys(app: &mut App) {
    press(app, "w");
    tap(app, KeyCode::Down);
    press(app, "5");
    tap(app, KeyCode::Enter);
}

fn guard(dir: &std::path::Path) -> GuardOptions {
    GuardOptions {
        audit_path: Some(dir.join("audit.jsonl")),
        plan_dir: Some(dir.join("promotions")),
        ..Default::default()
    }
}

/// The sandbox with the demo fleet, a fleet on it, and the real worker with its guard files in
/// a temporary directory (`prepare` runs on it before the worker starts).
struct Rig {
    sb: sagedeck::sandbox::SandboxHandle,
    f: sagedeck::aws::Fleet,
    dir: tempfile::TempDir,
    rx: UnboundedReceiver<AppEvent>,
    jobs: sagedeck::tui::worker::Jobs,
}

async fn rig(prepare: impl FnOnce(&std::path::Path)) -> Rig {
    let sb = common::sandbox_with(common::demo_config()).await;
    let f = common::fleet(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    let (tx, rx) = unbounded_channel();
    let jobs = spawn_guarded(
        Default::default(),
        Some(f.clone()),
        JobLimits::default(),
        tx,
        None,
        guard(dir.path()),
    );
    Rig { sb, f, dir, rx, jobs }
}

#[tokio::test]
async fn a_change_behind_the_consoles_back_is_refused_and_nothing_is_sent() {
    let Rig {
        sb,
        f,
        dir,
        mut rx,
        jobs,
    } = rig(|_| {}).await;
    // The operator sees Stable 9 / Canary 1 and opens the weight editor.
    let seen = f.endpoint(DEMO_EP).await.unwrap();
    let mut app = app_on(seen.clone());
    weight_editor_keys(&mut app);
    // Meanwhile someone else sets Canary to 3 and the endpoint settles.
    let other = sagedeck::aws::change::weights::plan_weights(
        &seen,
        &[sagedeck::aws::change::weights::WeightChange {
            variant: "Canary".into(),
            weight: Some(3.0),
            instances: None,
        }],
    )
    .unwrap();
    f.apply_weights(&other).await.unwrap();
    f.wait_in_service(DEMO_EP, Duration::from_secs(30), Duration::from_millis(50), |_| {})
        .await
        .unwrap();
    assert_eq!(sb.sandbox.request_count(UPDATE), 1);
    // The operator confirms what they saw.
    press(&mut app, "y");
    let job = app
        .take_jobs()
        .into_iter()
        .find(|(_, j)| matches!(j, Job::Guard(GuardJob::ApplyWeights { .. })))
        .expect("confirm sends the change");
    jobs.submit(job.0, job.1);
    let err = wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::WeightsDone { result: Err(e), .. } => Some(e.to_string()),
        AppEvent::WeightsDone { result: Ok(_), .. } => panic!("the change went through"),
        _ => None,
    })
    .await;
    assert!(err.contains("Canary current_weight 1 → 3"), "{err}");
    assert_eq!(sb.sandbox.request_count(UPDATE), 1, "nothing was sent");
    let t = toasts(&app);
    assert!(
        t.iter()
            .any(|m| m.contains("refused") && m.contains("Canary current_weight 1 → 3")),
        "{t:?}"
    );
    let recs = audit_records(&dir);
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert!(recs[0].result.as_deref().unwrap().starts_with("refused:"));
    assert_eq!(recs[0].action, "weights.set");
    // The Activity tab got the refusal as well.
    common::poll_until("the activity row", Duration::from_secs(10), || {
        while let Ok(ev) = rx.try_recv() {
            app.on_event(ev);
        }
        std::future::ready(
            app.panes
                .activity
                .rows
                .first()
                .map(|r| r.cells[5].starts_with("refused"))
                .filter(|b| *b),
        )
    })
    .await;
}

#[tokio::test]
async fn the_sessions_reason_is_shown_confirmed_and_audited() {
    let Rig {
        sb: _sb,
        f,
        dir,
        mut rx,
        jobs,
    } = rig(|_| {}).await;
    let seen = f.endpoint(DEMO_EP).await.unwrap();
    let mut app = app_on(seen);
    press(&mut app, ":reason INC-4711 canary 5xx");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(app.data.reason.as_deref(), Some("INC-4711 canary 5xx"));
    let s = screen(&mut app);
    assert!(
        s.lines().next().unwrap().contains("reason INC-4711 canary 5xx"),
        "in the header: {s}"
    );
    weight_editor_keys(&mut app);
    let dialog = match &app.overlay {
        Some(Overlay::Confirm(c)) => c.lines.join("\n"),
        _ => panic!("a confirmation"),
    };
    assert!(dialog.contains("Reason: INC-4711 canary 5xx"), "{dialog}");
    press(&mut app, "y");
    submit_all(&jobs, &mut app);
    let r = wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::WeightsDone { result, .. } => Some(result.clone()),
        _ => None,
    })
    .await;
    assert!(r.is_ok(), "{r:?}");
    let recs = audit_records(&dir);
    assert_eq!(recs.len(), 2, "{recs:?}");
    assert!(
        recs.iter().all(|r| r.reason.as_deref() == Some("INC-4711 canary 5xx")),
        "intent and result carry it: {recs:?}"
    );
    // Cleared: the next change carries no reason.
    press(&mut app, ":reason");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(app.data.reason, None);
    let mut prewarm = Job::Guard(GuardJob::Prewarm {
        endpoint: "mcp-multi-model-endpoint".into(),
        models: vec!["tenant-acme-finetuned-v2.tar.gz".into()],
        reason: None,
    });
    prewarm.stamp_reason(app.data.reason.as_deref());
    assert!(prewarm.lacks_reason());
}

#[tokio::test]
async fn a_console_prewarm_is_audited() {
    let Rig {
        sb: _sb,
        f: _f,
        dir,
        mut rx,
        jobs,
    } = rig(|_| {}).await;
    let mut app = app();
    let model = "tenant-acme-finetuned-v2.tar.gz";
    jobs.submit(
        1,
        Job::Guard(GuardJob::Prewarm {
            endpoint: "mcp-multi-model-endpoint".into(),
            models: vec![model.into()],
            reason: None,
        }),
    );
    let r = wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::PrewarmDone { result, .. } => Some(result.clone()),
        _ => None,
    })
    .await;
    assert!(r.is_ok(), "{r:?}");
    let recs = audit_records(&dir);
    assert_eq!(recs.len(), 2, "{recs:?}");
    assert_eq!((recs[0].phase, recs[1].phase), (AuditPhase::Intent, AuditPhase::Result));
    assert_eq!(recs[0].action, "prewarm");
    assert_eq!(recs[0].after["models"][0], model);
    assert_eq!(recs[1].result.as_deref(), Some("ok"));
    assert!(recs[0].principal.is_some(), "the principal comes from STS");
}

#[tokio::test]
async fn an_unwritable_audit_log_blocks_console_mutations() {
    // A directory where the file should be: it cannot be opened for appending.
    let Rig {
        sb,
        f,
        dir: _dir,
        mut rx,
        jobs,
    } = rig(|d| std::fs::create_dir_all(d.join("audit.jsonl")).unwrap()).await;
    let seen = f.endpoint(DEMO_EP).await.unwrap();
    let mut app = app_on(seen.clone());
    weight_editor_keys(&mut app);
    press(&mut app, "y");
    submit_all(&jobs, &mut app);
    let err = wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::WeightsDone { result, .. } => Some(result.clone().expect_err("blocked")),
        _ => None,
    })
    .await;
    assert!(err.to_string().contains("cannot write the audit log"), "{err}");
    jobs.submit(
        100,
        Job::Guard(GuardJob::Prewarm {
            endpoint: "mcp-multi-model-endpoint".into(),
            models: vec!["tenant-acme-finetuned-v2.tar.gz".into()],
            reason: None,
        }),
    );
    let r = wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::PrewarmDone { result, .. } => Some(result.clone()),
        _ => None,
    })
    .await;
    assert!(r.is_err());
    assert_eq!(sb.sandbox.request_count(UPDATE), 0);
    assert_eq!(sb.sandbox.request_count("InvokeEndpoint"), 0);
    assert!(toasts(&app).iter().any(|t| t.contains("cannot write the audit log")));
}

#[tokio::test]
async fn a_console_plan_runs_in_the_worker_asks_holds_and_rolls_back() {
    let Rig {
        sb,
        f,
        dir,
        mut rx,
        jobs,
    } = rig(|_| {}).await;
    let mut app = app_on(f.endpoint(DEMO_EP).await.unwrap());
    let spec = PromotionSpec {
        endpoint: DEMO_EP.into(),
        ..spec()
    };
    jobs.submit(
        1,
        Job::Guard(GuardJob::Promote {
            spec,
            reason: None,
            extras: Default::default(),
        }),
    );
    // Manual mode: the plan asks before its first step, and nothing is sent meanwhile.
    wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::Promotion { event, .. } => matches!(**event, PromotionEvent::Ask { .. }).then_some(()),
        AppEvent::PromotionEnded { result, .. } => panic!("ended early: {result:?}"),
        _ => None,
    })
    .await;
    assert!(app.panes.variants.promo.question.is_some());
    assert!(screen(&mut app).contains("Apply step 1 — canary share 10%?"));
    assert_eq!(sb.sandbox.request_count(UPDATE), 0);
    press(&mut app, "h");
    submit_all(&jobs, &mut app);
    let held = wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::PromotionEnded { result, .. } => Some(result.clone().expect("held")),
        _ => None,
    })
    .await;
    assert_eq!(held.phase, Phase::Held);
    assert!(
        dir.path().join(format!("promotions/{DEMO_EP}.json")).exists(),
        "the state is saved"
    );
    // B rolls the held plan back (the weights never moved: nothing to send).
    app.data.selected = Some(DEMO_EP.into());
    press(&mut app, "B");
    press(&mut app, "y");
    submit_all(&jobs, &mut app);
    let done = wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::PromotionEnded { result, .. } => Some(result.clone().expect("rolled back")),
        _ => None,
    })
    .await;
    assert_eq!(done.phase, Phase::RolledBack);
    assert_eq!(sb.sandbox.request_count(UPDATE), 0);
    assert!(toasts(&app).iter().any(|t| t.contains("rolled back")));
}

#[tokio::test]
async fn the_alarm_job_reads_describe_alarms_into_the_data_by_endpoint() {
    let Rig {
        sb,
        f,
        dir: _dir,
        mut rx,
        jobs,
    } = rig(|_| {}).await;
    let mut spec = sagedeck::sandbox::cloudwatch::alarms::MetricAlarmSpec::new(
        "classifier-5xx",
        "AWS/SageMaker",
        "Invocation5XXErrors",
    );
    spec.dimensions = vec![("EndpointName".into(), DEMO_EP.into())];
    spec.statistic = Some("Sum".into());
    spec.threshold = 1e9;
    sb.sandbox
        .alarms
        .put_metric_alarm(spec, sagedeck::sandbox::now_epoch())
        .unwrap();
    sb.sandbox
        .alarms
        .set_state(
            "classifier-5xx",
            sagedeck::sandbox::cloudwatch::alarms::StateValue::Alarm,
            "drill",
            None,
            sagedeck::sandbox::now_epoch(),
        )
        .unwrap();
    let mut app = app_on(f.endpoint(DEMO_EP).await.unwrap());
    // A refresh (`r`, or the metrics cadence) asks for the alarm states.
    press(&mut app, "r");
    submit_all(&jobs, &mut app);
    let got = wait_for(&mut rx, &mut app, |ev| match ev {
        AppEvent::Alarms(r) => Some(r.clone().expect("alarms read")),
        _ => None,
    })
    .await;
    assert!(got[DEMO_EP].iter().any(|a| a.name == "classifier-5xx"), "{got:?}");
    assert!(
        app.data
            .firing_alarms(DEMO_EP)
            .iter()
            .any(|a| a.name == "classifier-5xx")
    );
    assert!(screen(&mut app).contains("classifier-5xx ALARM"));
}
