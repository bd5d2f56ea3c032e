//! Endpoints: every endpoint with status, variants, instances, MME marker, autoscaling,
//! invocations/min, p99 model latency, 5XX rate and last modification. Sort by any column, `/`
//! filter (substring, or regex; `!` inverts), Enter drills in, `d` describes. Only the visible
//! rows are built on each frame.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Modifier;
use ratatui::text::Span;
use ratatui::widgets::{Cell, Paragraph, Row, Table};

mod regions;

use super::{KeyHint, Outbox, Pane, Tab};
use crate::aws::inventory::EndpointInfo;
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, Job};
use crate::tui::filter::Filter;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::describe::DescribeView;
use crate::tui::widgets::{Overlay, pane_frame};

/// Sortable columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// Name.
    Name,
    /// Status.
    Status,
    /// Variant count.
    Variants,
    /// Instances.
    Instances,
    /// Multi-model.
    Mme,
    /// Autoscaling.
    Autoscaling,
    /// Invocations per minute.
    Invocations,
    /// p99 model latency.
    P99,
    /// 5XX rate.
    Errors,
    /// Last modified.
    Modified,
}

const COLUMNS: [(Column, &str); 10] = [
    (Column::Name, "NAME"),
    (Column::Status, "STATUS"),
    (Column::Variants, "VARIANTS"),
    (Column::Instances, "INSTANCES"),
    (Column::Mme, "MME"),
    (Column::Autoscaling, "SCALING"),
    (Column::Invocations, "INV/MIN"),
    (Column::P99, "P99 MS"),
    (Column::Errors, "5XX"),
    (Column::Modified, "MODIFIED"),
];

/// The pane's state.
#[derive(Debug)]
pub struct EndpointsPane {
    /// Sort column.
    pub sort: Column,
    /// Descending.
    pub descending: bool,
    /// The filter.
    pub filter: Filter,
    /// Whether the filter is being typed.
    pub typing: bool,
    /// Indices into the inventory, filtered and sorted.
    pub view: Vec<usize>,
    /// Selected row in `view`.
    pub cursor: usize,
    /// First visible row.
    pub offset: usize,
    /// Rows visible at the last draw.
    page: usize,
}

impl Default for EndpointsPane {
    fn default() -> Self {
        EndpointsPane {
            sort: Column::Modified,
            descending: true,
            filter: Filter::default(),
            typing: false,
            view: Vec::new(),
            cursor: 0,
            offset: 0,
            page: 20,
        }
    }
}

fn instances(e: &EndpointInfo) -> i32 {
    e.variants.iter().map(|v| v.current_instances).sum()
}

fn instances_text(e: &EndpointInfo) -> String {
    let mut types: Vec<String> = Vec::new();
    for v in &e.variants {
        let t = v.instance_type.clone().unwrap_or_else(|| "serverless".into());
        if !types.contains(&t) {
            types.push(t);
        }
    }
    format!("{} × {}", types.join("+"), instances(e))
}

