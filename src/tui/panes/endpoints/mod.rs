//! Endpoints: every endpoint with status, variants, instances, MME marker, autoscaling,
//! invocations/min, p99 model latency, 5XX rate and last modification. Sort by any column, `/`
//! filter (substring, or regex; `!` inverts; a kind's name or `kind:NAME` keeps that kind), Enter drills in, `d` describes. Only the visible
//! rows are built on each frame.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::widgets::{Cell, Row};

mod partial;
mod regions;

use super::{KeyHint, Outbox, Pane, PaneCommand, Tab};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::tui::data::Data;
use crate::tui::described::RowState;
use crate::tui::event::{AppEvent, FleetJob};
use crate::tui::filter::Filter;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::describe::DescribeView;
use crate::tui::widgets::Overlay;
use crate::tui::widgets::toasts::Level;
use crate::tui::widgets::scroll::Move;

mod view;

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

/// Column, title, its `:sort` name, its sort key.
const COLUMNS: [(Column, &str, &str, Option<char>); 10] = [
    (Column::Name, "NAME", "name", Some('n')),
    (Column::Status, "STATUS", "status", Some('t')),
    (Column::Variants, "VARIANTS", "variants", None),
    (Column::Instances, "INSTANCES", "instances", None),
    (Column::Mme, "KIND", "mme", None),
    (Column::Autoscaling, "SCALING", "scaling", None),
    (Column::Invocations, "INV/MIN", "inv", Some('i')),
    (Column::P99, "P99 MS (N)", "p99", Some('p')),
    (Column::Errors, "5XX", "5xx", Some('x')),
    (Column::Modified, "MODIFIED", "modified", Some('m')),
];

/// The `:sort` arguments, in column order.
const SORT_NAMES: [&str; 10] = [
    "name", "status", "variants", "instances", "mme", "scaling", "inv", "p99", "5xx", "modified",
];

const COMMANDS: &[PaneCommand] = &[
    PaneCommand {
        name: "sort",
        takes_arg: true,
        help: "sort the Endpoints by a column: name status variants instances mme scaling inv p99 5xx modified",
    },
    PaneCommand {
        name: "goto",
        takes_arg: true,
        help: "select an endpoint by name (Tab completes among every endpoint listed)",
    },
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
    /// What the frame shows of every row (None: to work out again at the next draw).
    derived: Option<view::Derived>,
    /// The rows' version (`Data::rows_version`) the view was built from.
    built_from: u64,
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
            derived: None,
            built_from: 0,
        }
    }
}

fn instances(e: &EndpointInfo) -> i32 {
    e.variants.iter().map(|v| v.current_instances).sum()
}

fn instances_text(e: &EndpointInfo) -> String {
    // Serverless variants have no instances to count: their memory and concurrency instead.
    if !e.variants.is_empty() && e.variants.iter().all(|v| v.serverless.is_some()) {
        return e
            .variants
            .iter()
            .filter_map(|v| v.serverless.as_ref())
            .map(serverless_text)
            .collect::<Vec<_>>()
            .join(",");
    }
    let mut types: Vec<String> = Vec::new();
    for v in &e.variants {
        let t = v.instance_type.clone().unwrap_or_else(|| "serverless".into());
        if !types.contains(&t) {
            types.push(t);
        }
    }
    format!("{} × {}", types.join("+"), instances(e))
}

/// A serverless variant in the INSTANCES column: `sls 4 GB max 20`, `sls 4 GB 5/20 warm` with
/// provisioned concurrency.
fn serverless_text(s: &crate::aws::endpoints::shape::ServerlessInfo) -> String {
    let memory = format!("{} GB", f64::from(s.memory_mb) / 1024.0);
    match s.provisioned.filter(|n| *n > 0) {
        Some(p) => format!("sls {memory} {p}/{} warm", s.max_concurrency),
        None => format!("sls {memory} max {}", s.max_concurrency),
    }
}

