//! How the console paces its reads of a large fleet, and what it keeps of them.
//!
//! - The inventory: a refresh AWS throttled doubles the interval (up to 5 minutes, the header
//!   says `throttled: refresh slowed to Ns`); each clean refresh halves it back to the one
//!   configured.
//! - The fleet's metrics: each metrics refresh reads the endpoints in focus (the selected one and
//!   the Endpoints table's visible rows) first, then the next slice of the rest, as many as the
//!   calls-per-minute budget allows (GetMetricData takes 500 queries a call), so that the whole
//!   fleet is read at a slower cadence.
//! - Memory: a summary per variant of every endpoint read (the table's figures), the series
//!   only of the endpoints in focus.

use std::collections::HashMap;
use std::time::Duration;

use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::observe::metrics::{MetricsPlan, MetricsSnapshot, VariantSummary};
use crate::tui::data::Data;

/// The longest a throttled refresh interval grows to.
pub const MAX_SLOWDOWN: Duration = Duration::from_secs(300);

/// The default metrics budget: GetMetricData calls per minute.
pub const DEFAULT_METRICS_CALLS_PER_MINUTE: u32 = 60;

/// The table's metric figures of every endpoint read so far, by endpoint then variant.
#[derive(Debug, Default, Clone)]
pub struct FleetSummaries {
    by_endpoint: HashMap<String, Vec<(String, VariantSummary)>>,
    /// Where the next slice of the endpoints out of focus starts.
    cursor: usize,
}

impl FleetSummaries {
    /// The summary of one variant.
    pub fn get(&self, endpoint: &str, variant: &str) -> Option<&VariantSummary> {
        let variants = self.by_endpoint.get(endpoint)?;
        variants.iter().find(|(v, _)| v == variant).map(|(_, s)| s)
    }

    /// Endpoints with figures.
    pub fn len(&self) -> usize {
        self.by_endpoint.len()
    }

    /// Whether nothing was read yet.
    pub fn is_empty(&self) -> bool {
        self.by_endpoint.is_empty()
    }

    /// Takes the summaries of a snapshot (replacing each endpoint's read before).
    fn take(&mut self, snapshot: &MetricsSnapshot) {
        let mut fresh: HashMap<&str, Vec<(String, VariantSummary)>> = HashMap::new();
        for vm in &snapshot.variants {
            fresh
                .entry(vm.endpoint.as_str())
                .or_default()
                .push((vm.variant.clone(), vm.summary.clone()));
        }
        for (endpoint, variants) in fresh {
            self.by_endpoint.insert(endpoint.to_string(), variants);
        }
    }

    /// Forgets the endpoints no longer listed.
    fn retain(&mut self, inventory: &[std::sync::Arc<EndpointInfo>]) {
        if self.by_endpoint.len() > inventory.len() {
            let names: std::collections::HashSet<&str> = inventory.iter().map(|e| e.name.as_str()).collect();
            self.by_endpoint.retain(|name, _| names.contains(name.as_str()));
        }
    }
}

/// Hands the memory freed since the last call back to the system. A refresh of a large fleet
/// allocates thousands of transient buffers and rows on the worker's threads and frees the rows
/// it replaces on the console's; glibc keeps freed pages resident in each thread's arena, so
/// without this the resident set creeps up with every refresh. Called after the worker sends an
/// inventory and after the console puts one (or a fleet metrics read) in place.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

impl Data {
    /// The inventory interval in force: the configured one, or the slower one throttling set.
    pub fn refresh_every(&self) -> Duration {
        self.throttled_interval.unwrap_or(self.refresh_interval)
    }

    /// A refresh ended: AWS throttled some of its calls (the interval doubles, up to
    /// [`MAX_SLOWDOWN`]), or none (it halves back towards the configured interval).
    pub fn note_throttling(&mut self, throttled: bool) {
        let now = self.refresh_every();
        self.throttled_interval = if throttled {
            Some((now * 2).min(MAX_SLOWDOWN).max(self.refresh_interval))
        } else {
            Some(now / 2).filter(|half| *half > self.refresh_interval)
        };
    }

    /// Takes a fleet metrics snapshot: every variant's summary is kept, the series only for the
    /// endpoints in `focus` (the snapshot the panes chart is reduced to them).
    pub fn take_fleet_metrics(&mut self, mut snapshot: MetricsSnapshot, focus: &[String]) {
        self.fleet_summaries.take(&snapshot);
        self.fleet_summaries.retain(&self.inventory);
        let in_focus = |name: &str| focus.iter().any(|f| f == name);
        snapshot.variants.retain(|v| in_focus(&v.endpoint));
        if let Some(old) = self.fleet_metrics.take() {
            // Focused endpoints this read did not reach keep their last series.
            let kept = old
                .variants
                .into_iter()
                .filter(|v| in_focus(&v.endpoint) && !snapshot.variants.iter().any(|n| n.endpoint == v.endpoint));
            snapshot.variants.extend(kept.collect::<Vec<_>>());
        }
        self.fleet_metrics = Some(snapshot);
    }

    /// The endpoints of one fleet metrics read: those in `focus` that serve, then the next
    /// serving endpoints out of focus, as many as fit in `calls` GetMetricData calls.
    pub fn metrics_slice(&mut self, focus: &[String], calls: usize, window: Duration) -> Vec<EndpointInfo> {
        let serving = |e: &&EndpointInfo| matches!(e.status.as_str(), "InService" | "Updating");
        let mut picked: Vec<EndpointInfo> = focus
            .iter()
            .filter_map(|name| self.endpoint(name))
            .filter(serving)
            .cloned()
            .collect();
        let period = MetricsPlan::period_for(window);
        let queries_of = |e: &EndpointInfo| {
            MetricsPlan::for_endpoints(std::slice::from_ref(e), window, period)
                .queries
                .len()
        };
        let room = calls.max(1) * crate::aws::observe::metrics::MAX_QUERIES_PER_CALL;
        let mut used: usize = picked.iter().map(queries_of).sum();
        let n = self.inventory.len();
        let start = self.fleet_summaries.cursor.min(n);
        let mut next = start;
        for step in 0..n {
            let i = (start + step) % n;
            next = (i + 1) % n.max(1);
            let e: &EndpointInfo = &self.inventory[i];
            if !serving(&e) || focus.contains(&e.name) {
                continue;
            }
            let q = queries_of(e);
            if used + q > room {
                next = i;
                break;
            }
            used += q;
            picked.push(e.clone());
        }
        self.fleet_summaries.cursor = next;
        picked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttling_doubles_the_interval_and_clean_refreshes_bring_it_back() {
        let mut d = Data {
            refresh_interval: Duration::from_secs(10),
            ..Data::default()
        };
        d.note_throttling(true);
        assert_eq!(d.refresh_every(), Duration::from_secs(20));
        d.note_throttling(true);
        assert_eq!(d.refresh_every(), Duration::from_secs(40));
        for _ in 0..10 {
            d.note_throttling(true);
        }
        assert_eq!(d.refresh_every(), MAX_SLOWDOWN);
        d.throttled_interval = Some(Duration::from_secs(40));
        d.note_throttling(false);
        assert_eq!(d.throttled_interval, Some(Duration::from_secs(20)));
        d.note_throttling(false);
        assert_eq!(d.throttled_interval, None, "back at the configured interval: no badge");
    }
}
