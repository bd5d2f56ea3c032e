//! Each endpoint shape on the console: the Variants view of a serverless endpoint (memory,
//! concurrency, cold starts, no instance count), an asynchronous one (its S3 paths and queue),
//! and one with a shadow (side by side with production), snapshotted at 80x24 and 140x40; the
//! Endpoints table's KIND column and `/` filtering on the kind. Fixtures are built by hand.

use std::collections::BTreeMap;

use sagedeck::aws::endpoints::inventory::EndpointInfo;
use sagedeck::aws::endpoints::kind::EndpointKind;
use sagedeck::aws::endpoints::shape::AsyncInfo;
use sagedeck::aws::observe::metrics::{Metric, MetricsSnapshot, Series, VariantMetrics, VariantSummary, series_name};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;

use crate::common::builders::{endpoint, shared, variant};
use crate::common::tui::{self, press, tap};

fn summary(p50: f64, p99: f64, e5: f64) -> VariantSummary {
    VariantSummary {
        model_latency_p50_ms: Some(p50),
        model_latency_p99_ms: Some(p99),
        overhead_latency_p99_ms: Some(41.0),
        invocations: 900.0,
        invocations_per_min: 60.0,
        error_rate_5xx: Some(e5),
        ..Default::default()
    }
}

/// A variant's metrics with `series`, each one value.
fn vm(ep: &str, variant: &str, summary: VariantSummary, series: &[(Metric, &str, f64)]) -> VariantMetrics {
    let series: BTreeMap<String, Series> = series
        .iter()
        .map(|(m, stat, v)| {
            let s = Series {
                timestamps: vec![1_700_000_840.0],
                values: vec![*v],
            };
            (series_name(*m, stat), s)
        })
        .collect();
    VariantMetrics {
        endpoint: ep.into(),
        variant: variant.into(),
        multi_model: false,
        summary,
        series,
    }
}

