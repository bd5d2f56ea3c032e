//! The promotion plan in the real binary (tmux, 140x40) on `sagedeck demo`: a plan started from
//! the Variants pane is rolled back from the "The plan is running. Stop it?" dialog while it
//! waits for InService and while it bakes, and the canary's weights do not stay applied. (The
//! judging phase lasts too short a moment to be hit from tmux; `tests/fleet/guardrails/plan_end.rs`
//! covers it over the wire.)

use std::time::Duration;

use crate::common::tmux::Tmux;

#[test]
fn roll_back_chosen_while_the_plan_bakes_is_carried_out_in_the_real_console() {
    roll_back_during("plan-bake", 1, None, ("the first step to bake", "baking,"));
}

#[test]
fn roll_back_chosen_while_the_plan_waits_for_in_service_is_carried_out_in_the_real_console() {
    // The demo's canary already holds 10 %: a first step of 25 % changes the weights.
    roll_back_during(
        "plan-updating",
        20,
        Some("25,100"),
        ("the first step to wait for InService", "Updating → InService…"),
    );
}

/// Starts a plan on the demo (UpdateEndpoint taking `update_secs`; `steps` typed over the
/// editor's default), waits until the plan shows `phase`, then chooses roll back in the stop
/// dialog and expects it carried out.
fn roll_back_during(name: &str, update_secs: u32, steps: Option<&str>, (what, phase): (&str, &str)) {
    let t = Tmux::start_sized(
        name,
        &format!("demo --fast --no-traffic --backfill-hours 1 --update-secs {update_secs}"),
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
    if let Some(steps) = steps {
        // The third field: canary, baseline, steps.
        t.keys(&["Down", "Down"]);
        t.keys(&["BSpace"; 16]);
        t.keys(&[steps]);
        t.wait_for("the typed steps", Duration::from_secs(10), |s| s.contains(steps));
    }
    t.keys(&["Enter"]);
    t.wait_for("the plan's confirmation with its keys", Duration::from_secs(10), |s| {
        s.contains("Promote Canary on") && s.contains("y / Enter") && s.contains("Last step: consolidate")
    });
    t.keys(&["y"]);
    t.wait_for(what, Duration::from_secs(60), |s| s.contains(phase));
    t.keys(&["Escape"]);
    t.wait_for("the stop dialog naming its keys", Duration::from_secs(10), |s| {
        s.contains("The plan is running. Stop it?") && s.contains("roll back") && s.contains("hold here")
    });
    t.keys(&["b"]);
    let end = t.wait_for("the plan to be rolled back", Duration::from_secs(180), |s| {
        s.contains("RolledBack")
    });
    assert!(
        !end.contains("Held"),
        "the choice was carried out, not turned into a hold:\n{end}"
    );
}
