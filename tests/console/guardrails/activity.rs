//! The Activity tab: the audit log newest first, `/` filter, Enter shows the record.

use super::*;
use sagedeck::aws::change::audit::{AuditPhase, AuditRecord};
use sagedeck::tui::event::GuardJob;

fn record(id: &str, phase: AuditPhase, epoch: f64, action: &str, result: Option<&str>) -> AuditRecord {
    AuditRecord {
        time: format!("2026-12-03T07:{:02}:00Z", (epoch as u64 / 60) % 60),
        epoch,
        id: id.into(),
        phase,
        principal: Some("arn:aws:iam::123456789012:user/oncall".into()),
        profile: "prod".into(),
        region: "us-east-1".into(),
        endpoint_url: None,
        action: action.into(),
        target: EP.into(),
        before: if action == "prewarm" {
            serde_json::Value::Null
        } else {
            serde_json::json!({"variants": [{"variant": "Stable", "current_weight": 9.0}, {"variant": "Canary", "current_weight": 1.0}]})
        },
        after: if action == "prewarm" {
            serde_json::json!({"models": ["a.tar.gz", "b.tar.gz"]})
        } else {
            serde_json::json!({"variants": [{"variant": "Stable", "weight": 5.0}, {"variant": "Canary", "weight": 5.0}]})
        },
        result: result.map(str::to_string),
        request_id: None,
        reason: Some("INC-7".into()),
    }
}

fn log() -> Vec<AuditRecord> {
    vec![
        record("a", AuditPhase::Intent, 60.0, "weights.set", None),
        record("a", AuditPhase::Result, 120.0, "weights.set", Some("ok")),
        record(
            "refused-1",
            AuditPhase::Result,
            180.0,
            "weights.set",
            Some("refused: fraud-detector changed since it was read (Canary current_weight 1 → 3)"),
        ),
        record("b", AuditPhase::Intent, 240.0, "prewarm", None),
        record("b", AuditPhase::Result, 300.0, "prewarm", Some("ok")),
        record("c", AuditPhase::Intent, 360.0, "promote.step", None),
    ]
}

#[test]
fn the_activity_tab_lists_newest_first_filters_and_shows_the_record() {
    let mut app = app();
    press(&mut app, "7");
    assert_eq!(app.tab, Tab::Activity);
    assert!(
        app.take_jobs()
            .iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::Activity))),
        "shown: the log is read"
    );
    app.on_event(AppEvent::Activity(Ok(log())));
    let rows: Vec<(String, String)> = app
        .panes
        .activity
        .visible()
        .iter()
        .map(|r| (r.cells[2].clone(), r.cells[5].clone()))
        .collect();
    assert_eq!(rows.len(), 4, "intents with a result fold into it: {rows:?}");
    assert_eq!(rows[0], ("promote.step".into(), "no result (interrupted?)".into()));
    assert_eq!(rows[1], ("prewarm".into(), "ok".into()));
    assert_eq!(
        app.panes.activity.visible()[3].cells[4],
        "Stable=9 Canary=1 → Stable=5 Canary=5"
    );
    snapshot("guard_activity", screen(&mut app));

    press(&mut app, "/prewarm");
    assert_eq!(app.panes.activity.visible().len(), 1);
    press(&mut app, "q");
    assert!(!app.quit, "q typed into the filter does not quit");
    assert_eq!(app.panes.activity.visible().len(), 0);
    tap(&mut app, KeyCode::Backspace);
    tap(&mut app, KeyCode::Enter);
    assert!(!app.panes.activity.filtering);
    tap(&mut app, KeyCode::Enter);
    let detail = app
        .panes
        .activity
        .detail
        .clone()
        .expect("Enter shows the record")
        .text();
    assert!(
        detail.contains("\"action\": \"prewarm\"") && detail.contains("a.tar.gz"),
        "{detail}"
    );
    tap(&mut app, KeyCode::Esc);
    assert!(app.panes.activity.detail.is_none());
    tap(&mut app, KeyCode::Esc);
    assert!(app.panes.activity.filter.is_empty(), "Esc clears the filter");
    press(&mut app, "/!weights");
    assert_eq!(app.panes.activity.visible().len(), 2, "! inverts");

    // `:activity` opens it too.
    app.tab = Tab::Endpoints;
    press(&mut app, ":activity");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(app.tab, Tab::Activity);
}
