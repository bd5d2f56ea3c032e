//! Models: the catalog of the selected multi-model endpoint (every artifact under its S3 prefix)
//! with what the console knows of each model (prewarmed at T, and by whom from the audit log; last
//! latency cold or warm; last error; AWS reports no per-model calls of other clients), the
//! endpoint's cache metrics, and prewarming: Space marks, `p` prewarms the marked (or the
//! selected) models, `P` prewarms every model shown after a confirmation; a gauge follows the progress and each model gets its result. `/` filters (`!` inverts). Only the
//! visible rows are built, so 10,000 models draw as fast as ten.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;

use super::{KeyHint, Outbox, Pane};
use crate::aws::AwsError;
use crate::aws::endpoints::catalog::human_size;
use crate::aws::invoke::prewarm::{PrewarmEvent, PrewarmResult};
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, FleetJob, GuardJob, GuardKind, Job, JobKind, PREWARMING};
use crate::tui::filter::Filter;
use crate::tui::theme::Theme;
use crate::tui::widgets::Overlay;
use crate::tui::widgets::confirm::Confirm;
use crate::tui::widgets::toasts::Level;
use crate::tui::widgets::scroll::Move;

mod run;
mod view;

use run::learn;
pub use run::{PrewarmRun, RunEnd, RunState, reason};

/// A catalog listed less than this long ago is not listed again when the tab shows.
const RELIST_AFTER: Duration = Duration::from_secs(30);

/// The pane's state.
#[derive(Debug)]
pub struct ModelsPane {
    /// The filter over model keys.
    pub filter: Filter,
    /// Whether the filter is being typed.
    pub typing: bool,
    /// Marked model keys (of the endpoint shown).
    pub marked: BTreeSet<String>,
    /// Selected row in the filtered view.
    pub cursor: usize,
    /// First visible row.
    pub offset: usize,
    /// The latest prewarm.
    pub run: Option<PrewarmRun>,
    /// Indices into the catalog's models, filtered.
    view: Vec<usize>,
    /// What `view` was built from: endpoint, catalog identity, filter text.
    view_key: Option<(String, usize, usize, String)>,
    /// The model under the cursor, kept across rebuilds.
    current: Option<String>,
    /// The endpoint the marks and cursor belong to.
    endpoint: Option<String>,
    /// Rows visible at the last draw.
    page: usize,
    /// The last catalog request: endpoint and when.
    requested: Option<(String, Instant)>,
    /// A `P` waiting for its confirmation: endpoint and models.
    pending_all: Option<(String, Vec<String>)>,
    /// Audited prewarms by (endpoint, model): when and by whom (from the audit log).
    pub audited: std::collections::HashMap<(String, String), (f64, String)>,
}

impl Default for ModelsPane {
    fn default() -> Self {
        ModelsPane {
            filter: Filter::default(),
            typing: false,
            marked: BTreeSet::new(),
            cursor: 0,
            offset: 0,
            run: None,
            view: Vec::new(),
            view_key: None,
            current: None,
            endpoint: None,
            page: 20,
            requested: None,
            pending_all: None,
            audited: Default::default(),
        }
    }
}

impl ModelsPane {
    /// The tab's title (its `:` command is the same in lower case).
    pub const TITLE: &'static str = "Models";

    /// Model keys shown (filtered), in catalog order.
    pub fn shown(&mut self, data: &Data) -> Vec<String> {
        self.sync(data);
        let Some(cat) = self.endpoint.as_ref().and_then(|e| data.catalogs.get(e)) else {
            return Vec::new();
        };
        self.view.iter().map(|i| cat.models[*i].key.clone()).collect()
    }

