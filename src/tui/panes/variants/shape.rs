//! The Variants pane's lines of an endpoint's shape, under its header: a serverless variant's
//! memory and concurrency with its cold starts, utilization and spillover; an asynchronous
//! endpoint's S3 paths, topics and queue; a shadow variant beside production with the share of
//! production requests copied to it (and the shadow's own row of the variants table). Each kind
//! shows its own figures, a real-time endpoint none.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use crate::aws::endpoints::inventory::{EndpointInfo, VariantInfo};
use crate::aws::judge::compare::Outcome;
use crate::aws::observe::metrics::{Metric, VariantSummary};
use crate::aws::promote::shadow::ShadowReport;
use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};

/// A label and its value, muted and plain.
fn pair(spans: &mut Vec<Span<'static>>, label: &str, value: String, theme: &Theme) {
    spans.push(Span::styled(format!("  {label} "), theme.fg(Role::Muted)));
    spans.push(Span::styled(value, theme.fg(Role::Fg)));
}

/// The newest value of a variant's series, when the metrics have one.
fn latest(data: &Data, e: &EndpointInfo, variant: &str, metric: Metric, stat: &str) -> Option<f64> {
    let m = data.fleet_metrics.as_ref()?.variant(&e.name, variant)?;
    m.series(metric, stat)?.latest()
}

/// The sum of a variant's series over the metrics window.
fn total(data: &Data, e: &EndpointInfo, variant: &str, metric: Metric, stat: &str) -> Option<f64> {
    let m = data.fleet_metrics.as_ref()?.variant(&e.name, variant)?;
    Some(m.series(metric, stat)?.sum())
}

fn or_dash(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

/// The judge's last verdict on a shadow, or why it could not run.
type Verdict<'a> = Option<&'a Result<ShadowReport, String>>;

/// The lines of `e`'s shape (none for a real-time endpoint without shadow); `verdict` is the
/// judge's on its shadow.
pub(super) fn shape_lines(data: &Data, e: &EndpointInfo, verdict: Verdict<'_>, theme: &Theme) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = e
        .variants
        .iter()
        .filter(|v| v.serverless.is_some())
        .map(|v| serverless_line(data, e, v, theme))
        .collect();
    if e.shape.asynchronous.is_some() {
        out.push(async_config_line(e, theme));
        out.push(queue_line(data, e, theme));
    }
    if let (Some(production), Some(shadow)) = (e.variants.first(), e.shape.shadow_variants.first()) {
        let mut line = shadow_line(data, e, production, shadow, theme);
        line.spans.extend(verdict_spans(verdict, theme));
        out.push(line);
    }
    out
}

/// ` Serverless  V  4 GB · max 20 · prov 5  cold starts 3 (setup 2.1 s) …`.
fn serverless_line(data: &Data, e: &EndpointInfo, v: &VariantInfo, theme: &Theme) -> Line<'static> {
    let Some(s) = &v.serverless else {
        return Line::from("");
    };
    let mut spans = vec![
        Span::styled(" Serverless ", theme.fg(Role::Title)),
        Span::styled(v.name.clone(), theme.fg(Role::Fg).add_modifier(Modifier::BOLD)),
        Span::styled(format!("  {}", s.text()), theme.fg(if s.changing() { Role::StatusWarn } else { Role::Fg })),
    ];
    let cold = total(data, e, &v.name, Metric::ModelSetupTime, "SampleCount");
    let setup = latest(data, e, &v.name, Metric::ModelSetupTime, "Average");
    let cold_text = match (cold, setup) {
        (Some(n), Some(ms)) => format!("{n:.0} (setup {ms:.0} ms)"),
        (Some(n), None) => format!("{n:.0}"),
        _ => "-".into(),
    };
    pair(&mut spans, "cold starts", cold_text, theme);
    let overhead = data.summary(&e.name, &v.name).and_then(|s| s.overhead_latency_p99_ms);
    pair(&mut spans, "overhead p99", or_dash(overhead, |ms| format!("{ms:.1} ms")), theme);
    let util = latest(data, e, &v.name, Metric::ServerlessConcurrentExecutionsUtilization, "Maximum");
    pair(&mut spans, "concurrency", or_dash(util, |u| format!("{:.0}%", u * 100.0)), theme);
    if s.provisioned.or(s.desired_provisioned).is_some() {
        let spill = total(data, e, &v.name, Metric::ServerlessProvisionedConcurrencySpilloverInvocations, "Sum");
        pair(&mut spans, "spillover", or_dash(spill, |n| format!("{n:.0}")), theme);
    }
    Line::from(spans)
}

