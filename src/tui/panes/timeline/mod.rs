//! Timeline: what changed on the selected endpoint, newest first — status changes and
//! deployments, weight changes and promotion steps from the audit log (with their principal),
//! scaling activities, alarm state changes, everyone's calls CloudTrail recorded (one
//! LookupEvents page per read; the line under the title says what is read, when CloudTrail
//! throttles and how late its events arrive), and this console's own invocation errors. Enter
//! shows an entry whole. The pane also keeps the header's "changed … ago" current: it asks for
//! the selected endpoint's timeline ([`GuardJob::Timeline`]) when the selection changes, after the
//! console changed something, and every [`REFRESH`] — never per frame.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::aws::observe::timeline::{TimelineEvent, latest};
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, FleetJob, GuardJob, GuardKind, Job, JobKind};
use crate::tui::theme::Theme;
use crate::tui::widgets::scroll;

mod view;

/// How far back the timeline reads.
pub const SINCE: Duration = Duration::from_secs(7 * 24 * 3600);

/// How often the selected endpoint's timeline is read again.
pub const REFRESH: Duration = Duration::from_secs(60);

/// Invocation errors kept per endpoint.
const OWN_MAX: usize = 200;

/// The pane's state.
#[derive(Debug, Default)]
pub struct TimelinePane {
    /// The endpoint whose timeline is held.
    pub endpoint: Option<String>,
    /// Its events, oldest first (as read).
    pub events: Vec<TimelineEvent>,
    /// This console's invocation errors, by endpoint, oldest first.
    pub own: HashMap<String, Vec<TimelineEvent>>,
    /// Whether a read arrived for `endpoint`.
    pub loaded: bool,
    /// Why the last read failed.
    pub error: Option<String>,
    /// Where reading CloudTrail stands for `endpoint` (throttled, pages still to read).
    pub trail: Option<crate::aws::trail::TrailStatus>,
    /// The selected row (newest first).
    pub cursor: usize,
    /// Whether the selected entry is shown whole.
    pub detail: bool,
    invocations: HashMap<u64, String>,
    requested: Option<(String, Instant)>,
    in_flight: bool,
}

impl TimelinePane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Timeline";

    /// The rows shown: read events and own errors, newest first.
    pub fn rows(&self) -> Vec<&TimelineEvent> {
        let own = self.endpoint.as_ref().and_then(|e| self.own.get(e));
        let mut rows: Vec<&TimelineEvent> = self.events.iter().chain(own.into_iter().flatten()).collect();
        rows.sort_by(|a, b| b.epoch.total_cmp(&a.epoch));
        rows
    }

    /// Asks for the selected endpoint's timeline when it changed or [`REFRESH`] passed (or
    /// always, when `now`).
    pub fn request(&mut self, data: &Data, out: &mut Outbox, now: bool) {
        let Some(selected) = data.selected.clone() else { return };
        let due = match &self.requested {
            Some((ep, at)) => *ep != selected || at.elapsed() >= REFRESH,
            None => true,
        };
        if !now && (!due || self.in_flight) {
            return;
        }
        if self.endpoint.as_ref() != Some(&selected) {
            self.endpoint = Some(selected.clone());
            self.events.clear();
            self.trail = None;
            self.loaded = false;
            self.cursor = 0;
        }
        self.requested = Some((selected.clone(), Instant::now()));
        self.in_flight = true;
        out.job(GuardJob::Timeline {
            endpoint: selected,
            since: crate::format::now_epoch() - SINCE.as_secs_f64(),
        });
    }

    /// Applies a read (and where reading CloudTrail stands).
    pub fn apply(
        &mut self,
        endpoint: &str,
        result: &Result<Vec<TimelineEvent>, crate::aws::AwsError>,
        trail: Option<&crate::aws::trail::TrailStatus>,
        data: &mut Data,
    ) {
        if let Ok(events) = result
            && let Some(change) = latest(events)
        {
            data.last_change.insert(endpoint.to_string(), change);
        }
        if self.endpoint.as_deref() != Some(endpoint) {
            return;
        }
        self.in_flight = false;
        self.loaded = true;
        match result {
            Ok(events) => {
                self.events = events.clone();
                self.trail = trail.cloned();
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    fn own_error(&mut self, id: u64, failure: &crate::aws::invoke::call::InvokeFailure) {
        let Some(endpoint) = self.invocations.get(&id) else { return };
        let list = self.own.entry(endpoint.clone()).or_default();
        list.push(TimelineEvent {
            epoch: crate::format::now_epoch(),
            kind: "invoke".into(),
            summary: format!("this console's invocation failed: {}", failure.error),
            principal: Some("sagedeck".into()),
            failed: true,
            origin: None,
        });
        if list.len() > OWN_MAX {
            list.remove(0);
        }
    }
}

impl Pane for TimelinePane {
    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        if self.detail {
            if matches!(key.code, KeyCode::Esc | KeyCode::Enter) {
                self.detail = false;
                return true;
            }
            return false;
        }
        let rows = self.rows().len();
        match key.code {
            KeyCode::Enter if rows > 0 => self.detail = true,
            KeyCode::Char('R') => self.request(data, out, true),
            _ => return scroll::cursor_key(&mut self.cursor, &key, rows, scroll::PAGE),
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, _data: &Data, theme: &Theme) {
        view::render(self, f, area, theme);
    }

    fn keys(&self, _data: &Data) -> Vec<KeyHint> {
        if self.detail {
            return vec![KeyHint::new("Esc", "close")];
        }
        vec![
            KeyHint::new("↑↓", "entry"),
            KeyHint::when("Enter", "detail", self.rows().is_empty()),
            KeyHint::new("R", "read again"),
            KeyHint::new("?", "help"),
            KeyHint::new("q", "quit"),
        ]
    }

    fn on_show(&mut self, data: &mut Data, out: &mut Outbox) {
        self.request(data, out, !self.loaded);
    }

    fn on_tick(&mut self, _visible: bool, data: &Data, out: &mut Outbox) {
        if data.loaded {
            self.request(data, out, false);
        }
    }

    fn on_submitted(&mut self, id: u64, job: &Job) {
        if let Job::Fleet(FleetJob::Invoke { spec, .. }) = job {
            self.invocations.insert(id, spec.endpoint.clone());
        }
    }

    fn on_finished(&mut self, id: u64, kind: Option<JobKind>, _cancelled: bool, _out: &mut Outbox) {
        self.invocations.remove(&id);
        if kind == Some(JobKind::Guard(GuardKind::Timeline)) {
            self.in_flight = false;
        }
    }

    fn on_event(&mut self, ev: &AppEvent, data: &mut Data, out: &mut Outbox, _visible: bool) {
        match ev {
            AppEvent::Timeline { endpoint, result, trail } => self.apply(endpoint, result, trail.as_ref(), data),
            AppEvent::Invoked { id, result: Err(f), .. } => self.own_error(*id, f),
            // The console changed something: read again now.
            AppEvent::WeightsDone { .. }
            | AppEvent::ServerlessSet { .. }
            | AppEvent::PromotionEnded { .. }
            | AppEvent::PrewarmDone { .. } => {
                self.request(data, out, true)
            }
            _ => {}
        }
    }
}