    /// The model under the cursor.
    pub fn selected_model(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// Brings the view up to date with the selected endpoint, its catalog and the filter.
    fn sync(&mut self, data: &Data) {
        if data.selected != self.endpoint {
            self.endpoint = data.selected.clone();
            self.marked.clear();
            self.cursor = 0;
            self.offset = 0;
            self.current = None;
            self.view_key = None;
        }
        let Some(cat) = self.endpoint.as_ref().and_then(|e| data.catalogs.get(e)) else {
            self.view.clear();
            self.view_key = None;
            return;
        };
        let key = (
            self.endpoint.clone().unwrap_or_default(),
            cat.models.len(),
            cat.models.as_ptr() as usize,
            self.filter.text().to_string(),
        );
        if self.view_key.as_ref() == Some(&key) {
            return;
        }
        self.view = (0..cat.models.len())
            .filter(|i| self.filter.matches(&cat.models[*i].key))
            .collect();
        self.view_key = Some(key);
        let last = self.view.len().saturating_sub(1);
        self.cursor = self
            .current
            .as_ref()
            .and_then(|c| self.view.iter().position(|i| &cat.models[*i].key == c))
            .unwrap_or(self.cursor)
            .min(last);
        self.current = self.view.get(self.cursor).map(|i| cat.models[*i].key.clone());
    }

    fn move_to(&mut self, cursor: usize, data: &Data) {
        self.cursor = cursor.min(self.view.len().saturating_sub(1));
        self.current = self
            .endpoint
            .as_ref()
            .and_then(|e| data.catalogs.get(e))
            .and_then(|cat| self.view.get(self.cursor).map(|i| cat.models[*i].key.clone()));
    }

    /// The selected endpoint's name and S3 prefix, when it is a multi-model endpoint.
    fn mme(data: &Data) -> Option<(String, String)> {
        let e = data.selected_endpoint()?;
        Some((e.name.clone(), e.mme_prefix()?.to_string()))
    }

    /// Lists the catalog when it is missing (or, with `refresh`, when the last listing is old).
    fn request_catalog(&mut self, data: &Data, out: &mut Outbox, refresh: bool, force: bool) {
        let Some((endpoint, prefix)) = Self::mme(data) else {
            return;
        };
        let asked = self.requested.as_ref().filter(|(n, _)| *n == endpoint);
        let want = force
            || (refresh && asked.is_none_or(|(_, t)| t.elapsed() >= RELIST_AFTER))
            || (!data.catalogs.contains_key(&endpoint) && asked.is_none());
        if want {
            self.requested = Some((endpoint.clone(), Instant::now()));
            out.job(FleetJob::Catalog { endpoint, prefix });
        }
    }

    /// Checks shared by `p` and `P`; the endpoint when prewarming may go ahead.
    fn may_prewarm(&self, data: &Data, out: &mut Outbox) -> Option<String> {
        if out.refused(data, PREWARMING) {
            return None;
        }
        let Some((endpoint, _)) = Self::mme(data) else {
            let name = data.selected.clone().unwrap_or_else(|| "no endpoint".into());
            out.toast(
                Level::Warn,
                format!("{name} is not a multi-model endpoint: nothing to prewarm"),
            );
            return None;
        };
        if let Some(run) = self.run.as_ref().filter(|r| r.active()) {
            out.toast(
                Level::Warn,
                format!("a prewarm of {} is running (Esc cancels it)", run.endpoint),
            );
            return None;
        }
        Some(endpoint)
    }

    fn prewarm_marked(&mut self, data: &Data, out: &mut Outbox) {
        let Some(endpoint) = self.may_prewarm(data, out) else {
            return;
        };
        let models: Vec<String> = if self.marked.is_empty() {
            self.current.iter().cloned().collect()
        } else {
            match data.catalogs.get(&endpoint) {
                Some(cat) => cat
                    .models
                    .iter()
                    .filter(|m| self.marked.contains(&m.key))
                    .map(|m| m.key.clone())
                    .collect(),
                None => self.marked.iter().cloned().collect(),
            }
        };
        if models.is_empty() {
            out.toast(Level::Info, "no model selected");
            return;
        }
        self.run = Some(PrewarmRun::new(&endpoint, models.clone()));
        self.pending_all = None;
        self.marked.clear();
        out.job(GuardJob::Prewarm {
            endpoint,
            models,
            reason: None,
        });
    }

    fn prewarm_all(&mut self, data: &Data, out: &mut Outbox) {
        let Some(endpoint) = self.may_prewarm(data, out) else {
            return;
        };
        let Some(cat) = data.catalogs.get(&endpoint) else {
            out.toast(Level::Info, "the catalog is still being listed");
            return;
        };
        let models: Vec<String> = self.view.iter().map(|i| cat.models[*i].key.clone()).collect();
        if models.is_empty() {
            out.toast(Level::Info, "no model to prewarm");
            return;
        }
        let bytes: u64 = self.view.iter().map(|i| cat.models[*i].size).sum();
        let scope = if self.filter.is_empty() {
            format!("Every model under s3://{}/{}.", cat.bucket, cat.prefix)
        } else {
            format!(
                "Every model matching /{} ({} of {}).",
                self.filter.text(),
                models.len(),
                cat.models.len()
            )
        };
        let n = models.len();
        let confirm = Confirm {
            title: format!("Prewarm {n} models of {endpoint}?"),
            lines: vec![
                scope,
                format!(
                    "One warm-up call each, 4 at a time: up to {} to load.",
                    human_size(bytes)
                ),
                "Instances that cannot hold them all evict others (per-instance LRU).".into(),
            ],
            jobs: vec![Job::Guard(GuardJob::Prewarm {
                endpoint: endpoint.clone(),
                models: models.clone(),
                reason: None,
            })],
            danger: false,
            force: Vec::new(),
        };
        self.pending_all = Some((endpoint, models));
        out.overlay = Some(Overlay::Confirm(confirm));
    }

    /// The run that events of `endpoint` belong to (a confirmed `P`, the run of `p`, or a new one).
    fn run_for(&mut self, endpoint: &str) -> &mut PrewarmRun {
        if let Some((_, models)) = self.pending_all.take_if(|(e, _)| e == endpoint) {
            self.run = Some(PrewarmRun::new(endpoint, models));
        }
        let reuse = self
            .run
            .as_ref()
            .is_some_and(|r| r.endpoint == endpoint && matches!(r.ended, None | Some(RunEnd::Cancelled)));
        if !reuse {
            self.run = Some(PrewarmRun::new(endpoint, Vec::new()));
        }
        let run = self.run.get_or_insert_with(|| PrewarmRun::new(endpoint, Vec::new()));
        if run.ended == Some(RunEnd::Cancelled) {
            // Events still arrive: the cancelled job was another one.
            run.ended = None;
        }
        run
    }

    /// A job was cancelled: a running prewarm is taken as cancelled (it revives if its events go on).
    pub fn on_cancelled(&mut self) {
        if let Some(run) = self.run.as_mut().filter(|r| r.active()) {
            run.ended = Some(RunEnd::Cancelled);
        }
    }

    /// Prewarm progress: drives the gauge and the per-model states, and records results.
    fn on_prewarm_event(&mut self, endpoint: &str, event: PrewarmEvent, data: &mut Data) {
        let run = self.run_for(endpoint);
        match event {
            PrewarmEvent::Started { model } => run.set(&model, RunState::Loading),
            PrewarmEvent::Retrying {
                model, attempt, error, ..
            } => {
                let reason = reason(&error);
                run.last_retry = Some(format!("{model} attempt {attempt}: {reason}"));
                run.set(&model, RunState::Retrying { attempt, reason });
            }
            PrewarmEvent::Finished(r) => {
                if run.finish(&r) {
                    learn(data, endpoint, &r);
                }
            }
        }
    }

    /// A prewarm ended: every model's result is recorded and a toast sums it up.
    fn on_prewarm_done(
        &mut self,
        endpoint: &str,
        result: Result<Vec<PrewarmResult>, AwsError>,
        data: &mut Data,
        out: &mut Outbox,
    ) {
        let run = self.run_for(endpoint);
        match result {
            Ok(results) => {
                for r in &results {
                    if run.finish(r) {
                        learn(data, endpoint, r);
                    }
                }
                run.ended = Some(RunEnd::Finished);
                let level = if run.failed > 0 { Level::Warn } else { Level::Info };
                out.toast(
                    level,
                    format!(
                        "prewarmed {} model{} of {endpoint}: {} cold, {} warm, {} failed",
                        run.done(),
                        if run.done() == 1 { "" } else { "s" },
                        run.cold,
                        run.warm,
                        run.failed
                    ),
                );
            }
            Err(e) => {
                run.ended = Some(RunEnd::Failed(e.to_string()));
                out.toast(Level::Error, format!("prewarm of {endpoint} failed: {e}"));
            }
        }
    }
}

impl Pane for ModelsPane {
    fn on_finished(&mut self, _id: u64, kind: Option<JobKind>, cancelled: bool, _out: &mut Outbox) {
        if cancelled && kind == Some(JobKind::Guard(GuardKind::Prewarm)) {
            self.on_cancelled();
        }
    }

