//! The inference components of every profile × region the fleet is configured with, as the
//! endpoints inventory lists them (`endpoints/multi.rs`): each pair connected and listed on its
//! own, concurrently; a pair that fails is one failed row with its reason and hides nothing else.

use std::time::Instant;

use serde::Serialize;

use crate::aws::components::inventory::{Component, ComponentFilter};
use crate::aws::endpoints::multi::FleetTarget;
use crate::aws::endpoints::profiles::missing_profile;
use crate::aws::{AwsError, AwsOptions, Fleet};

/// What listing one pair's components gave.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum RegionComponentsOutcome {
    /// Listed.
    Ok {
        /// Its components, sorted by endpoint then name.
        components: Vec<Component>,
        /// API calls made.
        api_calls: usize,
    },
    /// Failed as a whole.
    Failed {
        /// Why.
        error: AwsError,
    },
}

/// One pair's components.
#[derive(Debug, Clone, Serialize)]
pub struct RegionComponents {
    /// Profile as named (`default` when none).
    pub profile: String,
    /// Region.
    pub region: String,
    /// The components, or why there are none.
    #[serde(flatten)]
    pub outcome: RegionComponentsOutcome,
}

/// Every pair's components, in the order asked.
#[derive(Debug, Clone, Serialize)]
pub struct MultiComponents {
    /// One entry per profile × region.
    pub regions: Vec<RegionComponents>,
    /// Wall time in milliseconds.
    pub elapsed_ms: u64,
}

impl MultiComponents {
    /// Every listed component with its pair.
    pub fn components(&self) -> impl Iterator<Item = (&RegionComponents, &Component)> {
        self.regions.iter().flat_map(|r| match &r.outcome {
            RegionComponentsOutcome::Ok { components, .. } => components.iter().map(|c| (r, c)).collect::<Vec<_>>(),
            RegionComponentsOutcome::Failed { .. } => Vec::new(),
        })
    }
}

/// Connects one pair and lists its components.
async fn one(target: FleetTarget, base: AwsOptions, filter: ComponentFilter) -> RegionComponents {
    let profile = target.profile.clone().unwrap_or_else(|| "default".into());
    let outcome = match list_one(&target, base, &filter).await {
        Ok((components, api_calls)) => RegionComponentsOutcome::Ok { components, api_calls },
        Err(error) => RegionComponentsOutcome::Failed { error },
    };
    RegionComponents {
        profile,
        region: target.region,
        outcome,
    }
}

async fn list_one(
    target: &FleetTarget,
    base: AwsOptions,
    filter: &ComponentFilter,
) -> Result<(Vec<Component>, usize), AwsError> {
    // A named profile the shared files lack would borrow the environment's credentials.
    if let Some(why) = target.profile.as_deref().and_then(missing_profile) {
        return Err(AwsError::Config(why));
    }
    let options = AwsOptions {
        profile: target.profile.clone(),
        region: Some(target.region.clone()),
        ..base
    };
    let fleet = Fleet::connect(&options).await?;
    let inv = fleet.component_inventory(filter).await?;
    Ok((inv.components, inv.api_calls))
}

/// Lists the components `filter` selects in every target, concurrently.
pub async fn multi_components(targets: &[FleetTarget], base: &AwsOptions, filter: &ComponentFilter) -> MultiComponents {
    let start = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for (i, t) in targets.iter().enumerate() {
        let (t, base, filter) = (t.clone(), base.clone(), filter.clone());
        set.spawn(async move { (i, one(t, base, filter).await) });
    }
    let mut regions: Vec<(usize, RegionComponents)> = Vec::new();
    while let Some(joined) = set.join_next().await {
        if let Ok(r) = joined {
            regions.push(r);
        }
    }
    regions.sort_by_key(|(i, _)| *i);
    MultiComponents {
        regions: regions.into_iter().map(|(_, r)| r).collect(),
        elapsed_ms: start.elapsed().as_millis() as u64,
    }
}
