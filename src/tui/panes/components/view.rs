//! Drawing of the Components pane: the endpoint line (components, instances), one row per
//! component with columns that give way by priority on a narrow terminal, the selected
//! component's detail, and the copies form. Names, models, images and reasons come from outside
//! and are shown with their control characters written out.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::state::{ZeroState, copies_bar, per_copy_text, reservation_detail, reservation_text, utilization_text};
use super::{ComponentsPane, CopiesForm};
use crate::aws::components::Component;
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::observe::metrics::ComponentSummary;
use crate::format::escape_line;
use crate::tui::widgets::{muted, no_endpoint_text};
use crate::tui::data::{ComponentsRead, Data};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::chart::fmt_ms;
use crate::tui::widgets::pack::pack_lines;
use crate::tui::widgets::pane_frame;

/// Column titles and widths, in display order.
const COLUMNS: [(&str, u16); 11] = [
    ("NAME", 0),
    ("STATUS", 10),
    ("STATE", 13),
    ("COPIES", 9),
    ("RESERVES/COPY", 22),
    ("USED %", 17),
    ("P50", 8),
    ("P99", 8),
    ("4XX", 5),
    ("5XX", 5),
    ("INV/COPY", 8),
];

/// Which columns stay first on a narrow terminal: name, state, copies, used, p99, 5XX, status,
/// reservation, p50, 4XX, invocations per copy.
const PRIORITY: [usize; 11] = [0, 2, 3, 5, 7, 9, 1, 4, 6, 8, 10];

/// Rows the detail below the table keeps at least.
const DETAIL_ROWS: u16 = 6;

/// The instances of an IC endpoint, by variant: `ml.g5.2xlarge × 2`.
pub fn instances_line(e: &EndpointInfo) -> String {
    let parts: Vec<String> = e
        .variants
        .iter()
        .map(|v| {
            let t = v.instance_type.as_deref().unwrap_or("?");
            format!("{} {t} × {}", v.name, v.current_instances)
        })
        .collect();
    parts.join(", ")
}

/// What an endpoint without inference components shows: which endpoints have them.
fn not_components(f: &mut Frame, area: Rect, e: &EndpointInfo, data: &Data, theme: &Theme) {
    let ics: Vec<&str> = data
        .inventory
        .iter()
        .filter(|x| x.kind.is_components())
        .map(|x| x.name.as_str())
        .collect();
    let mut lines = vec![
        Line::from(vec![
            Span::styled(e.name.clone(), theme.fg(Role::Accent).add_modifier(Modifier::BOLD)),
            Span::styled(
                " hosts no inference components.",
                theme.fg(Role::Fg).add_modifier(Modifier::BOLD),
            ),
        ]),
        Line::from(""),
        Line::from(Span::styled(
            "This tab lists the components of an inference-components endpoint (marked IC on the Endpoints tab): \
             each model with its copies, what a copy reserves and uses, its latency and errors, and whether it \
             is at zero. Multi-model endpoints are on the Models tab.",
            theme.fg(Role::Muted),
        )),
        Line::from(""),
    ];
    lines.push(if ics.is_empty() {
        Line::from(Span::styled("No endpoint of this fleet hosts components.", theme.fg(Role::Muted)))
    } else {
        Line::from(vec![
            Span::styled("Endpoints with components: ", theme.fg(Role::Fg)),
            Span::styled(ics.join(", "), theme.fg(Role::Accent)),
        ])
    });
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// The style of a zero-state badge.
fn badge_style(z: ZeroState, theme: &Theme) -> Style {
    match z {
        ZeroState::AtZero => theme.fg(Role::StatusWarn).add_modifier(Modifier::BOLD),
        ZeroState::Waking { .. } => theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
        ZeroState::Serving => theme.fg(Role::StatusOk),
        ZeroState::Failed => theme.fg(Role::StatusError).add_modifier(Modifier::BOLD),
    }
}

fn ms(v: Option<f64>) -> String {
    v.map(fmt_ms).unwrap_or_else(|| "-".into())
}

/// The cells of one component, in [`COLUMNS`] order.
fn cells(c: &Component, z: ZeroState, s: Option<&ComponentSummary>, now: f64, theme: &Theme) -> Vec<Cell<'static>> {
    // `+ 0.0`: an empty sum is -0.0, shown as 0.
    let count = |v: Option<f64>| v.map(|v| format!("{:.0}", v + 0.0)).unwrap_or_else(|| "-".into());
    let errors = |v: Option<f64>, role: Role| {
        let text = count(v);
        let style = if v.is_some_and(|v| v > 0.0) { theme.fg(role) } else { theme.fg(Role::Fg) };
        Cell::from(Span::styled(text, style))
    };
    vec![
        Cell::from(escape_line(&c.name).into_owned()),
        Cell::from(Span::styled(escape_line(&c.status).into_owned(), theme.status(&c.status))),
        Cell::from(Span::styled(z.badge(now), badge_style(z, theme))),
        Cell::from(copies_bar(c, 3)),
        Cell::from(reservation_text(c)),
        Cell::from(utilization_text(s)),
        Cell::from(ms(s.and_then(|s| s.model_latency_p50_ms))),
        Cell::from(ms(s.and_then(|s| s.model_latency_p99_ms))),
        errors(s.map(|s| s.errors_4xx), Role::StatusWarn),
        errors(s.map(|s| s.errors_5xx), Role::StatusError),
        Cell::from(per_copy_text(s)),
    ]
}

