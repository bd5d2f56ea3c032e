//! The console's plan respects the advisory lock of the team's audit trail, as `promote` does:
//! before a plan's confirmation opens, the trail (the sandbox's CloudWatch Logs, over the wire)
//! is read in the background for a plan announced on the endpoint. Bob's live plan makes the
//! confirmation say so, with not starting as the default and `F` starting anyway (the override
//! in the audited reason); a plan that stopped beating is shown as such and does not block.

use std::time::Duration;

use crossterm::event::KeyCode;
use sagedeck::sandbox::world::teammate::trail::AUDIT_GROUP;
use sagedeck::sandbox::world::teammate::{TEAMMATE_ENDPOINT as EP, take_turn};
use sagedeck::tui::app::App;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::widgets::Overlay;
use sagedeck::tui::widgets::confirm::Confirm;
use sagedeck::tui::worker::{GuardOptions, JobLimits, Jobs, spawn_guarded};

use crate::common::tui::{loaded_app, press, pump_until, render, tap};
use crate::common::{demo_config, fleet, poll_until, sandbox_with};

type Events = tokio::sync::mpsc::UnboundedReceiver<sagedeck::tui::event::AppEvent>;

/// A console on the demo fleet whose guard writes `dir`'s audit file and reads the team's trail,
/// on the Variants pane of bob's endpoint.
async fn console(sb: &sagedeck::sandbox::SandboxHandle, dir: &std::path::Path) -> (App, Jobs, Events) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let guard = GuardOptions {
        audit_path: Some(dir.join("audit.jsonl")),
        plan_dir: Some(dir.join("plans")),
        audit_log_group: Some(AUDIT_GROUP.into()),
        ..GuardOptions::default()
    };
    let jobs = spawn_guarded(
        Default::default(),
        Some(fleet(sb).await),
        JobLimits::default(),
        tx,
        None,
        guard,
    );
    let mut app = loaded_app(&jobs, &mut rx).await;
    app.data.team_trail = Some(AUDIT_GROUP.into());
    app.data.selected = Some(EP.into());
    app.switch(Tab::Variants);
    let described = |a: &App| a.data.selected_endpoint().is_some_and(|e| e.variants.len() == 2);
    pump_until(
        &mut app,
        &jobs,
        &mut rx,
        ("bob's endpoint described", Duration::from_secs(30)),
        described,
        |_| {},
    )
    .await;
    (app, jobs, rx)
}

