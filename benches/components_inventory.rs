//! The components inventory of 200 inference-component endpoints × 4 components, through
//! sagedeck's fleet layer against a bare aws-sdk-rust loop making the same calls.
//!
//! The fleet is created over the wire in the setup (as AWS's documentation does it: a
//! configuration with an ExecutionRoleArn whose variant names no model, then the components).
//! Rows, each with the median wall time and the API calls the sandbox served:
//! * sagedeck, first load: ListInferenceComponents pages, one DescribeInferenceComponent each
//!   (8 in flight), on a fresh fleet;
//! * sagedeck, refresh: the same fleet again (settled, unmodified components come from the
//!   describe cache: only the list pages are called);
//! * bare SDK, first-load calls: the same list pages and describes, 8 in flight;
//! * bare SDK, refresh calls: the list pages alone (what sagedeck's refresh sends).
//!
//! Run: `CARGO_TARGET_DIR=target/bench cargo bench --bench components_inventory`
//! (`SAGEDECK_BENCH_ROUNDS`, default 3; `SAGEDECK_BENCH_ENDPOINTS`, default 200;
//! `SAGEDECK_BENCH_COMPONENTS`, default 4 per endpoint).

mod common;

use std::time::{Duration, Instant};

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{
    ContainerDefinition, InferenceComponentComputeResourceRequirements, InferenceComponentRuntimeConfig,
    InferenceComponentSpecification, InferenceComponentStatus, ProductionVariant, ProductionVariantInstanceType,
};
use futures_util::StreamExt;
use sagedeck::aws::Fleet;
use sagedeck::aws::components::ComponentFilter;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle, start};

use common::{env_num, median, min_max, sdk_config};

const ROLE: &str = "arn:aws:iam::123456789012:role/sagemaker";

fn served(sb: &SandboxHandle) -> u64 {
    sb.sandbox.calls.total()
}

/// One IC endpoint `ep-NNN` with its configuration.
async fn create_endpoint(sm: &Client, i: usize) {
    let name = format!("ep-{i:03}");
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .instance_type(ProductionVariantInstanceType::MlG512Xlarge)
        .initial_instance_count(1)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(format!("{name}-config"))
        .execution_role_arn(ROLE)
        .production_variants(variant)
        .send()
        .await
        .expect("create config");
    sm.create_endpoint()
        .endpoint_name(&name)
        .endpoint_config_name(format!("{name}-config"))
        .send()
        .await
        .expect("create endpoint");
}

/// Component `ep-NNN-ic-K` with one copy of 1 core, 1 accelerator and 1 GiB.
async fn create_component(sm: &Client, i: usize, k: usize) {
    let compute = InferenceComponentComputeResourceRequirements::builder()
        .number_of_cpu_cores_required(1.0)
        .number_of_accelerator_devices_required(1.0)
        .min_memory_required_in_mb(1024)
        .build();
    sm.create_inference_component()
        .inference_component_name(format!("ep-{i:03}-ic-{k}"))
        .endpoint_name(format!("ep-{i:03}"))
        .variant_name("AllTraffic")
        .specification(
            InferenceComponentSpecification::builder()
                .model_name("bench-model")
                .compute_resource_requirements(compute)
                .build(),
        )
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(1).build())
        .send()
        .await
        .expect("create component");
}