/// The label–value lines of the selected component's detail.
fn detail_lines(c: &Component, s: Option<&ComponentSummary>, pane: &ComponentsPane, theme: &Theme) -> Vec<Line<'static>> {
    let (label, value) = (theme.fg(Role::Muted), theme.fg(Role::Fg));
    let pair = |l: &str, v: String| [Span::styled(format!("  {l} "), label), Span::styled(v, value)];
    let mut spec = vec![Span::styled(escape_line(&c.name).into_owned(), theme.fg(Role::Title))];
    spec.extend(pair("model", escape_line(&c.model_text()).into_owned()));
    spec.extend(pair("variant", escape_line(&c.variant).into_owned()));
    if let Some(image) = &c.image {
        spec.extend(pair("image", escape_line(image).into_owned()));
    }
    if let Some(model) = pane.rollout(c) {
        spec.push(Span::styled(
            format!("  rolling over to {}", escape_line(model)),
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
        ));
    }
    let mut lines = vec![Line::from(spec)];
    let reserves = match &c.reservation {
        Some(r) => reservation_detail(r),
        None if c.is_adapter() => "nothing of its own: it runs in its base component's copies".into(),
        None => "-".into(),
    };
    lines.push(Line::from(pair("reserves per copy", reserves).to_vec()));
    let placement = if c.placement.is_empty() {
        "no copy placed".to_string()
    } else {
        let each: Vec<String> = c
            .placement
            .iter()
            .map(|p| format!("{} {} cop{}", p.instance_type, p.copies, if p.copies == 1 { "y" } else { "ies" }))
            .collect();
        each.join(", ")
    };
    let mut copies = pair("copies", format!("{} of {} desired", c.copies.current, c.copies.desired)).to_vec();
    copies.extend(pair("placed", placement));
    if let Some(took) = pane.served_after.get(&(c.endpoint.clone(), c.name.clone())) {
        copies.extend(pair("woke in", super::state::elapsed(*took)));
    }
    lines.push(Line::from(copies));
    if let Some(s) = s {
        let count = |v: f64| format!("{:.0}", v + 0.0);
        let mut calls = pair("calls (15m)", count(s.invocations)).to_vec();
        calls.extend(pair("4XX", count(s.errors_4xx)));
        calls.extend(pair("5XX", count(s.errors_5xx)));
        calls.extend(pair("refused at zero", count(s.no_capacity_failures)));
        calls.extend(pair("used of the reservation", super::state::utilization_detail(s)));
        lines.push(Line::from(calls));
    }
    if let Some(why) = &c.failure_reason {
        lines.push(Line::from(vec![
            Span::styled("  failure ", label),
            Span::styled(escape_line(why).into_owned(), theme.fg(Role::StatusError)),
        ]));
    }
    let deployment = match &c.last_deployment {
        Some(d) => {
            let mut parts = Vec::new();
            parts.extend(d.batch.as_ref().map(|b| format!("batch {b}")));
            parts.extend(d.bake_secs.map(|b| format!("bake {b}s")));
            parts.extend(d.timeout_secs.map(|t| format!("timeout {t}s")));
            parts.extend(d.rollback_batch.as_ref().map(|b| format!("rollback batch {b}")));
            if !d.alarms.is_empty() {
                let alarms: Vec<String> = d.alarms.iter().map(|a| escape_line(a).into_owned()).collect();
                parts.push(format!("alarms {}", alarms.join(", ")));
            }
            parts.join(" · ")
        }
        None => "none recorded".into(),
    };
    let mut times = pair("last deployment", deployment).to_vec();
    times.extend(pair("modified", crate::format::time_text(c.modified)));
    lines.push(Line::from(times));
    lines
}

