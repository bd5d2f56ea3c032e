//! The promotion plan in the real binary (tmux, 140x40) on `sagedeck demo`: a plan started from
//! the Variants pane is rolled back from the "The plan is running. Stop it?" dialog while it
//! bakes, and the canary's weights do not stay applied.

use std::time::Duration;

use crate::common::tmux::Tmux;

#[test]
fn roll_back_chosen_while_the_plan_bakes_is_carried_out_in_the_real_console() {
    let t = Tmux::start_sized(
        "plan-bake",
        "demo --fast --no-traffic --backfill-hours 1 --update-secs 1",
        "",
        140,
        40,
    );
    t.wait_for("the fleet", Duration::from_secs(60), |s| {
        s.contains("mcp-intent-classifier-prod") && s.contains("InService")
    });
    t.keys(&["/", "classifier", "Enter", "Enter"]);
    t.wait_for("the Variants pane", Duration::from_secs(10), |s| {
        s.contains("Stable") && s.contains("Canary")
    });
    t.keys(&["P"]);
    t.wait_for("the plan editor", Duration::from_secs(10), |s| {
        s.contains("Promotion plan for") && s.contains("consolidate")
    });
    t.keys(&["Enter"]);
    t.wait_for("the plan's confirmation with its keys", Duration::from_secs(10), |s| {
        s.contains("Promote Canary on") && s.contains("y / Enter") && s.contains("Last step: consolidate")
    });
    t.keys(&["y"]);
    t.wait_for("the first step to bake", Duration::from_secs(60), |s| {
        s.contains("baking,")
    });
    t.keys(&["Escape"]);
    t.wait_for("the stop dialog naming its keys", Duration::from_secs(10), |s| {
        s.contains("The plan is running. Stop it?") && s.contains("roll back") && s.contains("hold here")
    });
    t.keys(&["b"]);
    let end = t.wait_for("the plan to be rolled back", Duration::from_secs(60), |s| {
        s.contains("RolledBack")
    });
    assert!(
        !end.contains("Held"),
        "the choice was carried out, not turned into a hold:\n{end}"
    );
}