/// Opens the plan editor, submits its defaults and waits for the confirmation (the trail read
/// in the background meanwhile).
async fn confirmation(app: &mut App, jobs: &Jobs, rx: &mut Events) -> Confirm {
    press(app, "P");
    assert!(app.panes.variants.promo.editor.is_some(), "{}", render(app, 140, 40));
    tap(app, KeyCode::Enter);
    let open = |a: &App| matches!(a.overlay, Some(Overlay::Confirm(_)));
    pump_until(
        app,
        jobs,
        rx,
        ("the plan's confirmation", Duration::from_secs(30)),
        open,
        |_| {},
    )
    .await;
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        unreachable!()
    };
    c.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_plan_by_bob_makes_the_confirmation_default_to_not_starting() {
    let sb = sandbox_with(demo_config()).await;
    // Bob's plan, announced in the team's trail: started, at step 2 of 3.
    for turn in [4, 5] {
        take_turn(&sb.sandbox, turn, Duration::from_secs(60));
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut app, jobs, mut rx) = console(&sb, dir.path()).await;

    let c = confirmation(&mut app, &jobs, &mut rx).await;
    assert_eq!(c.title, format!("Another plan runs on {EP}: start a second one?"));
    assert!(
        c.lines[0].starts_with("a plan by bob on bobs-laptop is at step 2/3, baking (last heard")
            && c.lines[0].ends_with("— the lock is advisory."),
        "{:?}",
        c.lines
    );
    assert!(c.jobs.is_empty() && c.force.len() == 1, "only F starts it");
    // Wide enough that the first line never wraps: "last heard 9s" and "last heard 12s" (a slow
    // machine) then draw the same dialog once the age is blanked out.
    let screen = render(&mut app, 180, 40);
    for needle in ["a plan by bob on bobs-laptop", " F ", "start anyway", "do not start"] {
        assert!(screen.contains(needle), "{needle}:\n{screen}");
    }
    insta::assert_snapshot!(
        "plan_lock_confirmation",
        dialog(&screen).replace(&heard(&screen), "last heard Ns ago")
    );

    // The default: Enter does not start it.
    tap(&mut app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    assert!(app.take_jobs().is_empty(), "nothing started");

    // F starts it anyway: the plan announces itself in the team's trail (as every change, it
    // is audited there), the override in its reason.
    let c = confirmation(&mut app, &jobs, &mut rx).await;
    assert_eq!(c.force.len(), 1);
    press(&mut app, "F");
    crate::common::tui::submit_all(&jobs, &mut app);
    let f = fleet(&sb).await;
    let ours = poll_until("the forced plan's announcement", Duration::from_secs(30), || async {
        let trail = f.read_team_trail(AUDIT_GROUP, 0.0, 5).await.ok()?;
        (trail.into_iter()).find(|t| t.record.action == "promote.plan" && !t.stream.starts_with("bob@"))
    })
    .await;
    let reason = ours.record.reason.unwrap_or_default();
    assert!(
        reason.starts_with("started over a plan by bob on bobs-laptop is at step 2/3, baking")
            && reason.ends_with("(the lock is advisory)"),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_that_stopped_beating_is_shown_as_likely_dead_and_does_not_block() {
    let sb = sandbox_with(demo_config()).await;
    // Bob's plan said it would beat every 10 ms and then fell silent.
    take_turn(&sb.sandbox, 4, Duration::from_millis(10));
    let f = fleet(&sb).await;
    poll_until("bob's plan to go stale", Duration::from_secs(10), || async {
        let a = f
            .announced_plan(AUDIT_GROUP, EP, sagedeck::sandbox::now_epoch())
            .await
            .ok()??;
        (!a.blocks()).then_some(())
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let (mut app, jobs, mut rx) = console(&sb, dir.path()).await;

    let c = confirmation(&mut app, &jobs, &mut rx).await;
    assert_eq!(c.title, format!("Promote Canary on {EP}?"));
    assert!(
        c.lines[0].starts_with("a plan by bob on bobs-laptop last heard")
            && c.lines[0].contains("likely dead")
            && c.lines[0].ends_with("it does not block (the lock holds only while a plan beats)."),
        "{:?}",
        c.lines
    );
    assert!(c.force.is_empty() && c.jobs.len() == 1, "y starts it as usual");
}

/// The `last heard …` of the screen (it changes with the run).
fn heard(screen: &str) -> String {
    let at = screen.find("last heard ").expect("last heard");
    let end = at + screen[at..].find(" ago").expect("ago") + 4;
    screen[at..end].to_string()
}

/// The dialog of the screen (its columns, from its title to its bottom border).
fn dialog(screen: &str) -> String {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = (lines.iter())
        .position(|l| String::from_iter(l).contains("Another plan runs on"))
        .expect("title");
    let corner = |c: &char| "┌╭╔┏".contains(*c);
    let left = lines[top].iter().position(corner).expect("top left corner");
    let right = lines[top]
        .iter()
        .rposition(|c| "┐╮╗┓".contains(*c))
        .expect("top right corner");
    let bottom = (top + 1..lines.len())
        .find(|&i| lines[i].get(left).is_some_and(|c| "└╰╚┗".contains(*c)))
        .expect("bottom border");
    (lines[top..=bottom].iter())
        .map(|l| String::from_iter(&l[left..=right]))
        .collect::<Vec<_>>()
        .join("\n")
}
