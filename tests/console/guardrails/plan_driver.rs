//! The console drives a plan only when no other process does: while another process holds the
//! plan's lock, the worker refuses to start, resume or roll back that endpoint's plan, naming
//! the driver, and sends nothing.

use super::*;
use sagedeck::aws::promote::lock::PlanLock;
use sagedeck::tui::event::GuardJob;
use sagedeck::tui::worker::{GuardOptions, JobLimits, spawn_guarded};
use tokio::sync::mpsc::unbounded_channel;

use crate::common::tui::feed_until as wait_for;

const DEMO_EP: &str = "mcp-intent-classifier-prod";

#[tokio::test]
async fn the_console_refuses_a_plan_another_process_drives() {
    let sb = common::sandbox_with(common::demo_config()).await;
    let f = common::fleet(&sb).await;
    let dir = tempfile::tempdir().unwrap();
    let plans = dir.path().join("promotions");
    let (tx, mut rx) = unbounded_channel();
    let guard = GuardOptions {
        audit_path: Some(dir.path().join("audit.jsonl")),
        plan_dir: Some(plans.clone()),
        ..Default::default()
    };
    let jobs = spawn_guarded(
        Default::default(),
        Some(f.clone()),
        JobLimits::default(),
        tx,
        None,
        guard,
    );
    let mut app = app_on(f.endpoint(DEMO_EP).await.unwrap());
    // This test process plays the other driver.
    let lock = PlanLock::acquire(&sagedeck::aws::promote::plan::plan_path(&plans, DEMO_EP)).unwrap();
    let start = Job::Guard(GuardJob::Promote {
        spec: PromotionSpec {
            endpoint: DEMO_EP.into(),
            ..spec()
        },
        reason: None,
        extras: Default::default(),
    });
    let resume = |rollback| {
        Job::Guard(GuardJob::PromoteResume {
            endpoint: DEMO_EP.into(),
            rollback,
        })
    };
    for (i, job) in [start, resume(false), resume(true)].into_iter().enumerate() {
        jobs.submit(i as u64 + 1, job);
        let refused = wait_for(&mut rx, &mut app, |ev| match ev {
            AppEvent::PromotionEnded { result, .. } => Some(result.clone().expect_err("refused")),
            AppEvent::Promotion { event, .. } => panic!("the plan ran: {event:?}"),
            _ => None,
        })
        .await;
        let me = format!("driven by pid {} on ", std::process::id());
        assert!(refused.contains(&me) && refused.contains(" since "), "{refused}");
    }
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 0);
    assert!(!plans.join(format!("{DEMO_EP}.json")).exists(), "no plan was begun");
    drop(lock);
}
