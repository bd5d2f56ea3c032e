//! The shared model every pane reads: the fleet as last loaded, metrics, what the console itself
//! saw (its invocations, prewarms), and the context shown in the header.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::aws::endpoints::catalog::Catalog;
use crate::aws::endpoints::inventory::{EndpointInfo, InventoryFailure};
use crate::aws::observe::latency::LatencyStats;
use crate::aws::observe::metrics::{MetricsSnapshot, VariantSummary};

/// Where the console points.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContextInfo {
    /// Profile.
    pub profile: String,
    /// Region.
    pub region: String,
    /// Endpoint URL, or "sandbox", or "aws".
    pub endpoint: String,
}

/// What the console knows of one MME model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelKnowledge {
    /// When it was last prewarmed (epoch seconds).
    pub prewarmed_at: Option<f64>,
    /// Latency of the last call that reached it (ms).
    pub last_latency_ms: Option<f64>,
    /// Whether the last call found it cold.
    pub cold: Option<bool>,
    /// The last error.
    pub last_error: Option<String>,
}

/// The shared model.
#[derive(Debug, Default)]
pub struct Data {
    /// Header context.
    pub context: ContextInfo,
    /// The fleet (each description shared with the fleet layer's refresh memory).
    pub inventory: Vec<std::sync::Arc<EndpointInfo>>,
    /// Endpoints the last inventory could not describe.
    pub failures: Vec<InventoryFailure>,
    /// Whether an inventory has arrived yet.
    pub loaded: bool,
    /// When the last inventory succeeded.
    pub last_ok: Option<Instant>,
    /// Whether the last inventory refresh failed.
    pub refresh_failed: bool,
    /// Why the last inventory refresh failed (the sentence the error log holds).
    pub refresh_error: Option<String>,
    /// Inventory refresh interval (STALE after three).
    pub refresh_interval: Duration,
    /// The slower interval AWS's throttling set (None: not throttled); the header says it.
    pub throttled_interval: Option<Duration>,
    /// The table's metric figures of every endpoint read so far (`fleet_metrics` keeps the
    /// series of the endpoints in focus only).
    pub fleet_summaries: crate::tui::refresh::FleetSummaries,
    /// Fleet-wide metrics (short window) for the tables.
    pub fleet_metrics: Option<MetricsSnapshot>,
    /// Metrics of the selected endpoint for the Latency pane.
    pub detail_metrics: Option<MetricsSnapshot>,
    /// The selected endpoint.
    pub selected: Option<String>,
    /// Mutations refused.
    pub read_only: bool,
    /// Read-only was asked at start (`--read-only` or the profile's config): `:readonly` cannot
    /// turn it off in this session.
    pub read_only_locked: bool,
    /// Why the config file could not be read (the console is then read-only for the whole
    /// session: the file may be what asks for it).
    pub config_error: Option<String>,
    /// The team's audit trail (`audit_log_group`), when one is configured: a new plan reads
    /// it for another plan on its endpoint first.
    pub team_trail: Option<String>,
    /// The session's audit reason (`:reason TEXT`, `--reason` at start): written with every
    /// mutation that has none of its own.
    pub reason: Option<String>,
    /// Latencies of the console's own invocations.
    pub own_latency: LatencyStats,
    /// MME catalogs by endpoint.
    pub catalogs: HashMap<String, Catalog>,
    /// Why the last catalog listing failed, by endpoint (cleared by a successful listing).
    pub catalog_errors: HashMap<String, String>,
    /// What the console saw of MME models, by (endpoint, model).
    pub models: HashMap<(String, String), ModelKnowledge>,
    /// The endpoint a weight change is following, as last described.
    pub weights_progress: Option<EndpointInfo>,
    /// Models that should stay loaded, per endpoint (marked on the Models pane).
    pub warm_set: crate::aws::endpoints::warmset::WarmSet,
    /// When figures are coloured as a warning or a breach (`[thresholds]`).
    pub thresholds: super::config::Thresholds,
    /// The region before the last `:region` (shown in the header until the new one is loaded).
    pub previous_region: Option<String>,
    /// The CloudWatch alarms that watch each endpoint, as last read (an endpoint absent: none
    /// watches it, or they were not read yet).
    pub alarms: HashMap<String, Vec<crate::aws::observe::alarms::AlarmStatus>>,
    /// When each endpoint last changed and how (epoch seconds, one line), from its timeline;
    /// the header shows the selected endpoint's.
    pub last_change: HashMap<String, (f64, String)>,
    /// A jump to the Logs pane asked by another pane (Latency's spike, Invoke's error); the Logs
    /// pane takes it when shown.
    pub logs_jump: Option<LogsJump>,
    /// Profile × region pairs of a multi-region view, as the last refresh left them (empty: one
    /// profile and region).
    pub regions: Vec<crate::tui::regions::RegionRow>,
    /// The pair (index into `regions`) of every endpoint of `inventory`, same order.
    pub origins: Vec<usize>,
    /// The pair of the selected endpoint (names may repeat across regions).
    pub selected_region: Option<usize>,
    /// Profiles whose configuration asks for read-only (`[profiles.P] read_only = true`): their
    /// endpoints stay read-only in a mixed view.
    pub read_only_profiles: Vec<String>,
    /// The rows listed but not described yet, or whose describe failed.
    pub undescribed: crate::tui::described::Undescribed,
    /// Where each row of `inventory` is, by name (kept by the refresh's reports).
    pub row_index: crate::tui::described::RowIndex,
    /// Counts the refresh's reports that changed a row (a new row, a new description, a row
    /// described or failed): the Endpoints view is sorted again when it moves.
    pub rows_version: u64,
    /// The inference components of IC endpoints as last read, by endpoint (the Components pane
    /// shows them, the Variants header names them).
    pub components: HashMap<String, ComponentsRead>,
}