/// ` Async  output s3://…  failures s3://…  topics …  per instance N`.
fn async_config_line(e: &EndpointInfo, theme: &Theme) -> Line<'static> {
    let Some(a) = &e.shape.asynchronous else {
        return Line::from("");
    };
    let text = |s: &Option<String>| crate::format::escape_line(s.as_deref().unwrap_or("-")).into_owned();
    let mut spans = vec![Span::styled(" Async     ", theme.fg(Role::Title))];
    pair(&mut spans, "output", text(&a.output_path), theme);
    pair(&mut spans, "failures", text(&a.failure_path), theme);
    if a.success_topic.is_some() || a.error_topic.is_some() {
        pair(&mut spans, "topics", format!("{} · {}", text(&a.success_topic), text(&a.error_topic)), theme);
    }
    let per_instance = a.max_concurrent_per_instance.map(f64::from);
    pair(&mut spans, "per instance", or_dash(per_instance, |n| format!("{n:.0}")), theme);
    Line::from(spans)
}

/// ` Queue  backlog 3 (1.5/instance)  oldest 12 s  no capacity: yes …` (the queue figures carry
/// the EndpointName only: they are read beside the first variant's).
fn queue_line(data: &Data, e: &EndpointInfo, theme: &Theme) -> Line<'static> {
    let Some(first) = e.variants.first() else {
        return Line::from("");
    };
    let v = first.name.as_str();
    let backlog = latest(data, e, v, Metric::ApproximateBacklogSize, "Average");
    let per = latest(data, e, v, Metric::ApproximateBacklogSizePerInstance, "Average");
    let oldest = latest(data, e, v, Metric::ApproximateAgeOfOldestRequest, "Maximum");
    let starved = latest(data, e, v, Metric::HasBacklogWithoutCapacity, "Maximum").is_some_and(|x| x >= 1.0);
    let mut spans = vec![Span::styled(" Queue     ", theme.fg(Role::Title))];
    let backlog_text = match (backlog, per) {
        (Some(b), Some(p)) => format!("{b:.0} ({p:.1}/instance)"),
        (b, _) => or_dash(b, |b| format!("{b:.0}")),
    };
    pair(&mut spans, "backlog", backlog_text, theme);
    pair(&mut spans, "oldest", or_dash(oldest, |s| format!("{s:.0} s")), theme);
    if starved {
        spans.push(Span::styled(
            "  backlog without capacity",
            theme.fg(Role::StatusError).add_modifier(Modifier::BOLD),
        ));
    }
    let waited = latest(data, e, v, Metric::TimeInBacklog, "Average");
    pair(&mut spans, "in backlog", or_dash(waited, |ms| format!("{:.1} s", ms / 1000.0)), theme);
    let processing = latest(data, e, v, Metric::TotalProcessingTime, "Average");
    pair(&mut spans, "processing", or_dash(processing, |ms| format!("{:.1} s", ms / 1000.0)), theme);
    let failures = total(data, e, v, Metric::InvocationFailures, "Sum");
    pair(&mut spans, "failures", or_dash(failures, |n| format!("{n:.0}")), theme);
    let expired = total(data, e, v, Metric::ExpiredRequests, "Sum");
    pair(&mut spans, "expired", or_dash(expired, |n| format!("{n:.0}")), theme);
    Line::from(spans)
}

