//! Latency: live charts of the selected endpoint, one row per variant (canary and baseline told
//! apart by colour): ModelLatency and OverheadLatency p50/p90/p99 and calls with 4XX/5XX, over a
//! window of 15m, 1h, 3h or 24h (`w`/`W`); its own refresh interval (`+`/`-`); and a panel with
//! the latencies this console measured itself (percentiles and a histogram). The pane only asks
//! for metrics through the outbox; the data arrives in `data.detail_metrics`.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::observe::latency::LatencyStats;
use crate::tui::data::Data;
use crate::tui::event::FleetJob;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::toasts::Level;

mod view;

/// The chart windows, in key order.
pub const WINDOWS: [Duration; 4] = [
    Duration::from_secs(15 * 60),
    Duration::from_secs(3600),
    Duration::from_secs(3 * 3600),
    Duration::from_secs(24 * 3600),
];

/// The refresh intervals `+`/`-` step through.
pub const REFRESH: [Duration; 6] = [
    Duration::from_secs(5),
    Duration::from_secs(10),
    Duration::from_secs(15),
    Duration::from_secs(30),
    Duration::from_secs(60),
    Duration::from_secs(300),
];

/// Whether a variant is the endpoint's `canary` or `baseline` (a theme role), or neither when the
/// endpoint has one variant. A name containing "canary" makes a canary; otherwise the variant
/// with the largest current weight is the baseline and the others are canaries.
pub fn variant_role(e: &EndpointInfo, variant: &str) -> Option<Role> {
    if e.variants.len() < 2 {
        return None;
    }
    let named = |n: &str| n.to_ascii_lowercase().contains("canary");
    if e.variants.iter().any(|v| named(&v.name)) {
        return Some(if named(variant) { Role::Canary } else { Role::Baseline });
    }
    let b = super::variants::baseline_index(e)?;
    Some(super::variants::role(e.variants[b].name == variant))
}

/// The pane's state.
#[derive(Debug)]
pub struct LatencyPane {
    /// Index into [`WINDOWS`].
    pub window_index: usize,
    /// Index into [`REFRESH`].
    pub refresh_index: usize,
    /// The one variant shown (`None` = every variant).
    pub focus: Option<String>,
    /// When the pane last asked for metrics.
    last_request: Option<Instant>,
}

impl Default for LatencyPane {
    fn default() -> Self {
        LatencyPane {
            window_index: 0,
            refresh_index: 2,
            focus: None,
            last_request: None,
        }
    }
}

impl LatencyPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Latency";

    /// The chart window.
    pub fn window(&self) -> Duration {
        WINDOWS[self.window_index.min(WINDOWS.len() - 1)]
    }

    /// How often the pane's metrics refresh while it shows.
    pub fn refresh_interval(&self) -> Duration {
        REFRESH[self.refresh_index.min(REFRESH.len() - 1)]
    }

    /// Whether a refresh is due (never asked, or asked longer than the interval ago).
    pub fn refresh_due(&self) -> bool {
        self.last_request.is_none_or(|t| t.elapsed() >= self.refresh_interval())
    }

    /// Called on the app's tick while the pane shows: asks for metrics when a refresh is due.
    fn tick(&mut self, data: &Data, out: &mut Outbox) {
        if self.refresh_due() {
            self.request(data, out);
        }
    }

    /// Asks for the selected endpoint's metrics over the window.
    pub fn request(&mut self, data: &Data, out: &mut Outbox) {
        if let Some(e) = data.selected_endpoint() {
            out.job(FleetJob::Metrics {
                endpoints: vec![e.clone()],
                window: self.window(),
                detail: true,
            });
            self.last_request = Some(Instant::now());
        }
    }

    /// Switches the window (an index into [`WINDOWS`]) and asks for its metrics.
    pub fn set_window(&mut self, index: usize, data: &Data, out: &mut Outbox) {
        let index = index.min(WINDOWS.len() - 1);
        if index != self.window_index {
            self.window_index = index;
            self.request(data, out);
        }
    }

    /// The variant shown alone, when it belongs to the selected endpoint.
    fn focused<'a>(&self, e: &'a EndpointInfo) -> Option<&'a str> {
        let f = self.focus.as_deref()?;
        e.variant(f).map(|v| v.name.as_str())
    }

    fn cycle_focus(&mut self, data: &Data) {
        let Some(e) = data.selected_endpoint() else { return };
        let names: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
        self.focus = match self.focused(e).and_then(|f| names.iter().position(|n| *n == f)) {
            None => names.first().map(|n| n.to_string()),
            Some(i) => names.get(i + 1).map(|n| n.to_string()),
        };
    }
}

