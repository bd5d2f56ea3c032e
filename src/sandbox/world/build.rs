//! Building a sandbox's state: the stores, the further regions (each a whole emulated state of its
//! own: fleet, metrics, logs, autoscaling, faults, request counts, behind the same port) and the
//! demo or generated fleet.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::sandbox::autoscaling::store::AutoScaling;
use crate::sandbox::cloudwatch::alarms::store::AlarmStore;
use crate::sandbox::cloudwatch::metrics::MetricStore;
use crate::sandbox::faults::Faults;
use crate::sandbox::logs::store::LogStore;
use crate::sandbox::world::config::SandboxConfig;
use crate::sandbox::world::fleet;
use crate::sandbox::world::hash::fxhash;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::World;

/// The other regions' states for a primary configuration.
pub fn build(primary: &SandboxConfig) -> HashMap<String, Arc<Sandbox>> {
    primary
        .extra_regions
        .iter()
        .filter(|r| r.region != primary.region)
        .map(|r| {
            let config = SandboxConfig {
                region: r.region.clone(),
                account: r.account.clone().unwrap_or_else(|| primary.account.clone()),
                demo_fleet: r.demo_fleet,
                extra_endpoints: r.endpoints,
                seed: primary.seed ^ fxhash(&r.region),
                traffic_rate: None,
                extra_regions: Vec::new(),
                timing: primary.timing.clone(),
                ..primary.clone()
            };
            (r.region.clone(), Sandbox::new(config))
        })
        .collect()
}

impl Sandbox {
    /// Builds the state (and the demo fleet when configured) without serving it.
    pub fn new(config: SandboxConfig) -> Arc<Sandbox> {
        let sandbox = Arc::new(Sandbox {
            world: RwLock::new(World::new(config.seed)),
            metrics: MetricStore::new(),
            alarms: AlarmStore::new(&config.region, &config.account),
            autoscaling: Mutex::new(AutoScaling::default()),
            faults: Faults::default(),
            logs: LogStore::default(),
            sessions: Default::default(),
            calls: Default::default(),
            throttle: Default::default(),
            async_queues: Mutex::new(Default::default()),
            regions: build(&config),
            config,
        });
        sandbox.throttle.set(sandbox.config.throttle);
        fleet::seed(&sandbox);
        sandbox
    }
}
