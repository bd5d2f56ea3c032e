//! The Logs and Timeline panes: snapshots at 140×40 and 80×24 (the header's "changed … ago"
//! included), and over the wire on the sandbox with the real worker — logs paginate in the
//! pane, follow picks up new lines, a filter pattern narrows them, a line is copied; the
//! timeline orders a weight change, a scaling activity, a failed deployment and an alarm.

use std::time::Duration;

use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, StateValue, Statistic};
use crossterm::event::KeyCode;
use sagedeck::aws::observe::logs::{LogLine, LogRead, StreamInfo};
use sagedeck::aws::observe::timeline::TimelineEvent;
use sagedeck::sandbox::SandboxHandle;
use sagedeck::tui::app::{App, Effect};
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::worker::{GuardOptions, JobLimits, Jobs, spawn_guarded};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::common::deploy::weights_scaling_and_a_failed_deployment;
use crate::common::tui::{feed_until as wait_for, press, render as screen, submit_all, tap};
use crate::common::{demo_config, poll_until, sandbox_with, sdk_config};

const EP: &str = "mcp-intent-classifier-prod";
const GROUP: &str = "/aws/sagemaker/Endpoints/mcp-intent-classifier-prod";
const T0: i64 = 1_790_500_000_000;

fn line(ms: i64, stream: &str, message: &str) -> LogLine {
    LogLine {
        timestamp_ms: T0 + ms,
        stream: stream.into(),
        message: message.into(),
        event_id: format!("{ms}-{stream}"),
    }
}

fn stream(name: &str) -> StreamInfo {
    let (variant, instance) = name.split_once('/').unwrap();
    StreamInfo {
        name: name.into(),
        variant: variant.into(),
        instance: instance.into(),
        last_event_ms: Some(T0),
    }
}

/// The Logs pane of the fixture fleet with a cold start, an invocation error with its traceback
/// and health checks, the fourth line selected.
fn logs_app() -> App {
    let mut app = crate::app::app_with_fleet(0);
    app.switch(Tab::Logs);
    app.take_jobs();
    let (s, c) = ("Stable/i-0a1b2c3d", "Canary/i-0e4f5a6b");
    let lines = vec![
        line(0, s, "Model server started in 38.2 s (cold start)"),
        line(400, c, "Model server started in 41.0 s (cold start)"),
        line(1_000, s, "GET /ping 200 0.4ms"),
        line(2_000, c, "ERROR invocation failed: 500"),
        line(2_001, c, "Traceback (most recent call last):"),
        line(2_002, c, "  File \"/opt/ml/code/inference.py\", line 42, in predict_fn"),
        line(2_003, c, "    result = model(batch)"),
        line(2_004, c, "RuntimeError: CUDA out of memory"),
        line(3_000, s, "GET /ping 200 0.3ms"),
        line(4_000, s, "POST /invocations 200 12.1ms"),
    ];
    app.on_event(AppEvent::Logs {
        endpoint: EP.into(),
        follow: false,
        result: Ok((
            Some(vec![stream(c), stream(s)]),
            LogRead {
                lines,
                pages: 1,
                truncated: false,
            },
        )),
    });
    app.panes.logs.cursor = 3;
    app.data.last_change.insert(
        EP.into(),
        (
            sagedeck::format::now_epoch() - 240.0,
            "weights Stable=9 Canary=1 by alice".into(),
        ),
    );
    app
}

fn event(epoch: f64, kind: &str, summary: &str, principal: Option<&str>, failed: bool) -> TimelineEvent {
    TimelineEvent {
        epoch,
        kind: kind.into(),
        summary: summary.into(),
        principal: principal.map(str::to_string),
        failed,
        origin: None,
    }
}

/// The Timeline pane of the fixture fleet with one entry of each kind.
fn timeline_app() -> App {
    let mut app = crate::app::app_with_fleet(0);
    app.switch(Tab::Timeline);
    app.take_jobs();
    let t = 1_790_500_000.0;
    let events = vec![
        event(t, "endpoint", "created on mcp-classifier-ab-config", None, false),
        event(
            t + 600.0,
            "audit",
            "weights.set: Stable=5 Canary=5 → Stable=9 Canary=1 (ok) — canary too slow",
            Some("arn:aws:sts::123456789012:assumed-role/oncall/alice"),
            false,
        ),
        event(
            t + 900.0,
            "scaling",
            "Setting desired instance count to 3 (Successful) — monitor alarm above 70",
            Some("autoscaling"),
            false,
        ),
        event(
            t + 1_200.0,
            "alarm",
            "classifier-p99-high: Alarm updated from OK to ALARM",
            None,
            true,
        ),
        event(
            t + 1_500.0,
            "deployment",
            "deployment failed, still on mcp-classifier-ab-config: ping health check failed",
            None,
            true,
        ),
    ];
    app.on_event(AppEvent::Timeline {
        endpoint: EP.into(),
        result: Ok(events),
        trail: None,
    });
    app.panes.timeline.cursor = 1;
    let change = app.data.last_change.get(EP).cloned().expect("the header's change");
    assert!(change.1.starts_with("deployment failed, still on"), "{change:?}");
    app.data
        .last_change
        .insert(EP.into(), (sagedeck::format::now_epoch() - 240.0, change.1));
    app
}