fn scaling_text(e: &EndpointInfo) -> String {
    e.autoscaling
        .iter()
        .map(|s| format!("{}-{}", s.min, s.max))
        .collect::<Vec<_>>()
        .join(",")
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

impl EndpointsPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Endpoints";

    /// Rebuilds the filtered, sorted view (after new data, a new filter or sort).
    pub fn rebuild(&mut self, data: &Data) {
        let selected_name = self
            .view
            .get(self.cursor)
            .and_then(|i| data.inventory.get(*i))
            .map(|e| e.name.clone());
        let mut view: Vec<usize> = (0..data.inventory.len())
            .filter(|i| self.filter.matches(&data.inventory[*i].name))
            .collect();
        let key_f = |e: &EndpointInfo| -> f64 {
            match self.sort {
                Column::Variants => e.variants.len() as f64,
                Column::Instances => instances(e) as f64,
                Column::Mme => f64::from(u8::from(e.multi_model)),
                Column::Autoscaling => e.autoscaling.iter().map(|s| s.max).sum::<i32>() as f64,
                Column::Invocations => data.invocations_per_min(e).unwrap_or(-1.0),
                Column::P99 => data.p99(e).unwrap_or(-1.0),
                Column::Errors => data.error_rate_5xx(e).unwrap_or(-1.0),
                Column::Modified => e.modified,
                Column::Name | Column::Status => 0.0,
            }
        };
        view.sort_by(|a, b| {
            let (ea, eb) = (&data.inventory[*a], &data.inventory[*b]);
            let ord = match self.sort {
                Column::Name => ea.name.cmp(&eb.name),
                Column::Status => ea.status.cmp(&eb.status).then(ea.name.cmp(&eb.name)),
                _ => key_f(ea).total_cmp(&key_f(eb)).then(ea.name.cmp(&eb.name)),
            };
            if self.descending { ord.reverse() } else { ord }
        });
        self.view = view;
        self.cursor = selected_name
            .and_then(|n| self.view.iter().position(|i| data.inventory[*i].name == n))
            .unwrap_or(0)
            .min(self.view.len().saturating_sub(1));
    }

    fn selected_name(&self, data: &Data) -> Option<String> {
        self.view
            .get(self.cursor)
            .and_then(|i| data.inventory.get(*i))
            .map(|e| e.name.clone())
    }

    fn move_to(&mut self, cursor: usize, data: &mut Data) {
        self.cursor = cursor.min(self.view.len().saturating_sub(1));
        self.select_region(data);
        data.selected = self.selected_name(data).or(data.selected.take());
    }

    /// In a multi-region view, the selected row's pair (names may repeat across regions).
    fn select_region(&self, data: &mut Data) {
        if let Some(i) = self.view.get(self.cursor) {
            data.selected_region = data.origins.get(*i).copied();
        }
    }

    /// The sort column's title with its direction arrow.
    fn header(&self, theme: &Theme, shown: &[usize]) -> Row<'static> {
        Row::new(shown.iter().map(|i| {
            let Some((c, t)) = COLUMNS.get(*i) else {
                return Cell::from(regions::TITLES[*i - COLUMNS.len()]);
            };
            let text = if *c == self.sort {
                format!("{t}{}", if self.descending { "▼" } else { "▲" })
            } else {
                t.to_string()
            };
            Cell::from(text)
        }))
        .style(theme.fg(Role::Title).add_modifier(Modifier::BOLD))
    }
}

impl Pane for EndpointsPane {
    fn on_event(&mut self, ev: &AppEvent, data: &mut Data, _out: &mut Outbox, _visible: bool) {
        if matches!(ev, AppEvent::Inventory(Ok(_))) {
            self.rebuild(data);
        }
    }

