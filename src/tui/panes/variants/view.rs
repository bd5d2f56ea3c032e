//! Drawing of the Variants pane: the endpoint line, the variants table (only the visible rows),
//! configured vs observed traffic, the update in progress, and the selected variant's details.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table};

use super::{VariantsPane, baseline_index, following, glyph, num, observed_shares, pct, role, split_bar};
use crate::aws::endpoints::inventory::{EndpointInfo, VariantInfo};
use crate::aws::observe::metrics::VariantSummary;
use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};

/// The alarm badges of an endpoint: each CloudWatch alarm that watches it with its state (None
/// when none does, or none was read yet).
pub(super) fn alarm_line(data: &Data, e: &EndpointInfo, theme: &Theme) -> Option<Line<'static>> {
    let alarms = data.alarms.get(&e.name).filter(|a| !a.is_empty())?;
    // Those in ALARM first: the pane shows two rows of them at most.
    let mut sorted: Vec<_> = alarms.iter().collect();
    sorted.sort_by_key(|a| (!a.firing(), a.state != "OK"));
    let firing = alarms.iter().filter(|a| a.firing()).count();
    let mut spans = vec![Span::styled(
        format!(" alarms {firing}/{} in ALARM ", alarms.len()),
        theme.fg(if firing > 0 { Role::StatusError } else { Role::Muted }),
    )];
    for a in sorted {
        let role = match a.state.as_str() {
            "ALARM" => Role::StatusError,
            "OK" => Role::StatusOk,
            _ => Role::StatusWarn,
        };
        let style = if a.firing() {
            theme.fg(role).add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            theme.fg(role)
        };
        spans.push(Span::styled(format!(" {} {} ", a.name, a.state), style));
        spans.push(Span::raw(" "));
    }
    Some(Line::from(spans))
}

