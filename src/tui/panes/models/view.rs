//! Drawing of the Models pane: the catalog line, one line of cache metrics per multi-model
//! variant, the visible rows only, the prewarm gauge and the filter line.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, LineGauge, Paragraph, Row, Table, Wrap};

use super::{ModelsPane, PrewarmRun, RunEnd, RunState};
use crate::aws::endpoints::catalog::{CatalogEntry, human_size};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::observe::metrics::{Metric, VariantMetrics};
use crate::aws::invoke::prewarm::PrewarmStatus;
use crate::format::time_text;
use crate::tui::widgets::{muted, no_endpoint_text};
use crate::tui::data::{Data, ModelKnowledge};
use crate::tui::widgets::chart::{fmt_ms, spark, thousands, window_label};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::pane_frame;

/// Points of the inline sparklines.
const SPARK_WIDTH: usize = 10;

/// The metrics of an MME variant: the fleet table's (always refreshed) first, else the Latency
/// pane's; with the window they cover in seconds.
fn mme_metrics<'a>(data: &'a Data, endpoint: &str, variant: &str) -> Option<(&'a VariantMetrics, f64)> {
    [data.fleet_metrics.as_ref(), data.detail_metrics.as_ref()]
        .into_iter()
        .flatten()
        .find_map(|s| s.variant(endpoint, variant).map(|v| (v, s.end - s.start)))
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// `12-02 18:03` (UTC) from epoch seconds.
fn short_time(epoch: f64) -> String {
    time_text(epoch).chars().skip(5).collect()
}

/// What is known of a model: this run's state, else what this console saw, else the audit log's
/// last prewarm (when, by whom), else that nothing was seen from here (AWS reports no
/// per-model invocations, so other clients' calls cannot be known).
fn state_span(
    run: Option<&RunState>,
    k: Option<&ModelKnowledge>,
    audited: Option<&(f64, String)>,
    theme: &Theme,
) -> Span<'static> {
    let (text, style): (String, Style) = match run {
        Some(RunState::Queued) => ("queued".into(), theme.fg(Role::Muted)),
        Some(RunState::Loading) => ("loading…".into(), theme.fg(Role::Accent)),
        Some(RunState::Retrying { attempt, reason }) => (format!("retry {attempt}: {reason}"), theme.fg(Role::StatusWarn)),
        Some(RunState::Done(PrewarmStatus::Cold)) => ("✓ loaded (was cold)".into(), theme.fg(Role::StatusWarn)),
        Some(RunState::Done(PrewarmStatus::Warm)) => ("✓ already warm".into(), theme.fg(Role::StatusOk)),
        Some(RunState::Done(PrewarmStatus::Failed)) => ("✗ failed".into(), theme.fg(Role::StatusError)),
        None => match k {
            Some(ModelKnowledge {
                prewarmed_at: Some(t), ..
            }) => (format!("prewarmed {}", short_time(*t)), theme.fg(Role::Fg)),
            Some(ModelKnowledge {
                last_latency_ms: Some(_),
                ..
            }) => ("invoked".into(), theme.fg(Role::Fg)),
            Some(ModelKnowledge {
                last_error: Some(_), ..
            }) => ("failed".into(), theme.fg(Role::StatusError)),
            _ => match audited {
                Some((t, who)) => (format!("prewarmed {} by {who}", short_time(*t)), theme.fg(Role::Fg)),
                None => ("no call seen from here".into(), theme.fg(Role::Muted)),
            },
        },
    };
    Span::styled(text, style)
}

fn latency_span(k: Option<&ModelKnowledge>, theme: &Theme) -> Span<'static> {
    match k.and_then(|k| k.last_latency_ms.map(|ms| (ms, k.cold))) {
        Some((ms, Some(true))) => Span::styled(format!("{} cold", fmt_ms(ms)), theme.fg(Role::StatusWarn)),
        Some((ms, Some(false))) => Span::styled(format!("{} warm", fmt_ms(ms)), theme.fg(Role::StatusOk)),
        Some((ms, None)) => Span::styled(fmt_ms(ms), theme.fg(Role::Fg)),
        None => Span::styled("-", theme.fg(Role::Muted)),
    }
}

