//! The real binary in tmux on `sagedeck demo`: the demo's inference-component endpoint shows its
//! LLM at zero copies, `w` wakes it, and the Components pane follows it until it serves.

use std::time::Duration;

use crate::common::tmux::Tmux;

/// A newcomer opens the IC endpoint, sees AT ZERO, wakes the component and watches it serve.
#[test]
fn a_component_at_zero_wakes_and_serves_in_tmux() {
    let t = Tmux::start_sized(
        "components-wake",
        "demo --fast --no-traffic --backfill-hours 1",
        "",
        140,
        40,
    );
    t.wait_for("the IC endpoint", Duration::from_secs(60), |s| {
        s.contains("llm-ic-endpoint") && s.contains("InService")
    });
    t.keys(&["/", "llm-ic", "Enter", "Enter"]);
    t.keys(&[":", "components", "Enter"]);
    t.wait_for("the component at zero", Duration::from_secs(30), |s| {
        s.contains("llm-ic-chat") && s.contains("AT ZERO")
    });
    t.keys(&["w"]);
    t.wait_for("the wake's confirmation", Duration::from_secs(10), |s| {
        s.contains("Wake llm-ic-chat?")
    });
    t.keys(&["y"]);
    let serving = t.wait_for("the component serving", Duration::from_secs(90), |s| {
        s.lines().any(|l| l.contains("llm-ic-chat") && l.contains("SERVING"))
    });
    assert!(
        !serving
            .lines()
            .any(|l| l.contains("llm-ic-chat") && l.contains("AT ZERO")),
        "{serving}"
    );
    t.keys(&["q"]);
}