#[test]
fn snapshot_logs_pane() {
    let mut app = logs_app();
    insta::assert_snapshot!("logs_140x40", screen(&mut app, 140, 40));
    insta::assert_snapshot!("logs_80x24", screen(&mut app, 80, 24));
}

#[test]
fn snapshot_timeline_pane() {
    let mut app = timeline_app();
    insta::assert_snapshot!("timeline_140x40", screen(&mut app, 140, 40));
    insta::assert_snapshot!("timeline_80x24", screen(&mut app, 80, 24));
    tap(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("timeline_detail_80x24", screen(&mut app, 80, 24));
}

#[test]
fn the_header_cuts_the_change_before_the_region() {
    let mut app = logs_app();
    let top = |app: &mut App, w| screen(app, w, 6).lines().next().unwrap().to_string();
    let wide = top(&mut app, 140);
    assert!(wide.contains("endpoint aws") && wide.contains("changed 4m ago: weights Stable=9 Canary=1 by alice"));
    let narrow = top(&mut app, 80);
    assert!(
        narrow.contains("region us-east-1") && narrow.contains("changed 4m ago"),
        "{narrow}"
    );
    assert!(
        !narrow.contains("endpoint aws"),
        "the endpoint URL goes first: {narrow}"
    );
    let tiny = top(&mut app, 60);
    assert!(
        tiny.contains("region us-east-1") && tiny.contains("changed 4m ago"),
        "{tiny}"
    );
}

#[test]
fn jumps_from_latency_and_invoke_set_the_logs_window() {
    let mut app = crate::app::app_with_fleet(0);
    app.data.logs_jump = Some(sagedeck::tui::data::LogsJump {
        endpoint: EP.into(),
        variant: Some("Canary".into()),
        at: 1_790_500_000.0,
    });
    app.switch(Tab::Logs);
    let logs = &app.panes.logs;
    assert_eq!(logs.variant.as_deref(), Some("Canary"));
    assert_eq!(logs.around, Some((T0 - 300_000, T0 + 300_000)));
    let jobs = app.take_jobs();
    assert!(
        matches!(&jobs[..], [(_, sagedeck::tui::event::Job::Fleet(sagedeck::tui::event::FleetJob::Logs { query, streams: true, follow: false }))]
            if query.start_ms == Some(T0 - 300_000) && query.variant.as_deref() == Some("Canary")),
        "{jobs:?}"
    );
    // Without figures, Latency's `L` says so and stays.
    app.switch(Tab::Latency);
    press(&mut app, "L");
    assert_eq!(app.tab, Tab::Latency);
}

/// The real worker on the sandbox, its audit log at `audit`.
async fn worker(sb: &SandboxHandle, audit: &std::path::Path) -> (Jobs, UnboundedReceiver<AppEvent>) {
    let (tx, rx) = unbounded_channel();
    let guard = GuardOptions {
        audit_path: Some(audit.to_path_buf()),
        plan_dir: Some(audit.with_file_name("promotions")),
        ..Default::default()
    };
    let f = crate::common::fleet(sb).await;
    (
        spawn_guarded(Default::default(), Some(f), JobLimits::default(), tx, None, guard),
        rx,
    )
}

fn logs_read(ev: &AppEvent, follow: bool) -> Option<()> {
    matches!(ev, AppEvent::Logs { follow: f, .. } if *f == follow).then_some(())
}

#[tokio::test]
async fn logs_pane_pages_follows_filters_and_copies() {
    let sb = sandbox_with(demo_config()).await;
    poll_until("the classifier's cold starts", Duration::from_secs(10), || async {
        let d = sb.sandbox.logs.data.lock();
        (d.groups.get(GROUP).map_or(0, |g| g.streams.len()) == 3).then_some(())
    })
    .await;
    let filler: Vec<String> = (0..7_000).map(|i| format!("GET /ping 200 #{i}")).collect();
    sb.sandbox
        .logs
        .append(GROUP, "Stable/i-0bulk", sagedeck::sandbox::now_epoch(), &filler);
    let dir = tempfile::tempdir().unwrap();
    let (jobs, mut rx) = worker(&sb, &dir.path().join("audit.jsonl")).await;
    let mut app = crate::app::app_with_fleet(0);
    app.switch(Tab::Logs);
    submit_all(&jobs, &mut app);
    wait_for(&mut rx, &mut app, |e| logs_read(e, false)).await;
    let logs = &app.panes.logs;
    assert!(logs.pages >= 2, "{} pages", logs.pages);
    assert_eq!(logs.streams.len(), 4);
    assert!(logs.lines.len() >= 7_003, "{}", logs.lines.len());
    assert!(logs.lines.windows(2).all(|w| w[0].timestamp_ms <= w[1].timestamp_ms));
    assert_eq!(logs.lines[logs.cursor].message, "GET /ping 200 #6999");

    // Follow: a line written now shows up on a later tick.
    press(&mut app, "f");
    sb.sandbox.logs.append(
        GROUP,
        "Canary/i-0late",
        sagedeck::sandbox::now_epoch(),
        &["late line from the canary".to_string()],
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while app.panes.logs.lines.last().map(|l| l.message.as_str()) != Some("late line from the canary") {
        assert!(tokio::time::Instant::now() < deadline, "follow picked up nothing");
        // The pane polls every 2 s while it follows: tick until it asks.
        poll_until("the pane's next follow poll", Duration::from_secs(10), || {
            app.on_tick();
            let asked = app.take_jobs();
            let polls = asked.iter().any(|(_, j)| {
                matches!(
                    j,
                    sagedeck::tui::event::Job::Fleet(sagedeck::tui::event::FleetJob::Logs { follow: true, .. })
                )
            });
            for (id, job) in asked {
                jobs.submit(id, job);
            }
            std::future::ready(polls.then_some(()))
        })
        .await;
        wait_for(&mut rx, &mut app, |e| logs_read(e, true)).await;
    }
    let n = app.panes.logs.lines.len();
    assert_eq!(
        app.panes
            .logs
            .lines
            .iter()
            .filter(|l| l.stream == "Canary/i-0late")
            .count(),
        1
    );
    press(&mut app, "f");

    // A filter pattern, typed after `/`, is CloudWatch's.
    press(&mut app, "/\"#6999\"");
    tap(&mut app, KeyCode::Enter);
    submit_all(&jobs, &mut app);
    wait_for(&mut rx, &mut app, |e| logs_read(e, false)).await;
    let shown: Vec<&str> = app.panes.logs.lines.iter().map(|l| l.message.as_str()).collect();
    assert_eq!(shown, ["GET /ping 200 #6999"], "of {n}");
    app.take_effects();
    press(&mut app, "y");
    assert_eq!(app.take_effects(), [Effect::Copy("GET /ping 200 #6999".into())]);
}

/// An alarm on the endpoint's latency, set to ALARM (DescribeAlarmHistory records it).
async fn alarm_fires(sb: &SandboxHandle) {
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(sb).await);
    cw.put_metric_alarm()
        .alarm_name("classifier-p99-high")
        .namespace("AWS/SageMaker")
        .metric_name("ModelLatency")
        .dimensions(Dimension::builder().name("EndpointName").value(EP).build())
        .dimensions(Dimension::builder().name("VariantName").value("Stable").build())
        .statistic(Statistic::Average)
        .period(60)
        .evaluation_periods(1)
        .threshold(1e12)
        .comparison_operator(ComparisonOperator::GreaterThanThreshold)
        .send()
        .await
        .unwrap();
    cw.set_alarm_state()
        .alarm_name("classifier-p99-high")
        .state_value(StateValue::Alarm)
        .state_reason("p99 above 2 s")
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn timeline_pane_orders_weights_scaling_a_failed_deployment_and_an_alarm() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let audit_text = audit.to_str().unwrap();
    weights_scaling_and_a_failed_deployment(&sb, EP, audit_text, "did not pass the ping health check.").await;
    alarm_fires(&sb).await;

    let (jobs, mut rx) = worker(&sb, &audit).await;
    let mut app = crate::app::app_with_fleet(0);
    app.switch(Tab::Timeline);
    submit_all(&jobs, &mut app);
    wait_for(&mut rx, &mut app, |e| {
        matches!(e, AppEvent::Timeline { .. }).then_some(())
    })
    .await;
    let rows = app.panes.timeline.rows();
    let at = |pred: &dyn Fn(&TimelineEvent) -> bool| {
        rows.iter()
            .position(|e| pred(e))
            .unwrap_or_else(|| panic!("missing in {rows:#?}"))
    };
    let alarm = at(&|e| e.kind == "alarm" && e.summary.ends_with("to ALARM"));
    let failed = at(&|e| e.kind == "deployment" && e.failed);
    let scaling = at(&|e| e.kind == "scaling" && e.summary.contains("from 2 to 3"));
    let weights = at(&|e| {
        e.kind == "audit"
            && e.summary
                .starts_with("weights.set: Stable=9 Canary=1 → Stable=8 Canary=2")
    });
    assert!(
        alarm < failed && failed < scaling && scaling < weights,
        "newest first: {rows:#?}"
    );
    assert!(rows[weights].principal.as_deref().unwrap().starts_with("arn:aws:"));
    assert!(rows[alarm].failed);
    // The header says what changed last.
    let (_, how) = app.data.last_change.get(EP).cloned().unwrap();
    assert!(
        how.starts_with("alarm classifier-p99-high: Alarm updated from"),
        "{how}"
    );
    let top = screen(&mut app, 140, 6);
    let header = top.lines().next().unwrap();
    assert!(header.contains("s ago: alarm classif"), "{top}");
    // Enter shows an entry whole.
    tap(&mut app, KeyCode::Enter);
    assert!(screen(&mut app, 140, 30).contains("went wrong yes"));
}

/// The real binary in tmux on `sagedeck demo`: the Logs tab shows the classifier's lines, the
/// Timeline tab its entries, and the header when it last changed.
#[test]
fn demo_console_shows_logs_and_timeline() {
    let t = crate::common::tmux::Tmux::start_sized(
        "logs-timeline",
        "demo --fast --no-traffic --backfill-hours 1",
        "",
        140,
        40,
    );
    t.wait_for("the fleet", Duration::from_secs(60), |s| {
        s.contains(EP) && s.contains("InService")
    });
    t.keys(&["/", "classifier", "Enter", "Enter", "9"]);
    t.wait_for("the classifier's log lines", Duration::from_secs(30), |s| {
        s.contains("Logs — mcp-intent-classifier-prod") && s.contains("streams: ") && s.contains("Stable/i-")
    });
    t.keys(&["0"]);
    let screen = t.wait_for("the timeline's entries", Duration::from_secs(30), |s| {
        s.contains("Timeline — mcp-intent-classifier-prod") && s.contains("InService on ")
    });
    assert!(screen.lines().next().unwrap_or("").contains("changed "), "{screen}");
    t.keys(&["q"]);
}

#[tokio::test]
async fn an_endpoint_that_has_written_no_logs_yet_is_a_state_not_an_error() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let (jobs, mut rx) = worker(&sb, &dir.path().join("audit.jsonl")).await;
    let mut app = crate::app::app_with_fleet(0);
    // An endpoint the sandbox has no log group for, as CloudWatch has none before the first line.
    let fresh = std::sync::Arc::make_mut(
        app.data
            .inventory
            .iter_mut()
            .find(|e| e.name == "llm-tgi-chat")
            .unwrap(),
    );
    fresh.name = "just-created".into();
    fresh.status = "Creating".into();
    app.data.selected = Some("just-created".into());
    app.switch(Tab::Logs);
    submit_all(&jobs, &mut app);
    wait_for(&mut rx, &mut app, |e| logs_read(e, false)).await;
    assert_eq!(
        app.panes.logs.no_logs.as_deref(),
        Some("no logs yet: the endpoint is Creating"),
        "error: {:?}",
        app.panes.logs.error
    );
    let s = screen(&mut app, 100, 30);
    assert!(s.contains("no logs yet: the endpoint is Creating"), "{s}");
    assert!(!s.contains("does not exist"), "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeline_pane_shows_a_teammates_change_and_a_refused_call_from_cloudtrail() {
    let sb = sandbox_with(demo_config()).await;
    let arn = crate::common::teammate::teammate_changes(&sb.endpoint_url(), EP).await;
    assert!(arn.ends_with("user/bob"), "{arn}");
    let dir = tempfile::tempdir().unwrap();
    let (jobs, mut rx) = worker(&sb, &dir.path().join("audit.jsonl")).await;
    let mut app = crate::app::app_with_fleet(0);
    app.switch(Tab::Timeline);
    submit_all(&jobs, &mut app);
    wait_for(&mut rx, &mut app, |e| {
        matches!(e, AppEvent::Timeline { .. }).then_some(())
    })
    .await;
    let rows = app.panes.timeline.rows();
    let bob: Vec<&&TimelineEvent> = rows
        .iter()
        .filter(|e| e.kind == "cloudtrail" && e.principal.as_deref() == Some("bob"))
        .collect();
    assert!(
        bob.iter()
            .any(|e| !e.failed && e.summary.ends_with("weights Stable=7 Canary=3")),
        "{rows:#?}"
    );
    assert!(
        bob.iter()
            .any(|e| e.failed && e.summary.contains("refused: ValidationException")),
        "{rows:#?}"
    );
    let trail = app.panes.timeline.trail.clone().expect("CloudTrail was read");
    assert_eq!((trail.pages, trail.throttled), (1, None), "one page per refresh");
    let text = screen(&mut app, 140, 30);
    assert!(
        text.contains("CloudTrail: 2 changes read · CloudTrail events arrive up to ~5 min late"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("bob") && l.contains("weights Stable=7 Canary=3")),
        "{text}"
    );
}
