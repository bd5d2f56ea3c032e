//! The Invoke pane on an asynchronous endpoint over the wire (the demo's `mcp-async-summarizer`):
//! Ctrl-S queues the body with InvokeEndpointAsync, and each request is followed in the
//! background until its output object (succeeded) or its failure object (failed, the
//! container's 415 for a CSV body) appears; the list keeps both with their locations and
//! escaped results. A snapshot at 80×24. A body over the inline limit is refused with what to
//! set, then uploaded under `:input-prefix` (read back from the sandbox's S3 through the SDK)
//! and followed to success, the list showing it uploading then queued; a request that expired
//! in the queue shows as expired.

use std::time::Duration;

use crossterm::event::KeyCode;

use sagedeck::sandbox::SandboxConfig;
use sagedeck::sandbox::world::fleet::{ASYNC_BUCKET, ASYNC_ENDPOINT};
use sagedeck::tui::app::App;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::invoke::AsyncRequestState;

use crate::common;
use crate::common::tui::{self, ctrl, press, tap};

/// How many of the pane's requests are in `state`.
fn count(app: &App, state: AsyncRequestState) -> usize {
    app.panes
        .invoke
        .async_requests()
        .iter()
        .filter(|r| r.state == state)
        .count()
}

/// The demo's shapes on a sandbox, a console on its worker with the asynchronous endpoint
/// described and selected, on the Invoke tab.
async fn on_the_async_endpoint() -> (
    sagedeck::sandbox::SandboxHandle,
    sagedeck::tui::worker::Jobs,
    tokio::sync::mpsc::UnboundedReceiver<sagedeck::tui::event::AppEvent>,
    App,
) {
    let config = SandboxConfig {
        demo_shapes: true,
        ..common::demo_config()
    };
    let sb = common::sandbox_with(config).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let fleet = Some(common::fleet(&sb).await);
    let jobs = sagedeck::tui::worker::spawn(Default::default(), fleet, Default::default(), tx);
    let mut app = tui::loaded_app(&jobs, &mut rx).await;
    let described = |a: &App| a.data.endpoint(ASYNC_ENDPOINT).is_some_and(|e| e.kind.is_async());
    let what = ("the async endpoint described", Duration::from_secs(60));
    tui::pump_until(&mut app, &jobs, &mut rx, what, described, |_| {}).await;
    app.data.selected = Some(ASYNC_ENDPOINT.into());
    app.switch(Tab::Invoke);
    (sb, jobs, rx, app)
}

#[tokio::test]
async fn async_requests_are_followed_to_their_output_and_their_failure() {
    let (_sb, jobs, mut rx, mut app) = on_the_async_endpoint().await;
    assert!(app.panes.invoke.form().is_some_and(|f| f.asynchronous));

    app.on_key(ctrl('s'));
    let what = ("the request's output", Duration::from_secs(60));
    let done = |a: &App| count(a, AsyncRequestState::Succeeded) == 1;
    tui::pump_until(&mut app, &jobs, &mut rx, what, done, |_| {}).await;
    let ok = app.panes.invoke.async_requests()[0].clone();
    let output = ok.location().unwrap_or_default().to_string();
    assert!(
        output.starts_with(&format!("s3://{ASYNC_BUCKET}/summaries/output/")),
        "{output}"
    );
    assert!(
        ok.result_text.as_deref().unwrap_or_default().contains("label"),
        "{ok:?}"
    );

    // A CSV body: the container answers 415, written to the failure object.
    csv_body(&mut app, "1,2,3");
    app.on_key(ctrl('s'));
    let what = ("the request's failure", Duration::from_secs(60));
    let done = |a: &App| count(a, AsyncRequestState::Failed) == 1;
    tui::pump_until(&mut app, &jobs, &mut rx, what, done, |_| {}).await;
    let failed = app.panes.invoke.async_requests()[1].clone();
    let location = failed.location().unwrap_or_default();
    assert!(
        location.starts_with(&format!("s3://{ASYNC_BUCKET}/summaries/failure/")),
        "{location}"
    );
    assert!(
        failed.result_text.as_deref().unwrap_or_default().contains("text/csv"),
        "{failed:?}"
    );
    assert_eq!(
        count(&app, AsyncRequestState::Succeeded),
        1,
        "the first request keeps its state"
    );

    app.toasts = Default::default(); // they fade with the wall clock
    let screen = tui::render(&mut app, 80, 24);
    assert!(screen.contains("succeeded") && screen.contains("failed"), "{screen}");
    // Below the context line; the generated ids (wrapped in the panel) and times masked.
    let pane = screen.lines().skip(1).collect::<Vec<_>>().join("\n");
    let pane = mask_ids(&mask_times(&pane));
    insta::assert_snapshot!("invoke_async_requests_80x24", pane);
}