/// The rolling-update form's line: each field, the one being typed highlighted.
fn update_line(form: &super::UpdateForm, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(
        format!("roll {} over:", escape_line(&form.component)),
        theme.fg(Role::Title),
    )];
    for (i, name) in super::update::FIELDS.iter().enumerate() {
        spans.push(Span::styled(format!("  {name} "), theme.fg(Role::Muted)));
        let style = if i == form.focus {
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD)
        } else {
            theme.fg(Role::Fg)
        };
        let cursor = if i == form.focus { "▏" } else { "" };
        spans.push(Span::styled(format!("{}{cursor}", escape_line(&form.values[i])), style));
    }
    if let Some(e) = &form.error {
        spans.push(Span::styled(format!("  {e}"), theme.fg(Role::StatusError)));
    }
    Line::from(spans)
}

/// The copies form's line.
fn form_line(form: &CopiesForm, theme: &Theme) -> Line<'static> {
    let mut spans = vec![
        Span::styled(
            format!("copies of {}: {} → ", escape_line(&form.component), form.seen),
            theme.fg(Role::Title),
        ),
        Span::styled(
            format!("{}▏", form.text),
            theme.fg(Role::Accent).add_modifier(Modifier::BOLD),
        ),
    ];
    if let Some(e) = &form.error {
        spans.push(Span::styled(format!("  {e}"), theme.fg(Role::StatusError)));
    }
    Line::from(spans)
}

