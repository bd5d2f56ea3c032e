//! The embedded sandbox: a local emulator of SageMaker, SageMaker Runtime, CloudWatch,
//! Application Auto Scaling, S3 listing and STS GetCallerIdentity, speaking the real wire
//! protocols on one loopback port, with simulated traffic, latency, lifecycles, multi-model
//! caches and injected faults.

pub mod accept;
pub mod alarms;
pub mod autoscaling;
pub mod clock;
pub mod cloudwatch;
pub mod cloudwatch_query;
pub mod connections;
pub mod constraints;
pub mod containers;
pub mod control;
pub mod control_deploy;
pub mod control_endpoints;
pub mod faults;
pub mod fleet;
pub mod instance_types;
pub mod llm;
pub mod logs;
pub mod logs_api;
pub mod logs_content;
pub mod logs_filter;
pub mod metrics;
pub mod metrics_query;
pub mod raw_client;
pub mod regions;
pub mod runtime;
pub mod runtime_stream;
pub mod s3;
pub mod server;
pub mod state;
pub mod sts;
pub mod tags;
pub mod traffic;
pub mod variant;
pub mod wire;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};

pub use clock::now_epoch;

/// How long simulated operations take. Defaults are a few seconds, as the console's users expect
/// to watch a transition happen; tests shorten them.
#[derive(Debug, Clone)]
pub struct Timing {
    /// Creating → InService.
    pub create: Duration,
    /// Updating → InService (weights, capacities, config).
    pub update: Duration,
    /// Deleting → gone.
    pub delete: Duration,
    /// Time to download one MME model artifact on a cold invocation.
    pub mme_download: Duration,
    /// Time to load one MME model into memory after download.
    pub mme_load: Duration,
    /// A cold load longer than this answers ModelNotReadyException (AWS: 60 s).
    pub mme_not_ready_after: Duration,
    /// Whether invocations really wait their simulated model latency before answering.
    pub sleep_model_latency: bool,
    /// How often lifecycles, autoscaling and traffic are advanced in the background.
    pub tick: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            create: Duration::from_secs(8),
            update: Duration::from_secs(4),
            delete: Duration::from_secs(3),
            mme_download: Duration::from_millis(2500),
            mme_load: Duration::from_millis(1500),
            mme_not_ready_after: Duration::from_secs(60),
            sleep_model_latency: true,
            tick: Duration::from_millis(250),
        }
    }
}

impl Timing {
    /// Fast timings for tests: transitions in a few hundred milliseconds, no latency sleeps.
    pub fn fast() -> Self {
        Timing {
            create: Duration::from_millis(300),
            update: Duration::from_millis(300),
            delete: Duration::from_millis(200),
            mme_download: Duration::from_millis(60),
            mme_load: Duration::from_millis(40),
            mme_not_ready_after: Duration::from_secs(60),
            sleep_model_latency: false,
            tick: Duration::from_millis(50),
        }
    }
}

/// Everything that shapes a sandbox run.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Address to listen on (port 0 = any free port).
    pub bind: SocketAddr,
    /// Region reported in ARNs.
    pub region: String,
    /// Account id reported in ARNs.
    pub account: String,
    /// Seed for everything random (fleet, latencies, traffic).
    pub seed: u64,
    /// Whether to seed the demo fleet.
    pub demo_fleet: bool,
    /// Extra generated endpoints for scale tests.
    pub extra_endpoints: usize,
    /// Generated traffic in invocations per second across the fleet (None = off).
    pub traffic_rate: Option<f64>,
    /// Hours of metric history backfilled at start for the demo fleet.
    pub backfill_hours: u32,
    /// Models an MME instance holds in memory before evicting (LRU).
    pub mme_models_per_instance: usize,
    /// Whether variants fail their profile's fraction of requests at random (tests turn it off
    /// so that only injected faults fail).
    pub random_errors: bool,
    /// Lifecycle and latency timings.
    pub timing: Timing,
    /// Further regions served behind the same port, each with a fleet of its own (the region
    /// is taken from the request's SigV4 credential scope; other regions get this one's).
    pub extra_regions: Vec<regions::RegionFleet>,
    /// The connection cap and the request-body deadline.
    pub connections: connections::ConnectionLimits,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            region: "us-east-1".into(),
            account: "123456789012".into(),
            seed: 42,
            demo_fleet: true,
            extra_endpoints: 0,
            traffic_rate: Some(25.0),
            backfill_hours: 24,
            mme_models_per_instance: 6,
            random_errors: true,
            timing: Timing::default(),
            extra_regions: Vec::new(),
            connections: connections::ConnectionLimits::default(),
        }
    }
}