/// One read of an inference-components endpoint: its components, described, and their metrics.
#[derive(Debug, Clone, Default)]
pub struct ComponentsRead {
    /// The components, by name.
    pub components: Vec<crate::aws::components::Component>,
    /// Their metrics over the last [`ComponentsRead::WINDOW`] (None when the read failed: see
    /// `metrics_error`).
    pub metrics: Option<MetricsSnapshot>,
    /// Why the metrics could not be read.
    pub metrics_error: Option<String>,
    /// When it was read (epoch seconds).
    pub at: f64,
}

impl ComponentsRead {
    /// The window of the components' metrics.
    pub const WINDOW: Duration = Duration::from_secs(900);

    /// The component with this name.
    pub fn component(&self, name: &str) -> Option<&crate::aws::components::Component> {
        self.components.iter().find(|c| c.name == name)
    }
}

/// A p99 figure with what it describes: the last complete period and its sample count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct P99 {
    /// p99 model latency (ms) of the worst variant.
    pub ms: f64,
    /// Start (epoch seconds) of the complete period it describes.
    pub period_start: Option<f64>,
    /// Invocations in that period (the figure's sample count).
    pub samples: Option<f64>,
}

/// Logs around a moment: what the Latency and Invoke panes hand to the Logs pane.
#[derive(Debug, Clone, PartialEq)]
pub struct LogsJump {
    /// Endpoint.
    pub endpoint: String,
    /// Only this variant's streams.
    pub variant: Option<String>,
    /// The moment (epoch seconds); the pane shows the minutes around it.
    pub at: f64,
}

impl Data {
    /// The console's one read-only gate: the refusal of a mutation named `what` (from
    /// [`crate::tui::event::Job::mutation`]) while read-only is on. `App::submit` asks it of every
    /// job; panes ask it before opening an editor so that the operator is told at once.
    pub fn refusal(&self, what: Option<&str>) -> Option<String> {
        let what = what?;
        self.read_only.then(|| {
            format!(
                "read-only: {what} is disabled (start without --read-only, or `:readonly` to toggle); nothing was sent"
            )
        })
    }

    /// Switches to region `region`: forgets everything read from the old one (endpoints,
    /// metrics, catalogs, what the console saw of its models, the selection) so that no figure
    /// or ARN of it shows under the new name; the console is loading until the new inventory.
    pub fn switch_region(&mut self, region: &str) {
        let old = std::mem::replace(&mut self.context.region, region.to_string());
        self.previous_region = Some(old).filter(|o| o != region);
        self.inventory.clear();
        self.undescribed = Default::default();
        self.failures.clear();
        self.loaded = false;
        self.last_ok = None;
        self.refresh_failed = false;
        self.refresh_error = None;
        self.fleet_metrics = None;
        self.fleet_summaries = Default::default();
        self.throttled_interval = None;
        self.detail_metrics = None;
        self.selected = None;
        self.own_latency = LatencyStats::default();
        self.catalogs.clear();
        self.catalog_errors.clear();
        self.models.clear();
        self.components.clear();
        self.weights_progress = None;
    }

    /// The endpoint with this name (in a multi-region view, the selected pair's first).
    pub fn endpoint(&self, name: &str) -> Option<&EndpointInfo> {
        self.endpoint_index(name).map(|i| &*self.inventory[i])
    }

    fn endpoint_index(&self, name: &str) -> Option<usize> {
        let mut found = self.inventory.iter().enumerate().filter(|(_, e)| e.name == name);
        let first = found.next()?.0;
        let Some(wanted) = self.selected_region else {
            return Some(first);
        };
        Some(
            std::iter::once(first)
                .chain(found.map(|(i, _)| i))
                .find(|i| self.origins.get(*i) == Some(&wanted))
                .unwrap_or(first),
        )
    }

