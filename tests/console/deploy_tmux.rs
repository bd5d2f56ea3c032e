//! The real binary in tmux on `sagedeck demo --fast`: `D` on the demo's single-variant endpoint
//! deploys `xgboost-churn-config-v2` (a one-instance canary, the form's bakes scaled by `--fast`),
//! Enter plans it, Enter and `y` confirm it, and the stepper reaches SageMaker's outcome on screen.

use std::time::Duration;

use crate::common::tmux::Tmux;

#[test]
fn the_demo_canary_deploys_to_its_outcome_in_the_stepper_in_tmux() {
    let t = Tmux::start_sized(
        "deploy-stepper",
        "demo --fast --no-traffic --backfill-hours 1",
        "",
        140,
        40,
    );
    t.wait_for("the single-variant endpoint", Duration::from_secs(60), |s| {
        s.contains("xgboost-churn-csv") && s.contains("InService")
    });
    t.keys(&["/", "xgboost-churn-csv", "Enter", "Enter"]);
    t.wait_for("its Variants", Duration::from_secs(30), |s| {
        s.contains("Variants of xgboost-churn-csv")
    });
    t.keys(&["D"]);
    t.wait_for("the deploy form", Duration::from_secs(10), |s| {
        s.contains("Deploy xgboost-churn-csv")
    });
    // The form offers `AllTraffic=`: replace it with the configuration's name.
    for _ in 0..12 {
        t.keys(&["BSpace"]);
    }
    t.keys(&["xgboost-churn-config-v2", "Enter"]);
    t.wait_for("the schedule", Duration::from_secs(30), |s| {
        s.contains("canary 1 instance") && s.contains("Enter: confirm and start")
    });
    t.keys(&["Enter"]);
    t.wait_for("the confirmation", Duration::from_secs(10), |s| {
        s.contains("UpdateEndpoint xgboost-churn-csv")
    });
    t.keys(&["y"]);
    t.wait_for("the stepper", Duration::from_secs(30), |s| {
        s.contains("Deployment of xgboost-churn-csv")
    });
    let done = t.wait_for("the outcome", Duration::from_secs(120), |s| {
        s.contains("succeeded: InService on xgboost-churn-config-v2") || s.contains("rolled back")
    });
    assert!(
        done.contains("succeeded: InService on xgboost-churn-config-v2"),
        "{done}"
    );
    t.keys(&["Escape", "q"]);
}
