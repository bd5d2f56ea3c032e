//! What a Timeline refresh costs on an endpoint with 1,000 CloudTrail events in its window
//! (1,000 accepted weight changes on `mcp-intent-classifier-prod`, 20 LookupEvents pages of 50),
//! on the sandbox at AWS's LookupEvents limit (2 calls/s per account and region):
//!
//! * **console refresh, cold**: `Fleet::trail_refresh` with an empty cache (one page) and the
//!   rest of the timeline's reads (`Fleet::timeline`);
//! * **console refresh, warm**: the same on the cache the cold one filled (one page, spaced
//!   500 ms after the last call);
//! * **timeline CLI**: `Fleet::trail_all`, the whole window (every page, paced);
//! * **baseline**: a bare aws-sdk-cloudtrail LookupEvents loop reading every page as fast as it
//!   can (the SDK's standard retries absorb the throttling).
//!
//! Run: `cargo bench --profile dev --bench timeline_trail` (about a minute). Prints a table of
//! medians over `TRAIL_ROUNDS` rounds (default 3) with the LookupEvents calls each made. On the
//! 2-core machine, dev profile: cold refresh 0.029 s and warm 0.499 s (the 500 ms pacing), one
//! call each; the whole window 10.0 s in 21 calls, against 14.0 s for the bare SDK loop's 21
//! pages (README, "What changed, by anyone").

mod common;

use std::time::{Duration, Instant};

use aws_sdk_cloudtrail::types::{LookupAttribute, LookupAttributeKey};
use aws_sdk_sagemaker::types::DesiredWeightAndCapacity;
use sagedeck::aws::Fleet;
use sagedeck::aws::trail::TrailCache;
use sagedeck::sandbox::{SandboxConfig, Timing, start};

use common::{env_num, median, sdk_config};

const EP: &str = "mcp-intent-classifier-prod";
const EVENTS: usize = 1_000;

/// 1,000 accepted weight changes (the endpoint updates at once on these timings).
async fn changes(sm: &aws_sdk_sagemaker::Client) {
    for i in 0..EVENTS {
        let w = DesiredWeightAndCapacity::builder()
            .variant_name("Canary")
            .desired_weight(1.0 + (i % 2) as f32)
            .build();
        sm.update_endpoint_weights_and_capacities()
            .endpoint_name(EP)
            .desired_weights_and_capacities(w)
            .send()
            .await
            .expect("an accepted change");
    }
}

/// Every page of the window through the bare SDK: (pages, events).
async fn bare_loop(trail: &aws_sdk_cloudtrail::Client, since: f64) -> (usize, usize) {
    let attr = LookupAttribute::builder()
        .attribute_key(LookupAttributeKey::ResourceName)
        .attribute_value(EP)
        .build()
        .expect("an attribute");
    let (mut pages, mut events, mut token) = (0, 0, None);
    loop {
        let out = trail
            .lookup_events()
            .lookup_attributes(attr.clone())
            .start_time(aws_smithy_types::DateTime::from_secs_f64(since))
            .max_results(50)
            .set_next_token(token)
            .send()
            .await
            .expect("a page");
        pages += 1;
        events += out.events().len();
        token = out.next_token().map(str::to_string);
        if token.is_none() {
            return (pages, events);
        }
    }
}

fn row(name: &str, times: Vec<f64>, calls: usize, events: usize) {
    println!("| {name} | {:.3} s | {calls} | {events} |", median(times));
}

fn main() {
    let rounds = env_num("TRAIL_ROUNDS", 3) as usize;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let config = SandboxConfig {
            demo_fleet: true,
            timing: Timing {
                update: Duration::ZERO,
                ..Timing::fast()
            },
            ..SandboxConfig::for_tests()
        };
        let sb = start(config).await.expect("the sandbox starts");
        let url = sb.endpoint_url();
        let conf = sdk_config(&url).await;
        changes(&aws_sdk_sagemaker::Client::new(&conf)).await;
        let fleet = Fleet::for_url(&url).await;
        let bare_conf = aws_sdk_cloudtrail::config::Builder::from(&conf)
            .retry_config(aws_sdk_cloudtrail::config::retry::RetryConfig::standard().with_max_attempts(10))
            .build();
        let bare_client = aws_sdk_cloudtrail::Client::from_conf(bare_conf);
        let since = sagedeck::format::now_epoch() - 3600.0;
        let (mut cold, mut warm, mut all, mut bare) = (vec![], vec![], vec![], vec![]);
        let (mut cold_calls, mut warm_calls, mut all_calls, mut bare_calls) = (0, 0, 0, 0);
        let (mut all_events, mut bare_events, mut page_events) = (0, 0, 0);
        for _ in 0..rounds {
            let cache = TrailCache::default();
            let now = sagedeck::format::now_epoch();
            let t = Instant::now();
            let read = fleet.trail_refresh(&cache, EP, since, now).await;
            fleet.timeline(EP, since, &[]).await.expect("the timeline");
            cold.push(t.elapsed().as_secs_f64());
            (cold_calls, page_events) = (cache.calls(), read.events.len());
            let t = Instant::now();
            fleet
                .trail_refresh(&cache, EP, since, sagedeck::format::now_epoch())
                .await;
            fleet.timeline(EP, since, &[]).await.expect("the timeline");
            warm.push(t.elapsed().as_secs_f64());
            warm_calls = cache.calls() - cold_calls;
            tokio::time::sleep(Duration::from_secs(1)).await;

            let cache = TrailCache::default();
            let t = Instant::now();
            let read = fleet.trail_all(&cache, EP, since, now, 40, |_| {}).await;
            all.push(t.elapsed().as_secs_f64());
            (all_calls, all_events) = (cache.calls(), read.events.len());
            tokio::time::sleep(Duration::from_secs(1)).await;

            let t = Instant::now();
            (bare_calls, bare_events) = bare_loop(&bare_client, since).await;
            bare.push(t.elapsed().as_secs_f64());
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        println!("{EVENTS} CloudTrail events on {EP}; medians of {rounds} rounds\n");
        println!("| row | median | LookupEvents calls | events read |");
        println!("|---|---|---|---|");
        row(
            "console refresh, cold cache (+ the timeline's other reads)",
            cold,
            cold_calls,
            page_events,
        );
        row(
            "console refresh, warm cache (+ the timeline's other reads)",
            warm,
            warm_calls,
            page_events,
        );
        row(
            "timeline CLI, whole window (paced, 2 calls/s)",
            all,
            all_calls,
            all_events,
        );
        row(
            "baseline: bare SDK loop, every page (SDK retries; pages, its attempts unseen)",
            bare,
            bare_calls,
            bare_events,
        );
    });
}
