//! How long a prewarm takes to give up on a model that cannot load before its deadline, against
//! a baseline measured in the same run:
//!
//! * **prewarm**: `Fleet::prewarm` of one 40 GB model of the demo MME (about 4.8 s to load at
//!   the sandbox's test timings) with a 1 s deadline, fast backoff; each iteration warms a model
//!   of its own, so none is loaded already;
//! * **baseline**: a bare aws-sdk-sagemakerruntime InvokeEndpoint of such a model cut by a 1 s
//!   `tokio::time::timeout`: the floor of ending a call at its deadline.
//!
//! The difference is what the deadline costs beyond itself (the test `failures_are_per_model`
//! checks that the model fails with a timeout; the time is read here, not asserted there).
//!
//! Run: `CARGO_TARGET_DIR=target/bench cargo bench --bench prewarm_deadline` (about 45 s). On the
//! 2-core machine, dev profile: baseline 1.003 s, prewarm 1.002 s (criterion's estimates, 20 runs
//! each): giving up costs nothing beyond the deadline.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_sagemakerruntime::primitives::Blob;
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use sagedeck::aws::Fleet;
use sagedeck::aws::invoke::prewarm::PrewarmOptions;
use sagedeck::sandbox::world::fleet::DEMO_BUCKET;
use sagedeck::sandbox::world::resources::S3Object;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle, start};

use common::sdk_config;

/// The demo MME.
const MME: &str = "mcp-multi-model-endpoint";
/// The deadline both arms are held to.
const DEADLINE: Duration = Duration::from_secs(1);
/// A model's size: far more than can load within the deadline.
const BIG_BYTES: u64 = 40_000_000_000;

/// Adds a 40 GB model no one has loaded yet under the demo MME's prefix; returns its key
/// relative to the prefix.
fn fresh_model(sb: &SandboxHandle, counter: &AtomicUsize) -> String {
    let key = format!("bench/big-{}.tar.gz", counter.fetch_add(1, Ordering::Relaxed));
    let mut world = sb.sandbox.world.write();
    let bucket = world.buckets.entry(DEMO_BUCKET.into()).or_default();
    bucket.insert(
        format!("tenants/{key}"),
        S3Object {
            size: BIG_BYTES,
            last_modified: 1.7e9,
            etag: "\"0123\"".into(),
        },
    );
    key
}

fn prewarm_deadline(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let sb = runtime.block_on(async {
        start(SandboxConfig {
            demo_fleet: true,
            ..SandboxConfig::for_tests()
        })
        .await
        .expect("sandbox starts")
    });
    let url = sb.endpoint_url();
    let fleet = runtime.block_on(Fleet::for_url(&url));
    let runtime_client = aws_sdk_sagemakerruntime::Client::new(&runtime.block_on(sdk_config(&url)));
    let counter = AtomicUsize::new(0);
    let opts = PrewarmOptions {
        deadline: DEADLINE,
        backoff_base: Duration::from_millis(20),
        backoff_cap: Duration::from_millis(100),
        ..Default::default()
    };

    let mut group = c.benchmark_group("prewarm_deadline");
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    group.warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_secs(12));
    group.bench_function("baseline: bare InvokeEndpoint cut at 1 s", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let model = fresh_model(&sb, &counter);
                let call = runtime_client
                    .invoke_endpoint()
                    .endpoint_name(MME)
                    .target_model(model)
                    .content_type("application/json")
                    .body(Blob::new(r#"{"inputs": "warm up"}"#));
                let t = Instant::now();
                let cut = runtime.block_on(async { tokio::time::timeout(DEADLINE, call.send()).await });
                total += t.elapsed();
                assert!(cut.is_err(), "a 40 GB model loaded within the deadline");
            }
            total
        });
    });
    group.bench_function("prewarm with a 1 s deadline", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let model = fresh_model(&sb, &counter);
                let t = Instant::now();
                let report = runtime
                    .block_on(fleet.prewarm(MME, &[model], &opts, None))
                    .expect("prewarm runs");
                total += t.elapsed();
                assert_eq!(report.failed, 1, "{report:?}");
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, prewarm_deadline);
criterion_main!(benches);
