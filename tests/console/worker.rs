//! The console's background worker against the sandbox: jobs report through events, and a slow
//! call is cancelled on request without its result ever arriving.

use crate::common;

use std::time::Duration;

use sagedeck::aws::invoke::call::InvokeSpec;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::tui::event::FleetJob;
use sagedeck::tui::event::{AppEvent, Job};
use sagedeck::tui::worker::{JobLimits, spawn};
use tokio::sync::mpsc::unbounded_channel;

async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<AppEvent>) -> AppEvent {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("an event within 10 s")
        .expect("channel open")
}

#[tokio::test]
async fn inventory_job_reports_the_fleet() {
    let sb = common::sandbox_with(common::demo_config()).await;
    let (tx, mut rx) = unbounded_channel();
    let jobs = spawn(
        Default::default(),
        Some(common::fleet(&sb).await),
        JobLimits::default(),
        tx,
    );
    jobs.submit(1, Job::Fleet(FleetJob::Inventory { selected: None }));
    assert!(matches!(next(&mut rx).await, AppEvent::Started { id: 1, .. }));
    // The list page and the describes are reported as they come, then the whole inventory.
    let mut ev = next(&mut rx).await;
    assert!(matches!(ev, AppEvent::InventoryProgress { .. }), "{ev:?}");
    while matches!(ev, AppEvent::InventoryProgress { .. }) {
        ev = next(&mut rx).await;
    }
    match ev {
        AppEvent::Inventory(Ok(inv)) => assert_eq!(inv.endpoints.len(), 8),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        next(&mut rx).await,
        AppEvent::Finished {
            id: 1,
            cancelled: false
        }
    ));
}

#[tokio::test]
async fn esc_cancels_a_slow_call() {
    let sb = common::sandbox_with(common::demo_config()).await;
    sb.sandbox
        .faults
        .add(FaultSpec::parse_short("kind=slow,ms=30000,endpoint=xgboost-churn-csv").unwrap());
    let (tx, mut rx) = unbounded_channel();
    let jobs = spawn(
        Default::default(),
        Some(common::fleet(&sb).await),
        JobLimits::default(),
        tx,
    );
    let spec = InvokeSpec {
        endpoint: "xgboost-churn-csv".into(),
        body: b"1,2,3".to_vec(),
        content_type: "text/csv".into(),
        ..Default::default()
    };
    jobs.submit(7, Job::Fleet(FleetJob::Invoke { spec, repeat: 1 }));
    assert!(matches!(next(&mut rx).await, AppEvent::Started { id: 7, .. }));
    // The call is in the sandbox now (the fault counts it), and hanging for 30 s.
    common::poll_until("the call to arrive", Duration::from_secs(5), || async {
        (sb.sandbox.request_count("InvokeEndpoint") == 1).then_some(())
    })
    .await;
    // The hanging call (30 s) ends at once: `next` waits at most 10 s.
    jobs.submit(8, Job::Cancel(7));
    assert!(matches!(
        next(&mut rx).await,
        AppEvent::Finished { id: 7, cancelled: true }
    ));
    // Nothing else arrives for the cancelled job.
    assert!(
        tokio::time::timeout(Duration::from_millis(300), rx.recv())
            .await
            .is_err()
    );
}

#[tokio::test]
async fn without_a_connection_jobs_fail_with_the_reason() {
    let (tx, mut rx) = unbounded_channel();
    let opts = sagedeck::aws::AwsOptions {
        region: None,
        endpoint_url: Some("http://127.0.0.1:9".into()),
        ..Default::default()
    };
    // SAFETY-free: no env changes; an isolated profile file that does not exist makes the chain empty.
    let jobs = spawn(opts, None, JobLimits::default(), tx);
    jobs.submit(1, Job::Fleet(FleetJob::Inventory { selected: None }));
    assert!(matches!(next(&mut rx).await, AppEvent::Started { .. }));
    match next(&mut rx).await {
        AppEvent::Inventory(Err(e)) => assert!(!e.to_string().is_empty()),
        other => panic!("{other:?}"),
    }
}