/// ` Shadow  S of P  copies 50%  p50 12.0 / 10.1 ms  p99 …  5XX …` (shadow / production).
fn shadow_line(
    data: &Data,
    e: &EndpointInfo,
    production: &VariantInfo,
    shadow: &VariantInfo,
    theme: &Theme,
) -> Line<'static> {
    let mut spans = vec![
        Span::styled(" Shadow    ", theme.fg(Role::Title)),
        Span::styled(shadow.name.clone(), theme.fg(Role::Fg).add_modifier(Modifier::BOLD)),
        Span::styled(format!(" of {}", production.name), theme.fg(Role::Muted)),
    ];
    pair(&mut spans, "copies", format!("{:.0}%", shadow.traffic_share * 100.0), theme);
    pair(&mut spans, "model", shadow.model_name.clone().unwrap_or_else(|| "-".into()), theme);
    spans.push(Span::styled("  shadow / production:", theme.fg(Role::Muted)));
    let (s, p) = (data.summary(&e.name, &shadow.name), data.summary(&e.name, &production.name));
    let both = |f: fn(&VariantSummary) -> Option<f64>, fmt: fn(f64) -> String| {
        let side = |x: Option<&VariantSummary>| or_dash(x.and_then(f), fmt);
        format!("{} / {}", side(s), side(p))
    };
    pair(&mut spans, "p50", both(|x| x.model_latency_p50_ms, |v| format!("{v:.1}")), theme);
    pair(&mut spans, "p99", both(|x| x.model_latency_p99_ms, |v| format!("{v:.1}")), theme);
    pair(&mut spans, "5XX", both(|x| x.error_rate_5xx, |v| format!("{:.2}%", v * 100.0)), theme);
    pair(&mut spans, "inv/min", both(|x| Some(x.invocations_per_min), |v| format!("{v:.0}")), theme);
    Line::from(spans)
}

/// The configured cells of a shadow's row on the variants table: marked SHADOW, no weight (it
/// takes none), the share of production requests copied to it in the SHARE column, its instances
/// and statuses.
pub(super) fn shadow_cells(v: &VariantInfo, theme: &Theme) -> Vec<Cell<'static>> {
    let marked = theme.fg(Role::Accent).add_modifier(Modifier::BOLD);
    let status = if v.statuses.is_empty() {
        "-".to_string()
    } else {
        v.statuses.join(",")
    };
    vec![
        Cell::from(Span::styled("◌ SHADOW", marked)),
        Cell::from(Span::styled(v.name.clone(), theme.fg(Role::Accent))),
        Cell::from("-"),
        Cell::from("-"),
        Cell::from(Span::styled(format!("{:.0}%", v.traffic_share * 100.0), theme.fg(Role::Accent))),
        Cell::from(v.current_instances.to_string()),
        Cell::from(status),
    ]
}

/// `  judge fail (model_latency_p99)`: the verdict of `sagedeck shadow` on the last hour, with the
/// metrics that failed; `judging…` before the first one.
fn verdict_spans(verdict: Verdict<'_>, theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = vec![Span::styled("  judge ", theme.fg(Role::Muted))];
    match verdict {
        None => spans.push(Span::styled("judging…", theme.fg(Role::Muted))),
        Some(Err(e)) => spans.push(Span::styled(
            format!("not judged: {}", crate::format::escape_line(e)),
            theme.fg(Role::StatusWarn),
        )),
        Some(Ok(r)) => {
            let role = match r.outcome {
                Outcome::Pass => Role::StatusOk,
                Outcome::Fail => Role::StatusError,
                Outcome::Inconclusive => Role::StatusWarn,
            };
            spans.push(Span::styled(r.outcome.as_str().to_string(), theme.fg(role).add_modifier(Modifier::BOLD)));
            let failed: Vec<&str> = r
                .verdicts
                .iter()
                .filter(|v| v.outcome == Outcome::Fail)
                .map(|v| v.metric.as_str())
                .collect();
            if !failed.is_empty() {
                spans.push(Span::styled(format!(" ({})", failed.join(", ")), theme.fg(role)));
            }
        }
    }
    spans
}
