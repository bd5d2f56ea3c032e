//! The promotion plan in the real binary (tmux, 140x40) on `sagedeck demo`: a plan started from
//! the Variants pane is rolled back from the "The plan is running. Stop it?" dialog while it
//! waits for InService, while it bakes and while it judges (`--metrics-delay` holds the judging
//! as long as CloudWatch's late publication does against AWS), and the canary's weights do not
//! stay applied.

use std::time::Duration;

use crate::common::tmux::Tmux;

#[test]
fn roll_back_chosen_while_the_plan_bakes_is_carried_out_in_the_real_console() {
    roll_back_during(
        "plan-bake",
        "--update-secs 1",
        &[],
        ("the first step to bake", "baking,"),
    );
}

#[test]
fn roll_back_chosen_while_the_plan_judges_is_carried_out_in_the_real_console() {
    roll_back_during(
        "plan-judging",
        "--update-secs 1 --metrics-delay 120",
        &[(BAKE_FIELD, "5s")],
        ("the first step to be judged", "judging: reading the gate"),
    );
}

#[test]
fn roll_back_chosen_while_the_plan_waits_for_in_service_is_carried_out_in_the_real_console() {
    // The demo's canary already holds 10 %: a first step of 25 % changes the weights.
    roll_back_during(
        "plan-updating",
        "--update-secs 20",
        &[(STEPS_FIELD, "25,100")],
        ("the first step to wait for InService", "Updating → InService…"),
    );
}

/// The plan editor's fields typed over in these tests (canary, baseline, steps, bake, …).
const STEPS_FIELD: usize = 2;
const BAKE_FIELD: usize = 3;

/// Starts a plan on the demo (with the demo options `demo_args`; each of `fields`, by index in
/// increasing order, typed over the editor's default), waits until the plan shows `phase`, then
/// chooses roll back in the stop dialog and expects it carried out.
fn roll_back_during(name: &str, demo_args: &str, fields: &[(usize, &str)], (what, phase): (&str, &str)) {
    let t = Tmux::start_sized(
        name,
        &format!("demo --fast --no-traffic --backfill-hours 1 {demo_args}"),
        "",
        140,
        40,
    );
    t.wait_for("the fleet", Duration::from_secs(60), |s| {
        s.contains("mcp-intent-classifier-prod") && s.contains("InService")
    });
    t.open_variants("classifier", "mcp-intent-classifier-prod");
    t.keys(&["P"]);
    t.wait_for("the plan editor", Duration::from_secs(10), |s| {
        s.contains("Promotion plan for") && s.contains("consolidate")
    });
    let mut at = 0;
    for &(field, text) in fields {
        t.keys(&vec!["Down"; field - at]);
        at = field;
        t.keys(&["BSpace"; 16]);
        t.keys(&[text]);
        t.wait_for("the typed field", Duration::from_secs(10), |s| s.contains(text));
    }
    t.keys(&["Enter"]);
    t.wait_for("the plan's confirmation with its keys", Duration::from_secs(10), |s| {
        s.contains("Promote Canary on") && s.contains("y / Enter") && s.contains("Last step: consolidate")
    });
    t.keys(&["y"]);
    t.wait_for(what, Duration::from_secs(120), |s| s.contains(phase));
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
