//! The worker's fleets across regions and accounts: one [`Fleet`] per profile × region pair,
//! connected the first time a job needs it and kept (with its describe cache) for the session;
//! the inventory of a multi-region view lists every pair and sends one merged table.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use crate::aws::inventory::InventoryOptions;
use crate::aws::multi::{FleetTarget, multi_inventory};
use crate::aws::{AwsError, AwsOptions, Fleet};
use crate::tui::event::AppEvent;
use crate::tui::regions::merge;

/// The pairs of the view and their connected fleets.
#[derive(Clone)]
pub(super) struct Fleets {
    options: AwsOptions,
    /// The console's own fleet when the caller built it (the demo's sandbox): other pairs are
    /// then built on the same URL, signing for their region.
    base: Option<Fleet>,
    targets: Arc<Vec<FleetTarget>>,
    cache: Arc<tokio::sync::Mutex<HashMap<FleetTarget, Fleet>>>,
}

impl Fleets {
    pub(super) fn new(options: AwsOptions, base: Option<Fleet>, targets: Vec<FleetTarget>) -> Fleets {
        Fleets {
            options,
            base,
            targets: Arc::new(targets),
            cache: Arc::default(),
        }
    }

    /// Whether the view has pairs of its own (else the console's one profile and region).
    pub(super) fn multi(&self) -> bool {
        !self.targets.is_empty()
    }

    async fn connect(&self, t: &FleetTarget) -> Result<Fleet, AwsError> {
        if let Some(url) = self.base.as_ref().and_then(|b| b.endpoint_url.clone()) {
            let conf = crate::aws::config::local_sdk_config_in(&url, &t.region).await;
            let profile = t.profile.clone().unwrap_or_else(|| "sandbox".into());
            return Ok(Fleet::from_sdk_config(&conf, profile, Some(url)));
        }
        let o = AwsOptions {
            profile: t.profile.clone(),
            region: Some(t.region.clone()),
            ..self.options.clone()
        };
        Fleet::connect(&o).await
    }

    /// The fleet of a pair, connected once.
    pub(super) async fn get(&self, t: &FleetTarget) -> Result<Fleet, AwsError> {
        let mut cache = self.cache.lock().await;
        if let Some(f) = cache.get(t) {
            return Ok(f.clone());
        }
        let f = self.connect(t).await?;
        cache.insert(t.clone(), f.clone());
        Ok(f)
    }

    /// Lists every pair (a pair that fails is one failed row) and sends
    /// [`AppEvent::Regions`], then the merged [`AppEvent::Inventory`].
    pub(super) async fn inventory(&self, limit: Duration, events: &UnboundedSender<AppEvent>) {
        let mut known = Vec::new();
        for t in self.targets.iter() {
            if let Ok(f) = self.get(t).await {
                known.push((t.clone(), f));
            }
        }
        let list = multi_inventory(&self.targets, &self.options, InventoryOptions::default(), &known);
        let multi = match tokio::time::timeout(limit, list).await {
            Ok(m) => m,
            Err(_) => {
                let e = super::timeout_error("the inventory", limit);
                let _ = events.send(AppEvent::Inventory(Err(e)));
                return;
            }
        };
        let merged = merge(&multi, &self.targets);
        let _ = events.send(AppEvent::Regions {
            regions: merged.regions,
            origins: merged.origins,
        });
        let _ = events.send(AppEvent::Inventory(Ok(merged.inventory)));
    }
}
