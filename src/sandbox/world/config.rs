//! Everything that shapes a sandbox run: addresses, identity, seed, fleet, traffic, timings and
//! the further regions served behind the same port, and the limits on connections.

use std::net::SocketAddr;
use std::time::Duration;

use crate::sandbox::calls::throttle::ThrottleSpec;

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
    /// The factor on a deployment's own waits (WaitIntervalInSeconds, TerminationWaitInSeconds,
    /// MaximumExecutionTimeoutInSeconds): 1 waits them in real time. A deployment's launches take
    /// `update`, each traffic shift and termination a quarter of it.
    pub deploy_wait_scale: f64,
    /// A serverless variant's cold start (ModelSetupTime's median): a new container's setup.
    pub serverless_cold_start: Duration,
    /// How long an idle serverless container stays warm before it is released.
    pub serverless_idle: Duration,
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
            deploy_wait_scale: 1.0,
            serverless_cold_start: Duration::from_millis(3500),
            serverless_idle: Duration::from_secs(180),
        }
    }
}

impl Timing {
    /// Fast timings for tests: transitions in a few hundred milliseconds, no latency sleeps, a
    /// deployment's waits a hundredth of what its policy says (a 600 s bake lasts 6 s).
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
            deploy_wait_scale: 0.01,
            serverless_cold_start: Duration::from_millis(60),
            serverless_idle: Duration::from_secs(2),
        }
    }
}

/// The sandbox's limits on connections and request bodies (enforced by `http/connections.rs`).
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// Connections served at once; at the cap, a new one closes the connection that has waited
    /// on its client the longest (or, when every connection is being served, waits its turn).
    pub max_connections: usize,
    /// How long a client may take to send a request body once its head is read.
    pub body_read_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 512,
            body_read_timeout: Duration::from_secs(10),
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
    /// Whether the demo fleet includes its inference-component endpoint (`llm-ic-endpoint`);
    /// off in [`SandboxConfig::for_tests`], so tests of the other demo endpoints see the fleet
    /// they were written for.
    pub demo_components: bool,
    /// Whether the demo fleet includes one endpoint of each shape (`mcp-serverless-embedder`,
    /// `mcp-async-summarizer` and its bucket, `mcp-intent-router` with a shadow); off in
    /// [`SandboxConfig::for_tests`], as `demo_components` is.
    pub demo_shapes: bool,
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
    pub extra_regions: Vec<RegionFleet>,
    /// The connection cap and the request-body deadline.
    pub connections: ConnectionLimits,
    /// The SageMaker control plane's throttle, per region (None = off; `--throttle-rate`).
    pub throttle: Option<ThrottleSpec>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            region: "us-east-1".into(),
            account: "123456789012".into(),
            seed: 42,
            demo_fleet: true,
            demo_components: true,
            demo_shapes: true,
            extra_endpoints: 0,
            traffic_rate: Some(25.0),
            backfill_hours: 24,
            mme_models_per_instance: 6,
            random_errors: true,
            timing: Timing::default(),
            extra_regions: Vec::new(),
            connections: ConnectionLimits::default(),
            throttle: None,
        }
    }
}

impl SandboxConfig {
    /// An empty, quiet sandbox for tests: no fleet, no traffic, no backfill, fast timings.
    pub fn for_tests() -> Self {
        SandboxConfig {
            demo_fleet: false,
            demo_components: false,
            demo_shapes: false,
            traffic_rate: None,
            backfill_hours: 0,
            random_errors: false,
            timing: Timing::fast(),
            ..Default::default()
        }
    }
}

/// One further region and its fleet.
#[derive(Debug, Clone, Default)]
pub struct RegionFleet {
    /// Region name (`eu-west-1`).
    pub region: String,
    /// Account id in its ARNs (default: the primary's).
    pub account: Option<String>,
    /// Whether to seed the demo fleet there.
    pub demo_fleet: bool,
    /// Generated endpoints there.
    pub endpoints: usize,
}

impl RegionFleet {
    /// Parses `REGION[=N]` (N generated endpoints; without it, the demo fleet).
    pub fn parse(spec: &str) -> Result<RegionFleet, String> {
        let (region, n) = match spec.split_once('=') {
            Some((r, n)) => (
                r,
                Some(
                    n.parse::<usize>()
                        .map_err(|_| format!("bad endpoint count in {spec:?}"))?,
                ),
            ),
            None => (spec, None),
        };
        if region.is_empty() || !region.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(format!("bad region in {spec:?}: use REGION or REGION=N"));
        }
        Ok(RegionFleet {
            region: region.to_string(),
            account: None,
            demo_fleet: n.is_none(),
            endpoints: n.unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_with_or_without_a_count() {
        assert_eq!(RegionFleet::parse("ap-south-1=20").unwrap().endpoints, 20);
        assert!(RegionFleet::parse("eu-west-1").unwrap().demo_fleet);
        assert!(RegionFleet::parse("x=y").is_err());
    }
}
