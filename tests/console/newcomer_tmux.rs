//! The real binary in tmux, as a newcomer meets it on `sagedeck demo`: every tab at 80x24, and
//! an Activity record scrolled to its `reason`.

use std::time::Duration;

use crate::common::tmux::Tmux;

/// The real binary at 80x24 on the demo: every tab keeps the header's refresh age, the tab bar
/// is whole and no table title is cut to `VARIA`.
#[test]
fn every_pane_of_the_demo_at_80x24_in_tmux() {
    let t = Tmux::start_sized(
        "newcomer-80x24",
        "demo --fast --no-traffic --backfill-hours 1",
        "",
        80,
        24,
    );
    t.wait_for("the fleet", Duration::from_secs(60), |s| {
        s.contains("mcp-intent-classifier-") && s.contains("InService")
    });
    t.wait_for("a refresh age", Duration::from_secs(30), |s| {
        s.lines().next().is_some_and(|h| h.contains(" ago"))
    });
    // Each tab's frame title (Invoke's names its request).
    let titles = [
        "Endpoints",
        "Variants",
        "Models",
        "Latency",
        "Request",
        "Tools",
        "Activity",
    ];
    for (i, title) in titles.iter().enumerate() {
        t.keys(&[&(i + 1).to_string()]);
        let s = t.wait_for(title, Duration::from_secs(10), |s| {
            s.lines().skip(2).any(|l| l.contains(&format!(" {title}")))
        });
        let head = s.lines().next().unwrap_or_default();
        assert!(head.contains("refreshed") && head.contains(" ago"), "{title}: {head}");
        assert!(
            !s.contains("VARIA ") && !s.contains("VARIA…"),
            "{title}: a cut title\n{s}"
        );
        // Every tab keeps its number key; the current one its whole title.
        let tabs = s.lines().nth(1).unwrap_or_default();
        for key in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"] {
            assert!(
                tabs.contains(&format!("{key} ")) || tabs.contains(&format!("{key}│")),
                "{title}: {tabs}"
            );
        }
        let whole = [
            "Endpoints",
            "Variants",
            "Models",
            "Latency",
            "Invoke",
            "Tools",
            "Activity",
        ][i];
        assert!(tabs.contains(&format!("{} {whole}", i + 1)), "{title}: {tabs}");
    }
    // The panes after them: 8, 9, 0 and the one without a number key.
    let later: [(&[&str], &str, &str); 4] = [
        (&["8"], "Question", "8 Agent"),
        (&["9"], " Logs", "9 Logs"),
        (&["0"], " Timeline", "0 Timeline"),
        (&[":", "scaling", "Enter"], " Scaling", "Scaling"),
    ];
    for (keys, title, tab) in later {
        t.keys(keys);
        let s = t.wait_for(title, Duration::from_secs(10), |s| {
            s.lines().skip(2).any(|l| l.contains(title))
        });
        let head = s.lines().next().unwrap_or_default();
        assert!(head.contains("refreshed") && head.contains(" ago"), "{title}: {head}");
        let tabs = s.lines().nth(1).unwrap_or_default();
        assert!(tabs.contains(tab), "{title}: the current tab is whole: {tabs}");
    }
    t.keys(&["q"]);
}

/// After a weight change on the demo, the Activity record scrolls to its `reason`.
#[test]
fn the_activity_record_scrolls_to_its_reason_in_tmux() {
    let t = Tmux::start_sized(
        "newcomer-activity",
        "demo --fast --no-traffic --backfill-hours 1 --update-secs 1",
        "",
        100,
        30,
    );
    t.wait_for("the fleet", Duration::from_secs(60), |s| {
        s.contains("mcp-intent-classifier-prod") && s.contains("InService")
    });
    t.keys(&[":", "reason INC-9 newcomer check", "Enter"]);
    t.open_variants("classifier", "mcp-intent-classifier-prod");
    t.keys(&["w"]);
    t.wait_for("the weight editor", Duration::from_secs(10), |s| {
        s.contains("weight/instances")
    });
    t.keys(&["1", "Down", "1", "Enter"]);
    t.wait_for("the confirm dialog", Duration::from_secs(10), |s| {
        s.contains("UpdateEndpointWeightsAndCapacities")
    });
    t.keys(&["y"]);
    t.keys(&["7"]);
    t.wait_for("the change in the log", Duration::from_secs(30), |s| {
        s.contains("weights.set")
    });
    t.keys(&["Enter"]);
    let top = t.wait_for("the record", Duration::from_secs(10), |s| s.contains("audit record"));
    assert!(!top.contains("newcomer check\""), "{top}");
    t.keys(&["End"]);
    let end = t.wait_for("the reason", Duration::from_secs(10), |s| {
        s.contains("\"reason\": \"INC-9 newcomer check\"")
    });
    assert!(!end.contains("more below"), "{end}");
    t.keys(&["Escape", "q"]);
}