impl VariantsPane {
    pub(super) fn header_line(e: &EndpointInfo, theme: &Theme) -> Line<'static> {
        let base = baseline_index(e);
        let muted = theme.fg(Role::Muted);
        let mut spans = vec![
            Span::styled(e.name.clone(), theme.fg(Role::Fg).add_modifier(Modifier::BOLD)),
            Span::raw("  "),
            Span::styled(e.status.clone(), theme.status(&e.status)),
        ];
        if let Some(c) = &e.config_name {
            spans.push(Span::styled("  config ", muted));
            spans.push(Span::styled(c.clone(), theme.fg(Role::Fg)));
        }
        spans.push(Span::styled(format!("  {}", crate::format::count(e.variants.len(), "variant")), muted));
        for (i, v) in e.variants.iter().enumerate() {
            let is_base = Some(i) == base;
            spans.push(Span::styled(format!("  {} ", role(is_base).name()), muted));
            spans.push(Span::styled(
                v.name.clone(),
                theme.fg(role(is_base)).add_modifier(Modifier::BOLD),
            ));
        }
        Line::from(spans)
    }

    /// The variants table: only the rows that fit, scrolled to keep the cursor in view.
    pub(super) fn table(&mut self, f: &mut Frame, area: Rect, data: &Data, e: &EndpointInfo, theme: &Theme) {
        let page = area.height.saturating_sub(1).max(1) as usize;
        self.scroll_to_cursor(page);
        let base = baseline_index(e);
        let observed = observed_shares(data, e);
        let mut rows: Vec<Row> = e
            .variants
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(page)
            .map(|(i, v)| {
                let mut cells = identity_cells(i, v, base, theme);
                cells.extend(configuration_cells(v, theme));
                let observed_share = observed.as_ref().map(|o| o[i]);
                cells.extend(metric_cells(data.summary(&e.name, &v.name), observed_share, theme));
                let row = Row::new(cells);
                if i == self.cursor {
                    row.style(theme.selection())
                } else {
                    row.style(theme.fg(Role::Fg))
                }
            })
            .collect();
        // A shadow beside production, on its own row below (not selectable: it takes no weight).
        let room = page.saturating_sub(rows.len());
        rows.extend(e.shape.shadow_variants.iter().take(room).map(|v| {
            let mut cells = super::shape::shadow_cells(v, theme);
            cells.extend(metric_cells(data.summary(&e.name, &v.name), None, theme));
            Row::new(cells).style(theme.fg(Role::Muted))
        }));
        let header =
            Row::new(TABLE_COLUMNS.map(Cell::from)).style(theme.fg(Role::Title).add_modifier(Modifier::BOLD));
        let widths = column_widths(e, area.width);
        f.render_widget(Table::new(rows, widths).header(header).style(theme.base()), area);
    }

    /// Moves the first row shown so that the cursor is on a page of `page` rows.
    fn scroll_to_cursor(&mut self, page: usize) {
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + page {
            self.offset = self.cursor + 1 - page;
        }
    }

    pub(super) fn traffic_lines(data: &Data, e: &EndpointInfo, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let base = baseline_index(e);
        let legend_w: usize = e.variants.iter().map(|v| v.name.chars().count() + 10).sum::<usize>() + 15;
        let bar_w = width.saturating_sub(22 + legend_w).clamp(10, 60);
        let muted = theme.fg(Role::Muted);
        let parts = |shares: &[f64]| -> Vec<(f64, Style, &'static str)> {
            shares
                .iter()
                .enumerate()
                .map(|(i, s)| (*s, theme.fg(role(Some(i) == base)), glyph(i, base)))
                .collect()
        };
        let legend = |shares: &[f64]| -> Vec<Span<'static>> {
            let mut out = Vec::new();
            for (i, (v, s)) in e.variants.iter().zip(shares).enumerate() {
                let st = theme.fg(role(Some(i) == base));
                out.push(Span::styled(format!("  {} ", glyph(i, base)), st));
                out.push(Span::styled(format!("{} {}", v.name, pct(*s)), theme.fg(Role::Fg)));
            }
            out
        };
        let configured: Vec<f64> = e.variants.iter().map(|v| v.traffic_share).collect();
        let mut first = vec![Span::styled(" Traffic   configured ", theme.fg(Role::Title))];
        first.extend(split_bar(&parts(&configured), bar_w, muted));
        first.extend(legend(&configured));
        let mut second = vec![Span::styled("           observed   ", theme.fg(Role::Title))];
        match observed_shares(data, e) {
            Some(obs) => {
                second.extend(split_bar(&parts(&obs), bar_w, muted));
                second.extend(legend(&obs));
                if let Some(m) = &data.fleet_metrics {
                    let mins = ((m.end - m.start) / 60.0).round();
                    second.push(Span::styled(format!("  (last {mins:.0} min)"), muted));
                }
            }
            None => second.push(Span::styled("no invocations in the metrics window yet", muted)),
        }
        vec![Line::from(first), Line::from(second)]
    }

    /// The update section: Updating → InService with desired and current converging.
    /// `plan`: a promotion plan of this console drives the endpoint (its changes are this
    /// console's, whatever the weight editor did).
    pub(super) fn update_lines(
        data: &Data,
        e: &EndpointInfo,
        plan: bool,
        width: usize,
        theme: &Theme,
    ) -> Vec<Line<'static>> {
        let follow = following(data, e);
        let moving = e.status != "InService" || e.variants.iter().any(|v| !settled(v));
        if !follow && !moving {
            return Vec::new();
        }
        if matches!(e.status.as_str(), "Failed" | "UpdateRollbackFailed" | "OutOfService") {
            let why = e.failure_reason.clone().unwrap_or_else(|| "no reason given".into());
            return vec![Line::from(vec![
                Span::styled(" Update    ", theme.fg(Role::Title)),
                Span::styled(format!("{}: {why}", e.status), theme.status(&e.status)),
            ])];
        }
        vec![
            update_steps(e, follow, plan, theme),
            convergence_gauge(e, width, theme),
            variant_progress(e, theme),
        ]
    }

    pub(super) fn detail_lines(&self, data: &Data, e: &EndpointInfo, theme: &Theme) -> Vec<Line<'static>> {
        let Some(v) = e.variants.get(self.cursor) else {
            return Vec::new();
        };
        let is_base = baseline_index(e) == Some(self.cursor);
        let muted = theme.fg(Role::Muted);
        let fg = theme.fg(Role::Fg);
        let mut first = vec![
            Span::styled(
                format!(" {} ", v.name),
                theme.fg(role(is_base)).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!("({}) ", role(is_base).name()), theme.fg(role(is_base))),
            Span::styled(" model ", muted),
            Span::styled(v.model_name.clone().unwrap_or_else(|| "-".into()), fg),
            Span::styled(if v.serverless.is_some() { "  serverless " } else { "  instances " }, muted),
            Span::styled(
                match &v.serverless {
                    Some(s) => s.text(),
                    None => format!(
                        "{} × {}",
                        v.instance_type.clone().unwrap_or_else(|| "serverless".into()),
                        v.current_instances
                    ),
                },
                fg,
            ),
        ];
        if let Some(img) = &v.image {
            // The repository and tag; the registry host is the same for every variant.
            let short = img.rsplit('/').next().unwrap_or(img);
            first.push(Span::styled("  image ", muted));
            first.push(Span::styled(short.to_string(), fg));
        }
        if let Some(r) = &v.routing {
            first.push(Span::styled("  routing ", muted));
            first.push(Span::styled(r.text(), fg));
        }
        // The latency figures describe the last complete period: say which, and on how many
        // samples (a thin period is no basis for a judgement).
        if let Some((Some(at), Some(n))) = data
            .summary(&e.name, &v.name)
            .map(|s| (s.latest_period_start, s.latest_samples))
        {
            let clock: String = crate::format::time_text(at).chars().skip(11).collect();
            first.push(Span::styled("  latest period ", muted));
            first.push(Span::styled(format!("{clock} ({n:.0} samples)"), fg));
        }
        let mut second = vec![Span::raw(" ")];
        match data.summary(&e.name, &v.name) {
            Some(s) => {
                let ms = |x: Option<f64>| x.map(|x| format!("{x:.1} ms")).unwrap_or_else(|| "-".into());
                let rate = |x: Option<f64>| x.map(|x| format!("{:.2}%", x * 100.0)).unwrap_or_else(|| "-".into());
                for (label, value) in [
                    ("p90 ", ms(s.model_latency_p90_ms)),
                    ("  worst p99 ", ms(s.model_latency_p99_max_ms)),
                    ("  overhead p99 ", ms(s.overhead_latency_p99_ms)),
                    ("  4XX ", rate(s.error_rate_4xx)),
                    ("  5XX ", rate(s.error_rate_5xx)),
                    ("  invocations ", format!("{:.0}", s.invocations)),
                ] {
                    second.push(Span::styled(label, muted));
                    second.push(Span::styled(value, fg));
                }
            }
            None => second.push(Span::styled("no metrics for this variant yet", muted)),
        }
        vec![Line::from(first), Line::from(second)]
    }
}