    /// The profile × region pair an endpoint came from (None: a single-region view).
    pub fn origin(&self, name: &str) -> Option<&crate::tui::regions::RegionRow> {
        let i = self.endpoint_index(name)?;
        self.regions.get(*self.origins.get(i)?)
    }

    /// The read-only gate for a job on `endpoint`: the session's read-only setting, or the
    /// endpoint's own profile asking for it in a mixed view.
    pub fn refusal_on(&self, what: Option<&str>, endpoint: Option<&str>) -> Option<String> {
        if let Some(r) = self.refusal(what) {
            return Some(r);
        }
        let what = what?;
        let o = self.origin(endpoint?)?;
        self.read_only_profiles.contains(&o.profile).then(|| {
            format!(
                "read-only: {what} is disabled for profile {} ({}): its configuration asks for read-only; nothing was sent",
                o.profile, o.target.region
            )
        })
    }

    /// The alarms watching `endpoint` that are in ALARM.
    pub fn firing_alarms(&self, endpoint: &str) -> Vec<&crate::aws::observe::alarms::AlarmStatus> {
        self.alarms
            .get(endpoint)
            .map(|v| v.iter().filter(|a| a.firing()).collect())
            .unwrap_or_default()
    }

    /// `⚠2 ` when two alarms watching `endpoint` are in ALARM; empty when none is.
    pub fn alarm_badge(&self, endpoint: &str) -> String {
        match self.firing_alarms(endpoint).len() {
            0 => String::new(),
            n => format!("⚠{n} "),
        }
    }

    /// The selected endpoint.
    pub fn selected_endpoint(&self) -> Option<&EndpointInfo> {
        self.selected.as_deref().and_then(|s| self.endpoint(s))
    }

    /// Fleet-table metric summary of a variant: from the figures kept for the whole fleet, else
    /// from the snapshot of the endpoints in focus.
    pub fn summary(&self, endpoint: &str, variant: &str) -> Option<&VariantSummary> {
        if let Some(s) = self.fleet_summaries.get(endpoint, variant) {
            return Some(s);
        }
        self.fleet_metrics
            .as_ref()?
            .variant(endpoint, variant)
            .map(|v| &v.summary)
    }

    /// Whether the data is stale: the last refresh failed, or is older than three intervals.
    pub fn stale(&self) -> bool {
        if self.refresh_failed {
            return true;
        }
        match self.last_ok {
            Some(t) => t.elapsed() > self.refresh_every() * 3,
            None => false,
        }
    }

    /// Invocations per minute of an endpoint (all variants), from the fleet metrics.
    pub fn invocations_per_min(&self, e: &EndpointInfo) -> Option<f64> {
        let s: Vec<f64> = e
            .variants
            .iter()
            .filter_map(|v| self.summary(&e.name, &v.name))
            .map(|s| s.invocations_per_min)
            .collect();
        if s.is_empty() {
            None
        } else {
            Some(s.iter().sum::<f64>() + 0.0)
        }
    }

    /// Worst p99 model latency across an endpoint's variants (ms).
    pub fn p99(&self, e: &EndpointInfo) -> Option<f64> {
        e.variants
            .iter()
            .filter_map(|v| self.summary(&e.name, &v.name)?.model_latency_p99_ms)
            .reduce(f64::max)
    }

    /// Worst p99 across an endpoint's variants with its period and sample count.
    pub fn p99_detail(&self, e: &EndpointInfo) -> Option<P99> {
        e.variants
            .iter()
            .filter_map(|v| {
                let s = self.summary(&e.name, &v.name)?;
                Some(P99 {
                    ms: s.model_latency_p99_ms?,
                    period_start: s.latest_period_start,
                    samples: s.latest_samples,
                })
            })
            .reduce(|a, b| if b.ms > a.ms { b } else { a })
    }

    /// The p99 as text with what it describes: `39.8 ms (period 12:34, 612 samples)`.
    pub fn p99_text(&self, e: &EndpointInfo) -> Option<String> {
        let p = self.p99_detail(e)?;
        let mut text = format!("{:.1} ms", p.ms);
        if let (Some(at), Some(n)) = (p.period_start, p.samples) {
            let clock: String = crate::format::time_text(at).chars().skip(11).collect();
            text.push_str(&format!(" (period {clock}, {n:.0} samples)"));
        }
        Some(text)
    }

    /// 5XX rate of an endpoint over the metrics window.
    pub fn error_rate_5xx(&self, e: &EndpointInfo) -> Option<f64> {
        let (mut inv, mut err) = (0.0, 0.0);
        let mut any = false;
        for v in &e.variants {
            if let Some(s) = self.summary(&e.name, &v.name) {
                any = true;
                inv += s.invocations;
                err += s.errors_5xx;
            }
        }
        if !any || inv == 0.0 { None } else { Some(err / inv) }
    }
}
