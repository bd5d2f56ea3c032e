//! `sagedeck sandbox`, `sagedeck demo` (until the console lands: the sandbox with its demo fleet
//! and traffic, and how to reach it) and `sagedeck fault`.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use clap::{Args, Subcommand};

use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::cli::output::outln;
use crate::sandbox::calls::throttle::ThrottleSpec;
use crate::sandbox::faults::FaultSpec;
use crate::sandbox::http::raw_client;
use crate::sandbox::{SandboxConfig, Timing, start};

/// Options of the embedded sandbox.
#[derive(Debug, Args, Clone)]
pub struct SandboxArgs {
    /// Address to listen on (loopback by default; anything else must be asked for).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Port to listen on (0 = any free port; `demo` defaults to 0, `sandbox` to 4599).
    #[arg(long)]
    pub port: Option<u16>,
    /// Seed of the simulation (fleet, latencies, traffic).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Generated traffic in invocations per second across the fleet.
    #[arg(long, default_value_t = 25.0)]
    pub traffic_rate: f64,
    /// Turn the traffic generator off.
    #[arg(long)]
    pub no_traffic: bool,
    /// Add N generated endpoints (fleet-ep-0000 ...) for scale tests.
    #[arg(long, default_value_t = 0)]
    pub fleet: usize,
    /// Serve a further region behind the same port: `eu-west-1` (the demo fleet) or
    /// `eu-west-1=300` (300 generated endpoints); repeatable. The signing region picks it.
    #[arg(long = "extra-region", value_name = "REGION[=N]", value_parser = crate::sandbox::RegionFleet::parse)]
    pub extra_regions: Vec<crate::sandbox::RegionFleet>,
    /// Start without the demo fleet.
    #[arg(long)]
    pub empty: bool,
    /// Hours of metric history to backfill at start.
    #[arg(long, default_value_t = 24)]
    pub backfill_hours: u32,
    /// Models each multi-model instance holds before evicting (LRU).
    #[arg(long, default_value_t = 6)]
    pub mme_models_per_instance: usize,
    /// Fast lifecycles (a few hundred ms) and no latency sleeps, as the tests use.
    #[arg(long)]
    pub fast: bool,
    /// Seconds a Creating endpoint takes to come InService.
    #[arg(long)]
    pub create_secs: Option<f64>,
    /// Seconds an update (weights, capacity, config) takes.
    #[arg(long)]
    pub update_secs: Option<f64>,
    /// A cold MME load longer than this answers ModelNotReadyException (AWS: 60).
    #[arg(long)]
    pub not_ready_after_secs: Option<f64>,
    /// The factor on a deployment's own waits (bakes, TerminationWait, timeout): 1 is real time
    /// (the default), `--fast` makes it 0.01.
    #[arg(long)]
    pub deploy_wait_scale: Option<f64>,
    /// Throttle the SageMaker control plane to N calls per second per region, answering
    /// ThrottlingException past it (as AWS's account limits do); also `POST /_sandbox/throttle`.
    #[arg(long, value_name = "N")]
    pub throttle_rate: Option<f64>,
    /// The throttle's burst: calls admitted at once from a full bucket (default: one second's).
    #[arg(long, value_name = "N", requires = "throttle_rate")]
    pub throttle_burst: Option<u64>,
    /// Inject a fault at start, e.g. `kind=throttle,endpoint=NAME,count=5` (repeatable; see README).
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
}

impl SandboxArgs {
    /// The sandbox configuration these options describe.
    pub fn config(&self, default_port: u16) -> Result<SandboxConfig, String> {
        let secs = |v: f64, what: &str| {
            if v.is_finite() && v >= 0.0 {
                Ok(Duration::from_secs_f64(v))
            } else {
                Err(format!("--{what} must be >= 0"))
            }
        };
        let mut timing = if self.fast { Timing::fast() } else { Timing::default() };
        if let Some(v) = self.create_secs {
            timing.create = secs(v, "create-secs")?;
        }
        if let Some(v) = self.update_secs {
            timing.update = secs(v, "update-secs")?;
        }
        if let Some(v) = self.not_ready_after_secs {
            timing.mme_not_ready_after = secs(v, "not-ready-after-secs")?;
        }
        if let Some(v) = self.deploy_wait_scale {
            timing.deploy_wait_scale = secs(v, "deploy-wait-scale")?.as_secs_f64();
        }
        if !(self.traffic_rate.is_finite() && self.traffic_rate >= 0.0) {
            return Err("--traffic-rate must be a number >= 0".into());
        }
        let throttle = self.throttle_rate.map(|rate| ThrottleSpec {
            rate,
            burst: self.throttle_burst,
        });
        if let Some(t) = &throttle {
            t.check()
                .map_err(|e| format!("--throttle-rate/--throttle-burst: {e}"))?;
        }
        Ok(SandboxConfig {
            bind: SocketAddr::new(self.bind, self.port.unwrap_or(default_port)),
            seed: self.seed,
            demo_fleet: !self.empty,
            extra_endpoints: self.fleet,
            traffic_rate: if self.no_traffic || self.traffic_rate == 0.0 {
                None
            } else {
                Some(self.traffic_rate)
            },
            backfill_hours: self.backfill_hours.min(24 * 14),
            mme_models_per_instance: self.mme_models_per_instance.max(1),
            timing,
            extra_regions: self.extra_regions.clone(),
            throttle,
            ..SandboxConfig::default()
        })
    }
}