/// The titles of the variants table's columns.
const TABLE_COLUMNS: [&str; 12] = [
    "ROLE",
    "VARIANT",
    "WEIGHT",
    "DESIRED",
    "SHARE",
    "INSTANCES",
    "VARIANT STATUS",
    "P50 MS",
    "P99 MS",
    "5XX",
    "OBSERVED",
    "INV/MIN",
];

fn dash() -> String {
    "-".to_string()
}

/// The role and name columns of variant `i`.
fn identity_cells(i: usize, v: &VariantInfo, base: Option<usize>, theme: &Theme) -> Vec<Cell<'static>> {
    let is_base = Some(i) == base;
    let r = theme.fg(role(is_base));
    vec![
        Cell::from(Span::styled(
            format!("{} {}", glyph(i, base), role(is_base).name().to_uppercase()),
            r.add_modifier(Modifier::BOLD),
        )),
        Cell::from(Span::styled(v.name.clone(), r)),
    ]
}

/// The configured columns: weight and desired weight, share, instances (current → desired
/// while they differ) and the variant's statuses.
fn configuration_cells(v: &VariantInfo, theme: &Theme) -> Vec<Cell<'static>> {
    let moving = theme.fg(Role::StatusWarn).add_modifier(Modifier::BOLD);
    let desired_style = if v.desired_weight != v.current_weight {
        moving
    } else {
        theme.fg(Role::Fg)
    };
    // A serverless variant has no instances: its (provisioned) concurrency instead.
    let (inst, inst_style) = if let Some(s) = &v.serverless {
        let text = match s.provisioned {
            Some(p) => format!("{p}/{} pc", s.max_concurrency),
            None => format!("max {}", s.max_concurrency),
        };
        (text, if s.changing() { moving } else { theme.fg(Role::Fg) })
    } else if v.desired_instances != v.current_instances {
        (format!("{} → {}", v.current_instances, v.desired_instances), moving)
    } else {
        (v.current_instances.to_string(), theme.fg(Role::Fg))
    };
    let status = if v.statuses.is_empty() {
        dash()
    } else {
        v.statuses.join(",")
    };
    let status_style = v.statuses.last().map(|s| theme.status(s)).unwrap_or(theme.fg(Role::Muted));
    vec![
        Cell::from(num(v.current_weight)),
        Cell::from(Span::styled(num(v.desired_weight), desired_style)),
        Cell::from(pct(v.traffic_share)),
        Cell::from(Span::styled(inst, inst_style)),
        Cell::from(Span::styled(status, status_style)),
    ]
}

/// The observed columns: latency percentiles, 5XX rate (marked above 1%), observed share and
/// invocations per minute; a dash for each figure not read yet.
fn metric_cells(s: Option<&VariantSummary>, observed: Option<f64>, theme: &Theme) -> Vec<Cell<'static>> {
    let ms = |x: Option<f64>| x.map(|x| format!("{x:.1}")).unwrap_or_else(dash);
    let err = s.and_then(|s| s.error_rate_5xx);
    let err_style = if err.unwrap_or(0.0) > 0.01 {
        theme.fg(Role::StatusError)
    } else {
        theme.fg(Role::Fg)
    };
    vec![
        Cell::from(ms(s.and_then(|s| s.model_latency_p50_ms))),
        Cell::from(ms(s.and_then(|s| s.model_latency_p99_ms))),
        Cell::from(Span::styled(
            err.map(|x| format!("{:.2}%", x * 100.0)).unwrap_or_else(dash),
            err_style,
        )),
        Cell::from(observed.map(pct).unwrap_or_else(dash)),
        Cell::from(s.map(|s| format!("{:.0}", s.invocations_per_min)).unwrap_or_else(dash)),
    ]
}

