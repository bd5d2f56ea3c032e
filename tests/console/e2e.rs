//! End to end: the real binary in a pseudo-terminal (tmux) on the embedded sandbox. Tabs switch,
//! the fleet appears, a weight change goes through and shows InService, a prewarm completes, and
//! quitting restores the terminal.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::tmux::Tmux;

#[test]
fn console_on_the_sandbox_end_to_end() {
    let t = Tmux::start("demo --fast --no-traffic --backfill-hours 1 --update-secs 1");
    t.wait_for("the fleet", Duration::from_secs(60), |s| {
        s.contains("mcp-intent-classifier-prod") && s.contains("InService")
    });
    assert_eq!(
        t.display("#{alternate_on}"),
        "1",
        "the console runs on the alternate screen"
    );

    // Tabs switch.
    t.keys(&["4"]);
    t.wait_for("the Latency tab", Duration::from_secs(10), |s| s.contains("Latency"));
    t.keys(&["1"]);

    // Select the classifier and open its variants.
    t.open_variants("classifier", "mcp-intent-classifier-prod");

    // Weight change: Stable 1, Canary 1, confirm, follow to InService.
    weight_change(&t);

    // Prewarm one MME model.
    prewarm(&t);

    // Quit restores the terminal.
    t.keys(&["q"]);
    let start = Instant::now();
    while t.display("#{pane_dead}") != "1" {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the console did not exit; screen:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The exit status, from whichever reports it first: the shell's echo, tmux's "Pane is dead
    // (status N" line, or its pane_dead_status (set a moment after the pane dies).
    let start = Instant::now();
    let status = loop {
        let screen = t.screen();
        let from_screen = ["sagedeck-exit:", "Pane is dead (status "].iter().find_map(|marker| {
            let rest = &screen[screen.find(marker)? + marker.len()..];
            Some(rest.chars().take_while(|c| c.is_ascii_digit()).collect::<String>())
        });
        if let Some(s) = from_screen.filter(|s| !s.is_empty()) {
            break s;
        }
        let s = t.display("#{pane_dead_status}");
        if !s.is_empty() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "no exit status; screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status, "0", "the console exited with status {status}");
    assert_eq!(t.display("#{alternate_on}"), "0", "the alternate screen was left");
    let after = t.screen();
    assert!(
        !after.contains("Endpoints │"),
        "no UI left on the normal screen:\n{after}"
    );
}

/// Stable 1, Canary 1 in the weight editor; the confirm dialog states the call; `y` applies; the
/// endpoint is followed to InService with the new 50/50 split.
fn weight_change(t: &Tmux) {
    t.keys(&["w"]);
    t.wait_for("the weight editor", Duration::from_secs(10), |s| {
        s.contains("Tab") && s.contains("weight/instances")
    });
    t.keys(&["1", "Down", "1", "Enter"]);
    t.wait_for("the confirm dialog", Duration::from_secs(10), |s| {
        s.contains("UpdateEndpointWeightsAndCapacities")
    });
    t.keys(&["y"]);
    t.wait_for("the update to be followed", Duration::from_secs(30), |s| {
        s.contains("Updating")
    });
    t.wait_for("InService with 50/50", Duration::from_secs(60), |s| {
        s.contains("InService with the new weights") || (s.contains("50.0%") && !s.contains("Updating"))
    });
}

/// On the multi-model endpoint, the Models tab lists the catalog; `p` prewarms the selected model
/// and its result appears.
fn prewarm(t: &Tmux) {
    t.keys(&["1", "Escape", "/", "multi-model", "Enter"]);
    t.wait_for("the MME in the list", Duration::from_secs(10), |s| {
        s.contains("mcp-multi-model-endpoint")
    });
    t.keys(&["Enter", "3"]);
    t.wait_for("the catalog", Duration::from_secs(30), |s| {
        s.contains(" models") && !s.contains("listing…")
    });
    t.keys(&["p"]);
    t.wait_for("the prewarm result", Duration::from_secs(60), |s| {
        s.contains("prewarmed 1 model of")
    });
}

/// A signal ends the console with 128 + its number, and the terminal is as it was: cooked mode
/// (`stty -a` shows icanon, echo, isig, opost), the main screen. The shell writes the exit status
/// and the modes to files once the console is gone.
#[test]
fn signals_restore_the_terminal_and_exit_128_plus_n() {
    for (name, number) in [("INT", 2), ("HUP", 1), ("TERM", 15)] {
        let out = tempfile::tempdir().unwrap();
        let (status, modes) = (out.path().join("status"), out.path().join("modes"));
        let then = format!(
            "stty -a > {}; echo $? > {}.done; sleep 60",
            modes.display(),
            status.display()
        );
        let t = Tmux::start_then(
            &format!("sig{number}"),
            "demo --fast --no-traffic --backfill-hours 1",
            &then,
        );
        t.wait_for("the fleet", Duration::from_secs(60), |s| {
            s.contains("mcp-intent-classifier-prod")
        });
        let ok = Command::new("kill")
            .args([&format!("-{name}"), &t.console_pid()])
            .status()
            .unwrap();
        assert!(ok.success());
        let done = status.with_extension("done");
        let start = Instant::now();
        while !done.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "SIG{name}: the shell did not go on:\n{}",
                t.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let screen = t.screen();
        assert!(
            screen.contains(&format!("sagedeck-exit:{}", 128 + number)),
            "SIG{name}:\n{screen}"
        );
        let modes = std::fs::read_to_string(&modes).unwrap().replace('\n', " ");
        for mode in ["icanon", "echo", "isig", "opost"] {
            assert!(
                modes.contains(&format!(" {mode} ")),
                "SIG{name}: {mode} not restored: {modes}"
            );
        }
        assert_eq!(
            t.display("#{alternate_on}"),
            "0",
            "SIG{name}: the alternate screen was left"
        );
    }
}
