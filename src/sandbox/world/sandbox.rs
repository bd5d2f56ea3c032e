//! The shared state of one region's emulation: the control-plane world and every service's
//! store, which the services' handlers, the ticker and the traffic generator all work on.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::sandbox::autoscaling::store::AutoScaling;
use crate::sandbox::cloudtrail::store::TrailStore;
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
    /// Requests served, by operation (benchmarks and tests count API calls with it).
    pub requests: Mutex<HashMap<String, u64>>,
    /// The queues of asynchronous endpoints (InvokeEndpointAsync).
    pub async_queues: Mutex<crate::sandbox::world::queue::AsyncQueues>,
    /// CloudTrail's record of the control-plane calls this region served.
    pub trail: TrailStore,
    /// The other regions' emulated states, by region name.
    pub regions: HashMap<String, Arc<Sandbox>>,
}

impl Sandbox {
    /// Counts one request of an operation.
    pub fn count_request(&self, op: &str) {
        let mut r = self.requests.lock();
        match r.get_mut(op) {
            Some(n) => *n += 1,
            None => {
                r.insert(op.to_string(), 1);
            }
        }
    }

    /// Requests served so far for an operation.
    pub fn request_count(&self, op: &str) -> u64 {
        self.requests.lock().get(op).copied().unwrap_or(0)
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