impl ComponentsPane {
    /// Draws the pane.
    pub(super) fn draw(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        let e = data.selected_endpoint();
        let title = match e {
            Some(e) => format!(" Components — {} ", e.name),
            None => " Components ".into(),
        };
        let inner = pane_frame(f, area, title, true, theme);
        let Some(e) = e else {
            let msg = no_endpoint_text(data.loaded);
            return muted(f, inner, msg, theme);
        };
        if !e.kind.is_components() {
            return not_components(f, inner, e, data, theme);
        }
        let Some(read) = self.read(data) else {
            let msg = match &self.error {
                Some((ep, why)) if *ep == e.name => format!("the components could not be read: {why}"),
                _ => format!("reading the components of {}…", e.name),
            };
            return muted(f, inner, msg, theme);
        };
        // The table as tall as its rows (keeping the detail's rows), the detail below it.
        let form_height = u16::from(self.form.is_some() || self.update.is_some());
        let room = inner.height.saturating_sub(2 + DETAIL_ROWS + form_height).max(2);
        let table_height = (read.components.len() as u16 + 1).clamp(2, room);
        let [info, table, _gap, detail, form] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(table_height),
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(form_height),
        ])
        .areas(inner);
        f.render_widget(Paragraph::new(self.info_line(e, read, theme)), info);
        self.draw_table(f, table, read, theme);
        if let Some(c) = read.components.get(self.cursor) {
            let s = read.metrics.as_ref().and_then(|m| m.component(&e.name, &c.name)).map(|m| &m.summary);
            let lines = pack_lines(detail_lines(c, s, self, theme), detail.width as usize);
            f.render_widget(Paragraph::new(lines), detail);
        }
        if let Some(form_state) = &self.form {
            f.render_widget(Paragraph::new(form_line(form_state, theme)), form);
        }
        if let Some(update) = &self.update {
            let lines = pack_lines(vec![update_line(update, theme)], form.width as usize);
            f.render_widget(Paragraph::new(lines), form);
        }
    }

    /// `2 components · AllTraffic ml.g5.2xlarge × 1 · metrics …`.
    fn info_line(&self, e: &EndpointInfo, read: &ComponentsRead, theme: &Theme) -> Line<'static> {
        let (label, value) = (theme.fg(Role::Muted), theme.fg(Role::Fg));
        let n = read.components.len();
        let mut spans = vec![
            Span::styled(crate::format::count(n, "component"), value),
            Span::styled("  on ", label),
            Span::styled(instances_line(e), value),
            Span::styled("  read ", label),
            Span::styled(crate::format::time_text(read.at).chars().skip(11).collect::<String>(), value),
        ];
        if let Some(why) = &read.metrics_error {
            spans.push(Span::styled(format!("  metrics: {why}"), theme.fg(Role::StatusWarn)));
        }
        Line::from(spans)
    }

    fn draw_table(&mut self, f: &mut Frame, area: Rect, read: &ComponentsRead, theme: &Theme) {
        let name_width = read
            .components
            .iter()
            .map(|c| escape_line(&c.name).chars().count())
            .max()
            .unwrap_or(4)
            .clamp(8, 40) as u16;
        let widths: Vec<u16> = COLUMNS
            .iter()
            .enumerate()
            .map(|(i, (_, w))| if i == 0 { name_width } else { *w })
            .collect();
        let mut shown = crate::tui::widgets::columns::fit(&widths, &PRIORITY, &[], area.width);
        shown.sort_unstable();
        self.page = area.height.saturating_sub(1).max(1) as usize;
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + self.page {
            self.offset = self.cursor + 1 - self.page;
        }
        let metrics = read.metrics.as_ref();
        let rows: Vec<Row> = read
            .components
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(self.page)
            .map(|(i, c)| {
                let s = metrics.and_then(|m| m.component(&c.endpoint, &c.name)).map(|m| &m.summary);
                let mut all: Vec<Option<Cell>> = cells(c, self.zero_state_in(c, read), s, self.now.max(read.at), theme)
                    .into_iter()
                    .map(Some)
                    .collect();
                let row = Row::new(shown.iter().filter_map(|n| all[*n].take()));
                if i == self.cursor { row.style(theme.selection()) } else { row.style(theme.fg(Role::Fg)) }
            })
            .collect();
        let header = Row::new(shown.iter().map(|n| Cell::from(COLUMNS[*n].0))).style(theme.fg(Role::Title));
        let constraints: Vec<Constraint> = shown.iter().map(|n| Constraint::Length(widths[*n])).collect();
        f.render_widget(Table::new(rows, constraints).header(header).column_spacing(1), area);
    }
}

/// The line an IC endpoint's header adds (the Variants pane's): its components with their
/// state and copies, and its instances; None for other endpoints.
pub fn head_line(data: &Data, e: &EndpointInfo, theme: &Theme) -> Option<Line<'static>> {
    if !e.kind.is_components() {
        return None;
    }
    let muted = theme.fg(Role::Muted);
    let mut spans = vec![Span::styled("components", muted)];
    match data.components.get(&e.name) {
        None => spans.push(Span::styled(" …", muted)),
        Some(read) if read.components.is_empty() => spans.push(Span::styled(" none yet", muted)),
        Some(read) => {
            for c in &read.components {
                // An adapter serves in its base's copies: it is at zero when its base is.
                let base = c.base_component.as_ref().and_then(|b| read.component(b));
                let z = ZeroState::of(base.unwrap_or(c), None);
                spans.push(Span::styled(format!("  {}", escape_line(&c.name)), theme.fg(Role::Fg)));
                spans.push(Span::styled(format!(" {}", z.badge(read.at)), badge_style(z, theme)));
                spans.push(Span::styled(format!(" {}/{}", c.copies.current, c.copies.desired), muted));
            }
        }
    }
    spans.push(Span::styled("  instances ", muted));
    spans.push(Span::styled(instances_line(e), theme.fg(Role::Fg)));
    Some(Line::from(spans))
}
