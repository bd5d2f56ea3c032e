//! The weight editor: typing, nudging, checks, refusals, and the update followed to InService.

use super::*;

#[test]
fn typing_weights_reviews_then_applies_exactly_that() {
    let mut app = app();
    press(&mut app, "w");
    assert_eq!(weights(&app), ["9", "1"]);
    // The first digit replaces the focused value; later ones append.
    press(&mut app, "50");
    tap(&mut app, KeyCode::Down);
    press(&mut app, "50");
    assert_eq!(weights(&app), ["50", "50"]);
    assert!(editor(&app).problems().is_empty());
    assert_eq!(editor(&app).after_shares(), [0.5, 0.5]);
    tap(&mut app, KeyCode::Enter);
    let (plan, lines) = confirm_plan(&app);
    assert_eq!(plan.endpoint, EP);
    assert_eq!(plan.changes.len(), 2);
    assert_eq!(
        (plan.changes[0].weight, plan.changes[1].weight),
        (Some(50.0), Some(50.0))
    );
    assert_eq!(plan.changes[0].instances, None);
    assert_eq!((plan.before[0].share, plan.after[0].share), (0.9, 0.5));
    assert!(lines.iter().any(|l| l == "UpdateEndpointWeightsAndCapacities"));
    assert!(
        lines
            .iter()
            .any(|l| l == "    - VariantName: Stable, DesiredWeight: 50")
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "    - VariantName: Canary, DesiredWeight: 50")
    );
    // Nothing is sent before the confirmation.
    assert!(
        app.take_jobs()
            .iter()
            .all(|(_, j)| !matches!(j, Job::Guard(GuardJob::ApplyWeights { .. })))
    );
    press(&mut app, "y");
    assert!(app.overlay.is_none());
    let jobs = app.take_jobs();
    assert!(
        jobs.iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::ApplyWeights { plan: p, .. }) if *p == plan)),
        "{jobs:?}"
    );
}

#[test]
fn backspace_edits_and_only_changed_variants_are_sent() {
    let mut app = app();
    tap(&mut app, KeyCode::Down);
    press(&mut app, "w");
    assert_eq!(editor(&app).cursor, 1, "the editor opens on the pane's variant");
    tap(&mut app, KeyCode::Backspace);
    assert_eq!(weights(&app)[1], "");
    assert!(editor(&app).problems().iter().any(|p| p == "Canary: enter a weight"));
    press(&mut app, "3");
    tap(&mut app, KeyCode::Enter);
    let (plan, lines) = confirm_plan(&app);
    assert_eq!(plan.changes.len(), 1, "Stable keeps its weight and is not sent");
    assert_eq!(
        (plan.changes[0].variant.as_str(), plan.changes[0].weight),
        ("Canary", Some(3.0))
    );
    assert_eq!(plan.after[0].share, 0.75);
    assert!(!lines.iter().any(|l| l.contains("VariantName: Stable")));
}

#[test]
fn nudging_moves_by_one_and_by_five_points_in_percent_mode() {
    let mut app = app();
    press(&mut app, "w");
    tap(&mut app, KeyCode::Down);
    press(&mut app, "++++");
    assert_eq!(weights(&app), ["9", "5"]);
    press(&mut app, "-");
    assert_eq!(weights(&app), ["9", "4"]);
    // Percent mode shows the split as percentages adding up to 100.
    press(&mut app, "%");
    assert!(editor(&app).percent);
    assert_eq!(weights(&app), ["69.23", "30.77"]);
    press(&mut app, "%");
    assert_eq!(weights(&app), ["9", "4"], "unedited percentages give the weights back");
    tap(&mut app, KeyCode::Up);
    press(&mut app, "0+");
    press(&mut app, "%");
    assert_eq!(weights(&app), ["20", "80"]);
    // A nudge moves five points from the counterpart, so the total stays 100.
    tap(&mut app, KeyCode::Down);
    press(&mut app, "+");
    assert_eq!(weights(&app), ["15", "85"]);
    press(&mut app, "++++");
    assert_eq!(weights(&app), ["0", "100"], "never below 0 nor above 100");
    press(&mut app, "---");
    assert_eq!(weights(&app), ["15", "85"]);
    tap(&mut app, KeyCode::Enter);
    let (plan, lines) = confirm_plan(&app);
    assert_eq!(
        plan.changes.iter().map(|c| c.weight).collect::<Vec<_>>(),
        [Some(15.0), Some(85.0)],
        "percentages are sent as weights, for every variant"
    );
    assert_eq!(plan.after[1].share, 0.85);
    assert!(lines.iter().any(|l| l.contains("percentages are sent as weights")));
}

