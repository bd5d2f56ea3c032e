//! `sagedeck timeline`: a weight change (audit log, with its principal), a scaling activity and
//! a failed deployment (the endpoint back on its old configuration with FailureReason) come out
//! in the order they happened.

use crate::common::deploy::weights_scaling_and_a_failed_deployment;
use crate::common::{demo_config, run_cli, sandbox_with};

const EP: &str = "mcp-intent-classifier-prod";

#[tokio::test]
async fn timeline_orders_weights_scaling_and_a_failed_deployment() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let audit = audit.to_str().unwrap();
    weights_scaling_and_a_failed_deployment(
        &sb,
        EP,
        audit,
        "The primary container for production variant Stable did not pass the ping health check.",
    )
    .await;

    let j = run_cli(&sb, &["timeline", EP, "--json", "--audit-file", audit])
        .await
        .json();
    let events = j["events"].as_array().unwrap();
    let at = |pred: &dyn Fn(&serde_json::Value) -> bool| {
        events
            .iter()
            .position(pred)
            .unwrap_or_else(|| panic!("missing in {events:#?}"))
    };
    let weights = at(&|e| e["kind"] == "audit" && e["summary"].as_str().unwrap().starts_with("weights.set"));
    let scaling = at(&|e| e["kind"] == "scaling" && e["summary"].as_str().unwrap().contains("from 2 to 3"));
    let failed = at(&|e| e["kind"] == "deployment");
    assert!(weights < scaling && scaling < failed, "{events:#?}");
    assert!(
        events[weights]["principal"].as_str().unwrap().starts_with("arn:aws:"),
        "{}",
        events[weights]
    );
    assert_eq!(events[failed]["failed"], true);
    let summary = events[failed]["summary"].as_str().unwrap();
    assert!(
        summary.contains("still on mcp-classifier-ab-config") && summary.contains("ping health check"),
        "{summary}"
    );
    let times: Vec<f64> = events.iter().map(|e| e["epoch"].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    let human = run_cli(&sb, &["timeline", EP, "--audit-file", audit]).await;
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human
            .stdout
            .lines()
            .any(|l| l.contains(" ! ") && l.contains("deployment")),
        "{}",
        human.stdout
    );
}