impl SandboxConfig {
    /// An empty, quiet sandbox for tests: no fleet, no traffic, no backfill, fast timings.
    pub fn for_tests() -> Self {
        SandboxConfig {
            demo_fleet: false,
            traffic_rate: None,
            backfill_hours: 0,
            random_errors: false,
            timing: Timing::fast(),
            ..Default::default()
        }
    }
}

/// The shared state of a running sandbox.
pub struct Sandbox {
    /// The configuration it was started with.
    pub config: SandboxConfig,
    /// Models, endpoint configurations, endpoints, S3 objects.
    pub world: RwLock<state::World>,
    /// CloudWatch's store, fed by every invocation.
    pub metrics: metrics::MetricStore,
    /// CloudWatch's alarms, evaluated over `metrics` on the background tick.
    pub alarms: alarms::AlarmStore,
    /// Application Auto Scaling's targets, policies and activities.
    pub autoscaling: Mutex<autoscaling::AutoScaling>,
    /// Injected faults.
    pub faults: faults::Faults,
    /// CloudWatch Logs: what the containers wrote.
    pub logs: logs::LogStore,
    /// Requests served, by operation (benchmarks and tests count API calls with it).
    pub requests: Mutex<std::collections::HashMap<String, u64>>,
    /// The other regions' emulated states, by region name.
    pub regions: std::collections::HashMap<String, Arc<Sandbox>>,
}

impl Sandbox {
    /// Builds the state (and the demo fleet when configured) without serving it.
    pub fn new(config: SandboxConfig) -> Arc<Sandbox> {
        let sandbox = Arc::new(Sandbox {
            world: RwLock::new(state::World::new(config.seed)),
            metrics: metrics::MetricStore::new(),
            alarms: alarms::AlarmStore::new(&config.region, &config.account),
            autoscaling: Mutex::new(autoscaling::AutoScaling::default()),
            faults: faults::Faults::default(),
            logs: logs::LogStore::default(),
            requests: Mutex::new(std::collections::HashMap::new()),
            regions: regions::build(&config),
            config,
        });
        fleet::seed(&sandbox);
        sandbox
    }

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

/// A running sandbox: its address, its state, and the means to stop it.
pub struct SandboxHandle {
    /// The bound address.
    pub addr: SocketAddr,
    /// The shared state (tests read and poke it).
    pub sandbox: Arc<Sandbox>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl SandboxHandle {
    /// `http://127.0.0.1:PORT`, the endpoint URL every SDK is pointed at.
    pub fn endpoint_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops serving and the background tasks.
    pub async fn shutdown(mut self) {
        self.stop();
        for t in self.tasks.drain(..) {
            let _ = t.await;
        }
    }

    fn stop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Drop for SandboxHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts a sandbox on the current tokio runtime: binds, seeds, backfills, starts the background
/// ticker (lifecycles, autoscaling) and the traffic generator when configured.
pub async fn start(config: SandboxConfig) -> std::io::Result<SandboxHandle> {
    let listener = tokio::net::TcpListener::bind(config.bind).await?;
    let addr = listener.local_addr()?;
    let sandbox = Sandbox::new(config);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let app = server::router(sandbox.clone());
    let limits = sandbox.config.connections.clone();
    let mut tasks = vec![tokio::spawn(async move {
        accept::serve(listener, app, rx, limits).await;
    })];
    tasks.push(tokio::spawn(state::run_ticker(sandbox.clone())));
    for other in sandbox.regions.values() {
        tasks.push(tokio::spawn(state::run_ticker(other.clone())));
    }
    if let Some(rate) = sandbox.config.traffic_rate {
        tasks.push(tokio::spawn(traffic::run(sandbox.clone(), rate)));
    }
    Ok(SandboxHandle {
        addr,
        sandbox,
        shutdown: Some(tx),
        tasks,
    })
}