fn app_on(e: EndpointInfo, variants: Vec<VariantMetrics>) -> App {
    let data = Data {
        context: tui::context(),
        selected: Some(e.name.clone()),
        inventory: shared(vec![e]),
        loaded: true,
        fleet_metrics: Some(MetricsSnapshot {
            start: 1_700_000_000.0,
            end: 1_700_000_900.0,
            period: 60,
            variants,
            components: Vec::new(),
            queries: 0,
            calls: 1,
            warnings: vec![],
        }),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.tab = Tab::Variants;
    app
}

pub(crate) fn serverless() -> App {
    let e = endpoint("intent-sls")
        .variants([variant("AllTraffic").serverless(4096, 20, Some(5))])
        .kind(EndpointKind::ServerlessProvisioned)
        .build();
    let figures = [
        (Metric::ModelSetupTime, "SampleCount", 3.0),
        (Metric::ModelSetupTime, "Average", 2100.0),
        (Metric::ServerlessConcurrentExecutionsUtilization, "Maximum", 0.45),
        (Metric::ServerlessProvisionedConcurrencySpilloverInvocations, "Sum", 7.0),
    ];
    let m = vm("intent-sls", "AllTraffic", summary(80.0, 240.0, 0.0), &figures);
    app_on(e, vec![m])
}

fn asynchronous() -> App {
    let config = AsyncInfo {
        output_path: Some("s3://async-io/output".into()),
        failure_path: Some("s3://async-io/failure".into()),
        success_topic: None,
        error_topic: Some("arn:aws:sns:us-east-1:123456789012:async-errors".into()),
        max_concurrent_per_instance: Some(4),
    };
    let e = endpoint("summarize-async")
        .variants([variant("AllTraffic").instances(2)])
        .asynchronous(config)
        .build();
    let figures = [
        (Metric::ApproximateBacklogSize, "Average", 12.0),
        (Metric::ApproximateBacklogSizePerInstance, "Average", 6.0),
        (Metric::ApproximateAgeOfOldestRequest, "Maximum", 95.0),
        (Metric::HasBacklogWithoutCapacity, "Maximum", 0.0),
        (Metric::TimeInBacklog, "Average", 41_000.0),
        (Metric::TotalProcessingTime, "Average", 52_500.0),
        (Metric::InvocationFailures, "Sum", 2.0),
        (Metric::ExpiredRequests, "Sum", 1.0),
    ];
    let m = vm(
        "summarize-async",
        "AllTraffic",
        summary(9_000.0, 30_000.0, 0.0),
        &figures,
    );
    app_on(e, vec![m])
}

fn shadowed() -> App {
    let e = endpoint("fraud-detector")
        .variants([variant("Production").model("fraud-v1").instances(2)])
        .shadow(variant("Shadow").model("fraud-v2").share(0.5))
        .build();
    // The latency series the Latency view charts: p50 and p99 of the summary, calls per minute.
    let series = |p50: f64, p99: f64| {
        [
            (Metric::ModelLatency, "p50", p50),
            (Metric::ModelLatency, "p90", (p50 + p99) / 2.0),
            (Metric::ModelLatency, "p99", p99),
            (Metric::Invocations, "Sum", 60.0),
        ]
    };
    let metrics = vec![
        vm(
            "fraud-detector",
            "Production",
            summary(12.4, 31.0, 0.001),
            &series(12.4, 31.0),
        ),
        vm(
            "fraud-detector",
            "Shadow",
            summary(19.8, 74.2, 0.012),
            &series(19.8, 74.2),
        ),
    ];
    app_on(e, metrics)
}

/// A real-time endpoint: canary and baseline, no shape lines.
fn real_time() -> App {
    let e = endpoint("fraud-rt")
        .variants([
            variant("Baseline").instances(3).weight(0.9).share(0.9),
            variant("Canary").instances(1).weight(0.1).share(0.1),
        ])
        .build();
    let metrics = vec![
        vm("fraud-rt", "Baseline", summary(11.0, 30.0, 0.001), &[]),
        vm("fraud-rt", "Canary", summary(12.5, 36.0, 0.004), &[]),
    ];
    app_on(e, metrics)
}

/// A multi-model endpoint: one variant serving models from an S3 prefix.
fn multi_model() -> App {
    let e = endpoint("tenants-mme")
        .variants([variant("AllTraffic").mme("s3://models/tenants/").instances(2)])
        .build();
    app_on(e, vec![vm("tenants-mme", "AllTraffic", summary(20.0, 80.0, 0.0), &[])])
}

/// An inference-components endpoint: a variant with instances and no model of its own.
fn components() -> App {
    let e = endpoint("llm-ic")
        .variants([variant("AllTraffic").no_model().instance_type("ml.g5.12xlarge")])
        .kind(EndpointKind::InferenceComponents)
        .build();
    app_on(e, vec![vm("llm-ic", "AllTraffic", summary(300.0, 900.0, 0.0), &[])])
}

/// A serverless endpoint without provisioned concurrency (every call after a quiet spell cold).
fn serverless_on_demand() -> App {
    let e = endpoint("embed-sls")
        .variants([variant("AllTraffic").serverless(2048, 10, None)])
        .kind(EndpointKind::Serverless)
        .build();
    let figures = [
        (Metric::ModelSetupTime, "SampleCount", 7.0),
        (Metric::ModelSetupTime, "Average", 1800.0),
        (Metric::ServerlessConcurrentExecutionsUtilization, "Maximum", 0.4),
    ];
    app_on(
        e,
        vec![vm("embed-sls", "AllTraffic", summary(40.0, 95.0, 0.0), &figures)],
    )
}

#[test]
fn each_kind_shows_its_own_figures_on_variants() {
    for (name, mut app) in [
        ("real_time", real_time()),
        ("multi_model", multi_model()),
        ("components", components()),
        ("serverless", serverless()),
        ("serverless_on_demand", serverless_on_demand()),
        ("async", asynchronous()),
        ("shadow", shadowed()),
    ] {
        for (w, h) in [(80, 24), (140, 40)] {
            let screen = tui::render(&mut app, w, h);
            insta::assert_snapshot!(format!("shapes_{name}_{w}x{h}"), screen);
        }
    }
    let wide = tui::render(&mut serverless(), 140, 40);
    assert!(wide.contains("4 GB · max 20 · prov 5"), "{wide}");
    assert!(wide.contains("cold starts 3 (setup 2100 ms)"), "{wide}");
    assert!(
        !wide.contains("serverless × "),
        "no instance count for serverless:\n{wide}"
    );
    let on_demand = tui::render(&mut serverless_on_demand(), 140, 40);
    assert!(
        on_demand.contains("max 10") && !on_demand.contains("spillover"),
        "{on_demand}"
    );
    let plain = tui::render(&mut real_time(), 140, 40);
    assert!(!plain.contains("Serverless") && !plain.contains("Queue"), "{plain}");
    let queue = tui::render(&mut asynchronous(), 140, 40);
    assert!(
        queue.contains("backlog 12 (6.0/instance)") && queue.contains("s3://async-io/failure"),
        "{queue}"
    );
    let shadow = tui::render(&mut shadowed(), 140, 40);
    assert!(
        shadow.contains("copies 50%") && shadow.contains("p99 74.2 / 31.0"),
        "{shadow}"
    );
    // The shadow's own row of the table: marked, no weight, the share copied to it, its figures.
    let row = shadow
        .lines()
        .find(|l| l.contains("◌ SHADOW"))
        .unwrap_or_else(|| panic!("no shadow row:\n{shadow}"));
    let cells: Vec<&str> = row.trim_matches(|c| c == '"' || c == '│').split_whitespace().collect();
    assert_eq!(&cells[..7], ["◌", "SHADOW", "Shadow", "-", "-", "50%", "1"], "{row}");
    assert!(
        row.contains("19.8") && row.contains("74.2") && row.contains("1.20%"),
        "{row}"
    );
}

#[test]
fn a_shadow_is_charted_beside_production_on_latency() {
    let mut app = shadowed();
    app.data.detail_metrics = app.data.fleet_metrics.clone();
    app.tab = Tab::Latency;
    let screen = tui::render(&mut app, 140, 40);
    insta::assert_snapshot!("shapes_shadow_latency_140x40", screen);
    let production = screen.find("Production").unwrap_or_else(|| panic!("{screen}"));
    let shadow = screen.find(" SHADOW  Shadow").unwrap_or_else(|| panic!("{screen}"));
    assert!(production < shadow, "production first, the shadow below:\n{screen}");
    assert!(screen.contains("50% of production's calls copied"), "{screen}");
}

#[test]
fn the_endpoints_table_filters_on_the_kind() {
    let sls = endpoint("intent-sls")
        .variants([variant("AllTraffic").serverless(2048, 10, None)])
        .kind(EndpointKind::Serverless)
        .build();
    let queue = endpoint("summarize")
        .variants([variant("AllTraffic")])
        .asynchronous(AsyncInfo::default())
        .build();
    let plain = endpoint("fraud")
        .variants([variant("Production")])
        .shadow(variant("Shadow").share(0.2))
        .build();
    let data = Data {
        context: tui::context(),
        inventory: shared(vec![sls, queue, plain]),
        loaded: true,
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.tab = Tab::Endpoints;
    let all = tui::render(&mut app, 140, 20);
    assert!(
        all.contains("SLS") && all.contains("ASYNC") && all.contains("SHADOW"),
        "{all}"
    );
    assert!(all.contains("sls 2 GB max 10"), "{all}");
    press(&mut app, "/kind:async");
    tap(&mut app, crossterm::event::KeyCode::Enter);
    let filtered = tui::render(&mut app, 140, 20);
    assert!(
        filtered.contains("summarize") && !filtered.contains("intent-sls"),
        "{filtered}"
    );
    assert!(!filtered.contains("fraud"), "{filtered}");
}

#[test]
fn the_judge_on_the_shadow_is_asked_on_show_and_its_verdict_shown() {
    use sagedeck::aws::judge::compare::{MetricVerdict, Outcome};
    use sagedeck::aws::promote::shadow::ShadowReport;
    use sagedeck::tui::event::{AppEvent, FleetJob, Job};

    let mut app = shadowed();
    app.tab = Tab::Endpoints;
    app.switch(Tab::Variants);
    let asked = app.take_jobs();
    assert!(
        asked
            .iter()
            .any(|(_, j)| matches!(j, Job::Fleet(FleetJob::ShadowJudge { endpoint }) if endpoint == "fraud-detector")),
        "{asked:?}"
    );
    let before = tui::render(&mut app, 140, 40);
    assert!(before.contains("judge judging…"), "{before}");
    let verdict = |metric: &str, outcome| MetricVerdict {
        metric: metric.into(),
        outcome,
        p_value: Some(0.001),
        method: None,
        effect: Some(40.0),
        allowed: Some(8.0),
        canary: vec![74.0; 6],
        baseline: vec![31.0; 6],
    };
    let report = ShadowReport {
        endpoint: "fraud-detector".into(),
        production: "Production".into(),
        shadow: "Shadow".into(),
        sampled_share: 0.5,
        window: (1_700_000_000.0, 1_700_003_600.0),
        outcome: Outcome::Fail,
        verdicts: vec![
            verdict("model_latency_p99", Outcome::Fail),
            verdict("5xx_rate", Outcome::Pass),
        ],
    };
    app.on_event(AppEvent::ShadowJudged {
        endpoint: "fraud-detector".into(),
        result: Ok(Box::new(report)),
    });
    let after = tui::render(&mut app, 140, 40);
    assert!(after.contains("judge fail (model_latency_p99)"), "{after}");
}