#[tokio::test]
async fn a_request_with_neither_object_by_its_deadline_is_expired() {
    use sagedeck::aws::invoke::asynchronous::AsyncAccepted;
    use sagedeck::tui::event::{AppEvent, FleetJob, Job};
    let (_sb, jobs, mut rx, mut app) = on_the_async_endpoint().await;
    app.take_jobs();
    // A request InvokeEndpointAsync accepted whose objects never appear.
    let at = |kind: &str| Some(format!("s3://{ASYNC_BUCKET}/summaries/{kind}/lost-1.out"));
    let accepted = AsyncAccepted {
        endpoint: ASYNC_ENDPOINT.into(),
        inference_id: "lost-1".into(),
        output_location: at("output"),
        failure_location: at("failure"),
        uploaded_input: None,
    };
    app.on_event(AppEvent::AsyncAccepted {
        id: 0,
        result: Ok(accepted),
    });
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    };
    let (id, accepted, deadline) = app
        .take_jobs()
        .into_iter()
        .find_map(|(id, j)| match j {
            Job::Fleet(FleetJob::AsyncFollow { accepted, deadline }) => Some((id, accepted, deadline)),
            _ => None,
        })
        .expect("the accepted request is followed");
    assert!(
        deadline > now() + 6.0 * 3600.0,
        "followed for SageMaker's default TTL and timeout"
    );
    // The same follow with a deadline two seconds away: neither object appears, so it expires.
    let soon = FleetJob::AsyncFollow {
        accepted,
        deadline: now() + 2.0,
    };
    jobs.submit(id, Job::Fleet(soon));
    let what = ("the request to expire", Duration::from_secs(30));
    let done = |a: &App| count(a, AsyncRequestState::Expired) == 1;
    tui::pump_until(&mut app, &jobs, &mut rx, what, done, |_| {}).await;
    let screen = tui::render(&mut app, 140, 40);
    assert!(screen.contains("expired") && screen.contains("lost-1"), "{screen}");
}

#[tokio::test]
async fn a_request_that_expired_in_the_queue_shows_as_expired() {
    use sagedeck::sandbox::faults::FaultSpec;
    let (sb, jobs, mut rx, mut app) = on_the_async_endpoint().await;
    // Every request queued on the endpoint expires while the fault lasts (the demo's own too).
    let spec = format!("kind=queue_expiry,endpoint={ASYNC_ENDPOINT},duration=120s");
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short(&spec).expect("fault spec"));
    app.on_key(ctrl('s'));
    let what = ("the request to expire in the queue", Duration::from_secs(60));
    let done = |a: &App| count(a, AsyncRequestState::Expired) == 1;
    tui::pump_until(&mut app, &jobs, &mut rx, what, done, |_| {}).await;
    assert_eq!(count(&app, AsyncRequestState::Failed), 0, "expired, not failed");
    let expired = app.panes.invoke.async_requests()[0].clone();
    let location = expired.location().unwrap_or_default();
    assert!(
        location.starts_with(&format!("s3://{ASYNC_BUCKET}/summaries/failure/")),
        "{location}"
    );
    let text = expired.result_text.as_deref().unwrap_or_default();
    assert!(text.contains("RequestTTLSeconds"), "{expired:?}");
    let screen = tui::render(&mut app, 140, 40);
    assert!(screen.contains("expired") && !screen.contains("failed"), "{screen}");
}

