//! Compatibility with the Python AWS clients: the seed article's boto3 calls
//! (`tests/compat/seed_calls.py`) and the AWS CLI (v1, which honours `AWS_ENDPOINT_URL`) run
//! against the sandbox with nothing changed but the endpoint URL.
//!
//! Setup creates a virtualenv at `<target>/compat-venv` from PyPI with pinned versions (reused
//! while it has them). If it cannot be created the tests fail: they never skip.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use sagedeck::sandbox::world::clock::iso8601;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle, Timing, now_epoch, start};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use tokio::process::Command;

use crate::common::peer_setup::{pinned_venv, show};

/// Pinned, checked together: awscli 1.46 vendors its own botocore (1.43.62), boto3 uses 1.44.8.
const PINS: [(&str, &str); 3] = [("boto3", "1.44.8"), ("botocore", "1.44.8"), ("awscli", "1.46.3")];
/// Any one client process (a script or a CLI call) must finish within this.
const PROCESS_DEADLINE: Duration = Duration::from_secs(180);

// ---- the virtualenv ------------------------------------------------------------------------------

/// The venv (created once per process, reused across runs while it has the pinned versions).
fn venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let probe =
            "import boto3, botocore, awscli; print(boto3.__version__, botocore.__version__, awscli.__version__)";
        pinned_venv("compat-venv", &PINS, probe)
    })
}

/// The venv, built off the async runtime (shared with the other Python-client test modules).
pub(crate) async fn venv_async() -> &'static Path {
    match tokio::task::spawn_blocking(venv).await {
        Ok(dir) => dir,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

// ---- running clients -----------------------------------------------------------------------------

/// An isolated client environment: nothing from the machine's AWS configuration leaks in.
pub(crate) struct ClientEnv {
    home: tempfile::TempDir,
    endpoint_url: String,
}

impl ClientEnv {
    pub(crate) fn new(endpoint_url: String) -> ClientEnv {
        ClientEnv {
            home: tempfile::tempdir().expect("temp HOME"),
            endpoint_url,
        }
    }

    fn command(&self, venv: &Path) -> Command {
        let home = self.home.path();
        let mut cmd = Command::new(venv.join("bin/python"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("AWS_CONFIG_FILE", home.join("config"))
            .env("AWS_SHARED_CREDENTIALS_FILE", home.join("credentials"))
            .env("AWS_ENDPOINT_URL", &self.endpoint_url)
            .env("AWS_ACCESS_KEY_ID", "AKIDSANDBOX")
            .env("AWS_SECRET_ACCESS_KEY", "sandbox-secret")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("AWS_PAGER", "")
            .env("PYTHONNOUSERSITE", "1")
            .env("PYTHONIOENCODING", "utf-8")
            .current_dir(home)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        cmd
    }

    pub(crate) async fn run(&self, venv: &Path, what: &str, args: &[&str]) -> Output {
        let mut cmd = self.command(venv);
        cmd.args(args);
        match tokio::time::timeout(PROCESS_DEADLINE, cmd.output()).await {
            Ok(out) => out.unwrap_or_else(|e| panic!("cannot start {what}: {e}")),
            Err(_) => panic!("{what} did not finish within {PROCESS_DEADLINE:?}"),
        }
    }

    /// Runs `aws ARGS` (as `python -m awscli`, the same entry point) and parses its JSON output.
    pub(crate) async fn aws(&self, venv: &Path, args: &[&str]) -> Value {
        let out = self.aws_output(venv, args).await;
        assert!(out.status.success(), "aws {} failed\n{}", args.join(" "), show(&out));
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("aws {}: output is not JSON ({e})\n{}", args.join(" "), show(&out)))
    }

    pub(crate) async fn aws_output(&self, venv: &Path, args: &[&str]) -> Output {
        let full: Vec<&str> = ["-m", "awscli", "--output", "json"]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        self.run(venv, &format!("aws {}", args.join(" ")), &full).await
    }
}

async fn demo_sandbox() -> SandboxHandle {
    start(SandboxConfig {
        demo_fleet: true,
        backfill_hours: 24,
        traffic_rate: None,
        timing: Timing::fast(),
        ..SandboxConfig::default()
    })
    .await
    .expect("sandbox starts")
}

fn names<'a>(items: &'a Value, key: &str) -> Vec<&'a str> {
    items
        .as_array()
        .unwrap_or_else(|| panic!("expected an array: {items}"))
        .iter()
        .filter_map(|i| i[key].as_str())
        .collect()
}

