//! The console at 10,000 endpoints (a hand-made inventory): `:goto` completes among every name and
//! selects one behind a filter; sorting and filtering keep every row in order; the fleet
//! metrics read the selected endpoint and the visible rows first, then slices of the rest within
//! the calls-per-minute budget, and keep series only for the rows in focus; the header says when
//! throttling slowed the refresh. Timings are measured in `benches/`, not here.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use sagedeck::aws::endpoints::inventory::Inventory;
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{AppEvent, FleetJob, Job};
use sagedeck::tui::theme::Theme;

use crate::common::builders::{endpoint, variant};
use crate::common::tui::{self, press, render};

fn fleet(n: usize) -> App {
    let data = Data {
        context: tui::context(),
        refresh_interval: Duration::from_secs(10),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    let endpoints = (0..n)
        .map(|i| {
            endpoint(&format!("fleet-ep-{i:05}"))
                .modified(1_790_000_000.0 + i as f64)
                .variants([variant("AllTraffic")])
                .build()
        })
        .map(std::sync::Arc::new)
        .collect();
    app.on_event(AppEvent::Inventory(Ok(Inventory {
        endpoints,
        ..Default::default()
    })));
    app.data.last_ok = None;
    app.toasts = Default::default();
    app.take_jobs();
    app
}

fn tap(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

#[test]
fn goto_completes_among_ten_thousand_names_and_selects_one_behind_a_filter() {
    let mut app = fleet(10_000);
    let _ = render(&mut app, 120, 30);
    press(&mut app, "/");
    press(&mut app, "fleet-ep-000");
    tap(&mut app, KeyCode::Enter);
    press(&mut app, ":goto fleet-ep-0999");
    tap(&mut app, KeyCode::Tab);
    assert_eq!(app.command_line.input, "goto fleet-ep-0999");
    assert_eq!(
        app.command_line.candidates.len(),
        10,
        "{:?}",
        app.command_line.candidates
    );
    insta::assert_snapshot!("goto_completion", render(&mut app, 120, 8));
    press(&mut app, "7");
    tap(&mut app, KeyCode::Tab);
    assert_eq!(app.command_line.input, "goto fleet-ep-09997");
    tap(&mut app, KeyCode::Enter);
    assert_eq!(app.data.selected.as_deref(), Some("fleet-ep-09997"));
    assert!(app.panes.endpoints.filter.is_empty(), "the filter hid it: cleared");
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("fleet-ep-09997"), "{screen}");
}

#[test]
fn sorting_and_filtering_ten_thousand_rows_keep_every_row_in_order() {
    let mut app = fleet(10_000);
    let names = |app: &App| -> Vec<String> {
        let view = &app.panes.endpoints.view;
        view.iter().map(|i| app.data.inventory[*i].name.clone()).collect()
    };
    press(&mut app, "n");
    let sorted = names(&app);
    assert_eq!(sorted.len(), 10_000);
    assert!(sorted.windows(2).all(|w| w[0] < w[1]));
    press(&mut app, "m");
    let newest = names(&app);
    assert_eq!(newest.first().map(String::as_str), Some("fleet-ep-09999"));
    press(&mut app, "/");
    press(&mut app, "ep-0004");
    assert_eq!(names(&app).len(), 10, "fleet-ep-00040 to -00049");
}

#[test]
fn fleet_metrics_read_the_focus_first_then_slices_of_the_rest_within_the_budget() {
    let mut app = fleet(10_000);
    let _ = render(&mut app, 120, 30);
    app.data.selected = Some("fleet-ep-05000".into());
    app.intervals.metrics = Duration::from_secs(15);
    app.intervals.metrics_calls_per_minute = 40;
    let mut seen = std::collections::HashSet::new();
    let mut asked = 0;
    for round in 0..40 {
        app.request_metrics();
        let jobs = app.take_jobs();
        let Some(Job::Fleet(FleetJob::Metrics { endpoints, .. })) = jobs.into_iter().map(|(_, j)| j).next() else {
            panic!("no metrics job in round {round}");
        };
        assert_eq!(endpoints[0].name, "fleet-ep-05000", "the selected endpoint first");
        let queries: usize = endpoints.iter().map(|e| 9 * e.variants.len()).sum();
        assert!(
            queries <= 10 * 500,
            "10 calls of 500 queries a refresh (40 a minute): {queries}"
        );
        asked += endpoints.len();
        seen.extend(endpoints.into_iter().map(|e| e.name));
        if seen.len() == 10_000 {
            break;
        }
    }
    assert_eq!(seen.len(), 10_000, "the whole fleet is read at the slower cadence");
    assert!(
        asked < 13_000,
        "the rest is read once per cycle, the focus every time: {asked}"
    );
}

#[test]
fn snapshot_the_header_says_when_throttling_slowed_the_refresh() {
    let mut app = fleet(3);
    app.data.throttled_interval = Some(Duration::from_secs(40));
    insta::assert_snapshot!("throttled_header", render(&mut app, 120, 8));
}

/// A fleet metrics read of `names`: one variant each, with a series.
fn metrics_of(names: &[String]) -> sagedeck::aws::observe::metrics::MetricsSnapshot {
    use sagedeck::aws::observe::metrics::{MetricsSnapshot, Series, VariantMetrics, VariantSummary};
    let series = Series {
        timestamps: (0..15).map(|i| 1_790_000_000.0 + 60.0 * f64::from(i)).collect(),
        values: vec![1.0; 15],
    };
    MetricsSnapshot {
        start: 1_790_000_000.0,
        end: 1_790_000_900.0,
        period: 60,
        variants: names
            .iter()
            .map(|n| VariantMetrics {
                endpoint: n.clone(),
                variant: "AllTraffic".into(),
                multi_model: false,
                summary: VariantSummary {
                    model_latency_p99_ms: Some(40.0),
                    ..Default::default()
                },
                series: [("Invocations:Sum".to_string(), series.clone())].into(),
            })
            .collect(),
        components: vec![],
        queries: names.len(),
        calls: 1,
        warnings: vec![],
    }
}

#[test]
fn rounds_of_fleet_metrics_keep_series_for_the_focus_only_and_a_summary_per_listed_endpoint() {
    let mut app = fleet(2_000);
    let _ = render(&mut app, 120, 30);
    app.data.selected = Some("fleet-ep-01000".into());
    // Twenty rounds, each reading the focus and a slice of 500 others, round the fleet twice.
    for round in 0..20 {
        app.request_metrics();
        let mut focus = app.panes.endpoints.visible_names(&app.data);
        focus.push("fleet-ep-01000".into());
        let slice = (0..500).map(|i| format!("fleet-ep-{:05}", (round * 500 + i) % 2_000));
        let others: Vec<String> = slice.filter(|n| !focus.contains(n)).collect();
        let names: Vec<String> = focus.iter().cloned().chain(others).collect();
        app.take_jobs();
        app.on_event(AppEvent::Metrics {
            detail: false,
            result: Ok(metrics_of(&names)),
        });
        let kept = app.data.fleet_metrics.as_ref().map_or(0, |m| m.variants.len());
        assert!(
            kept <= focus.len(),
            "series only for the {} in focus: {kept}",
            focus.len()
        );
        assert!(
            app.data.fleet_summaries.len() <= 2_000,
            "{}",
            app.data.fleet_summaries.len()
        );
    }
    assert_eq!(
        app.data.fleet_summaries.len(),
        2_000,
        "a summary of every endpoint read"
    );
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("40.0"), "the table shows the figures taken: {screen}");
    // The fleet shrinks: the next read forgets the endpoints no longer listed.
    let rows = (0..100)
        .map(|i| {
            endpoint(&format!("fleet-ep-{i:05}"))
                .variants([variant("AllTraffic")])
                .build()
        })
        .map(std::sync::Arc::new)
        .collect();
    app.on_event(AppEvent::Inventory(Ok(Inventory {
        endpoints: rows,
        ..Default::default()
    })));
    app.on_event(AppEvent::Metrics {
        detail: false,
        result: Ok(metrics_of(&["fleet-ep-00001".to_string()])),
    });
    assert_eq!(app.data.fleet_summaries.len(), 100, "bounded by the endpoints listed");
}
