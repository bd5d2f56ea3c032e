//! How many requests per second the sandbox serves on loopback, against the HTTP floor of this
//! machine measured in the same run.
//!
//! Scenarios (all on 127.0.0.1, 32 concurrent tasks over warm keep-alive connections, client and
//! server in one process on one 2-worker tokio runtime, as `sagedeck` itself runs them):
//!
//! * `baseline  / hyper`: a bare axum server answering 200 with a small CSV body, driven by a
//!   pooled hyper client (the floor every other row is divided by);
//! * `baseline  / sdk`: the same bare server driven by aws-sdk-sagemakerruntime (the SDK client's
//!   own cost: endpoint resolution, SigV4 signing, interceptors, response parsing);
//! * `invoke    / hyper`: InvokeEndpoint on `xgboost-churn-csv` (demo fleet, no traffic, no
//!   latency sleeps, no random errors), posted as `text/csv`;
//! * `invoke    / sdk`: the same through aws-sdk-sagemakerruntime;
//! * `describe  / hyper`: DescribeEndpoint (awsJson1_1, `x-amz-target: SageMaker.DescribeEndpoint`);
//! * `describe  / sdk`: the same through aws-sdk-sagemaker.
//!
//! Scenarios are interleaved round by round (round 1 of every scenario, then round 2, ...) so
//! that drift on a noisy machine spreads over all of them. Every round is bounded in time and in
//! requests. `cpu µs/req` is this process's user+system CPU time (from /proc/self/stat) divided
//! by the requests of the round: on 2 cores a saturated run spends about 2,000,000 / (req/s).
//!
//! Run: `CARGO_TARGET_DIR=target/bench cargo bench --bench sandbox_throughput`
//! (`SAGEDECK_BENCH_ROUNDS`, `SAGEDECK_BENCH_ROUND_MS`, `SAGEDECK_BENCH_ONLY=<substring>` adjust it;
//! `SAGEDECK_BENCH_ONLY` also lets a profiler look at a single scenario.)

mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_sagemakerruntime::primitives::Blob;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use sagedeck::sandbox::{SandboxConfig, start};

use common::{env_num, median, sdk_config};

/// Concurrent client tasks.
const CONCURRENCY: usize = 32;
/// Warm-up per scenario before the first round.
const WARMUP: Duration = Duration::from_millis(800);
/// Upper bound of requests in one round, whatever the machine.
const MAX_REQUESTS_PER_ROUND: u64 = 1_000_000;
/// The endpoint invoked.
const ENDPOINT: &str = "xgboost-churn-csv";
/// The CSV row posted (five features, one record).
const CSV_BODY: &str = "0.5,1.0,3,12.5,0\n";

type HttpClient = Client<HttpConnector, Full<Bytes>>;
type BoxFut = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;
type Op = Arc<dyn Fn() -> BoxFut + Send + Sync>;

struct Scenario {
    name: &'static str,
    /// Index of the scenario whose median is the "same client" baseline.
    same_client_baseline: usize,
    op: Op,
    rounds: Vec<Round>,
}

#[derive(Clone, Copy)]
struct Round {
    ok: u64,
    errors: u64,
    secs: f64,
    cpu_secs: Option<f64>,
}

impl Round {
    fn rps(&self) -> f64 {
        self.ok as f64 / self.secs
    }
}

/// User + system CPU seconds of this process so far (Linux; None elsewhere).
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    // USER_HZ is 100 on every Linux this runs on.
    Some((utime + stime) / 100.0)
}