#[test]
fn percentages_must_add_up_to_100() {
    let mut app = app();
    press(&mut app, "w%");
    assert_eq!(weights(&app), ["90", "10"]);
    press(&mut app, "50");
    let problems = editor(&app).problems();
    assert_eq!(problems, ["percentages add up to 60, not 100"]);
    tap(&mut app, KeyCode::Enter);
    assert!(app.panes.variants.editor.is_some(), "Enter is blocked");
    assert_eq!(
        editor(&app).message.as_deref(),
        Some("percentages add up to 60, not 100")
    );
    tap(&mut app, KeyCode::Down);
    press(&mut app, "50");
    assert!(editor(&app).problems().is_empty());
    press(&mut app, "%");
    assert_eq!(weights(&app), ["50", "50"], "edited percentages become the weights");
}

#[test]
fn invalid_input_is_shown_inline_and_blocks_enter() {
    let cases: &[(&str, &str)] = &[
        // Nudging below zero: negative.
        ("j--", "Canary: weight must be ≥ 0 (got -1)"),
        // Two dots: not a number.
        ("1..5", "Stable: weight `1..5` is not a number"),
        // Every weight zero.
        ("0j0", "all weights are 0: at least one variant must keep traffic"),
        // A percentage over 100.
        ("%120", "Stable: 120% is more than 100%"),
    ];
    for (keys, problem) in cases {
        let mut app = app();
        press(&mut app, "w");
        press(&mut app, keys);
        assert!(
            editor(&app).problems().iter().any(|p| p == problem),
            "{keys}: {:?}",
            editor(&app).problems()
        );
        tap(&mut app, KeyCode::Enter);
        assert!(app.panes.variants.editor.is_some(), "{keys}: Enter must be blocked");
        assert!(screen(&mut app).contains(problem), "{keys}: the problem is shown");
        assert!(editor(&app).keys().iter().any(|k| k.key == "Enter" && k.disabled));
        assert!(
            app.take_jobs()
                .iter()
                .all(|(_, j)| !matches!(j, Job::Guard(GuardJob::ApplyWeights { .. })))
        );
    }
    // An unchanged split has nothing to send.
    let mut app = app();
    press(&mut app, "w");
    tap(&mut app, KeyCode::Enter);
    assert!(editor(&app).message.as_deref().unwrap().starts_with("nothing changes"));
}

#[test]
fn tab_edits_instance_counts() {
    let mut app = app();
    press(&mut app, "w");
    tap(&mut app, KeyCode::Tab);
    assert_eq!(editor(&app).field, Field::Instances);
    press(&mut app, "+");
    assert_eq!(editor(&app).rows[0].instances, "3");
    press(&mut app, ".");
    assert_eq!(editor(&app).rows[0].instances, "3", "counts are whole numbers");
    tap(&mut app, KeyCode::Enter);
    let (plan, lines) = confirm_plan(&app);
    assert_eq!(plan.changes.len(), 1);
    assert_eq!((plan.changes[0].weight, plan.changes[0].instances), (None, Some(3)));
    assert_eq!(plan.after[0].instances, 3);
    assert!(
        lines
            .iter()
            .any(|l| l == "    - VariantName: Stable, DesiredInstanceCount: 3")
    );
}

