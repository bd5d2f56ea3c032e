//! The worker's fleets across regions and accounts: one [`Fleet`] per profile × region pair,
//! connected the first time a job needs it and kept (with its describe cache, its control-plane
//! budget and what its refreshes remember) for the session; the inventory of a multi-region
//! view refreshes every pair, reporting each pair's pages and describes as they come, and sends
//! one merged table.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::mpsc::UnboundedSender;

use crate::aws::endpoints::inventory::EndpointInfo;
use crate::aws::endpoints::multi::{FleetTarget, ReadInventory, multi_inventory_with};
use crate::aws::endpoints::refresh::RefreshMemory;
use crate::aws::endpoints::refresh::RefreshPlan;
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
    refresh: super::RefreshSettings,
    cache: Arc<tokio::sync::Mutex<HashMap<FleetTarget, Fleet>>>,
    /// What each pair's refreshes remember, by index of its pair.
    memories: Arc<Vec<Arc<tokio::sync::Mutex<RefreshMemory>>>>,
    /// The pair of every endpoint, from the last inventory (the fleet table's metrics).
    owners: Arc<parking_lot::Mutex<HashMap<String, FleetTarget>>>,
}

impl Fleets {
    pub(super) fn new(
        options: AwsOptions,
        base: Option<Fleet>,
        targets: Vec<FleetTarget>,
        refresh: super::RefreshSettings,
    ) -> Fleets {
        Fleets {
            options,
            base,
            memories: Arc::new(
                (0..targets.len())
                    .map(|i| Arc::new(tokio::sync::Mutex::new(RefreshMemory::spread(i, targets.len()))))
                    .collect(),
            ),
            targets: Arc::new(targets),
            refresh,
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

    /// The fleet of a pair, connected once, with the control-plane budget.
    pub(super) async fn get(&self, t: &FleetTarget) -> Result<Fleet, AwsError> {
        let mut cache = self.cache.lock().await;
        if let Some(f) = cache.get(t) {
            return Ok(f.clone());
        }
        let f = self.refresh.budgeted(self.connect(t).await?);
        cache.insert(t.clone(), f.clone());
        Ok(f)
    }

    /// How pair `index` is refreshed: what its memory says changed, each page and batch of
    /// describes sent as [`AppEvent::InventoryProgress`] of that pair.
    fn read(&self, index: usize, plan: RefreshPlan, events: &UnboundedSender<AppEvent>) -> ReadInventory {
        let memory = self.memories.get(index).cloned().unwrap_or_default();
        let events = events.clone();
        Box::new(move |fleet: Fleet| {
            async move {
                let report = move |progress| {
                    let _ = events.send(AppEvent::InventoryProgress {
                        origin: Some(index),
                        progress,
                    });
                };
                let mut memory = memory.lock().await;
                fleet.refresh(&mut memory, &plan, &report).await
            }
            .boxed()
        })
    }

    /// Refreshes every pair (a pair that fails is one failed row), reporting each as it comes,
    /// and sends [`AppEvent::Regions`], then the merged [`AppEvent::Inventory`].
    pub(super) async fn inventory(
        &self,
        limits: super::JobLimits,
        selected: Option<String>,
        events: &UnboundedSender<AppEvent>,
    ) {
        let limit = limits.inventory;
        let mut known = Vec::new();
        for t in self.targets.iter() {
            if let Ok(f) = self.get(t).await {
                known.push((t.clone(), f));
            }
        }
        let plan = self.refresh.plan(selected, &limits);
        let read = |i: usize| self.read(i, plan.clone(), events);
        let list = multi_inventory_with(&self.targets, &self.options, &known, read);
        let multi = match tokio::time::timeout(limit, list).await {
            Ok(m) => m,
            Err(_) => {
                let e = super::timeout_error("the inventory", limit);
                let _ = events.send(AppEvent::Inventory(Err(e)));
                return;
            }
        };
        let merged = merge(multi, &self.targets);
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
