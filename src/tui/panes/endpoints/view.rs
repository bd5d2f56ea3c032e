//! Drawing of the Endpoints pane: the table of the visible rows, p99 and 5XX coloured against
//! the configured thresholds, p99 with the sample count of the complete period it describes.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Cell, Paragraph, Row, Table, Wrap};

use super::{EndpointsPane, instances_text, kind_text, opt, scaling_text};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::config::Standing;
use crate::tui::data::Data;
use crate::tui::described::RowState;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::pane_frame;

/// The style of a figure by where it stands against its thresholds: a breach is bold.
fn standing_style(s: Standing, theme: &Theme) -> Style {
    match s {
        Standing::Ok => theme.fg(Role::Fg),
        Standing::Warn => theme.fg(Role::StatusWarn),
        Standing::Breach => theme.fg(Role::StatusError).add_modifier(Modifier::BOLD),
    }
}

/// A sample count in few characters: `612`, `12k`.
fn samples_text(n: f64) -> String {
    if n >= 10_000.0 { format!("{:.0}k", n / 1000.0) } else { format!("{n:.0}") }
}

/// What a frame shows that depends on every row of the view, not only the visible ones: worked
/// out when the data or the view changes (an event, a rebuild), not on every frame, so that a
/// frame of 10,000 rows costs what its visible rows cost.
#[derive(Debug, Clone, Default)]
pub(super) struct Derived {
    /// The title's caption of the p99 period.
    caption: String,
    /// The KIND column's width.
    kind_width: u16,
    /// The columns that say the same on every row.
    same: Vec<usize>,
}

/// `p99 of HH:MM`: the complete period the p99 figures describe (the newest one shown).
fn period_caption(data: &Data) -> String {
    let newest = data
        .inventory
        .iter()
        .filter_map(|e| data.p99_detail(e)?.period_start)
        .reduce(f64::max);
    match newest {
        Some(at) => {
            let clock: String = crate::format::time_text(at).chars().skip(11).collect();
            format!(" · P99 of the last complete period {clock}, N samples")
        }
        None => String::new(),
    }
}

fn p99_cell(data: &Data, e: &EndpointInfo, theme: &Theme) -> Cell<'static> {
    match data.p99_detail(e) {
        Some(p) => {
            let n = p.samples.map(|n| format!(" ({})", samples_text(n))).unwrap_or_default();
            Cell::from(Span::styled(
                format!("{:.1}{n}", p.ms),
                standing_style(data.thresholds.p99(p.ms), theme),
            ))
        }
        None => Cell::from(Span::styled("-", theme.fg(Role::Muted))),
    }
}

fn rate_cell(data: &Data, e: &EndpointInfo, theme: &Theme) -> Cell<'static> {
    let rate = data.error_rate_5xx(e);
    Cell::from(Span::styled(
        opt(rate, |v| format!("{:.2}%", v * 100.0)),
        match rate {
            Some(r) => standing_style(data.thresholds.rate_5xx(r), theme),
            None => theme.fg(Role::Muted),
        },
    ))
}

