//! The Variants pane's drawing: theme roles, snapshots, small terminals, latency figures.

use super::*;

#[test]
fn baseline_and_canary_use_their_theme_roles() {
    let mut app = app();
    let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
    t.draw(|f| draw(f, &mut app)).unwrap();
    let buf = t.backend().buffer().clone();
    let theme = Theme::default_theme();
    let find = |text: &str| {
        for y in 0..buf.area.height {
            let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol().to_string()).collect();
            if let Some(pos) = line.find(text) {
                let x = line[..pos].chars().count() as u16;
                return buf[(x, y)].fg;
            }
        }
        panic!("{text} not on screen");
    };
    assert_eq!(find("CANARY"), theme.color(Role::Canary));
    assert_eq!(find("▓ Canary"), theme.color(Role::Canary));
    // The selected row is drawn in the selection style; move off the baseline to see its colour.
    tap(&mut app, KeyCode::Down);
    t.draw(|f| draw(f, &mut app)).unwrap();
    let buf = t.backend().buffer().clone();
    let line: String = (0..buf.area.width).map(|x| buf[(x, 6)].symbol().to_string()).collect();
    assert!(line.contains("BASELINE"), "{line}");
    let x = line[..line.find("BASELINE").unwrap()].chars().count() as u16;
    assert_eq!(buf[(x, 6)].fg, theme.color(Role::Baseline));
    assert_ne!(theme.color(Role::Baseline), theme.color(Role::Canary));
}

#[test]
fn snapshot_variants_pane() {
    let mut app = app();
    insta::assert_snapshot!("variants_pane", screen(&mut app));
}

#[test]
fn snapshot_weight_editor() {
    let mut app = app();
    press(&mut app, "w");
    tap(&mut app, KeyCode::Down);
    press(&mut app, "3");
    insta::assert_snapshot!("weight_editor", screen(&mut app));
}

#[test]
fn snapshot_weight_editor_percent_invalid() {
    let mut app = app();
    press(&mut app, "w%");
    press(&mut app, "50");
    insta::assert_snapshot!("weight_editor_percent_invalid", screen(&mut app));
}

#[test]
fn snapshot_confirm_dialog() {
    let mut app = app();
    press(&mut app, "wj");
    press(&mut app, "3");
    tap(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("confirm_dialog", screen(&mut app));
}

#[test]
fn small_terminals_and_empty_states_draw_without_panicking() {
    for (w, h) in [(20, 6), (40, 10), (80, 24), (200, 60)] {
        let mut app = app();
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| draw(f, &mut app)).unwrap();
        press(&mut app, "wj3");
        t.draw(|f| draw(f, &mut app)).unwrap();
        tap(&mut app, KeyCode::Enter);
        t.draw(|f| draw(f, &mut app)).unwrap();
    }
    let mut d = data();
    d.selected = None;
    assert!(screen(&mut app_with(d)).contains("no endpoint selected"));
    let mut d = data();
    d.loaded = false;
    d.inventory.clear();
    assert!(screen(&mut app_with(d)).contains("loading endpoints"));
    let mut d = data();
    d.fleet_metrics = None;
    let s = screen(&mut app_with(d));
    assert!(s.contains("no invocations in the metrics window yet"), "{s}");
    assert!(s.contains("no metrics for this variant yet"), "{s}");
}

#[test]
fn latency_figures_name_their_complete_period_and_its_sample_count() {
    let mut d = data();
    if let Some(m) = d.fleet_metrics.as_mut() {
        m.variants[0].summary.latest_period_start = Some(1_700_000_820.0);
        m.variants[0].summary.latest_samples = Some(11.0);
    }
    let mut app = app_with(d);
    let text = screen(&mut app);
    assert!(text.contains("latest period 22:27 (11 samples)"), "{text}");
}