/// What a non-MME endpoint shows instead of a catalog.
fn not_mme(f: &mut Frame, area: Rect, e: &EndpointInfo, data: &Data, theme: &Theme) {
    let mmes: Vec<&str> = data
        .inventory
        .iter()
        .filter(|x| x.mme_prefix().is_some())
        .map(|x| x.name.as_str())
        .collect();
    let mut lines = vec![
        Line::from(vec![
            Span::styled(e.name.clone(), theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
            Span::styled(
                " is not a multi-model endpoint.",
                theme.fg(Role::Fg).add_modifier(Modifier::BOLD),
            ),
        ]),
        Line::from(""),
        Line::from(Span::styled(
            "Each of its variants serves one model: there is no catalog to list and nothing to prewarm.",
            theme.fg(Role::Fg),
        )),
        Line::from(Span::styled(
            "This tab lists the models of a multi-model endpoint (MME): the artifacts under its S3 prefix, what \
             the console saw of each (prewarmed, cold or warm latency, last error) and the endpoint's cache metrics.",
            theme.fg(Role::Muted),
        )),
        Line::from(""),
    ];
    lines.push(if mmes.is_empty() {
        Line::from(Span::styled(
            "No endpoint of this fleet is multi-model.",
            theme.fg(Role::Muted),
        ))
    } else {
        Line::from(vec![
            Span::styled("Pick one marked MME on the Endpoints tab (1): ", theme.fg(Role::Fg)),
            Span::styled(mmes.join(", "), theme.fg(Role::Accent)),
        ])
    });
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// One line of cache metrics of an MME variant.
fn metrics_line(data: &Data, e: &EndpointInfo, variant: &str, theme: &Theme) -> Line<'static> {
    let name = Span::styled(format!("{variant:<12} "), theme.fg(Role::Title));
    let Some((vm, _)) = mme_metrics(data, &e.name, variant) else {
        return Line::from(vec![name, Span::styled("no metrics yet", theme.fg(Role::Muted))]);
    };
    let values = |m: Metric, stat: &str| vm.series(m, stat).map(|s| s.values.as_slice()).unwrap_or(&[]);
    let (label, value) = (theme.fg(Role::Muted), theme.fg(Role::Fg));
    let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map(f).unwrap_or_else(|| "-".into());
    let s = &vm.summary;
    let loaded = values(Metric::LoadedModelCount, "Average");
    let hits: Vec<f64> = values(Metric::ModelCacheHit, "Average").to_vec();
    Line::from(vec![
        name,
        Span::styled("loaded ", label),
        Span::styled(
            opt(s.loaded_models_per_instance, &|v| format!("{v:.0}/instance ")),
            value,
        ),
        Span::styled(spark(loaded, SPARK_WIDTH), theme.fg(Role::Chart1)),
        Span::styled("  cache hit ", label),
        Span::styled(opt(s.cache_hit_ratio, &|v| format!("{:.1}% ", v * 100.0)), value),
        Span::styled(spark(&hits, SPARK_WIDTH), theme.fg(Role::Chart2)),
        Span::styled("  wait p99 ", label),
        Span::styled(opt(s.model_loading_wait_p99_ms, &fmt_ms), value),
        Span::styled("  download ", label),
        Span::styled(
            opt(mean(values(Metric::ModelDownloadingTime, "Average")), &fmt_ms),
            value,
        ),
        Span::styled("  load ", label),
        Span::styled(opt(mean(values(Metric::ModelLoadingTime, "Average")), &fmt_ms), value),
    ])
}

fn progress(f: &mut Frame, area: Rect, run: &PrewarmRun, theme: &Theme) {
    let [gauge, text] = Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
    let ratio = if run.total() == 0 {
        0.0
    } else {
        run.done() as f64 / run.total() as f64
    };
    let verb = if run.active() { "prewarming" } else { "prewarmed" };
    let cancel = if run.active() { " (Esc cancels)" } else { "" };
    f.render_widget(
        LineGauge::default()
            .ratio(ratio.clamp(0.0, 1.0))
            .label(Span::styled(
                format!("{verb} {}/{}{cancel} ", run.done(), run.total()),
                theme.fg(Role::Title).add_modifier(Modifier::BOLD),
            ))
            .filled_symbol(symbols::line::THICK_HORIZONTAL)
            .unfilled_symbol(symbols::line::HORIZONTAL)
            .filled_style(theme.fg(Role::Chart1))
            .unfilled_style(theme.fg(Role::Border)),
        gauge,
    );
    let mut spans = vec![
        Span::styled(format!("cold {}", run.cold), theme.fg(Role::StatusWarn)),
        Span::styled("  ·  ", theme.fg(Role::Muted)),
        Span::styled(format!("warm {}", run.warm), theme.fg(Role::StatusOk)),
        Span::styled("  ·  ", theme.fg(Role::Muted)),
        Span::styled(format!("failed {}", run.failed), theme.fg(Role::StatusError)),
        Span::styled("  ·  ", theme.fg(Role::Muted)),
    ];
    match &run.ended {
        None => {
            let loading = run
                .states
                .values()
                .filter(|s| !matches!(s, RunState::Done(_) | RunState::Queued));
            spans.push(Span::styled(
                format!("{} in flight", loading.count()),
                theme.fg(Role::Accent),
            ));
            if let Some(r) = &run.last_retry {
                spans.push(Span::styled(format!("  ·  retrying {r}"), theme.fg(Role::StatusWarn)));
            }
        }
        Some(RunEnd::Finished) => spans.push(Span::styled("done", theme.fg(Role::StatusOk))),
        Some(RunEnd::Cancelled) => spans.push(Span::styled(
            format!("cancelled after {} of {}", run.done(), run.total()),
            theme.fg(Role::StatusWarn),
        )),
        Some(RunEnd::Failed(e)) => spans.push(Span::styled(format!("failed: {e}"), theme.fg(Role::StatusError))),
    }
    f.render_widget(Paragraph::new(Line::from(spans)), text);
}

impl ModelsPane {
    /// Draws the pane (only the visible rows of the catalog are built).
    pub(super) fn draw(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        self.sync(data);
        let e = data.selected_endpoint();
        let title = match e {
            Some(e) => format!(" Models — {} ", e.name),
            None => " Models ".into(),
        };
        let inner = pane_frame(f, area, title, true, theme);
        let Some(e) = e else {
            let msg = no_endpoint_text(data.loaded);
            return muted(f, inner, msg, theme);
        };
        let Some(prefix) = e.mme_prefix() else {
            return not_mme(f, inner, e, data, theme);
        };
        let variants: Vec<&str> = e
            .variants
            .iter()
            .filter(|v| v.multi_model)
            .map(|v| v.name.as_str())
            .collect();
        let has_run = self.run.as_ref().is_some_and(|r| r.endpoint == e.name);
        let filtering = self.typing || !self.filter.is_empty();
        let [info, metrics, table, gauge, filter] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(variants.len() as u16),
            Constraint::Min(2),
            Constraint::Length(if has_run { 2 } else { 0 }),
            Constraint::Length(u16::from(filtering)),
        ])
        .areas(inner);
        self.info_line(f, info, data, e, prefix, theme);
        let lines: Vec<Line> = variants.iter().map(|v| metrics_line(data, e, v, theme)).collect();
        f.render_widget(Paragraph::new(lines), metrics);
        self.table(f, table, data, e, prefix, theme);
        if let Some(run) = self.run.as_ref().filter(|_| has_run) {
            progress(f, gauge, run, theme);
        }
        if filtering {
            let line = self.filter.prompt_line(self.typing, theme);
            f.render_widget(Paragraph::new(line), filter);
        }
    }

    fn info_line(&self, f: &mut Frame, area: Rect, data: &Data, e: &EndpointInfo, prefix: &str, theme: &Theme) {
        let (label, value) = (theme.fg(Role::Muted), theme.fg(Role::Fg));
        let mut spans = vec![Span::styled(prefix.to_string(), theme.fg(Role::Accent))];
        match data.catalogs.get(&e.name) {
            Some(cat) => {
                spans.push(Span::styled("  ·  ", label));
                if self.filter.is_empty() {
                    spans.push(Span::styled(format!("{} models", thousands(cat.models.len())), value));
                } else {
                    spans.push(Span::styled(
                        format!(
                            "{} of {} models",
                            thousands(self.view.len()),
                            thousands(cat.models.len())
                        ),
                        value,
                    ));
                }
                spans.push(Span::styled("  ·  ", label));
                spans.push(Span::styled(human_size(cat.total_bytes()), value));
            }
            None => match data.catalog_errors.get(&e.name) {
                Some(err) => spans.push(Span::styled(
                    format!("  ·  listing failed: {err} (c retries)"),
                    theme.fg(Role::StatusError),
                )),
                None => spans.push(Span::styled("  ·  listing…", label)),
            },
        }
        if !self.marked.is_empty() {
            spans.push(Span::styled("  ·  ", label));
            spans.push(Span::styled(
                format!("{} marked", thousands(self.marked.len())),
                theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
            ));
        }
        let window = e
            .variants
            .iter()
            .find_map(|v| mme_metrics(data, &e.name, &v.name).map(|m| m.1));
        if let Some(w) = window {
            spans.push(Span::styled(
                format!(
                    "  ·  metrics over {}",
                    window_label(std::time::Duration::from_secs_f64(w.max(0.0)))
                ),
                label,
            ));
        }
        // Last, as it is the first to give way on a narrow terminal.
        spans.push(Span::styled(
            "  ·  STATE: seen here or in the audit log; AWS reports no per-model calls",
            label,
        ));
        f.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    /// The catalog table (only the rows that fit, scrolled to keep the cursor in view), or why
    /// there is none yet.
    fn table(&mut self, f: &mut Frame, area: Rect, data: &Data, e: &EndpointInfo, prefix: &str, theme: &Theme) {
        let Some(cat) = data.catalogs.get(&e.name) else {
            return muted(
                f,
                area,
                format!("listing the models under {prefix}… (c lists again; failures go to the error log, e)"),
                theme,
            );
        };
        if self.view.is_empty() {
            let msg = if cat.models.is_empty() {
                format!("no model under {prefix}")
            } else {
                format!("no model matches /{}", self.filter.text())
            };
            return muted(f, area, msg, theme);
        }
        self.page = area.height.saturating_sub(1).max(1) as usize;
        self.scroll_to_cursor();
        let name_w = self
            .view
            .iter()
            .map(|i| cat.models[*i].key.chars().count() + 2)
            .max()
            .unwrap_or(0);
        let (cols, widths) = columns(area.width, name_w);
        let rows: Vec<Row> = self
            .view
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(self.page)
            .map(|(pos, i)| {
                let row = self.model_row(&cat.models[*i], data, e, theme, &cols);
                if pos == self.cursor {
                    row.style(theme.selection())
                } else {
                    row.style(theme.fg(Role::Fg))
                }
            })
            .collect();
        let header = Row::new(cols.iter().map(|c| TITLES[*c]))
            .style(theme.fg(Role::Title).add_modifier(Modifier::BOLD));
        f.render_widget(Table::new(rows, widths).header(header).style(theme.base()), area);
    }

    /// Moves the first row shown so that the cursor is on the page (and the page on the list).
    fn scroll_to_cursor(&mut self) {
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + self.page {
            self.offset = self.cursor + 1 - self.page;
        }
        self.offset = self.offset.min(self.view.len().saturating_sub(1));
    }

    /// One model's row: marked or not, its key (♨ when in the warm set), size, modification
    /// date, state (a prewarm of this endpoint in progress first), last latency and error.
    /// A model's row: the cells of the columns `cols` (indices into [`TITLES`]).
    fn model_row(&self, m: &CatalogEntry, data: &Data, e: &EndpointInfo, theme: &Theme, cols: &[usize]) -> Row<'static> {
        let run = self.run.as_ref().filter(|r| r.endpoint == e.name && r.active());
        let k = data.models.get(&(e.name.clone(), m.key.clone()));
        let mark = if self.marked.contains(&m.key) { "●" } else { " " };
        let mut cells = [
            Cell::from(Span::styled(mark, theme.fg(Role::Accent))),
            // ♨: in the warm set (models that should stay loaded).
            Cell::from(if data.warm_set.contains(&e.name, &m.key) {
                format!("♨ {}", m.key)
            } else {
                m.key.clone()
            }),
            Cell::from(human_size(m.size)),
            Cell::from(
                m.last_modified
                    .map(|t| time_text(t).chars().take(10).collect::<String>())
                    .unwrap_or_default(),
            ),
            Cell::from(state_span(
                run.and_then(|r| r.states.get(&m.key)),
                k,
                self.audited.get(&(e.name.clone(), m.key.clone())),
                theme,
            )),
            Cell::from(latency_span(k, theme)),
            Cell::from(Span::styled(
                k.and_then(|k| k.last_error.clone()).unwrap_or_default(),
                theme.fg(Role::StatusError),
            )),
        ];
        Row::new(cols.iter().map(|c| std::mem::take(&mut cells[*c])).collect::<Vec<_>>())
    }
}