impl EndpointsPane {
    /// Draws the pane: the title (with the period the p99 figures describe), the table of the
    /// visible rows, the filter line.
    pub(super) fn draw(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        if self.view.len() != data.inventory.len() && self.filter.is_empty() {
            self.rebuild(data);
        }
        let derived = match self.derived.take() {
            Some(d) => d,
            None => Derived {
                caption: period_caption(data),
                kind_width: self.kind_width(data),
                same: self.same_columns(data),
            },
        };
        let describing = match data.undescribed.loading() {
            0 => String::new(),
            n => format!(", {n} describing{}", super::partial::LOADING),
        };
        let title = format!(
            " Endpoints ({}{describing}{}){} ",
            self.view.len(),
            if self.filter.is_empty() {
                String::new()
            } else {
                format!(" of {}, filter {}", data.inventory.len(), self.filter.text())
            },
            derived.caption
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
        let (table_area, failed_area) = super::regions::split_failed(table_area, data);
        super::regions::render_failed(f, failed_area, data, theme);
        if !data.loaded {
            let msg = match (&data.refresh_error, data.refresh_failed) {
                (Some(why), _) => format!("could not load endpoints: {}", escape_controls(why)),
                (None, true) => "could not load endpoints — see the error log (e)".into(),
                (None, false) => "loading endpoints…".into(),
            };
            f.render_widget(
                Paragraph::new(Span::styled(msg, theme.fg(Role::Muted))).wrap(Wrap { trim: false }),
                table_area,
            );
            self.derived = Some(derived);
            return;
        }
        self.page = table_area.height.saturating_sub(1).max(1) as usize;
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + self.page {
            self.offset = self.cursor + 1 - self.page;
        }
        self.offset = self.offset.min(self.view.len().saturating_sub(1));
        let (shown, widths) = self.columns(data, table_area.width, &derived);
        self.derived = Some(derived);
        let rows = self.rows(data, theme, &shown);
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

    /// The columns that fit in `width`, in display order, with their widths: on a narrow
    /// terminal the least important go first (ACCOUNT and REGION last but one, before NAME).
    fn columns(&self, data: &Data, width: u16, derived: &Derived) -> (Vec<usize>, Vec<Constraint>) {
        let name_width = self
            .view
            .iter()
            .skip(self.offset)
            .take(self.page)
            .map(|i| {
                let e = &data.inventory[*i];
                let failed_badge = 2 * usize::from(matches!(data.row_state(*i), RowState::Failed(_)));
                e.name.chars().count() + data.alarm_badge(&e.name).chars().count() + failed_badge
            })
            .max()
            .unwrap_or(4)
            .clamp(8, 48) as u16;
        let kind_width = derived.kind_width;
        // Columns by priority: on a narrow terminal the least important ones go first.
        let all_widths = [
            name_width,
            10,
            16,
            20,
            kind_width,
            8,
            9,
            12,
            7,
            16,
            12,
            super::regions::region_width(data),
        ];
        // ACCOUNT and REGION (multi-region views only) go last but one, before NAME.
        let priority: &[usize] = if data.regions.is_empty() {
            &[0, 1, 7, 8, 6, 3, 2, 5, 4, 9]
        } else {
            &[0, 11, 10, 1, 7, 8, 6, 3, 2, 5, 4, 9]
        };
        let mut shown = crate::tui::widgets::columns::fit(&all_widths, priority, &derived.same, width);
        shown.sort_unstable_by_key(|c| super::regions::display_rank(*c));
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
        (shown, widths)
    }

    /// KIND is as wide as its longest mark (`ASYNC+SHADOW`), four at least.
    fn kind_width(&self, data: &Data) -> u16 {
        self.view
            .iter()
            .map(|i| kind_text(&data.inventory[*i]).chars().count())
            .max()
            .unwrap_or(0)
            .clamp(4, 16) as u16
    }

    /// The columns that say the same on every row of the view (two rows at least), so give way
    /// first: VARIANTS, INSTANCES, MME, SCALING, ACCOUNT, REGION. STATUS stays (a row's health
    /// is read from it), as do the measured columns.
    fn same_columns(&self, data: &Data) -> Vec<usize> {
        if self.view.len() < 2 {
            return Vec::new();
        }
        let text = |column: usize, index: usize| {
            let e = &data.inventory[index];
            match column {
                2 => e.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(","),
                3 => instances_text(e),
                4 => kind_text(e),
                5 => scaling_text(e),
                c => super::regions::texts(data, index)[c - 10].clone(),
            }
        };
        [2, 3, 4, 5, 10, 11]
            .into_iter()
            .filter(|&c| {
                let first = text(c, self.view[0]);
                self.view.iter().all(|&i| text(c, i) == first)
            })
            .collect()
    }

    /// The visible rows: each endpoint's cells in the order of `shown`.
    fn rows(&self, data: &Data, theme: &Theme, shown: &[usize]) -> Vec<Row<'static>> {
        self
            .view
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(self.page)
            .map(|(pos, i)| {
                let e = &data.inventory[*i];
                let state = data.row_state(*i);
                let cells = if state != RowState::Described {
                    super::partial::cells(data, e, state, theme)
                } else {
                    vec![
                    // A firing CloudWatch alarm puts a badge before the name.
                    Cell::from(ratatui::text::Line::from(vec![
                        Span::styled(data.alarm_badge(&e.name), theme.fg(Role::StatusError)),
                        Span::raw(e.name.clone()),
                    ])),
                    // A deployment in flight: a mark after the status, cut first on a narrow column.
                    Cell::from(Span::styled(
                        if e.deploying { format!("{} ⇄", e.status) } else { e.status.clone() },
                        theme.status(&e.status),
                    )),
                    Cell::from(e.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(",")),
                    Cell::from(instances_text(e)),
                    Cell::from(kind_text(e)),
                    Cell::from(scaling_text(e)),
                    Cell::from(opt(data.invocations_per_min(e), |v| format!("{v:.0}"))),
                    p99_cell(data, e, theme),
                    rate_cell(data, e, theme),
                    Cell::from(crate::format::time_text(e.modified)),
                ]
                };
                let mut cells: Vec<Option<Cell>> = cells.into_iter().map(Some).collect();
                cells.extend(super::regions::cells(data, *i).map(Some));
                let row = Row::new(shown.iter().filter_map(|n| cells.get_mut(*n).and_then(Option::take)));
                if pos == self.cursor {
                    row.style(theme.selection())
                } else {
                    row.style(theme.fg(Role::Fg))
                }
            })
            .collect()
    }

}

/// `text` with its control characters escaped (`\n`, `\u{1b}`), as text from outside is shown.
fn escape_controls(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() { c.escape_default().collect() } else { vec![c] };
            escaped
        })
        .collect()
}
