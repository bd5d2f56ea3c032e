//! Quitting while a plan runs: `q`, Ctrl-C and `:quit` ask first, hold or roll back offered.

use super::*;

#[test]
fn quitting_during_a_plan_asks_first() {
    let mut app = app_with_a_baking_plan();
    app.on_key(ctrl('c'));
    assert!(!app.quit, "the first Ctrl-C asks");
    assert_eq!(app.tab, Tab::Variants);
    assert_eq!(app.panes.variants.promo.esc_menu.as_deref(), Some(EP));
    press(&mut app, "h");
    assert!(app.take_jobs().iter().any(|(_, j)| matches!(
        j,
        Job::Guard(GuardJob::PromoteControl {
            control: Control::Hold,
            ..
        })
    )));
    // Asked again, then a second Ctrl-C quits.
    press(&mut app, "q");
    assert!(!app.quit);
    app.on_key(ctrl('c'));
    assert!(app.quit);
}

#[test]
fn the_quit_command_asks_too_during_a_plan() {
    let mut app = app_with_a_baking_plan();
    press(&mut app, ":quit");
    tap(&mut app, KeyCode::Enter);
    assert!(!app.quit, ":quit asks first, as q and Ctrl-C do");
    assert_eq!(app.panes.variants.promo.esc_menu.as_deref(), Some(EP));
    // The menu holds the keys; Ctrl-C again quits (the plan stays saved).
    app.on_key(ctrl('c'));
    assert!(app.quit);
}