/// Waits until `count` things `listed` counts are there.
async fn wait_for(what: &str, count: usize, listed: impl AsyncFn() -> usize) {
    let start = Instant::now();
    while listed().await < count {
        assert!(start.elapsed() < Duration::from_secs(300), "{what} never came up");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Every component name in one ListInferenceComponents pass (100 a page).
async fn list_names(sm: &Client, status: Option<InferenceComponentStatus>) -> Vec<String> {
    let mut names = Vec::new();
    let mut token = None;
    loop {
        let page = sm
            .list_inference_components()
            .max_results(100)
            .set_status_equals(status.clone())
            .set_next_token(token)
            .send()
            .await
            .expect("list components");
        names.extend(
            page.inference_components()
                .iter()
                .filter_map(|c| c.inference_component_name().map(str::to_string)),
        );
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            return names;
        }
    }
}

/// The fleet: `endpoints` IC endpoints InService, each with `per` components InService.
async fn create_fleet(sm: &Client, endpoints: usize, per: usize) {
    sm.create_model()
        .model_name("bench-model")
        .primary_container(
            ContainerDefinition::builder()
                .image("huggingface-pytorch-tgi-inference")
                .build(),
        )
        .execution_role_arn(ROLE)
        .send()
        .await
        .expect("create model");
    futures_util::stream::iter(0..endpoints)
        .for_each_concurrent(8, |i| create_endpoint(sm, i))
        .await;
    wait_for("endpoints", endpoints, async || {
        let mut n = 0;
        let mut token = None;
        loop {
            let page = sm
                .list_endpoints()
                .status_equals(aws_sdk_sagemaker::types::EndpointStatus::InService)
                .max_results(100)
                .set_next_token(token)
                .send()
                .await
                .expect("list endpoints");
            n += page.endpoints().len();
            token = page.next_token().map(str::to_string);
            if token.is_none() {
                return n;
            }
        }
    })
    .await;
    let pairs: Vec<(usize, usize)> = (0..endpoints).flat_map(|i| (0..per).map(move |k| (i, k))).collect();
    futures_util::stream::iter(pairs)
        .for_each_concurrent(8, |(i, k)| create_component(sm, i, k))
        .await;
    wait_for("components", endpoints * per, async || {
        list_names(sm, Some(InferenceComponentStatus::InService)).await.len()
    })
    .await;
}

/// The bare SDK loop: the list pages, then (`describe`) one describe per component, 8 in flight.
async fn bare(sm: &Client, describe: bool) {
    let names = list_names(sm, None).await;
    if !describe {
        return;
    }
    futures_util::stream::iter(names)
        .for_each_concurrent(8, |name| async move {
            sm.describe_inference_component()
                .inference_component_name(name)
                .send()
                .await
                .expect("describe component");
        })
        .await;
}

struct Row {
    name: &'static str,
    times: Vec<f64>,
    calls: u64,
}

async fn measure(sb: &SandboxHandle, row: &mut Row, f: impl std::future::Future<Output = ()>) {
    let before = served(sb);
    let t = Instant::now();
    f.await;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    row.times.push(ms);
    row.calls = served(sb) - before;
    eprintln!("{}: {ms:.0} ms, {} calls", row.name, row.calls);
}

fn main() {
    let rounds = env_num("SAGEDECK_BENCH_ROUNDS", 3) as usize;
    let endpoints = env_num("SAGEDECK_BENCH_ENDPOINTS", 200) as usize;
    let per = env_num("SAGEDECK_BENCH_COMPONENTS", 4) as usize;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let sb = start(SandboxConfig::for_tests()).await.unwrap();
        let url = sb.endpoint_url();
        let sm = Client::new(&sdk_config(&url).await);
        let setup = Instant::now();
        create_fleet(&sm, endpoints, per).await;
        eprintln!(
            "setup: {} components in {:.1} s",
            endpoints * per,
            setup.elapsed().as_secs_f64()
        );
        let names = [
            "sagedeck, first load",
            "sagedeck, refresh",
            "bare SDK, first-load calls",
            "bare SDK, refresh calls",
        ];
        let mut rows: Vec<Row> = names
            .iter()
            .map(|name| Row {
                name,
                times: vec![],
                calls: 0,
            })
            .collect();
        let all = ComponentFilter {
            page_size: Some(100),
            ..Default::default()
        };
        for _ in 0..rounds {
            let fleet = Fleet::for_url(&url).await;
            let mut listed = 0;
            measure(&sb, &mut rows[0], async {
                listed = fleet.component_inventory(&all).await.unwrap().components.len();
            })
            .await;
            assert_eq!(listed, endpoints * per);
            measure(&sb, &mut rows[1], async {
                fleet.component_inventory(&all).await.unwrap();
            })
            .await;
            measure(&sb, &mut rows[2], bare(&sm, true)).await;
            measure(&sb, &mut rows[3], bare(&sm, false)).await;
        }
        println!("{rounds} rounds, {endpoints} IC endpoints × {per} components, debug or release as built\n");
        println!("{:<32} {:>12} {:>12} {:>8}", "row", "median ms", "min-max ms", "calls");
        for r in &rows {
            let (lo, hi) = min_max(&r.times);
            println!(
                "{:<32} {:>12.0} {:>12} {:>8}",
                r.name,
                median(r.times.clone()),
                format!("{lo:.0}-{hi:.0}"),
                r.calls
            );
        }
    });
}