#[tokio::test]
async fn a_body_over_the_inline_limit_is_uploaded_under_the_input_prefix_and_followed() {
    let (sb, jobs, mut rx, mut app) = on_the_async_endpoint().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("long.json");
    // A large document beside a short input: the container's time follows the input's length.
    let document = "the customer called about a flight ".repeat(4_000);
    let text = format!("{{\"inputs\": \"call me back\", \"document\": \"{document}\"}}");
    std::fs::write(&file, &text).expect("body file");
    assert!(text.len() > 128_000);
    let command = |app: &mut App, line: &str| {
        press(app, &format!(":{line}"));
        tap(app, KeyCode::Enter);
    };
    command(&mut app, &format!("body-file {}", file.display()));
    assert_eq!(app.panes.invoke.form().map(|f| f.body_text().len()), Some(text.len()));

    // No prefix anywhere: nothing is derived, and the line says what to set.
    app.on_key(ctrl('s'));
    let notice = app.panes.invoke.notice().unwrap_or_default().to_string();
    assert!(
        notice.contains(":input-prefix s3://") && notice.contains("async_input_prefix"),
        "{notice}"
    );
    assert!(app.panes.invoke.pending_async().is_empty(), "nothing sent");

    let prefix = format!("s3://{ASYNC_BUCKET}/uploads/");
    command(&mut app, &format!("input-prefix {prefix}"));
    app.on_key(ctrl('s'));
    let pending = app.panes.invoke.pending_async().to_vec();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].upload_to.as_deref(), Some(prefix.as_str()));
    let uploading = tui::render(&mut app, 100, 30);
    assert!(uploading.contains("uploading"), "{uploading}");

    let what = ("the request queued", Duration::from_secs(60));
    let queued = |a: &App| !a.panes.invoke.async_requests().is_empty();
    tui::pump_until(&mut app, &jobs, &mut rx, what, queued, |_| {}).await;
    // The model takes seconds: the request is accepted, and queued, well before its output.
    assert_eq!(count(&app, AsyncRequestState::Queued), 1);
    let queued = tui::render(&mut app, 100, 30);
    assert!(queued.contains("queued") && !queued.contains("uploading"), "{queued}");
    let what = ("the uploaded request's output", Duration::from_secs(60));
    let done = |a: &App| count(a, AsyncRequestState::Succeeded) == 1;
    tui::pump_until(&mut app, &jobs, &mut rx, what, done, |_| {}).await;
    let request = app.panes.invoke.async_requests()[0].clone();
    let input = request.accepted.uploaded_input.clone().expect("the input was uploaded");
    assert!(input.starts_with(&prefix), "{input}");

    // The object is in the sandbox's S3, whole, read back through the SDK.
    let conf = common::sdk_config(&sb).await;
    let s3 = aws_sdk_s3::Client::from_conf(aws_sdk_s3::config::Builder::from(&conf).force_path_style(true).build());
    let listed = s3
        .list_objects_v2()
        .bucket(ASYNC_BUCKET)
        .prefix("uploads/")
        .send()
        .await
        .expect("ListObjectsV2");
    let keys: Vec<_> = listed.contents().iter().filter_map(|o| o.key()).collect();
    assert_eq!(keys, [input.trim_start_matches(&format!("s3://{ASYNC_BUCKET}/"))]);
    let object = s3
        .get_object()
        .bucket(ASYNC_BUCKET)
        .key(keys[0])
        .send()
        .await
        .expect("GetObject");
    let bytes = object.body.collect().await.expect("object body").into_bytes();
    assert_eq!(bytes.len(), text.len());
    assert_eq!(&bytes[..], text.as_bytes());

    app.toasts = Default::default(); // they fade with the wall clock
    // Wide enough that no id or time wraps: both are masked whole.
    let screen = tui::render(&mut app, 140, 40);
    assert!(screen.contains("succeeded") && screen.contains("uploads/"), "{screen}");
    let pane = screen.lines().skip(1).collect::<Vec<_>>().join("\n");
    let pane = mask_ids(&mask_times(&pane));
    insta::assert_snapshot!("invoke_async_uploaded_140x40", pane);
}

/// Types a CSV body into the Invoke pane's form: content type `text/csv`, the body replaced.
pub(crate) fn csv_body(app: &mut App, body: &str) {
    press(app, "c");
    for _ in 0..40 {
        tap(app, KeyCode::Backspace);
    }
    press(app, "text/csv");
    tap(app, KeyCode::Esc);
    press(app, "x");
    tap(app, KeyCode::Char('i'));
    press(app, body);
    tap(app, KeyCode::Esc);
}

/// `sent 2026-12-05 00:10` → `sent YYYY-MM-DD HH:MM` (the wall clock).
fn mask_times(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("sent ") {
        out.push_str(&rest[..i + 5]);
        rest = &rest[i + 5..];
        let stamp: String = rest.chars().take(16).collect();
        let looks = stamp.len() == 16 && stamp.as_bytes()[4] == b'-' && stamp.as_bytes()[13] == b':';
        if looks {
            out.push_str("YYYY-MM-DD HH:MM");
            rest = &rest[16..];
        }
    }
    out.push_str(rest);
    out
}

/// Runs of 5 or more hex digits and dashes holding a digit (the pieces of a generated UUID,
/// however the panel wrapped it) → `#`s of the same length.
fn mask_ids(text: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let id_like = run.chars().count() >= 5 && run.chars().any(|c| c.is_ascii_digit());
        out.push_str(&if id_like {
            "#".repeat(run.chars().count())
        } else {
            run.clone()
        });
        run.clear();
    };
    for c in text.chars() {
        if (c.is_ascii_hexdigit() && !c.is_ascii_uppercase()) || c == '-' {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}