#[test]
fn esc_closes_the_editor_without_sending() {
    let mut app = app();
    press(&mut app, "w55");
    tap(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    assert!(app.take_jobs().is_empty());
    assert!(
        toasts(&app)
            .iter()
            .any(|t| t.1 == "weights of fraud-detector not changed")
    );
    // Esc in the confirm dialog does not send either.
    press(&mut app, "w5");
    tap(&mut app, KeyCode::Enter);
    assert!(matches!(app.overlay, Some(Overlay::Confirm(_))));
    tap(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    assert!(app.take_jobs().is_empty());
}

#[test]
fn read_only_refuses_the_editor_and_shows_the_key_disabled() {
    let mut d = data();
    d.read_only = true;
    let mut app = app_with(d);
    let w = app
        .panes
        .variants
        .keys(&app.data)
        .into_iter()
        .find(|k| k.key == "w")
        .unwrap();
    assert!(w.disabled);
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    assert!(
        toasts(&app)
            .iter()
            .any(|(l, t)| *l == Level::Warn && t.starts_with("read-only: changing weights is disabled")),
        "{:?}",
        toasts(&app)
    );
    assert!(
        !app.panes
            .variants
            .keys(&data())
            .into_iter()
            .find(|k| k.key == "w")
            .unwrap()
            .disabled
    );
}

#[test]
fn an_endpoint_not_in_service_refuses_the_editor_with_the_reason() {
    let mut d = data();
    std::sync::Arc::make_mut(&mut d.inventory[0]).status = "Updating".into();
    let mut app = app_with(d);
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    assert!(
        toasts(&app)
            .iter()
            .any(|(_, t)| t == "fraud-detector is Updating; weights can change only when it is InService"),
        "{:?}",
        toasts(&app)
    );
    assert!(
        app.panes
            .variants
            .keys(&app.data)
            .iter()
            .any(|k| k.key == "w" && k.disabled)
    );
    // And nothing selected.
    let mut d = data();
    d.selected = None;
    let mut app = app_with(d);
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    assert!(toasts(&app).iter().any(|(_, t)| t.starts_with("no endpoint selected")));
}

#[test]
fn the_update_is_followed_to_in_service() {
    let mut app = app();
    press(&mut app, "wj5");
    tap(&mut app, KeyCode::Enter);
    press(&mut app, "y");
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::ApplyWeights { .. })))
    );
    let mut updating = endpoint();
    updating.status = "Updating".into();
    updating.variants[1].desired_weight = 5.0;
    updating.variants[1].statuses = vec!["Updating".into()];
    app.on_event(AppEvent::WeightsProgress(updating.clone()));
    let s = screen(&mut app);
    assert!(s.contains("● sent ── ● Updating ── ○ InService"), "{s}");
    assert!(s.contains("1/2 variants at their desired weight and count"), "{s}");
    assert!(s.contains("Canary weight 1 → 5 …"), "{s}");
    insta::assert_snapshot!("updating", s);
    // A second editor is refused while the change is followed.
    press(&mut app, "w");
    assert!(app.overlay.is_none());
    let mut done = endpoint();
    done.variants[0].traffic_share = 9.0 / 14.0;
    done.variants[1].current_weight = 5.0;
    done.variants[1].desired_weight = 5.0;
    done.variants[1].traffic_share = 5.0 / 14.0;
    app.on_event(AppEvent::WeightsProgress(done.clone()));
    assert!(screen(&mut app).contains("2/2 variants at their desired weight and count"));
    app.on_event(AppEvent::WeightsDone {
        endpoint: EP.into(),
        result: Ok(done),
    });
    assert!(app.data.weights_progress.is_none());
    let s = screen(&mut app);
    assert!(!s.contains("● sent"), "the update section goes once settled");
    assert!(s.contains("35.7%"), "{s}");
}

#[test]
fn refusals_from_aws_are_error_toasts() {
    let mut app = app();
    app.on_event(AppEvent::WeightsDone {
        endpoint: EP.into(),
        result: Err(sagedeck::aws::AwsError::Validation(
            "DesiredWeight of variant \"Canary\" must be a number >= 0 (got -1).".into(),
        )),
    });
    assert!(
        toasts(&app)
            .iter()
            .any(|(l, t)| *l == Level::Error && t.contains("must be a number >= 0")),
        "{:?}",
        toasts(&app)
    );
}