/// Runs the sandbox until Ctrl-C or SIGTERM.
pub async fn run_sandbox(args: SandboxArgs, demo: bool) -> CmdResult {
    let config = args.config(if demo { 0 } else { 4599 }).map_err(Exit::usage)?;
    let mut specs = Vec::new();
    for f in &args.faults {
        specs.push(FaultSpec::parse_short(f).map_err(Exit::usage)?);
    }
    let bind = config.bind;
    let handle = (start(config).await).map_err(|e| {
        Exit::usage(format!(
            "cannot listen on {bind}: {e} (pass --port 0 for any free port)"
        ))
    })?;
    for s in specs {
        handle.sandbox.faults.add(s);
    }
    let url = handle.endpoint_url();
    let endpoints = handle.sandbox.world.read().endpoints.len();
    // The sandbox serves on whether or not anyone still reads its banner.
    let _ = banner(&url, endpoints, handle.sandbox.config.traffic_rate, demo);
    wait_for_stop().await;
    handle.shutdown().await;
    Ok(())
}

/// What `sandbox` prints at start: where it listens and, for the demo, how to reach it.
fn banner(url: &str, endpoints: usize, traffic_rate: Option<f64>, demo: bool) -> CmdResult {
    outln!("sagedeck sandbox listening on {url}")?;
    outln!(
        "  {endpoints} endpoints, traffic {}",
        match traffic_rate {
            Some(r) => format!("{r}/s"),
            None => "off".into(),
        }
    )?;
    if !demo {
        return Ok(());
    }
    outln!()?;
    outln!("Point any AWS SDK or the AWS CLI at it (any credentials are accepted):")?;
    outln!(
        "  export AWS_ENDPOINT_URL={url} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=sandbox AWS_SECRET_ACCESS_KEY=sandbox"
    )?;
    outln!("  aws sagemaker list-endpoints")?;
    outln!("  aws sagemaker-runtime invoke-endpoint --endpoint-name mcp-intent-classifier-prod \\")?;
    outln!("      --content-type application/json --body '{{\"inputs\": \"book a flight\"}}' \\")?;
    outln!("      --cli-binary-format raw-in-base64-out /dev/stdout   # AWS CLI v2; v1: drop --cli-binary-format")?;
    outln!("Inject faults: sagedeck fault --url {url} add kind=throttle,endpoint=mcp-intent-classifier-prod,count=5")?;
    outln!("Ctrl-C stops it.")
}

async fn wait_for_stop() {
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// `sagedeck fault`: manage faults of a running sandbox over its admin route.
#[derive(Debug, Args)]
pub struct FaultArgs {
    /// The sandbox's URL.
    #[arg(long, env = "AWS_ENDPOINT_URL", default_value = "http://127.0.0.1:4599")]
    pub url: String,
    /// What to do.
    #[command(subcommand)]
    pub action: FaultAction,
}

/// Fault actions.
#[derive(Debug, Subcommand)]
pub enum FaultAction {
    /// Add a fault: `kind=throttle|internal|unavailable|model_error|not_ready|slow|hang|drop`,
    /// `endpoint=`, `variant=`, `operation=`, `count=`, `duration=30s`, `probability=`,
    /// `status=`, `message=`, `ms=`.
    Add {
        /// The fault, in the short form.
        spec: String,
    },
    /// List active faults as JSON.
    List,
    /// Remove every fault.
    Clear,
    /// Remove one fault by id.
    Remove {
        /// The id `add` printed.
        id: u64,
    },
}

/// Runs a fault action against a sandbox.
pub async fn run_fault(args: FaultArgs) -> CmdResult {
    let (method, path, body) = match &args.action {
        FaultAction::Add { spec } => {
            let s = FaultSpec::parse_short(spec).map_err(Exit::usage)?;
            (
                "POST",
                "/_sandbox/faults".to_string(),
                serde_json::to_vec(&s).unwrap_or_default(),
            )
        }
        FaultAction::List => ("GET", "/_sandbox/faults".to_string(), Vec::new()),
        FaultAction::Clear => ("DELETE", "/_sandbox/faults".to_string(), Vec::new()),
        FaultAction::Remove { id } => ("DELETE", format!("/_sandbox/faults/{id}"), Vec::new()),
    };
    match raw_client::send(&args.url, method, &path, &[("content-type", "application/json")], body).await {
        Ok(r) if r.status < 300 => outln!("{}", r.text()),
        Ok(r) => Err(Exit::new(
            EXIT_AWS,
            format!("the sandbox refused: {} {}", r.status, r.text()),
        )),
        Err(e) => Err(Exit::new(
            EXIT_AWS,
            format!("{e}; is `sagedeck sandbox` running there?"),
        )),
    }
}
