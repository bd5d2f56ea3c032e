//! A refresh that costs what changed. ListEndpoints already gives every endpoint's status and
//! LastModifiedTime, so a refresh lists only what moved since the last listing
//! (`LastModifiedTimeAfter` the newest LastModifiedTime seen, less a minute's margin: one page
//! when nothing changes), with a full listing every few minutes ([`DEFAULT_FULL_LISTING`], each
//! profile × region at its own phase so they do not all list at once) to catch deletions and
//! anything missed. It describes only the endpoints that need it: new ones, those whose status or
//! LastModifiedTime moved, those in a transitional status (Creating, Updating, RollingBack,
//! SystemUpdating, Deleting), the selected endpoint (always read fresh), and a slow sweep as a
//! safety net: each endpoint has a phase in the sweep period (from a hash of its name), and a
//! refresh describes those whose phase passed since the last one, so every endpoint is read again
//! once per period, spread evenly over it. The rest keep their last description.
//! [`RefreshMemory`] is what one profile × region remembers between refreshes; the paging and the
//! describes are `progressive.rs`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::aws::endpoints::inventory::{EndpointInfo, InventoryOptions};

/// The statuses in which an endpoint changes without its LastModifiedTime saying so.
pub const TRANSITIONAL: [&str; 5] = ["Creating", "Updating", "RollingBack", "SystemUpdating", "Deleting"];

/// The default sweep period: every endpoint described again at least this often (an hour: at a
/// 10 s refresh, 0.28 % of the fleet per refresh).
pub const DEFAULT_SWEEP: Duration = Duration::from_secs(3600);

/// The default full-listing period: every page listed again at least this often (between them a
/// refresh lists only what moved).
pub const DEFAULT_FULL_LISTING: Duration = Duration::from_secs(300);

/// How far before the newest LastModifiedTime seen an incremental listing starts (seconds): a
/// change committed a little before a newer one but listed after it is still caught.
pub const LISTING_MARGIN: f64 = 60.0;

/// How one refresh chooses what to describe.
#[derive(Debug, Clone)]
pub struct RefreshPlan {
    /// Concurrency, per-call deadline, autoscaling.
    pub options: InventoryOptions,
    /// The selected endpoint: described on every refresh, first.
    pub selected: Option<String>,
    /// The sweep period (every endpoint described again at least this often).
    pub sweep: Duration,
    /// The full-listing period (every page listed again at least this often; between full
    /// listings only what moved is listed).
    pub full_listing: Duration,
    /// Describes not started within this time are left for the next refresh (their rows keep
    /// their last description, or stay loading); None: no limit.
    pub deadline: Option<Duration>,
}

impl RefreshPlan {
    /// A plan that describes every endpoint (a first load, or a one-off inventory).
    pub fn full(options: InventoryOptions) -> RefreshPlan {
        RefreshPlan {
            options,
            selected: None,
            sweep: DEFAULT_SWEEP,
            full_listing: DEFAULT_FULL_LISTING,
            deadline: None,
        }
    }
}

/// Why an endpoint is described on a refresh (None: its last description stands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Never described by this memory.
    New,
    /// Its status or LastModifiedTime moved.
    Changed,
    /// In a transitional status.
    Transitional,
    /// The selected endpoint.
    Selected,
    /// Its turn in the sweep.
    Sweep,
}

/// What one profile × region remembers between refreshes: the last description of every
/// endpoint listed and their order, when the last refresh ran (for the sweep), the newest
/// LastModifiedTime seen and when the last full listing ran (for the incremental listing).
#[derive(Debug)]
pub struct RefreshMemory {
    known: HashMap<String, Arc<EndpointInfo>>,
    undescribed: HashMap<String, Arc<EndpointInfo>>,
    order: Vec<String>,
    origin: Instant,
    last: Option<f64>,
    newest: Option<f64>,
    full_at: Option<f64>,
    fulls: u32,
    phase: f64,
}