/// The catalog's column titles, in the order of a model's cells.
const TITLES: [&str; 7] = ["", "MODEL", "SIZE", "MODIFIED", "STATE", "LAST LATENCY", "LAST ERROR"];

/// The columns shown in `width` columns and their widths. When all fit, MODEL and LAST ERROR
/// take the room left; otherwise each model's whole name and its STATE (what is known of it)
/// come first, then SIZE, LAST LATENCY, MODIFIED and LAST ERROR give way in that order.
fn columns(width: u16, name_w: usize) -> (Vec<usize>, Vec<Constraint>) {
    let name_w = name_w.clamp(10, 40) as u16;
    let least = [1, name_w, 9, 10, 32, 13, 10];
    let mut cols = crate::tui::widgets::columns::fit(&least, &[0, 1, 4, 2, 5, 3, 6], &[], width);
    cols.sort_unstable();
    let widths = if cols.len() == least.len() {
        vec![
            Constraint::Length(1),
            Constraint::Fill(5),
            Constraint::Length(9),
            Constraint::Length(10),
            Constraint::Length(32),
            Constraint::Length(13),
            Constraint::Fill(2),
        ]
    } else {
        // STATE takes what the others leave.
        cols.iter()
            .map(|&c| if c == 4 { Constraint::Fill(1) } else { Constraint::Length(least[c]) })
            .collect()
    };
    (cols, widths)
}