/// Runs `op` from `CONCURRENCY` tasks until `dur` has passed (or the request cap is reached).
async fn drive(op: &Op, dur: Duration) -> Round {
    let ok = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let first_error: Arc<parking_lot::Mutex<Option<String>>> = Arc::default();
    let cpu0 = cpu_secs();
    let start = Instant::now();
    let deadline = start + dur;
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..CONCURRENCY {
        let (op, ok, errors, first_error) = (op.clone(), ok.clone(), errors.clone(), first_error.clone());
        tasks.spawn(async move {
            while Instant::now() < deadline
                && ok.load(Ordering::Relaxed) + errors.load(Ordering::Relaxed) < MAX_REQUESTS_PER_ROUND
            {
                match op().await {
                    Ok(()) => ok.fetch_add(1, Ordering::Relaxed),
                    Err(e) => {
                        first_error.lock().get_or_insert(e);
                        errors.fetch_add(1, Ordering::Relaxed)
                    }
                };
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    let secs = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, cpu_secs()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    if let Some(e) = first_error.lock().take() {
        eprintln!("  (first error of the round: {e})");
    }
    Round {
        ok: ok.load(Ordering::Relaxed),
        errors: errors.load(Ordering::Relaxed),
        secs,
        cpu_secs: cpu,
    }
}

fn hyper_client() -> HttpClient {
    Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(CONCURRENCY * 2)
        .pool_idle_timeout(Duration::from_secs(60))
        .build_http()
}

/// POSTs `body` with `headers` and reads the whole answer; anything but 200 is an error.
fn hyper_post(client: HttpClient, uri: String, headers: Vec<(&'static str, &'static str)>, body: Bytes) -> Op {
    Arc::new(move || {
        let (client, uri, headers, body) = (client.clone(), uri.clone(), headers.clone(), body.clone());
        Box::pin(async move {
            let mut req = Request::post(uri);
            for (k, v) in headers {
                req = req.header(k, v);
            }
            let resp = client
                .request(req.body(Full::new(body)).map_err(|e| e.to_string())?)
                .await
                .map_err(|e| format!("{e:?}"))?;
            let status = resp.status();
            let body = resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
            if status != 200 {
                return Err(format!("HTTP {status}: {}", String::from_utf8_lossy(&body)));
            }
            std::hint::black_box(body);
            Ok(())
        })
    })
}

fn sdk_invoke(rt: aws_sdk_sagemakerruntime::Client) -> Op {
    Arc::new(move || {
        let rt = rt.clone();
        Box::pin(async move {
            let out = rt
                .invoke_endpoint()
                .endpoint_name(ENDPOINT)
                .content_type("text/csv")
                .body(Blob::new(CSV_BODY))
                .send()
                .await
                .map_err(|e| format!("{:?}", e.into_service_error()))?;
            std::hint::black_box(out);
            Ok(())
        })
    })
}

fn sdk_describe(sm: aws_sdk_sagemaker::Client) -> Op {
    Arc::new(move || {
        let sm = sm.clone();
        Box::pin(async move {
            let out = sm
                .describe_endpoint()
                .endpoint_name(ENDPOINT)
                .send()
                .await
                .map_err(|e| format!("{:?}", e.into_service_error()))?;
            std::hint::black_box(out);
            Ok(())
        })
    })
}

/// A bare axum server: 200, `text/csv`, a short body, whatever the request (the body is read).
async fn bare_server() -> (String, tokio::task::JoinHandle<()>) {
    async fn answer(body: axum::body::Bytes) -> impl axum::response::IntoResponse {
        std::hint::black_box(body);
        ([(axum::http::header::CONTENT_TYPE, "text/csv")], "0.123456\n")
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let app = axum::Router::new().fallback(answer);
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), task)
}

fn main() {
    let rounds = env_num("SAGEDECK_BENCH_ROUNDS", 7).clamp(1, 50) as usize;
    let round_time = Duration::from_millis(env_num("SAGEDECK_BENCH_ROUND_MS", 1500).clamp(100, 10_000));
    let only = std::env::var("SAGEDECK_BENCH_ONLY").ok();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(run(rounds, round_time, only));
}

async fn run(rounds: usize, round_time: Duration, only: Option<String>) {
    let sandbox = start(SandboxConfig {
        demo_fleet: true,
        ..SandboxConfig::for_tests()
    })
    .await
    .expect("sandbox starts");
    assert!(!sandbox.sandbox.config.timing.sleep_model_latency && !sandbox.sandbox.config.random_errors);
    assert!(sandbox.sandbox.config.traffic_rate.is_none());
    let sandbox_url = sandbox.endpoint_url();
    let (bare_url, bare_task) = bare_server().await;

    let client = hyper_client();
    let invoke_path = format!("/endpoints/{ENDPOINT}/invocations");
    let csv_headers = vec![("content-type", "text/csv")];
    let describe_headers = vec![
        ("content-type", "application/x-amz-json-1.1"),
        ("x-amz-target", "SageMaker.DescribeEndpoint"),
    ];
    let describe_body = Bytes::from(format!("{{\"EndpointName\":\"{ENDPOINT}\"}}"));
    let bare_conf = sdk_config(&bare_url).await;
    let sandbox_conf = sdk_config(&sandbox_url).await;

    let mut scenarios = [
        Scenario {
            name: "baseline  / hyper  (bare axum, 200)",
            same_client_baseline: 0,
            op: hyper_post(
                client.clone(),
                format!("{bare_url}{invoke_path}"),
                csv_headers.clone(),
                Bytes::from_static(CSV_BODY.as_bytes()),
            ),
            rounds: vec![],
        },
        Scenario {
            name: "baseline  / sdk    (bare axum, 200)",
            same_client_baseline: 1,
            op: sdk_invoke(aws_sdk_sagemakerruntime::Client::new(&bare_conf)),
            rounds: vec![],
        },
        Scenario {
            name: "invoke    / hyper  (InvokeEndpoint)",
            same_client_baseline: 0,
            op: hyper_post(
                client.clone(),
                format!("{sandbox_url}{invoke_path}"),
                csv_headers.clone(),
                Bytes::from_static(CSV_BODY.as_bytes()),
            ),
            rounds: vec![],
        },
        Scenario {
            name: "invoke    / sdk    (InvokeEndpoint)",
            same_client_baseline: 1,
            op: sdk_invoke(aws_sdk_sagemakerruntime::Client::new(&sandbox_conf)),
            rounds: vec![],
        },
        Scenario {
            name: "describe  / hyper  (DescribeEndpoint)",
            same_client_baseline: 0,
            op: hyper_post(
                client.clone(),
                format!("{sandbox_url}/"),
                describe_headers,
                describe_body,
            ),
            rounds: vec![],
        },
        Scenario {
            name: "describe  / sdk    (DescribeEndpoint)",
            same_client_baseline: 1,
            op: sdk_describe(aws_sdk_sagemaker::Client::new(&sandbox_conf)),
            rounds: vec![],
        },
    ];
    let selected: Vec<usize> = (0..scenarios.len())
        .filter(|&i| only.as_deref().is_none_or(|o| scenarios[i].name.contains(o)))
        .collect();

    // Sanity: every selected scenario answers 200 once before anything is timed.
    for &i in &selected {
        if let Err(e) = (scenarios[i].op)().await {
            panic!("{} does not work: {e}", scenarios[i].name);
        }
    }
    eprintln!(
        "sandbox_throughput: {} scenarios x {rounds} rounds of {round_time:?}, {CONCURRENCY} concurrent tasks, 2 tokio workers",
        selected.len()
    );
    for &i in &selected {
        let w = drive(&scenarios[i].op, WARMUP).await;
        eprintln!("  warm-up {:<40} {:>9.0} req/s", scenarios[i].name, w.rps());
    }
    let invocations_before = sandbox.sandbox.request_count("InvokeEndpoint");
    let describes_before = sandbox.sandbox.request_count("DescribeEndpoint");
    for r in 0..rounds {
        for &i in &selected {
            let round = drive(&scenarios[i].op, round_time).await;
            eprintln!(
                "  round {}/{rounds} {:<40} {:>9.0} req/s",
                r + 1,
                scenarios[i].name,
                round.rps()
            );
            scenarios[i].rounds.push(round);
        }
    }
    let invocations = sandbox.sandbox.request_count("InvokeEndpoint") - invocations_before;
    let describes = sandbox.sandbox.request_count("DescribeEndpoint") - describes_before;

    let medians: Vec<f64> = scenarios
        .iter()
        .map(|s| median(s.rounds.iter().map(Round::rps).collect()))
        .collect();
    println!();
    println!(
        "sandbox_throughput — {CONCURRENCY} concurrent keep-alive tasks on loopback, {rounds} rounds x {:.1} s, interleaved; {} CPUs",
        round_time.as_secs_f64(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
    );
    println!(
        "{:<40} {:>9} {:>6} {:>10} {:>10} {:>10} {:>9} {:>10} {:>9}",
        "scenario", "requests", "errors", "median/s", "min/s", "max/s", "vs base", "vs client", "cpu µs/req"
    );
    for &i in &selected {
        let s = &scenarios[i];
        let rps: Vec<f64> = s.rounds.iter().map(Round::rps).collect();
        let requests: u64 = s.rounds.iter().map(|r| r.ok).sum();
        let errors: u64 = s.rounds.iter().map(|r| r.errors).sum();
        let min = rps.iter().copied().fold(f64::INFINITY, f64::min);
        let max = rps.iter().copied().fold(0.0, f64::max);
        let cpu = median(
            s.rounds
                .iter()
                .filter_map(|r| r.cpu_secs.map(|c| c * 1e6 / r.ok.max(1) as f64))
                .collect(),
        );
        let ratio = |base: f64| {
            if base.is_finite() {
                format!("{:.3}", medians[i] / base)
            } else {
                "-".into()
            }
        };
        println!(
            "{:<40} {:>9} {:>6} {:>10.0} {:>10.0} {:>10.0} {:>9} {:>10} {:>9.1}",
            s.name,
            requests,
            errors,
            medians[i],
            min,
            max,
            ratio(medians[0]),
            ratio(medians[s.same_client_baseline]),
            cpu
        );
    }
    println!(
        "(vs base: median / median of `baseline / hyper`; vs client: median / median of the baseline driven by the same client; sandbox counted {invocations} InvokeEndpoint and {describes} DescribeEndpoint in the timed rounds)"
    );
    bare_task.abort();
    sandbox.shutdown().await;
}
