//! The shared state of one region's emulation: the control-plane world and every service's
//! store, which the services' handlers, the ticker and the traffic generator all work on.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::sandbox::autoscaling::store::AutoScaling;
use crate::sandbox::calls::throttle::Throttle;
use crate::sandbox::calls::{CallCount, CallCounts};
use crate::sandbox::cloudwatch::alarms::store::AlarmStore;
use crate::sandbox::cloudwatch::metrics::MetricStore;
use crate::sandbox::faults::Faults;
use crate::sandbox::logs::store::LogStore;
use crate::sandbox::world::config::SandboxConfig;
use crate::sandbox::world::sessions::SessionStore;
use crate::sandbox::world::state::World;

/// The shared state of a running sandbox.
pub struct Sandbox {
    /// The configuration it was started with.
    pub config: SandboxConfig,
    /// Models, endpoint configurations, endpoints, S3 objects.
    pub world: RwLock<World>,
    /// CloudWatch's store, fed by every invocation.
    pub metrics: MetricStore,
    /// CloudWatch's alarms, evaluated over `metrics` on the background tick.
    pub alarms: AlarmStore,
    /// Application Auto Scaling's targets, policies and activities.
    pub autoscaling: Mutex<AutoScaling>,
    /// Injected faults.
    pub faults: Faults,
    /// CloudWatch Logs: what the containers wrote.
    pub logs: LogStore,
    /// SageMaker Runtime's stateful sessions.
    pub sessions: SessionStore,
    /// Calls served, by service and operation (the admin route's `/_sandbox/calls`).
    pub calls: CallCounts,
    /// The SageMaker control plane's throttle (off unless a rate is set).
    pub throttle: Throttle,
    /// The queues of asynchronous endpoints (InvokeEndpointAsync).
    pub async_queues: Mutex<crate::sandbox::world::queue::AsyncQueues>,
    /// The other regions' emulated states, by region name.
    pub regions: HashMap<String, Arc<Sandbox>>,
}

impl Sandbox {
    /// Counts one call of a service's operation.
    pub fn count_request(&self, service: &'static str, op: &str) {
        self.calls.count(service, op);
    }

    /// Calls served so far for an operation (whatever the service), since the last reset.
    pub fn request_count(&self, op: &str) -> u64 {
        self.calls.calls_of(op)
    }

    /// This state's region and every other region's states (the primary's list; another
    /// region's state lists only itself).
    pub fn all_states(&self) -> Vec<&Sandbox> {
        let mut states = vec![self];
        let mut others: Vec<&Sandbox> = self.regions.values().map(|s| &**s).collect();
        others.sort_by(|a, b| a.config.region.cmp(&b.config.region));
        states.extend(others);
        states
    }

    /// The calls every region served since its last reset: `(region, counts)`, this state's
    /// region first.
    pub fn all_call_counts(&self) -> Vec<(String, Vec<CallCount>)> {
        self.all_states()
            .into_iter()
            .map(|s| (s.config.region.clone(), s.calls.snapshot()))
            .collect()
    }

    /// `arn:aws:sagemaker:REGION:ACCOUNT:KIND/NAME` (names are lower-cased in ARNs, as AWS does).
    pub fn arn(&self, kind: &str, name: &str) -> String {
        format!(
            "arn:aws:sagemaker:{}:{}:{}/{}",
            self.config.region,
            self.config.account,
            kind,
            name.to_ascii_lowercase()
        )
    }
}