/// The kind mark of an endpoint: `MME`, `IC` (inference components), `SLS`, `SLS+PC`, `ASYNC`;
/// nothing for a real-time endpoint serving one model per variant; `SHADOW` (after the mark)
/// when it has shadow variants.
fn kind_text(e: &EndpointInfo) -> String {
    use crate::aws::endpoints::kind::EndpointKind;
    let mark = match e.kind {
        EndpointKind::RealTime if e.multi_model => "MME",
        EndpointKind::RealTime => "",
        kind => kind.mark(),
    };
    match (mark, e.shape.has_shadow()) {
        (m, false) => m.to_string(),
        ("", true) => "SHADOW".into(),
        (m, true) => format!("{m}+SHADOW"),
    }
}

/// Whether the typed filter word names the endpoint's kind (`async`, `kind:sls`, `shadow`).
fn kind_named(e: &EndpointInfo, word: &str) -> bool {
    let word = word.strip_prefix("kind:").unwrap_or(word);
    e.kind.answers_to(word) || (e.shape.has_shadow() && word.eq_ignore_ascii_case("shadow"))
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
            .filter(|i| {
                let e = &data.inventory[*i];
                self.filter.matches_or(&e.name, |word| kind_named(e, word))
            })
            .collect();
        let key_f = |e: &EndpointInfo| -> f64 {
            match self.sort {
                Column::Variants => e.variants.len() as f64,
                Column::Instances => instances(e) as f64,
                Column::Mme => f64::from(u8::from(!kind_text(e).is_empty())),
                Column::Autoscaling => e.autoscaling.iter().map(|s| s.max).sum::<i32>() as f64,
                Column::Invocations => data.invocations_per_min(e).unwrap_or(-1.0),
                Column::P99 => data.p99(e).unwrap_or(-1.0),
                Column::Errors => data.error_rate_5xx(e).unwrap_or(-1.0),
                Column::Modified => e.modified,
                Column::Name | Column::Status => 0.0,
            }
        };
        // Each row's key and whether it is known are worked out once, not in every comparison
        // (10,000 rows sort within a frame). A row not described yet knows only its name,
        // status and times: on any other column it sorts last, whichever the direction.
        let n = data.inventory.len();
        let (mut keys, mut unknown) = (vec![0.0; n], vec![false; n]);
        let partial = partial::needs_describe(self.sort) && !data.undescribed.is_empty();
        for &i in &view {
            keys[i] = key_f(&data.inventory[i]);
            unknown[i] = partial && data.row_state(i) != RowState::Described;
        }
        view.sort_unstable_by(|a, b| {
            let (ea, eb) = (&data.inventory[*a], &data.inventory[*b]);
            let (ua, ub) = (unknown[*a], unknown[*b]);
            if ua || ub {
                return ua.cmp(&ub).then(ea.name.cmp(&eb.name)).then(a.cmp(b));
            }
            let ord = match self.sort {
                Column::Name => ea.name.cmp(&eb.name),
                Column::Status => ea.status.cmp(&eb.status).then(ea.name.cmp(&eb.name)),
                _ => keys[*a].total_cmp(&keys[*b]).then(ea.name.cmp(&eb.name)),
            };
            let ord = if self.descending { ord.reverse() } else { ord };
            ord.then(a.cmp(b))
        });
        self.view = view;
        self.derived = None;
        self.built_from = data.rows_version;
        self.cursor = selected_name
            .and_then(|n| self.view.iter().position(|i| data.inventory[*i].name == n))
            .unwrap_or(0)
            .min(self.view.len().saturating_sub(1));
    }

    /// The names of the rows the table showed at its last draw (the metrics read them first).
    pub fn visible_names(&self, data: &Data) -> Vec<String> {
        let end = (self.offset + self.page.max(1)).min(self.view.len());
        let rows = self.view.get(self.offset.min(end)..end).unwrap_or_default();
        rows.iter()
            .filter_map(|i| data.inventory.get(*i))
            .map(|e| e.name.clone())
            .collect()
    }

    /// `:goto NAME`: selects the endpoint named so (or the one name starting so), clearing a
    /// filter that hides it, and shows it on the Endpoints tab.
    fn goto(&mut self, wanted: &str, data: &mut Data, out: &mut Outbox) {
        let exact = data.inventory.iter().position(|e| e.name == wanted);
        let found = exact.or_else(|| {
            let mut starting = data.inventory.iter().enumerate().filter(|(_, e)| e.name.starts_with(wanted));
            let first = starting.next()?;
            starting.all(|(_, e)| e.name == first.1.name).then_some(first.0)
        });
        let Some(index) = found.filter(|_| !wanted.is_empty()) else {
            let many = data.inventory.iter().filter(|e| e.name.starts_with(wanted)).count();
            let text = match many {
                0 => format!("no endpoint named {wanted} (Tab completes among the {} listed)", data.inventory.len()),
                n => format!("{n} endpoints start with {wanted}: Tab completes"),
            };
            out.toast(Level::Warn, crate::format::escape_line(&text).into_owned());
            return;
        };
        if !self.view.contains(&index) {
            self.filter.clear();
            self.rebuild(data);
        }
        if let Some(pos) = self.view.iter().position(|i| *i == index) {
            self.move_to(pos, data);
        }
        out.switch_to = Some(Tab::Endpoints);
    }

    fn selected_name(&self, data: &Data) -> Option<String> {
        self.view
            .get(self.cursor)
            .and_then(|i| data.inventory.get(*i))
            .map(|e| e.name.clone())
    }

    /// Sorts by `column`: a new column starts with its worst (largest) values first, names and
    /// statuses in alphabetical order; the column already sorted on reverses.
    pub fn sort_by(&mut self, column: Column, data: &Data) {
        if self.sort == column {
            self.descending = !self.descending;
        } else {
            self.sort = column;
            self.descending = !matches!(column, Column::Name | Column::Status);
        }
        self.rebuild(data);
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
            let Some((c, t, _, _)) = COLUMNS.get(*i) else {
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
        // An event may change a figure of some row: what the frame shows of every row is
        // worked out again, unless it is a report of a refresh that changed no row (most pages
        // of a steady refresh). The view is sorted again after a refresh, and after a report of
        // one that changed a row.
        let changed = data.rows_version != self.built_from;
        if changed || !matches!(ev, AppEvent::InventoryProgress { .. }) {
            self.derived = None;
        }
        match ev {
            AppEvent::Inventory(Ok(_)) => self.rebuild(data),
            AppEvent::InventoryProgress { .. } if changed => self.rebuild(data),
            _ => {}
        }
    }

    fn capturing_text(&self) -> bool {
        self.typing
    }

    fn commands(&self) -> &'static [PaneCommand] {
        COMMANDS
    }

    fn command_args(&self, name: &str) -> &'static [&'static str] {
        if name == "sort" { &SORT_NAMES } else { &[] }
    }

    fn run_command(&mut self, name: &str, arg: Option<&str>, data: &mut Data, out: &mut Outbox) -> bool {
        if name == "goto" {
            self.goto(arg.unwrap_or("").trim(), data, out);
            return true;
        }
        if name != "sort" {
            return false;
        }
        let arg = arg.unwrap_or("").trim().to_ascii_lowercase();
        match COLUMNS.iter().find(|c| c.2 == arg) {
            Some(c) => {
                self.sort_by(c.0, data);
                let dir = if self.descending { "largest first" } else { "smallest first" };
                out.toast(Level::Info, format!("endpoints sorted by {} ({dir})", c.1));
                out.switch_to = Some(Tab::Endpoints);
            }
            None => out.toast(
                Level::Warn,
                format!("sort by what? one of: {} (Tab completes)", SORT_NAMES.join(" ")),
            ),
        }
        true
    }

    fn help(&self) -> Vec<KeyHint> {
        vec![
            KeyHint::new("n t i p x m", "sort by name, status, inv/min, p99, 5XX, modified (again: reverse)"),
            KeyHint::new(":sort COLUMN", "sort by any column (Tab completes)"),
            KeyHint::new(":goto NAME", "select an endpoint by name (Tab completes)"),
        ]
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
        match key.code {
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
            KeyCode::Char(c) if COLUMNS.iter().any(|col| col.3 == Some(c)) => {
                if let Some(col) = COLUMNS.iter().find(|col| col.3 == Some(c)) {
                    self.sort_by(col.0, data);
                }
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
                    out.job(FleetJob::Describe { endpoint: n });
                }
            }
            _ => match Move::of_key(&key) {
                Some(m) => self.move_to(m.cursor(self.cursor, self.view.len(), self.page), data),
                None => return false,
            },
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        self.draw(f, area, data, theme);
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