impl LatencyPane {
    /// `L`: the Logs pane around the highest p99 ModelLatency of the window (the focused
    /// variant's, else any variant's).
    fn logs_at_spike(&self, data: &mut Data, out: &mut Outbox) {
        use crate::aws::observe::metrics::Metric;
        let Some(e) = data.selected_endpoint() else { return };
        let focus = self.focused(e).map(str::to_string);
        let spike = data.detail_metrics.as_ref().and_then(|m| {
            m.variants
                .iter()
                .filter(|v| v.endpoint == e.name && focus.as_ref().is_none_or(|f| *f == v.variant))
                .filter_map(|v| v.series(Metric::ModelLatency, "p99"))
                .flat_map(|s| s.timestamps.iter().zip(&s.values))
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(t, _)| t + f64::from(m.period) / 2.0)
        });
        match spike {
            Some(at) => {
                data.logs_jump = Some(crate::tui::data::LogsJump {
                    endpoint: e.name.clone(),
                    variant: focus,
                    at,
                });
                out.switch_to = Some(super::Tab::Logs);
            }
            None => out.toast(Level::Info, "no latency figures yet to find a spike in"),
        }
    }
}

impl Pane for LatencyPane {
    fn on_tick(&mut self, visible: bool, data: &Data, out: &mut Outbox) {
        if visible && data.loaded {
            self.tick(data, out);
        }
    }

    fn on_refresh(&mut self, visible: bool, data: &Data, out: &mut Outbox) {
        if visible {
            self.request(data, out);
        }
    }

    fn on_show(&mut self, data: &mut Data, out: &mut Outbox) {
        self.request(data, out);
    }

    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        let n = WINDOWS.len();
        match key.code {
            KeyCode::Char('w') | KeyCode::Char(']') | KeyCode::Right => {
                self.set_window((self.window_index + 1) % n, data, out)
            }
            KeyCode::Char('W') | KeyCode::Char('[') | KeyCode::Left => {
                self.set_window((self.window_index + n - 1) % n, data, out)
            }
            KeyCode::Char('v') => self.cycle_focus(data),
            KeyCode::Char('+') | KeyCode::Char('=') => {
                self.refresh_index = (self.refresh_index + 1).min(REFRESH.len() - 1);
                out.toast(
                    Level::Info,
                    format!("latency charts refresh every {}s", self.refresh_interval().as_secs()),
                );
            }
            KeyCode::Char('-') => {
                self.refresh_index = self.refresh_index.saturating_sub(1);
                out.toast(
                    Level::Info,
                    format!("latency charts refresh every {}s", self.refresh_interval().as_secs()),
                );
            }
            KeyCode::Char('L') => self.logs_at_spike(data, out),
            KeyCode::Char('x') => {
                data.own_latency = LatencyStats::new();
                out.toast(Level::Info, "cleared the console's own latency samples");
            }
            _ => return false,
        }
        true
    }

    fn help(&self) -> Vec<KeyHint> {
        vec![KeyHint::new("L", "logs around the highest p99")]
    }

    fn render(&mut self, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        self.draw(f, area, data, theme);
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        let none = data.selected_endpoint().is_none();
        vec![
            KeyHint::when("w/W", "window", none),
            KeyHint::when("v", "variant", none),
            KeyHint::new("+/-", "refresh interval"),
            KeyHint::when("x", "clear own samples", data.own_latency.count() == 0),
            KeyHint::new("r", "refresh"),
            KeyHint::new("?", "help"),
            KeyHint::new("q", "quit"),
        ]
    }
}
