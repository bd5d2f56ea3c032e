//! The embedded sandbox: a local emulator of SageMaker, SageMaker Runtime, CloudWatch,
//! Application Auto Scaling, S3 listing and STS GetCallerIdentity, speaking the real wire
//! protocols on one loopback port, with simulated traffic, latency, lifecycles, multi-model
//! caches and injected faults.
//!
//! The tree, by service and protocol: `sagemaker/` (control plane), `runtime/`, `cloudwatch/`
//! (metrics, GetMetricData, alarms), `logs/`, `autoscaling/`, `s3.rs`, `sts.rs`, `faults/`,
//! the simulated `world/` (state, fleet, traffic, containers, the ticker) and `http/` (the one
//! front door and the wire codecs).

pub mod autoscaling;
pub mod calls;
pub mod cloudwatch;
pub mod faults;
pub mod http;
pub mod logs;
pub mod runtime;
pub mod s3;
pub mod sagemaker;
pub mod sts;
pub mod world;

use std::net::SocketAddr;
use std::sync::Arc;

pub use world::clock::now_epoch;
pub use world::config::{RegionFleet, SandboxConfig, Timing};
pub use world::sandbox::Sandbox;

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
    let app = http::server::router(sandbox.clone());
    let limits = sandbox.config.connections.clone();
    let mut tasks = vec![tokio::spawn(async move {
        http::accept::serve(listener, app, rx, limits).await;
    })];
    tasks.push(tokio::spawn(world::ticker::run_ticker(sandbox.clone())));
    for other in sandbox.regions.values() {
        tasks.push(tokio::spawn(world::ticker::run_ticker(other.clone())));
    }
    if let Some(rate) = sandbox.config.traffic_rate {
        tasks.push(tokio::spawn(world::traffic::run(sandbox.clone(), rate)));
    }
    Ok(SandboxHandle {
        addr,
        sandbox,
        shutdown: Some(tx),
        tasks,
    })
}
