//! The console across regions and accounts: which profile × region pairs it shows, what each
//! gave at the last refresh (a failed pair is one row with its reason), and which pair every
//! endpoint came from, so that each job acts on its endpoint's own profile and region.

use crate::aws::endpoints::inventory::{EndpointInfo, Inventory};
use crate::aws::endpoints::multi::{FleetTarget, MultiInventory, RegionOutcome};

/// One profile × region as the last refresh left it.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionRow {
    /// The pair.
    pub target: FleetTarget,
    /// Profile as named (`default` when none).
    pub profile: String,
    /// Account id, when STS answered.
    pub account: Option<String>,
    /// Why the pair could not be listed (None: listed).
    pub error: Option<String>,
    /// Endpoints listed there.
    pub endpoints: usize,
}

/// What a multi-region refresh gives the app: one row per pair, and the merged inventory with
/// the row index of every endpoint (same order as `inventory.endpoints`).
#[derive(Debug, Clone)]
pub struct MergedInventory {
    /// One row per pair, in the order asked.
    pub regions: Vec<RegionRow>,
    /// The pair (index into `regions`) of every endpoint.
    pub origins: Vec<usize>,
    /// Every listed endpoint.
    pub inventory: Inventory,
}

/// Merges the pairs of a [`MultiInventory`] into one inventory and its region rows.
pub fn merge(multi: MultiInventory, targets: &[FleetTarget]) -> MergedInventory {
    let mut regions = Vec::new();
    let mut origins = Vec::new();
    let mut endpoints: Vec<std::sync::Arc<EndpointInfo>> = Vec::new();
    let mut failures = Vec::new();
    let mut figures = Inventory::default();
    let (api_calls, elapsed_ms) = (multi.api_calls, multi.elapsed_ms);
    for (i, r) in multi.regions.into_iter().enumerate() {
        let target = targets.get(i).cloned().unwrap_or_else(|| FleetTarget {
            profile: Some(r.profile.clone()),
            region: r.region.clone(),
        });
        let (error, count) = match r.outcome {
            RegionOutcome::Ok { inventory } => {
                let count = inventory.endpoints.len();
                // The rows move: 10,000 of them are not copied on every refresh.
                endpoints.extend(inventory.endpoints);
                origins.extend(std::iter::repeat_n(i, count));
                failures.extend(inventory.failures);
                figures.pending.extend(inventory.pending);
                figures.described += inventory.described;
                figures.throttled += inventory.throttled;
                (None, count)
            }
            RegionOutcome::Failed { error } => (Some(error.to_string()), 0),
        };
        regions.push(RegionRow {
            target,
            profile: r.profile,
            account: r.account,
            error,
            endpoints: count,
        });
    }
    MergedInventory {
        regions,
        origins,
        inventory: Inventory {
            endpoints,
            failures,
            api_calls,
            elapsed_ms,
            ..figures
        },
    }
}

/// The header's region text, short enough for 80 columns: `us-east-1 +2 (2/3 regions in)`.
pub fn header_text(regions: &[RegionRow]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for r in regions {
        if !names.contains(&r.target.region.as_str()) {
            names.push(&r.target.region);
        }
    }
    let ok = regions.iter().filter(|r| r.error.is_none()).count();
    let more = match names.len() {
        0 | 1 => String::new(),
        n => format!(" +{}", n - 1),
    };
    let first = names.first().copied().unwrap_or("-");
    format!("{first}{more} ({ok}/{} regions in)", regions.len())
}