// ---- tests ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_seed_calls_run_against_the_sandbox() {
    let venv = venv_async().await;
    let sb = demo_sandbox().await;
    let env = ClientEnv::new(sb.endpoint_url());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/seed_calls.py");
    let started = Instant::now();
    let out = env
        .run(
            venv,
            "seed_calls.py",
            &[script.to_str().expect("utf-8 path"), &sb.endpoint_url()],
        )
        .await;
    eprintln!(
        "seed_calls.py ({:?}):\n{}",
        started.elapsed(),
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        out.status.success(),
        "the seed's boto3 calls failed against the sandbox\n{}",
        show(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("all 9 check groups passed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aws_cli_reads_and_invokes_the_sandbox() {
    let venv = venv_async().await;
    let sb = demo_sandbox().await;
    let env = ClientEnv::new(sb.endpoint_url());
    let classifier = "mcp-intent-classifier-prod";

    // AWS_ENDPOINT_URL alone routes every service (no --endpoint-url anywhere below).
    let list = env.aws(venv, &["sagemaker", "list-endpoints"]).await;
    let endpoints = names(&list["Endpoints"], "EndpointName");
    for want in [
        classifier,
        "mcp-multi-model-endpoint",
        "llm-tgi-chat",
        "mcp-embeddings-failed",
    ] {
        assert!(endpoints.contains(&want), "{want} missing from {endpoints:?}");
    }
    let statuses: Vec<&str> = names(&list["Endpoints"], "EndpointStatus");
    assert!(
        statuses.contains(&"Failed") && statuses.contains(&"InService"),
        "{statuses:?}"
    );

    let ep = env
        .aws(venv, &["sagemaker", "describe-endpoint", "--endpoint-name", classifier])
        .await;
    assert_eq!(ep["EndpointStatus"], "InService", "{ep}");
    assert_eq!(ep["EndpointConfigName"], "mcp-classifier-ab-config", "{ep}");
    let weights: Vec<(String, f64)> = ep["ProductionVariants"]
        .as_array()
        .expect("ProductionVariants")
        .iter()
        .map(|v| {
            (
                v["VariantName"].as_str().unwrap_or("").to_string(),
                v["CurrentWeight"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(
        weights,
        [("Stable".to_string(), 9.0), ("Canary".to_string(), 1.0)],
        "{ep}"
    );

    // invoke-endpoint (CLI v1 sends --body as raw bytes; v2's --cli-binary-format does not exist).
    let outfile = env.home.path().join("out.json");
    let outfile_s = outfile.to_str().expect("utf-8 path");
    let body = r#"{"inputs": "cancel my order", "parameters": {"max_length": 128, "return_all_scores": true}}"#;
    let mut invoke = vec!["sagemaker-runtime", "invoke-endpoint", "--endpoint-name", classifier];
    invoke.extend([
        "--content-type",
        "application/json",
        "--accept",
        "application/json",
        "--body",
        body,
    ]);
    let mut canary = invoke.clone();
    canary.extend(["--target-variant", "Canary", outfile_s]);
    invoke.push(outfile_s);
    for attempt in 0.. {
        let meta = env.aws_output(venv, &invoke).await;
        // The sandbox's simulated container error rate can answer a rare ModelError (500).
        if !meta.status.success() && attempt < 4 && String::from_utf8_lossy(&meta.stderr).contains("(500)") {
            continue;
        }
        assert!(meta.status.success(), "aws invoke-endpoint failed\n{}", show(&meta));
        let meta: Value = serde_json::from_slice(&meta.stdout).expect("invoke-endpoint JSON");
        assert_eq!(meta["ContentType"], "application/json", "{meta}");
        let variant = meta["InvokedProductionVariant"].as_str().unwrap_or("");
        assert!(["Stable", "Canary"].contains(&variant), "{meta}");
        let result: Value = serde_json::from_slice(&std::fs::read(&outfile).expect("outfile")).expect("JSON body");
        assert!(
            result[0]["label"].is_string() && result[0]["score"].is_f64(),
            "{result}"
        );
        assert!(
            result.as_array().is_some_and(|a| a.len() > 1),
            "return_all_scores: {result}"
        );
        break;
    }
    let meta = env.aws(venv, &canary).await;
    assert_eq!(meta["InvokedProductionVariant"], "Canary", "{meta}");

    let mut mme = vec![
        "sagemaker-runtime",
        "invoke-endpoint",
        "--endpoint-name",
        "mcp-multi-model-endpoint",
    ];
    mme.extend([
        "--target-model",
        "tenant-acme-finetuned-v2.tar.gz",
        "--content-type",
        "application/json",
    ]);
    mme.extend(["--body", r#"{"inputs": "hello"}"#, outfile_s]);
    let meta = env.aws(venv, &mme).await;
    assert_eq!(meta["InvokedProductionVariant"], "AllTraffic", "{meta}");

    // A container's 415 surfaces as ModelError; CLI v1 exits 255 on service errors.
    let mut bad = vec!["sagemaker-runtime", "invoke-endpoint", "--endpoint-name", classifier];
    bad.extend(["--content-type", "text/csv", "--body", "1,2,3", outfile_s]);
    let out = env.aws_output(venv, &bad).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(255), "{}", show(&out));
    assert!(stderr.contains("(ModelError)") && stderr.contains("(415)"), "{stderr}");

    // CloudWatch (the CLI speaks awsJson1_0 to it): p99 ModelLatency and Invocations, last 3 h.
    let now = now_epoch();
    let (start, end) = (iso8601(now - 3.0 * 3600.0), iso8601(now));
    let dims = r#"[{"Name": "EndpointName", "Value": "mcp-intent-classifier-prod"}, {"Name": "VariantName", "Value": "Stable"}]"#;
    let query = |id: &str, metric: &str, stat: &str| {
        format!(
            r#"{{"Id": "{id}", "MetricStat": {{"Metric": {{"Namespace": "AWS/SageMaker", "MetricName": "{metric}", "Dimensions": {dims}}}, "Period": 300, "Stat": "{stat}"}}}}"#
        )
    };
    let queries = format!(
        "[{}, {}]",
        query("p99", "ModelLatency", "p99"),
        query("inv", "Invocations", "Sum")
    );
    let mut gmd = vec![
        "cloudwatch",
        "get-metric-data",
        "--start-time",
        &start,
        "--end-time",
        &end,
    ];
    gmd.extend(["--metric-data-queries", &queries]);
    let data = env.aws(venv, &gmd).await;
    let results = data["MetricDataResults"].as_array().expect("MetricDataResults");
    assert_eq!(names(&data["MetricDataResults"], "Id"), ["p99", "inv"], "{data}");
    for r in results {
        assert_eq!(r["StatusCode"], "Complete", "{r}");
        let (ts, vs) = (
            r["Timestamps"].as_array().expect("ts"),
            r["Values"].as_array().expect("vs"),
        );
        assert!(ts.len() == vs.len() && vs.len() > 10, "{r}");
        assert!(vs.iter().all(|v| v.as_f64().is_some_and(|v| v > 0.0)), "{r}");
    }

    let metrics = env
        .aws(venv, &["cloudwatch", "list-metrics", "--namespace", "AWS/SageMaker"])
        .await;
    let metrics = metrics["Metrics"].as_array().expect("Metrics");
    let has = |name: &str| {
        metrics.iter().any(|m| {
            m["MetricName"] == name
                && m["Dimensions"].as_array().is_some_and(|d| {
                    d.iter()
                        .any(|d| d["Name"] == "EndpointName" && d["Value"] == classifier)
                        && d.iter().any(|d| d["Name"] == "VariantName" && d["Value"] == "Stable")
                })
        })
    };
    assert!(has("ModelLatency") && has("Invocations"), "{metrics:?}");
    assert!(metrics.iter().all(|m| m["Namespace"] == "AWS/SageMaker"), "{metrics:?}");

    let listing = env
        .aws(
            venv,
            &[
                "s3api",
                "list-objects-v2",
                "--bucket",
                "sagedeck-demo-models",
                "--prefix",
                "tenants/",
            ],
        )
        .await;
    let keys = names(&listing["Contents"], "Key");
    assert!(keys.contains(&"tenants/tenant-acme-finetuned-v2.tar.gz"), "{keys:?}");
    assert!(
        keys.len() > 30 && keys.iter().all(|k| k.starts_with("tenants/")),
        "{keys:?}"
    );

    let targets = env
        .aws(
            venv,
            &[
                "application-autoscaling",
                "describe-scalable-targets",
                "--service-namespace",
                "sagemaker",
            ],
        )
        .await;
    let stable = targets["ScalableTargets"]
        .as_array()
        .expect("ScalableTargets")
        .iter()
        .find(|t| t["ResourceId"] == "endpoint/mcp-intent-classifier-prod/variant/Stable")
        .unwrap_or_else(|| panic!("Stable variant target missing: {targets}"));
    assert_eq!(
        stable["ScalableDimension"], "sagemaker:variant:DesiredInstanceCount",
        "{stable}"
    );
    assert_eq!(
        (stable["MinCapacity"].as_i64(), stable["MaxCapacity"].as_i64()),
        (Some(2), Some(6)),
        "{stable}"
    );
}

/// The same clients against the real binary, `sagedeck sandbox --port 0 --fast --no-traffic`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aws_cli_against_the_sagedeck_sandbox_binary() {
    let venv = venv_async().await;
    let home = tempfile::tempdir().expect("temp HOME");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sagedeck"))
        .args(["sandbox", "--port", "0", "--fast", "--no-traffic"])
        .env("HOME", home.path())
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start sagedeck sandbox");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let first = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .expect("sagedeck sandbox printed nothing within 60 s")
        .expect("read stdout")
        .expect("sagedeck sandbox exited before printing its address");
    let url = first
        .strip_prefix("sagedeck sandbox listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .to_string();
    // Keep draining stdout so the sandbox never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    let env = ClientEnv::new(url.clone());
    let list = env.aws(venv, &["sagemaker", "list-endpoints"]).await;
    assert!(
        names(&list["Endpoints"], "EndpointName").contains(&"mcp-intent-classifier-prod"),
        "{list}"
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/seed_calls.py");
    let out = env
        .run(venv, "seed_calls.py", &[script.to_str().expect("utf-8 path"), &url])
        .await;
    assert!(out.status.success(), "seed_calls.py against the binary\n{}", show(&out));
    child.kill().await.expect("stop sagedeck sandbox");
}

const LOGS_SCRIPT: &str = r#"
import sys, boto3
logs = boto3.client("logs")
group = "/aws/sagemaker/Endpoints/mcp-intent-classifier-prod"
names = [g["logGroupName"] for g in logs.describe_log_groups(logGroupNamePrefix="/aws/sagemaker/")["logGroups"]]
assert group in names, names
streams = logs.describe_log_streams(logGroupName=group, orderBy="LastEventTime", descending=True)["logStreams"]
assert len(streams) == 3 and all("/i-0" in s["logStreamName"] for s in streams), streams
pages = logs.get_paginator("filter_log_events").paginate(logGroupName=group, filterPattern="?Traceback ?RuntimeError", PaginationConfig={"PageSize": 1})
found = [e for p in pages for e in p["events"]]
assert len(found) == 4, found
assert all(isinstance(e["timestamp"], int) and e["eventId"] for e in found)
stream = found[0]["logStreamName"]
head = logs.get_log_events(logGroupName=group, logStreamName=stream, startFromHead=True, limit=2)
again = logs.get_log_events(logGroupName=group, logStreamName=stream, startFromHead=True, nextToken=head["nextForwardToken"])
assert len(head["events"]) == 2 and again["events"], again
try:
    logs.filter_log_events(logGroupName="/aws/sagemaker/Endpoints/nope")
    raise SystemExit("expected ResourceNotFoundException")
except logs.exceptions.ResourceNotFoundException:
    pass
print("logs ok", len(found))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_reads_container_logs() {
    let venv = venv_async().await;
    let sb = demo_sandbox().await;
    let group = "/aws/sagemaker/Endpoints/mcp-intent-classifier-prod";
    crate::common::poll_until("the classifier's cold starts", Duration::from_secs(10), || async {
        let d = sb.sandbox.logs.data.lock();
        (d.groups.get(group).map_or(0, |g| g.streams.len()) == 3).then_some(())
    })
    .await;
    let spec = "kind=model_error,status=500,endpoint=mcp-intent-classifier-prod,count=2";
    sb.sandbox
        .faults
        .add(sagedeck::sandbox::faults::FaultSpec::parse_short(spec).unwrap());
    assert_eq!(
        crate::common::invoke_times(&sb, "mcp-intent-classifier-prod", 2).await,
        2
    );
    let env = ClientEnv::new(sb.endpoint_url());
    let out = env.run(venv, "boto3 logs", &["-c", LOGS_SCRIPT]).await;
    assert!(out.status.success(), "boto3 logs calls failed\n{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("logs ok 4"),
        "{}",
        show(&out)
    );
}
