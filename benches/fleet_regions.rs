//! A fleet across regions: 5 regions × 1,000 endpoints behind one sandbox (one emulated state
//! per region, chosen by the signing region), listed as one inventory.
//!
//! Rows, each with the median wall time to a full table and the API calls the sandbox served:
//! * single region (us-east-1): first load, then refresh (configs and models remembered);
//! * 5 regions through `multi_inventory`: first load, then refresh with the same fleets;
//! * baseline: a bare aws-sdk-rust loop making the same calls (ListEndpoints pages, then
//!   DescribeEndpoint + DescribeEndpointConfig + DescribeModel per endpoint for a first load,
//!   DescribeEndpoint only for a refresh), 8 in flight per region, regions concurrently.
//!
//! Inventories here skip autoscaling (its pages are the same for every arm).
//! Run: `CARGO_TARGET_DIR=target/bench cargo bench --bench fleet_regions`
//! (`SAGEDECK_BENCH_ROUNDS`, default 3; `SAGEDECK_BENCH_ENDPOINTS`, default 1000 per region).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use sagedeck::aws::endpoints::inventory::InventoryOptions;
use sagedeck::aws::endpoints::multi::{FleetTarget, multi_inventory, targets};
use sagedeck::aws::{AwsOptions, Fleet};
use sagedeck::sandbox::RegionFleet;
use sagedeck::sandbox::{Sandbox, SandboxConfig, SandboxHandle, start};

use common::{env_num, median, min_max, sdk_config_in};

const REGIONS: [&str; 5] = ["us-east-1", "eu-west-1", "ap-south-1", "us-west-2", "eu-central-1"];

fn served(sb: &Arc<Sandbox>) -> u64 {
    let one = |s: &Sandbox| s.calls.total();
    one(sb) + sb.regions.values().map(|r| one(r)).sum::<u64>()
}

/// The bare SDK loop: the same calls as an inventory, without the fleet layer.
async fn bare(url: &str, regions: &[&str], full: bool) {
    let mut all = Vec::new();
    for region in regions {
        let sm = aws_sdk_sagemaker::Client::new(&sdk_config_in(url, region).await);
        all.push(async move {
            let mut names = Vec::new();
            let mut token = None;
            loop {
                let page = sm
                    .list_endpoints()
                    .max_results(100)
                    .set_next_token(token)
                    .send()
                    .await
                    .unwrap();
                names.extend(
                    page.endpoints()
                        .iter()
                        .filter_map(|e| e.endpoint_name().map(str::to_string)),
                );
                token = page.next_token().map(str::to_string);
                if token.is_none() {
                    break;
                }
            }
            futures_util::stream::iter(names)
                .for_each_concurrent(8, |name| {
                    let sm = sm.clone();
                    async move {
                        let ep = sm.describe_endpoint().endpoint_name(&name).send().await.unwrap();
                        if !full {
                            return;
                        }
                        let c = ep.endpoint_config_name().unwrap_or_default();
                        let conf = sm
                            .describe_endpoint_config()
                            .endpoint_config_name(c)
                            .send()
                            .await
                            .unwrap();
                        for v in conf.production_variants() {
                            let _ = sm
                                .describe_model()
                                .model_name(v.model_name().unwrap_or_default())
                                .send()
                                .await;
                        }
                    }
                })
                .await;
        });
    }
    futures_util::future::join_all(all).await;
}

struct Row {
    name: &'static str,
    times: Vec<f64>,
    calls: u64,
}

async fn measure<F: std::future::Future<Output = ()>>(sb: &SandboxHandle, row: &mut Row, f: F) {
    let before = served(&sb.sandbox);
    let t = Instant::now();
    f.await;
    row.times.push(t.elapsed().as_secs_f64() * 1000.0);
    row.calls = served(&sb.sandbox) - before;
    eprintln!(
        "{}: {:.0} ms, {} calls",
        row.name,
        t.elapsed().as_secs_f64() * 1000.0,
        row.calls
    );
}

fn main() {
    let rounds = env_num("SAGEDECK_BENCH_ROUNDS", 3) as usize;
    let per_region = env_num("SAGEDECK_BENCH_ENDPOINTS", 1000) as usize;
    // Multi-region fleets connect through the default chain, as the CLI does.
    // SAFETY: set before the runtime (and any other thread) starts.
    unsafe {
        std::env::set_var("AWS_ACCESS_KEY_ID", "AKIDSANDBOX");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "s");
        std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
        std::env::set_var("AWS_CONFIG_FILE", "/nonexistent");
        std::env::set_var("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let sb = start(SandboxConfig {
            extra_endpoints: per_region,
            extra_regions: REGIONS[1..]
                .iter()
                .map(|r| RegionFleet::parse(&format!("{r}={per_region}")).unwrap())
                .collect(),
            ..SandboxConfig::for_tests()
        })
        .await
        .unwrap();
        let url = sb.endpoint_url();
        let base = AwsOptions {
            endpoint_url: Some(url.clone()),
            ..Default::default()
        };
        let opts = InventoryOptions {
            autoscaling: false,
            call_deadline: Duration::from_secs(60),
            ..Default::default()
        };
        let all: Vec<String> = REGIONS.iter().map(|r| r.to_string()).collect();
        let five = targets(&[], &all);
        let one = targets(&[], &all[..1]);
        let names = [
            "1 region, first load",
            "1 region, refresh",
            "5 regions, first load",
            "5 regions, refresh",
            "bare SDK, 1 region, first-load calls",
            "bare SDK, 1 region, refresh calls",
            "bare SDK, 5 regions, first-load calls",
            "bare SDK, 5 regions, refresh calls",
        ];
        let mut rows: Vec<Row> = names
            .iter()
            .map(|n| Row {
                name: n,
                times: vec![],
                calls: 0,
            })
            .collect();
        for _ in 0..rounds {
            for (i, set) in [(0, &one), (2, &five)] {
                let mut kept: Vec<(FleetTarget, Fleet)> = Vec::new();
                measure(&sb, &mut rows[i], async {
                    let inv = multi_inventory(set, &base, opts, &[]).await;
                    kept = inv
                        .regions
                        .into_iter()
                        .filter_map(|r| {
                            Some((
                                FleetTarget {
                                    profile: None,
                                    region: r.region,
                                },
                                r.fleet?,
                            ))
                        })
                        .collect();
                })
                .await;
                measure(&sb, &mut rows[i + 1], async {
                    multi_inventory(set, &base, opts, &kept).await;
                })
                .await;
            }
            for (i, n, full) in [(4, 1, true), (5, 1, false), (6, 5, true), (7, 5, false)] {
                measure(&sb, &mut rows[i], bare(&url, &REGIONS[..n], full)).await;
            }
        }
        println!("{rounds} rounds, {per_region} endpoints per region, debug or release as built\n");
        println!("{:<40} {:>12} {:>12} {:>8}", "row", "median ms", "min-max ms", "calls");
        for r in &rows {
            let (lo, hi) = min_max(&r.times);
            println!(
                "{:<40} {:>12.0} {:>12} {:>8}",
                r.name,
                median(r.times.clone()),
                format!("{lo:.0}-{hi:.0}"),
                r.calls
            );
        }
    });
}
