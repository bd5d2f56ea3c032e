//! One inventory across profiles (accounts) and regions: every profile × region pair is
//! connected and listed on its own, concurrently; a pair that fails (no credentials, throttled,
//! network) is one failed row with its reason and never hides the others. Each pair keeps its
//! own [`Fleet`], so every later action on an endpoint uses that endpoint's profile and region.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::aws::endpoints::inventory::{EndpointInfo, Inventory, InventoryOptions};
use crate::aws::{AwsError, AwsOptions, Fleet};

/// One profile × region to list.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct FleetTarget {
    /// Profile (`None`: the default chain).
    pub profile: Option<String>,
    /// Region.
    pub region: String,
}

/// All pairs of `profiles` × `regions` (an empty profile list means the default chain).
pub fn targets(profiles: &[String], regions: &[String]) -> Vec<FleetTarget> {
    let profiles: Vec<Option<String>> = if profiles.is_empty() {
        vec![None]
    } else {
        profiles.iter().cloned().map(Some).collect()
    };
    profiles
        .iter()
        .flat_map(|p| {
            regions.iter().map(move |r| FleetTarget {
                profile: p.clone(),
                region: r.clone(),
            })
        })
        .collect()
}

/// One pair's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct RegionInventory {
    /// Profile as named (`default` when none).
    pub profile: String,
    /// Region.
    pub region: String,
    /// Account id (STS GetCallerIdentity), when it answered.
    pub account: Option<String>,
    /// The inventory, or why there is none.
    #[serde(flatten)]
    pub outcome: RegionOutcome,
    /// The connected fleet layer (absent when connecting failed).
    #[serde(skip)]
    pub fleet: Option<Fleet>,
}

/// What listing one pair gave.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum RegionOutcome {
    /// Listed.
    Ok {
        /// Its inventory.
        inventory: Inventory,
    },
    /// Failed as a whole.
    Failed {
        /// Why.
        error: AwsError,
    },
}

/// Every pair, in the order asked.
#[derive(Debug, Clone, Serialize)]
pub struct MultiInventory {
    /// One entry per profile × region.
    pub regions: Vec<RegionInventory>,
    /// API calls made in all (inventories only).
    pub api_calls: usize,
    /// Wall time in milliseconds.
    pub elapsed_ms: u64,
}

impl MultiInventory {
    /// Endpoints of every pair that listed, with their pair.
    pub fn endpoints(&self) -> impl Iterator<Item = (&RegionInventory, &EndpointInfo)> {
        self.regions.iter().flat_map(|r| match &r.outcome {
            RegionOutcome::Ok { inventory } => inventory.endpoints.iter().map(|e| (r, &**e)).collect::<Vec<_>>(),
            RegionOutcome::Failed { .. } => Vec::new(),
        })
    }
}

/// How one pair's inventory is read once its fleet is connected.
pub type ReadInventory =
    Box<dyn FnOnce(Fleet) -> futures_util::future::BoxFuture<'static, Result<Inventory, AwsError>> + Send>;

async fn one(target: FleetTarget, base: AwsOptions, read: ReadInventory, fleet: Option<Fleet>) -> RegionInventory {
    let profile = target.profile.clone().unwrap_or_else(|| "default".into());
    let fail = |error, fleet| RegionInventory {
        profile: profile.clone(),
        region: target.region.clone(),
        account: None,
        outcome: RegionOutcome::Failed { error },
        fleet,
    };
    // A named profile the shared files lack would borrow the environment's credentials.
    if let Some(why) = target.profile.as_deref().and_then(super::profiles::missing_profile) {
        return fail(AwsError::Config(why), None);
    }
    let fleet = match fleet {
        Some(f) => f,
        None => {
            let o = AwsOptions {
                profile: target.profile.clone(),
                region: Some(target.region.clone()),
                ..base
            };
            match Fleet::connect(&o).await {
                Ok(f) => f,
                Err(e) => return fail(e, None),
            }
        }
    };
    let call = fleet.sts.get_caller_identity().send();
    let account = match tokio::time::timeout(Duration::from_secs(5), call).await {
        Ok(Ok(out)) => out.account().map(str::to_string),
        _ => None,
    };
    match read(fleet.clone()).await {
        Ok(inventory) => RegionInventory {
            profile: profile.clone(),
            region: target.region.clone(),
            account,
            outcome: RegionOutcome::Ok { inventory },
            fleet: Some(fleet),
        },
        Err(e) => RegionInventory {
            account,
            ..fail(e, Some(fleet))
        },
    }
}

/// Lists every target concurrently, each endpoint described. `fleets` reuses connected fleets
/// by target (a refresh keeps their describe caches); targets without one are connected.
pub async fn multi_inventory(
    targets: &[FleetTarget],
    base: &AwsOptions,
    opts: InventoryOptions,
    fleets: &[(FleetTarget, Fleet)],
) -> MultiInventory {
    use futures_util::FutureExt;
    let read = |_: usize| -> ReadInventory { Box::new(move |f: Fleet| async move { f.inventory(opts).await }.boxed()) };
    multi_inventory_with(targets, base, fleets, read).await
}

/// [`multi_inventory`], each pair read by `read(index of the pair)` (the console's refresh: what
/// changed, reported as it comes).
pub async fn multi_inventory_with(
    targets: &[FleetTarget],
    base: &AwsOptions,
    fleets: &[(FleetTarget, Fleet)],
    read: impl Fn(usize) -> ReadInventory,
) -> MultiInventory {
    let start = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for (i, t) in targets.iter().enumerate() {
        let known = fleets.iter().find(|(k, _)| k == t).map(|(_, f)| f.clone());
        let (t, base, read) = (t.clone(), base.clone(), read(i));
        set.spawn(async move { (i, one(t, base, read, known).await) });
    }
    let mut regions: Vec<(usize, RegionInventory)> = Vec::new();
    while let Some(joined) = set.join_next().await {
        if let Ok(r) = joined {
            regions.push(r);
        }
    }
    regions.sort_by_key(|(i, _)| *i);
    let regions: Vec<RegionInventory> = regions.into_iter().map(|(_, r)| r).collect();
    let api_calls = regions
        .iter()
        .map(|r| match &r.outcome {
            RegionOutcome::Ok { inventory } => inventory.api_calls,
            RegionOutcome::Failed { .. } => 0,
        })
        .sum();
    MultiInventory {
        regions,
        api_calls,
        elapsed_ms: start.elapsed().as_millis() as u64,
    }
}
