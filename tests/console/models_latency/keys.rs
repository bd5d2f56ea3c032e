//! The Models pane's keys: filter, marks, prewarm of the marked, the selected or every shown
//! model, and the read-only refusal.

use super::*;

#[test]
fn filter_matches_and_inverts() {
    let mut app = models_app(60);
    keys(&mut app, "/acme\n");
    let shown = app.panes.models.shown(&app.data);
    assert_eq!(shown.len(), 10);
    assert!(shown.iter().all(|m| m.contains("acme")));
    keys(&mut app, "/!acme|globex\n");
    let shown = app.panes.models.shown(&app.data);
    assert_eq!(shown.len(), 40);
    assert!(shown.iter().all(|m| !m.contains("acme") && !m.contains("globex")));
    keys(&mut app, "\x1b");
    assert_eq!(app.panes.models.shown(&app.data).len(), 60, "Esc clears the filter");
}

#[test]
fn space_marks_and_p_prewarms_the_marked_in_catalog_order() {
    let mut app = models_app(40);
    keys(&mut app, "↓ ↑↑ ");
    assert_eq!(app.panes.models.marked.len(), 2, "{:?}", app.panes.models.marked);
    keys(&mut app, "p");
    assert_eq!(
        prewarm_jobs(&mut app),
        vec![(MME.to_string(), vec![key_of(0), key_of(1)])]
    );
    assert!(app.panes.models.marked.is_empty());
    let run = app.panes.models.run.as_ref().unwrap();
    assert_eq!((run.total(), run.done()), (2, 0));
    // A second prewarm waits for the first.
    keys(&mut app, "p");
    assert!(prewarm_jobs(&mut app).is_empty());
    assert!(toasts(&app).iter().any(|t| t.contains("is running")));
}

#[test]
fn p_without_marks_prewarms_the_selected_model_and_a_marks_every_shown() {
    let mut app = models_app(40);
    keys(&mut app, "Gp");
    assert_eq!(prewarm_jobs(&mut app)[0].1, vec![key_of(39)]);
    let mut app = models_app(40);
    keys(&mut app, "/hooli\na");
    assert_eq!(app.panes.models.marked.len(), 6);
    keys(&mut app, "a");
    assert!(app.panes.models.marked.is_empty());
}

#[test]
fn read_only_refuses_prewarming_and_disables_the_keys() {
    let mut app = models_app(40);
    app.data.read_only = true;
    keys(&mut app, " pP");
    assert!(prewarm_jobs(&mut app).is_empty());
    assert!(app.overlay.is_none());
    let refusals = toasts(&app);
    let refused = refusals.iter().filter(|t| t.starts_with("read-only: prewarming"));
    assert_eq!(
        refused.count(),
        1,
        "the second refusal replaces the first: {refusals:?}"
    );
    let logged = app
        .toasts
        .log
        .iter()
        .filter(|t| t.text.starts_with("read-only: prewarming"));
    assert_eq!(logged.count(), 2, "both are in the log");
    let hints = app.hints();
    for k in ["p", "P"] {
        let disabled = hints.iter().any(|h| h.key == k && h.disabled);
        assert!(disabled, "{k} not disabled: {hints:?}");
    }
}

#[test]
fn shift_p_asks_to_confirm_every_model_shown() {
    let mut app = models_app(40);
    keys(&mut app, "P");
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation: {:?}", app.overlay)
    };
    assert!(c.title.contains("40 models"), "{}", c.title);
    assert!(
        matches!(&c.jobs[..], [Job::Guard(GuardJob::Prewarm { endpoint, models, .. })] if endpoint == MME && models.len() == 40)
    );
    assert!(prewarm_jobs(&mut app).is_empty(), "nothing is sent before the answer");
    keys(&mut app, "y");
    assert_eq!(prewarm_jobs(&mut app)[0].1.len(), 40);
    // The events of the confirmed prewarm follow the 40 models.
    event(&mut app, PrewarmEvent::Started { model: key_of(0) });
    assert_eq!(app.panes.models.run.as_ref().unwrap().total(), 40);
    // With a filter, "all" is every model matching it.
    let mut app = models_app(40);
    keys(&mut app, "/stark\nP");
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation")
    };
    assert!(matches!(&c.jobs[..], [Job::Guard(GuardJob::Prewarm { models, .. })] if models.len() == 6));
}