impl Default for RefreshMemory {
    fn default() -> Self {
        RefreshMemory {
            known: HashMap::new(),
            undescribed: HashMap::new(),
            order: Vec::new(),
            origin: Instant::now(),
            last: None,
            newest: None,
            full_at: None,
            fulls: 0,
            phase: 0.0,
        }
    }
}

/// What a refresh lists.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Listing {
    /// Every page.
    Full,
    /// Only the endpoints whose LastModifiedTime is after this (epoch seconds).
    ModifiedAfter(f64),
}

/// The sweep window of one refresh: the phases (seconds into the period) that passed since the
/// last refresh.
#[derive(Debug, Clone, Copy)]
pub struct SweepWindow {
    from: f64,
    to: f64,
    period: f64,
    all: bool,
}

impl SweepWindow {
    /// Whether the endpoint `name`'s turn falls in this window.
    pub fn contains(&self, name: &str) -> bool {
        if self.all {
            return true;
        }
        let phase = (fnv1a(name) % 1_000_000) as f64 / 1_000_000.0 * self.period;
        if self.from <= self.to {
            self.from < phase && phase <= self.to
        } else {
            phase > self.from || phase <= self.to
        }
    }
}

/// FNV-1a: a stable hash of a name (the same phase on every run and machine).
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl RefreshMemory {
    /// The memory of pair `index` of `count`: its full listings are spread over the period, the
    /// second one coming `index / count` of a period later than the first's period.
    pub fn spread(index: usize, count: usize) -> RefreshMemory {
        RefreshMemory {
            phase: index as f64 / count.max(1) as f64,
            ..RefreshMemory::default()
        }
    }

    /// What this refresh lists: every page on the first refresh and once a full-listing period
    /// passed since the last full listing (the first period lengthened by this pair's phase), else
    /// what moved since a minute before the newest LastModifiedTime seen.
    pub fn listing(&self, every: Duration) -> Listing {
        self.listing_at(self.origin.elapsed().as_secs_f64(), every)
    }

    fn listing_at(&self, now: f64, every: Duration) -> Listing {
        let (Some(at), Some(newest)) = (self.full_at, self.newest) else {
            return Listing::Full;
        };
        let stretch = if self.fulls == 1 { 1.0 + self.phase } else { 1.0 };
        if now - at >= every.as_secs_f64() * stretch {
            return Listing::Full;
        }
        Listing::ModifiedAfter(newest - LISTING_MARGIN)
    }

    /// A full listing ended well now.
    pub fn listed_fully(&mut self) {
        self.full_at = Some(self.origin.elapsed().as_secs_f64());
        self.fulls += 1;
    }

    /// The names in the last refresh's order.
    pub fn order(&self) -> &[String] {
        &self.order
    }

    /// Starts a refresh now: the sweep window since the last one (everything when a whole period
    /// passed; nothing on the first refresh, where every endpoint is new anyway).
    pub fn begin(&mut self, sweep: Duration) -> SweepWindow {
        self.begin_at(self.origin.elapsed().as_secs_f64(), sweep)
    }

    fn begin_at(&mut self, now: f64, sweep: Duration) -> SweepWindow {
        let period = sweep.as_secs_f64().max(1.0);
        let prev = self.last.replace(now);
        let (from, to) = (prev.unwrap_or(now) % period, now % period);
        SweepWindow {
            from,
            to,
            period,
            all: prev.is_some_and(|p| now - p >= period),
        }
    }

    /// Why the listed `row` must be described on this refresh, or None when its last
    /// description stands.
    pub fn why(&self, row: &EndpointInfo, plan: &RefreshPlan, sweep: &SweepWindow) -> Option<Why> {
        if plan.selected.as_deref() == Some(row.name.as_str()) {
            return Some(Why::Selected);
        }
        let Some(known) = self.known.get(&row.name) else {
            return Some(Why::New);
        };
        if known.status != row.status || known.modified != row.modified {
            return Some(Why::Changed);
        }
        if TRANSITIONAL.contains(&row.status.as_str()) {
            return Some(Why::Transitional);
        }
        sweep.contains(&row.name).then_some(Why::Sweep)
    }

    /// The last description of `name` (shared with the inventories that show it).
    pub fn known(&self, name: &str) -> Option<&Arc<EndpointInfo>> {
        self.known.get(name)
    }

    /// Remembers a fresh description.
    pub fn keep(&mut self, info: &Arc<EndpointInfo>) {
        self.known.insert(info.name.clone(), info.clone());
    }

    /// The listed row of `name`, listed but never described (its describe pending or failed).
    pub fn undescribed(&self, name: &str) -> Option<&Arc<EndpointInfo>> {
        self.undescribed.get(name)
    }

    /// Keeps the refresh's endpoints, in its order, then the listed rows it could not describe
    /// (failed: not among its endpoints), and forgets every other (deleted); notes the newest
    /// LastModifiedTime among them. `undescribed`: the rows listed but never described.
    pub fn settle(&mut self, endpoints: &[Arc<EndpointInfo>], undescribed: Vec<Arc<EndpointInfo>>) {
        let listed: std::collections::HashSet<&str> = endpoints.iter().map(|e| e.name.as_str()).collect();
        self.known.retain(|name, _| listed.contains(name.as_str()));
        self.order = endpoints.iter().map(|e| e.name.clone()).collect();
        let failed = undescribed.iter().filter(|r| !listed.contains(r.name.as_str()));
        self.order.extend(failed.map(|r| r.name.clone()).collect::<Vec<_>>());
        self.undescribed = undescribed.into_iter().map(|r| (r.name.clone(), r)).collect();
        let newest = endpoints.iter().map(|e| e.modified).fold(f64::NEG_INFINITY, f64::max);
        if newest.is_finite() {
            self.newest = Some(self.newest.map_or(newest, |n| n.max(newest)));
        }
    }

    /// Endpoints remembered.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_reads_every_name_once_per_period() {
        let names: Vec<String> = (0..1000).map(|i| format!("fleet-ep-{i:05}")).collect();
        let mut m = RefreshMemory::default();
        let period = Duration::from_secs(100);
        m.begin_at(0.0, period);
        let mut seen = std::collections::HashMap::new();
        for step in 1..=10 {
            let w = m.begin_at(f64::from(step) * 10.0, period);
            let picked: Vec<&String> = names.iter().filter(|n| w.contains(n)).collect();
            assert!(
                (50..=150).contains(&picked.len()),
                "a tenth of the period takes about a tenth of the names: {}",
                picked.len()
            );
            for n in picked {
                *seen.entry(n.clone()).or_insert(0) += 1;
            }
        }
        assert_eq!(seen.len(), names.len(), "every name once in a period");
        assert!(seen.values().all(|n| *n == 1));
        assert!(m.begin_at(250.0, period).all, "a whole period late: every name");
    }

    #[test]
    fn full_listings_come_once_a_period_each_pair_at_its_own_phase() {
        let every = Duration::from_secs(300);
        let mut m = RefreshMemory::spread(2, 5);
        assert_eq!(m.listing_at(0.0, every), Listing::Full, "nothing known yet");
        m.newest = Some(1000.0);
        m.full_at = Some(0.0);
        m.fulls = 1;
        assert_eq!(
            m.listing_at(10.0, every),
            Listing::ModifiedAfter(1000.0 - LISTING_MARGIN)
        );
        assert_eq!(m.listing_at(419.0, every), Listing::ModifiedAfter(940.0), "300 × 1.4");
        assert_eq!(m.listing_at(420.0, every), Listing::Full);
        m.full_at = Some(420.0);
        m.fulls = 2;
        assert!(matches!(m.listing_at(719.0, every), Listing::ModifiedAfter(_)));
        assert_eq!(m.listing_at(720.0, every), Listing::Full, "then a plain period");
        assert_eq!(m.listing_at(421.0, Duration::ZERO), Listing::Full);
    }
}