    fn capturing_text(&self) -> bool {
        self.typing
    }

    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        if self.typing {
            if !self.filter.type_key(key.code, &mut self.typing) {
                return true;
            }
            self.rebuild(data);
            self.move_to(self.cursor, data);
            return true;
        }
        let last = self.view.len().saturating_sub(1);
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => self.move_to(self.cursor.saturating_add(1).min(last), data),
            KeyCode::Up | KeyCode::Char('k') => self.move_to(self.cursor.saturating_sub(1), data),
            KeyCode::PageDown => self.move_to(self.cursor.saturating_add(self.page), data),
            KeyCode::PageUp => self.move_to(self.cursor.saturating_sub(self.page), data),
            KeyCode::Home | KeyCode::Char('g') => self.move_to(0, data),
            KeyCode::End | KeyCode::Char('G') => self.move_to(last, data),
            KeyCode::Char('/') => {
                self.typing = true;
                self.filter.clear();
            }
            KeyCode::Esc if !self.filter.is_empty() => {
                self.filter.clear();
                self.rebuild(data);
            }
            KeyCode::Char('s') => {
                let i = COLUMNS.iter().position(|c| c.0 == self.sort).unwrap_or(0);
                self.sort = COLUMNS[(i + 1) % COLUMNS.len()].0;
                self.rebuild(data);
            }
            KeyCode::Char('S') => {
                self.descending = !self.descending;
                self.rebuild(data);
            }
            KeyCode::Enter => {
                self.select_region(data);
                if let Some(n) = self.selected_name(data) {
                    data.selected = Some(n);
                    out.switch_to = Some(Tab::Variants);
                }
            }
            KeyCode::Char('d') => {
                self.select_region(data);
                if let Some(n) = self.selected_name(data) {
                    data.selected = Some(n.clone());
                    out.overlay = Some(Overlay::Describe(DescribeView::loading(format!("describe {n}"))));
                    out.job(Job::Describe { endpoint: n });
                }
            }
            _ => return false,
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        if self.view.len() != data.inventory.len() && self.filter.is_empty() {
            self.rebuild(data);
        }
        let title = format!(
            " Endpoints ({}{}) ",
            self.view.len(),
            if self.filter.is_empty() {
                String::new()
            } else {
                format!(" of {}, filter {}", data.inventory.len(), self.filter.text())
            }
        );
        let inner = pane_frame(f, area, title, true, theme);
        let (table_area, filter_area) = if self.typing || !self.filter.is_empty() {
            (
                Rect {
                    height: inner.height.saturating_sub(1),
                    ..inner
                },
                Some(Rect {
                    y: inner.bottom().saturating_sub(1),
                    height: 1,
                    ..inner
                }),
            )
        } else {
            (inner, None)
        };
        let (table_area, failed_area) = regions::split_failed(table_area, data);
        regions::render_failed(f, failed_area, data, theme);
        if !data.loaded {
            let msg = if data.refresh_failed {
                "could not load endpoints — see the error log (e)"
            } else {
                "loading endpoints…"
            };
            f.render_widget(Paragraph::new(Span::styled(msg, theme.fg(Role::Muted))), table_area);
            return;
        }
        self.page = table_area.height.saturating_sub(1).max(1) as usize;
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + self.page {
            self.offset = self.cursor + 1 - self.page;
        }
        self.offset = self.offset.min(self.view.len().saturating_sub(1));
        let name_width = self
            .view
            .iter()
            .skip(self.offset)
            .take(self.page)
            .map(|i| data.inventory[*i].name.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(8, 48) as u16;
        // Columns by priority: on a narrow terminal the least important ones go first.
        let all_widths = [name_width, 10, 16, 20, 4, 8, 9, 8, 7, 16, 12, regions::region_width(data)];
        // ACCOUNT and REGION (multi-region views only) go last but one, before NAME.
        let priority: &[usize] = if data.regions.is_empty() {
            &[0, 1, 7, 8, 6, 3, 2, 5, 4, 9]
        } else {
            &[0, 11, 10, 1, 7, 8, 6, 3, 2, 5, 4, 9]
        };
        let mut shown: Vec<usize> = Vec::new();
        let mut used = 0u16;
        for &c in priority {
            let w = all_widths[c] + 1;
            if used + w <= table_area.width || c == 0 {
                shown.push(c);
                used += w;
            }
        }
        shown.sort_unstable_by_key(|c| regions::display_rank(*c));
        let widths: Vec<Constraint> = shown
            .iter()
            .map(|c| {
                if *c == 9 {
                    Constraint::Min(all_widths[*c])
                } else {
                    Constraint::Length(all_widths[*c])
                }
            })
            .collect();
        let rows: Vec<Row> = self
            .view
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(self.page)
            .map(|(pos, i)| {
                let e = &data.inventory[*i];
                let cells = vec![
                    Cell::from(e.name.clone()),
                    Cell::from(Span::styled(e.status.clone(), theme.status(&e.status))),
                    Cell::from(e.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(",")),
                    Cell::from(instances_text(e)),
                    Cell::from(if e.multi_model { "MME" } else { "" }),
                    Cell::from(scaling_text(e)),
                    Cell::from(opt(data.invocations_per_min(e), |v| format!("{v:.0}"))),
                    Cell::from(opt(data.p99(e), |v| format!("{v:.1}"))),
                    Cell::from(Span::styled(
                        opt(data.error_rate_5xx(e), |v| format!("{:.2}%", v * 100.0)),
                        if data.error_rate_5xx(e).unwrap_or(0.0) > 0.01 {
                            theme.fg(Role::StatusError)
                        } else {
                            theme.fg(Role::Fg)
                        },
                    )),
                    Cell::from(crate::format::time_text(e.modified)),
                ];
                let mut cells: Vec<Option<Cell>> = cells.into_iter().map(Some).collect();
                cells.extend(regions::cells(data, *i).map(Some));
                let row = Row::new(shown.iter().filter_map(|n| cells.get_mut(*n).and_then(Option::take)));
                if pos == self.cursor {
                    row.style(theme.selection())
                } else {
                    row.style(theme.fg(Role::Fg))
                }
            })
            .collect();
        f.render_widget(
            Table::new(rows, widths)
                .header(self.header(theme, &shown))
                .style(theme.base()),
            table_area,
        );
        if let Some(fa) = filter_area {
            let line = self.filter.prompt_line(self.typing, theme);
            f.render_widget(Paragraph::new(line), fa);
        }
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        if self.typing {
            return vec![
                KeyHint::new("Enter", "keep filter"),
                KeyHint::new("Esc", "clear filter"),
            ];
        }
        let none = data.selected.is_none();
        vec![
            KeyHint::new("↑↓", "move"),
            KeyHint::when("Enter", "variants", none),
            KeyHint::when("d", "describe", none),
            KeyHint::new("/", "filter"),
            KeyHint::new("s/S", "sort/reverse"),
            KeyHint::new("r", "refresh"),
            KeyHint::new("?", "help"),
            KeyHint::new("q", "quit"),
        ]
    }
}
