//! The console on endpoints boto3 made as AWS's developer guide makes them
//! (`tests/compat/{serverless,async,shadow}_calls.py` against one fresh sandbox): a serverless
//! endpoint with provisioned concurrency, an asynchronous one and one with a shadow variant. The
//! Endpoints table gives each its kind, the Variants view each its own figures, and the Invoke
//! pane queues a request on the asynchronous one and follows it to its output.

use std::time::Duration;

use sagedeck::aws::endpoints::kind::EndpointKind;
use sagedeck::sandbox::SandboxConfig;
use sagedeck::tui::app::App;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::invoke::AsyncRequestState;

use crate::common::tui::{self, ctrl};
use crate::common::{compat, sandbox_with};

/// The line of `screen` that names `name`.
fn row<'a>(screen: &'a str, name: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(&format!(" {name} ")) || l.contains(&format!("│{name} ")))
        .unwrap_or_else(|| panic!("no row for {name}:\n{screen}"))
}

/// The Variants view of `name`, at 140x40.
fn variants_of(app: &mut App, name: &str) -> String {
    app.data.selected = Some(name.into());
    app.switch(Tab::Variants);
    tui::render(app, 140, 40)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_shows_and_invokes_the_endpoints_boto3_made() {
    let sb = sandbox_with(SandboxConfig::for_tests()).await;
    let url = sb.endpoint_url();
    for (script, done) in [
        ("serverless_calls.py", "serverless checks passed"),
        ("async_calls.py", "async checks passed"),
        ("shadow_calls.py", "shadow checks passed"),
    ] {
        let out = compat::run(script, &[&url]).await;
        assert!(out.contains(done), "{script}:\n{out}");
    }

    let (jobs, mut rx) = tui::worker_on(&sb).await;
    let mut app = tui::loaded_app(&jobs, &mut rx).await;
    let kind = |a: &App, name: &str| a.data.endpoint(name).map(|e| e.kind);
    let described = |a: &App| {
        kind(a, "boto3-serverless") == Some(EndpointKind::ServerlessProvisioned)
            && kind(a, "boto3-async") == Some(EndpointKind::Async)
            && a.data.endpoint("boto3-shadow").is_some_and(|e| e.shape.has_shadow())
    };
    let what = ("the three endpoints described", Duration::from_secs(60));
    tui::pump_until(&mut app, &jobs, &mut rx, what, described, |_| {}).await;

    let table = tui::render(&mut app, 140, 40);
    assert!(row(&table, "boto3-serverless").contains("SLS+PC"), "{table}");
    assert!(row(&table, "boto3-async").contains("ASYNC"), "{table}");
    assert!(row(&table, "boto3-shadow").contains("SHADOW"), "{table}");

    // Each kind's own figures: boto3's last ServerlessUpdateConfig (max 4, provisioned 2).
    let sls = variants_of(&mut app, "boto3-serverless");
    assert!(sls.contains("4 GB · max 4 · prov 2"), "{sls}");
    let queue = variants_of(&mut app, "boto3-async");
    assert!(
        queue.contains("output s3://boto3-async-io/output") && queue.contains("failures s3://boto3-async-io/failure"),
        "{queue}"
    );
    assert!(queue.contains("per instance 4"), "{queue}");
    let shadow = variants_of(&mut app, "boto3-shadow");
    assert!(shadow.contains("shadow of production"), "{shadow}");
    assert!(shadow.contains("◌ SHADOW"), "{shadow}");

    // The Invoke pane on boto3's asynchronous endpoint: a CSV row, queued and followed.
    app.data.selected = Some("boto3-async".into());
    app.switch(Tab::Invoke);
    assert!(app.panes.invoke.form().is_some_and(|f| f.asynchronous));
    crate::invoke_async::csv_body(&mut app, "1,2,3");
    app.on_key(ctrl('s'));
    let what = ("the request's output", Duration::from_secs(60));
    let count = |a: &App, s: AsyncRequestState| a.panes.invoke.async_requests().iter().filter(|r| r.state == s).count();
    tui::pump_until(
        &mut app,
        &jobs,
        &mut rx,
        what,
        |a| count(a, AsyncRequestState::Succeeded) == 1,
        |_| {},
    )
    .await;
    let request = app.panes.invoke.async_requests()[0].clone();
    let output = request.location().unwrap_or_default();
    assert!(output.starts_with("s3://boto3-async-io/output/"), "{output}");
    assert!(request.result_text.is_some_and(|t| !t.is_empty()));
}
