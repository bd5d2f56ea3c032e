//! The worker's fleets across regions and accounts: one [`Fleet`] per profile × region pair,
//! connected the first time a job needs it and kept (with its describe cache) for the session;
//! the inventory of a multi-region view lists every pair and sends one merged table.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use crate::aws::endpoints::inventory::{EndpointInfo, InventoryOptions};
use crate::aws::endpoints::multi::{FleetTarget, multi_inventory};
use crate::aws::observe::metrics::{MetricsPlan, MetricsSnapshot};
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
    /// The pair of every endpoint, from the last inventory (the fleet table's metrics).
    owners: Arc<parking_lot::Mutex<HashMap<String, FleetTarget>>>,
}

impl Fleets {
    pub(super) fn new(options: AwsOptions, base: Option<Fleet>, targets: Vec<FleetTarget>) -> Fleets {
        Fleets {
            options,
            base,
            targets: Arc::new(targets),
            cache: Arc::default(),
            owners: Arc::default(),
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
        *self.owners.lock() = (merged.inventory.endpoints.iter().zip(&merged.origins))
            .map(|(e, o)| (e.name.clone(), merged.regions[*o].target.clone()))
            .collect();
        let _ = events.send(AppEvent::Regions {
            regions: merged.regions,
            origins: merged.origins,
        });
        let _ = events.send(AppEvent::Inventory(Ok(merged.inventory)));
    }
}

impl Fleets {
    /// The fleet table's metrics across pairs: each pair's endpoints from its own fleet, merged
    /// into one snapshot (a pair that fails is a warning of the snapshot).
    pub(super) async fn metrics(
        &self,
        endpoints: Vec<EndpointInfo>,
        window: Duration,
        limit: Duration,
    ) -> MetricsResult {
        let mut groups: Vec<(FleetTarget, Vec<EndpointInfo>)> = Vec::new();
        {
            let owners = self.owners.lock();
            for e in endpoints {
                let Some(t) = owners.get(&e.name) else { continue };
                match groups.iter_mut().find(|(k, _)| k == t) {
                    Some((_, v)) => v.push(e),
                    None => groups.push((t.clone(), vec![e])),
                }
            }
        }
        let mut all: Option<MetricsSnapshot> = None;
        let (mut warnings, mut first) = (Vec::new(), None);
        for (t, eps) in groups {
            let plan = MetricsPlan::for_endpoints(&eps, window, MetricsPlan::period_for(window));
            let r = match self.get(&t).await {
                Ok(f) => tokio::time::timeout(limit, f.fetch_metrics(&plan, std::time::SystemTime::now()))
                    .await
                    .unwrap_or_else(|_| Err(super::timeout_error("the metrics refresh", limit))),
                Err(e) => Err(e),
            };
            match (r, all.as_mut()) {
                (Ok(m), None) => all = Some(m),
                (Ok(m), Some(a)) => {
                    a.variants.extend(m.variants);
                    a.queries += m.queries;
                    a.calls += m.calls;
                    a.warnings.extend(m.warnings);
                }
                (Err(e), _) => {
                    warnings.push(format!("{}: {e}", t.region));
                    first.get_or_insert(e);
                }
            }
        }
        match all {
            Some(mut a) => {
                a.warnings.extend(warnings);
                Ok(a)
            }
            None => match first {
                Some(e) => Err(e),
                None => Ok(MetricsSnapshot {
                    start: 0.0,
                    end: 0.0,
                    period: MetricsPlan::period_for(window),
                    variants: Vec::new(),
                    components: Vec::new(),
                    queries: 0,
                    calls: 0,
                    warnings: Vec::new(),
                }),
            },
        }
    }
}

type MetricsResult = Result<MetricsSnapshot, AwsError>;