/// The widths of the table's columns in `width`: on a narrow terminal the least needed columns
/// get no width (rather than every title being cut), kept in priority order while they fit,
/// one space between columns.
fn column_widths(e: &EndpointInfo, width: u16) -> Vec<Constraint> {
    let names = e.variants.iter().chain(&e.shape.shadow_variants);
    let name_width = names.map(|v| v.name.chars().count()).max().unwrap_or(0);
    let full = [
        10,
        (name_width as u16 + 2).clamp(12, 40),
        6,
        7,
        6,
        9,
        16,
        7,
        7,
        6,
        8,
        7,
    ];
    let priority = [0, 1, 2, 3, 8, 9, 6, 5, 4, 7, 10, 11];
    let mut keep = [false; 12];
    let mut used = (full.len() as u16).saturating_sub(1);
    for c in priority {
        if used + full[c] <= width || c < 2 {
            keep[c] = true;
            used += full[c];
        }
    }
    (0..full.len())
        .map(|c| Constraint::Length(if keep[c] { full[c] } else { 0 }))
        .collect()
}

/// Whether a variant is at its desired weight and count, with no update of its own under way.
fn settled(v: &VariantInfo) -> bool {
    v.current_weight == v.desired_weight && v.current_instances == v.desired_instances && v.statuses.is_empty()
}

/// The update's steps: sent (when this console follows it) ── Updating ── InService, with who
/// drives it.
fn update_steps(e: &EndpointInfo, follow: bool, plan: bool, theme: &Theme) -> Line<'static> {
    let muted = theme.fg(Role::Muted);
    let done = e.status == "InService";
    let step = |label: &str, on: bool, current: bool| {
        let style = if current {
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD)
        } else if on {
            theme.fg(Role::StatusOk)
        } else {
            muted
        };
        Span::styled(format!("{} {label}", if on { "●" } else { "○" }), style)
    };
    let mut steps = vec![Span::styled(" Update    ", theme.fg(Role::Title))];
    if follow {
        steps.push(step("sent", true, false));
        steps.push(Span::styled(" ── ", muted));
    }
    steps.push(step(&e.status.replace("InService", "Updating"), true, !done));
    steps.push(Span::styled(" ── ", muted));
    steps.push(step("InService", done, done));
    if plan {
        steps.push(Span::styled("   (this console's promotion plan)", muted));
    } else if !follow {
        steps.push(Span::styled("   (not started from this console)", muted));
    }
    Line::from(steps)
}

/// A gauge of how many variants have settled, as a share of `width`.
fn convergence_gauge(e: &EndpointInfo, width: usize, theme: &Theme) -> Line<'static> {
    let done = e.status == "InService";
    let n = e.variants.len().max(1);
    let converged = e.variants.iter().filter(|v| settled(v)).count();
    let ratio = if done && converged == e.variants.len() {
        1.0
    } else {
        converged as f64 / n as f64
    };
    let bar_w = width.saturating_sub(60).clamp(10, 40);
    let filled = (ratio * bar_w as f64).round() as usize;
    Line::from(vec![
        Span::raw("           "),
        Span::styled("━".repeat(filled), theme.fg(Role::Accent)),
        Span::styled("─".repeat(bar_w - filled), theme.fg(Role::Muted)),
        Span::styled(
            format!(
                "  {converged}/{} at their desired weight and count",
                crate::format::count(e.variants.len(), "variant")
            ),
            theme.fg(Role::Fg),
        ),
    ])
}

/// Each variant's weight (and instances while they move) from current to desired, ticked once
/// settled.
fn variant_progress(e: &EndpointInfo, theme: &Theme) -> Line<'static> {
    let muted = theme.fg(Role::Muted);
    let mut each = vec![Span::raw("           ")];
    for v in &e.variants {
        let ok = settled(v);
        each.push(Span::styled(format!("{} ", v.name), theme.fg(Role::Fg)));
        each.push(Span::styled(
            format!("weight {} → {}", num(v.current_weight), num(v.desired_weight)),
            if ok { theme.fg(Role::Fg) } else { theme.fg(Role::StatusWarn) },
        ));
        if v.current_instances != v.desired_instances {
            each.push(Span::styled(
                format!(", instances {} → {}", v.current_instances, v.desired_instances),
                theme.fg(Role::StatusWarn),
            ));
        }
        each.push(Span::styled(
            if ok { " ✓   " } else { " …   " },
            if ok { theme.fg(Role::StatusOk) } else { muted },
        ));
    }
    Line::from(each)
}