    fn on_event(&mut self, ev: &AppEvent, data: &mut Data, out: &mut Outbox, _visible: bool) {
        match ev {
            AppEvent::Prewarm { endpoint, event } => self.on_prewarm_event(endpoint, event.clone(), data),
            AppEvent::PrewarmDone { endpoint, result } => self.on_prewarm_done(endpoint, result.clone(), data, out),
            AppEvent::Activity(Ok(records)) => self.audited = run::audited_prewarms(records),
            _ => {}
        }
    }

    fn capturing_text(&self) -> bool {
        self.typing
    }

    fn on_show(&mut self, data: &mut Data, out: &mut Outbox) {
        self.request_catalog(data, out, true, false);
        // Who prewarmed what, from the audit log.
        out.job(GuardJob::Activity);
    }

    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        self.sync(data);
        if self.typing {
            if !self.filter.type_key(key.code, &mut self.typing) {
                return true;
            }
            self.sync(data);
            return true;
        }
        self.request_catalog(data, out, false, false);
        match key.code {
            KeyCode::Char('/') => {
                self.typing = true;
                self.filter.clear();
                self.sync(data);
            }
            KeyCode::Char(' ') => {
                if let Some(m) = self.current.clone() {
                    if !self.marked.remove(&m) {
                        self.marked.insert(m);
                    }
                    self.move_to(self.cursor.saturating_add(1), data);
                }
            }
            KeyCode::Char('a') => {
                let shown = self.shown(data);
                if shown.iter().all(|m| self.marked.contains(m)) {
                    for m in &shown {
                        self.marked.remove(m);
                    }
                } else {
                    self.marked.extend(shown);
                }
            }
            KeyCode::Char('p') => self.prewarm_marked(data, out),
            KeyCode::Char('P') => self.prewarm_all(data, out),
            KeyCode::Char('c') => self.request_catalog(data, out, true, true),
            KeyCode::Esc if !self.filter.is_empty() => {
                self.filter.clear();
                self.sync(data);
            }
            KeyCode::Esc if !self.marked.is_empty() => self.marked.clear(),
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
        let not_mme = Self::mme(data).is_none();
        let no_prewarm = data.read_only || not_mme;
        vec![
            KeyHint::new("↑↓", "move"),
            KeyHint::when("Space", "mark", not_mme),
            KeyHint::when("a", "mark shown", not_mme),
            KeyHint::when("p", "prewarm", no_prewarm),
            KeyHint::when("P", "prewarm all", no_prewarm),
            KeyHint::new("/", "filter"),
            KeyHint::when("c", "reload catalog", not_mme),
            KeyHint::new("Esc", "clear"),
            KeyHint::new("?", "help"),
        ]
    }
}
