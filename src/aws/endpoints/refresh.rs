//! A refresh that costs what changed. ListEndpoints already gives every endpoint's status and
//! LastModifiedTime, so a refresh lists every page and describes only the endpoints that need it:
//! new ones, those whose status or LastModifiedTime moved, those in a transitional status
//! (Creating, Updating, RollingBack, SystemUpdating, Deleting), the selected endpoint (always
//! read fresh), and a slow sweep as a safety net: each endpoint has a phase in the sweep period
//! (from a hash of its name), and a refresh describes those whose phase passed since the last
//! one, so every endpoint is read again once per period, spread evenly over it. The rest keep
//! their last description. [`RefreshMemory`] is what one profile × region remembers between
//! refreshes; the paging and the describes are `progressive.rs`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::aws::endpoints::inventory::{EndpointInfo, InventoryOptions};

/// The statuses in which an endpoint changes without its LastModifiedTime saying so.
pub const TRANSITIONAL: [&str; 5] = ["Creating", "Updating", "RollingBack", "SystemUpdating", "Deleting"];

/// The default sweep period: every endpoint described again at least this often.
pub const DEFAULT_SWEEP: Duration = Duration::from_secs(600);

/// How one refresh chooses what to describe.
#[derive(Debug, Clone)]
pub struct RefreshPlan {
    /// Concurrency, per-call deadline, autoscaling.
    pub options: InventoryOptions,
    /// The selected endpoint: described on every refresh, first.
    pub selected: Option<String>,
    /// The sweep period (every endpoint described again at least this often).
    pub sweep: Duration,
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
/// endpoint listed, and when the last refresh ran (for the sweep).
#[derive(Debug)]
pub struct RefreshMemory {
    known: HashMap<String, EndpointInfo>,
    origin: Instant,
    last: Option<f64>,
}

impl Default for RefreshMemory {
    fn default() -> Self {
        RefreshMemory {
            known: HashMap::new(),
            origin: Instant::now(),
            last: None,
        }
    }
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

    /// The last description of `name`.
    pub fn known(&self, name: &str) -> Option<&EndpointInfo> {
        self.known.get(name)
    }

    /// Remembers a fresh description.
    pub fn keep(&mut self, info: &EndpointInfo) {
        self.known.insert(info.name.clone(), info.clone());
    }

    /// Forgets every endpoint not listed this time (deleted).
    pub fn retain_listed(&mut self, listed: &std::collections::HashSet<&str>) {
        self.known.retain(|name, _| listed.contains(name.as_str()));
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
}
