//! Render time of the console's busiest panes, against a small baseline frame in the same run:
//! Endpoints with 5,000 endpoints vs 50, Models with 10,000 models vs 50. Prints a table of
//! medians; the target is under 1 ms and no more than 2x the 50-row frame (only visible rows are
//! built). Then navigation at 10,000 endpoints against 50: a sort (by p99, by name), a filter
//! keystroke and a `:goto` (the target: within one frame, 16 ms).

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sagedeck::aws::endpoints::catalog::{Catalog, CatalogEntry};
use sagedeck::aws::endpoints::inventory::{EndpointInfo, Inventory, VariantInfo};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;

fn endpoint(i: usize, mme: bool) -> EndpointInfo {
    let v = |name: &str, w: f64| VariantInfo {
        name: name.into(),
        model_name: Some("m".into()),
        instance_type: Some("ml.m5.large".into()),
        routing: None,
        current_weight: w,
        desired_weight: w,
        traffic_share: 0.5,
        current_instances: 2,
        desired_instances: 2,
        statuses: vec![],
        image: None,
        multi_model: mme,
        model_data_url: mme.then(|| "s3://b/p/".to_string()),
        serverless: None,
    };
    EndpointInfo {
        name: format!("endpoint-{i:05}"),
        arn: format!("arn:aws:sagemaker:us-east-1:1:endpoint/endpoint-{i:05}"),
        status: if i.is_multiple_of(17) {
            "Updating".into()
        } else {
            "InService".into()
        },
        failure_reason: None,
        created: 1.7e9 + i as f64,
        modified: 1.7e9 + i as f64,
        config_name: None,
        variants: vec![v("Stable", 9.0), v("Canary", 1.0)],
        multi_model: mme,
        kind: if mme {
            sagedeck::aws::endpoints::kind::EndpointKind::MultiModel
        } else {
            sagedeck::aws::endpoints::kind::EndpointKind::RealTime
        },
        shape: Default::default(),
        deploying: false,
        autoscaling: vec![],
    }
}

fn app(endpoints: usize, models: usize) -> App {
    let mut app = App::new(Data::default(), Theme::default_theme());
    let mut list: Vec<EndpointInfo> = (0..endpoints.max(1)).map(|i| endpoint(i, false)).collect();
    list[0] = endpoint(0, true);
    app.on_event(AppEvent::Inventory(Ok(Inventory {
        endpoints: list.into_iter().map(std::sync::Arc::new).collect(),
        failures: vec![],
        api_calls: 0,
        elapsed_ms: 0,
        ..Default::default()
    })));
    app.data.selected = Some("endpoint-00000".into());
    let catalog = Catalog {
        bucket: "b".into(),
        prefix: "p/".into(),
        models: (0..models)
            .map(|i| CatalogEntry {
                key: format!("tenant-{i:05}.tar.gz"),
                size: 1 << 28,
                last_modified: Some(1.7e9),
                etag: None,
            })
            .collect(),
        pages: 1,
    };
    app.data.catalogs.insert("endpoint-00000".into(), catalog);
    app.take_jobs();
    app
}

fn median_frame(app: &mut App, tab: Tab, rounds: usize) -> Duration {
    app.tab = tab;
    let mut term = Terminal::new(TestBackend::new(160, 50)).expect("test backend");
    for _ in 0..20 {
        let _ = term.draw(|f| sagedeck::tui::render::draw(f, app));
    }
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            let _ = term.draw(|f| sagedeck::tui::render::draw(f, app));
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// The median time of `act` on `app` over `rounds` runs.
fn median_of(app: &mut App, rounds: usize, mut act: impl FnMut(&mut App)) -> Duration {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            act(app);
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn key(c: char) -> crossterm::event::KeyEvent {
    crossterm::event::KeyEvent::new(crossterm::event::KeyCode::Char(c), crossterm::event::KeyModifiers::NONE)
}

/// Sort, filter and jump at 10,000 endpoints against 50.
fn navigation() {
    use sagedeck::tui::widgets::command_line::Command;
    let (mut small, mut big) = (app(50, 0), app(10_000, 0));
    let goto = |a: &mut App, name: &str| {
        a.run_command(Command::Pane {
            name: "goto".into(),
            arg: Some(name.into()),
        })
    };
    let mut rows: Vec<(&str, Duration, Duration)> = Vec::new();
    for (label, what) in [("sort by p99", 'p'), ("sort by name", 'n')] {
        let base = median_of(&mut small, 51, |a| a.on_key(key(what)));
        let large = median_of(&mut big, 51, |a| a.on_key(key(what)));
        rows.push((label, base, large));
    }
    for a in [&mut small, &mut big] {
        a.on_key(key('/'));
    }
    let typed = |a: &mut App| {
        a.on_key(key('4'));
        a.on_key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Backspace,
            crossterm::event::KeyModifiers::NONE,
        ));
    };
    let base = median_of(&mut small, 51, typed) / 2;
    let large = median_of(&mut big, 51, typed) / 2;
    rows.push(("filter keystroke", base, large));
    for a in [&mut small, &mut big] {
        a.on_key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Esc,
            crossterm::event::KeyModifiers::NONE,
        ));
    }
    let base = median_of(&mut small, 51, |a| goto(a, "endpoint-00042"));
    let large = median_of(&mut big, 51, |a| goto(a, "endpoint-09042"));
    rows.push((":goto NAME", base, large));
    println!();
    println!(
        "{:<18} {:>14} {:>18} {:>7}",
        "navigation", "50 rows (µs)", "10,000 rows (µs)", "ratio"
    );
    for (label, base, large) in rows {
        println!(
            "{:<18} {:>14.1} {:>18.1} {:>7.1}",
            label,
            base.as_secs_f64() * 1e6,
            large.as_secs_f64() * 1e6,
            large.as_secs_f64() / base.as_secs_f64()
        );
    }
}

fn main() {
    let rounds = 400;
    let mut rows = Vec::new();
    let mut small = app(50, 50);
    let mut big = app(5000, 10_000);
    for (label, tab) in [("Endpoints", Tab::Endpoints), ("Models", Tab::Models)] {
        let base = median_frame(&mut small, tab, rounds);
        let large = median_frame(&mut big, tab, rounds);
        let n = if tab == Tab::Endpoints {
            "5,000 endpoints"
        } else {
            "10,000 models"
        };
        rows.push((label, n, base, large));
    }
    println!(
        "{:<10} {:>16} {:>14} {:>16} {:>7}",
        "pane", "large", "50 rows (µs)", "large (µs)", "ratio"
    );
    for (label, n, base, large) in rows {
        println!(
            "{:<10} {:>16} {:>14.1} {:>16.1} {:>7.2}",
            label,
            n,
            base.as_secs_f64() * 1e6,
            large.as_secs_f64() * 1e6,
            large.as_secs_f64() / base.as_secs_f64()
        );
    }
    navigation();
}
