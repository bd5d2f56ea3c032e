//! The sandbox at fleet scale: 10,000 generated endpoints over five regions (2,000 each) in one
//! process, as `sagedeck sandbox --fleet 2000 --extra-region R=2000 ...` serves them.
//!
//! Rows (a table on stdout):
//! * CPU idle: the process's CPU time (getrusage) over a window with no API call, as a share
//!   of one core, after a warm-up (the first ticks write every instance's cold start once);
//!   with the traffic generator off, then on (25 invocations/s, the default);
//! * DescribeEndpoint: latency of one call through the Rust SDK (median, p99), sequential,
//!   over endpoints picked across the region, and the sandbox CPU per call;
//! * ListEndpoints: a whole region listed in pages of 100 (median of the rounds), the median
//!   page and the last page (a page cut from a fresh sort of the whole region costs the sort
//!   wherever it is; one read from an index costs its own size).
//!
//! Run: `cargo bench --profile dev --bench sandbox_scale` (`SAGEDECK_BENCH_PER_REGION`,
//! default 2000; `SAGEDECK_BENCH_IDLE_SECS`, default 10; `SAGEDECK_BENCH_WARMUP_SECS`, default
//! 5; `SAGEDECK_BENCH_ROUNDS`, default 3).

mod common;

use std::time::{Duration, Instant};

use sagedeck::sandbox::{RegionFleet, SandboxConfig, SandboxHandle, Timing, start};

use common::{env_num, median, sdk_config_in};

const REGIONS: [&str; 5] = ["us-east-1", "eu-west-1", "ap-south-1", "us-west-2", "eu-central-1"];

/// CPU seconds (user + system) this process has used.
fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// The 10k-endpoint sandbox (`per_region` in each of five regions), with or without traffic.
async fn scale_sandbox(per_region: usize, traffic: Option<f64>) -> SandboxHandle {
    let config = SandboxConfig {
        demo_fleet: false,
        demo_components: false,
        demo_shapes: false,
        extra_endpoints: per_region,
        traffic_rate: traffic,
        backfill_hours: 0,
        random_errors: false,
        timing: Timing {
            sleep_model_latency: false,
            ..Timing::default()
        },
        extra_regions: REGIONS[1..]
            .iter()
            .map(|r| RegionFleet::parse(&format!("{r}={per_region}")).expect("region spec"))
            .collect(),
        ..SandboxConfig::default()
    };
    start(config).await.expect("sandbox starts")
}

/// The share of one core this process used over `window` of doing nothing itself.
async fn idle_cpu(window: Duration) -> f64 {
    let before = cpu_seconds();
    tokio::time::sleep(window).await;
    (cpu_seconds() - before) / window.as_secs_f64()
}

/// Sequential DescribeEndpoint calls: (median ms, p99 ms, sandbox CPU ms per call).
async fn describes(url: &str, per_region: usize, calls: usize) -> (f64, f64, f64) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config_in(url, "eu-west-1").await);
    let mut times = Vec::with_capacity(calls);
    let cpu = cpu_seconds();
    for i in 0..calls {
        let name = format!("fleet-ep-{:04}", (i * 7919) % per_region);
        let t = Instant::now();
        sm.describe_endpoint()
            .endpoint_name(name)
            .send()
            .await
            .expect("describe");
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let cpu_ms = (cpu_seconds() - cpu) * 1e3 / calls as f64;
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let p99 = sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)];
    (median(times), p99, cpu_ms)
}

/// One whole listing of a region in pages of 100: (total ms, median page ms, last page ms,
/// endpoints).
async fn listing(url: &str) -> (f64, f64, f64, usize) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config_in(url, "ap-south-1").await);
    let (mut token, mut pages, mut count) = (None::<String>, Vec::new(), 0);
    let start = Instant::now();
    loop {
        let t = Instant::now();
        let page = sm
            .list_endpoints()
            .max_results(100)
            .set_next_token(token.take())
            .send()
            .await
            .expect("list");
        pages.push(t.elapsed().as_secs_f64() * 1e3);
        count += page.endpoints().len();
        match page.next_token() {
            Some(t) => token = Some(t.to_string()),
            None => break,
        }
    }
    let total = start.elapsed().as_secs_f64() * 1e3;
    let last = *pages.last().unwrap_or(&f64::NAN);
    (total, median(pages), last, count)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let per_region = env_num("SAGEDECK_BENCH_PER_REGION", 2000) as usize;
    let window = Duration::from_secs(env_num("SAGEDECK_BENCH_IDLE_SECS", 10));
    let warmup = Duration::from_secs(env_num("SAGEDECK_BENCH_WARMUP_SECS", 5));
    let rounds = env_num("SAGEDECK_BENCH_ROUNDS", 3) as usize;
    println!(
        "sandbox scale: {} endpoints over {} regions, idle window {:?} after {:?}, {rounds} rounds",
        per_region * REGIONS.len(),
        REGIONS.len(),
        window,
        warmup
    );
    println!("| row | median | note |\n|---|---|---|");

    let sb = scale_sandbox(per_region, None).await;
    let url = sb.endpoint_url();
    tokio::time::sleep(warmup).await;
    let idle = idle_cpu(window).await;
    println!(
        "| CPU idle, no traffic | {:.1} % of a core | {window:?} |",
        idle * 100.0
    );
    let mut describe = Vec::new();
    let mut lists = Vec::new();
    for _ in 0..rounds {
        describe.push(describes(&url, per_region, 1000).await);
        lists.push(listing(&url).await);
    }
    let pick = |f: &dyn Fn(&(f64, f64, f64)) -> f64| median(describe.iter().map(f).collect());
    println!(
        "| DescribeEndpoint | {:.2} ms | p99 {:.2} ms; sandbox+client CPU {:.2} ms per call |",
        pick(&|d| d.0),
        pick(&|d| d.1),
        pick(&|d| d.2)
    );
    let total = median(lists.iter().map(|l| l.0).collect());
    let page = median(lists.iter().map(|l| l.1).collect());
    let last = median(lists.iter().map(|l| l.2).collect());
    println!(
        "| ListEndpoints, whole region ({} endpoints, pages of 100) | {total:.0} ms | median page {page:.2} ms, last page {last:.2} ms |",
        lists[0].3
    );
    sb.shutdown().await;

    let sb = scale_sandbox(per_region, Some(25.0)).await;
    tokio::time::sleep(warmup).await;
    let busy = idle_cpu(window).await;
    println!(
        "| CPU idle, traffic 25/s | {:.1} % of a core | {window:?} |",
        busy * 100.0
    );
    sb.shutdown().await;
}
