//! MME catalog and prewarm, over the wire against the sandbox's demo MME: ListObjectsV2 paging
//! and relative keys, cold then warm, ModelNotReady retried, deadlines, unknown models, and the
//! `models` / `prewarm` commands with their JSON shapes and exit codes.

use std::time::Duration;

use sagedeck::aws::invoke::prewarm::{PrewarmEvent, PrewarmOptions, PrewarmStatus};
use sagedeck::sandbox::world::fleet::DEMO_MME_PREFIX;

use crate::common::{CliRun, add_mme_models, demo_config, fleet, run_cli, sandbox_with};

const MME: &str = "mcp-multi-model-endpoint";
const BIG: &str = "tenant-globex-llm-70b.tar.gz";
const ACME: &str = "tenant-acme-finetuned-v2.tar.gz";

/// Fast backoff for tests.
fn quick(deadline: Duration, cold_threshold: Duration) -> PrewarmOptions {
    PrewarmOptions {
        deadline,
        cold_threshold,
        backoff_base: Duration::from_millis(20),
        backoff_cap: Duration::from_millis(100),
        ..Default::default()
    }
}

fn one_line(r: &CliRun) {
    assert_eq!(r.stderr.lines().count(), 1, "one line on stderr:\n{}", r.stderr);
    for bad in ["panicked", "SdkError", "ServiceError {", "DispatchFailure"] {
        assert!(!r.stderr.contains(bad), "stderr shows `{bad}`:\n{}", r.stderr);
    }
}

#[tokio::test]
async fn catalog_reads_every_page_with_relative_keys() {
    let sb = sandbox_with(demo_config()).await;
    let bulk: Vec<(String, u64)> = (0..2400)
        .map(|i| (format!("bulk/model-{i:04}.tar.gz"), 1000 + i))
        .collect();
    add_mme_models(&sb, &bulk);
    // "Directory" placeholders and the prefix itself are not models.
    add_mme_models(&sb, &[(String::new(), 0), ("bulk/".into(), 0)]);
    let f = fleet(&sb).await;

    let before = sb.sandbox.request_count("ListObjectsV2");
    let cat = f.list_catalog(DEMO_MME_PREFIX, None).await.unwrap();
    assert_eq!(
        (cat.bucket.as_str(), cat.prefix.as_str()),
        ("sagedeck-demo-models", "tenants/")
    );
    assert_eq!(cat.models.len(), 37 + 2400, "the demo's 37 models and the bulk ones");
    assert_eq!(cat.pages, 3, "2,439 keys at 1,000 a page");
    assert_eq!(sb.sandbox.request_count("ListObjectsV2") - before, 3);
    assert!(cat.models.iter().all(|m| !m.key.is_empty() && !m.key.ends_with('/')));
    assert!(
        cat.models.iter().all(|m| !m.key.starts_with("tenants/")),
        "keys are relative"
    );
    assert!(cat.get("README.txt").is_none() && cat.get("models/README.txt").is_none());
    let acme = cat.get(ACME).unwrap();
    assert!(acme.size > 0 && acme.last_modified.is_some() && acme.etag.is_some());
    assert_eq!(cat.get(BIG).unwrap().size, 40_000_000_000);
    assert_eq!(cat.get("bulk/model-2399.tar.gz").unwrap().size, 3399);

    let small_pages = f.list_catalog(DEMO_MME_PREFIX, Some(100)).await.unwrap();
    assert_eq!(small_pages.pages, 25);
    assert_eq!(small_pages.models, cat.models);
    assert_eq!(f.model_catalog(DEMO_MME_PREFIX).await.unwrap(), cat.models);

    let wanted = vec![ACME.to_string(), "nope.tar.gz".to_string()];
    assert_eq!(cat.unknown(&wanted), vec!["nope.tar.gz"]);
    let missing = f.model_catalog("s3://no-such-bucket/x/").await.unwrap_err();
    assert_eq!(missing.class(), "not_found", "{missing}");
    assert_eq!(f.model_catalog("https://x").await.unwrap_err().class(), "validation");
}

#[tokio::test]
async fn prewarm_is_cold_then_warm() {
    let sb = sandbox_with(demo_config()).await;
    // 2 GB: 240 ms download + 40 ms load at the test timings.
    add_mme_models(
        &sb,
        &[
            ("big-a.tar.gz".into(), 2_000_000_000),
            ("big-b.tar.gz".into(), 2_000_000_000),
        ],
    );
    let f = fleet(&sb).await;
    let models = vec!["big-a.tar.gz".to_string(), "big-b.tar.gz".to_string()];
    let opts = quick(Duration::from_secs(30), Duration::from_millis(150));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let first = f.prewarm(MME, &models, &opts, Some(&tx)).await.unwrap();
    for r in &first.results {
        assert_eq!(r.status, PrewarmStatus::Cold, "{r:?}");
        assert!(r.loaded && r.error.is_none() && r.attempts == 1);
        assert!(r.latency.unwrap() >= Duration::from_millis(250), "{r:?}");
        assert_eq!(r.invoked_variant.as_deref(), Some("AllTraffic"));
    }
    assert_eq!((first.cold, first.warm, first.failed), (2, 0, 0));
    assert_eq!(first.results[0].model, "big-a.tar.gz", "results keep the order asked");
    drop(tx);
    let mut started = 0;
    let mut finished = 0;
    while let Some(ev) = rx.recv().await {
        match ev {
            PrewarmEvent::Started { .. } => started += 1,
            PrewarmEvent::Finished(_) => finished += 1,
            PrewarmEvent::Retrying { .. } => {}
        }
    }
    assert_eq!((started, finished), (2, 2));

    let again = f.prewarm(MME, &models, &opts, None).await.unwrap();
    assert_eq!((again.cold, again.warm, again.failed), (0, 2, 0), "{again:?}");
    assert!(again.results.iter().all(|r| r.attempts == 1 && r.not_ready == 0));
}

#[tokio::test]
async fn model_not_ready_is_retried_until_the_model_loads() {
    let mut config = demo_config();
    config.timing.mme_not_ready_after = Duration::from_millis(200);
    let sb = sandbox_with(config).await;
    let f = fleet(&sb).await;
    // 40 GB: about 4.8 s to load at the test timings, answering ModelNotReady after 200 ms.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let opts = quick(Duration::from_secs(60), Duration::from_secs(1));
    let report = f.prewarm(MME, &[BIG.to_string()], &opts, Some(&tx)).await.unwrap();
    let r = &report.results[0];
    assert_eq!(r.status, PrewarmStatus::Cold, "{r:?}");
    assert!(r.error.is_none() && r.loaded);
    assert!(r.not_ready >= 2 && r.attempts == r.not_ready + 1, "{r:?}");
    assert!(r.total >= Duration::from_secs(4), "{r:?}");
    drop(tx);
    let mut retried = 0;
    while let Some(ev) = rx.recv().await {
        if let PrewarmEvent::Retrying { error, attempt, .. } = ev {
            assert_eq!(error.class(), "model_not_ready");
            retried += 1;
            assert_eq!(attempt, retried);
        }
    }
    assert_eq!(retried, r.not_ready);
}

#[tokio::test]
async fn failures_are_per_model() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    // The 40 GB model needs ~4.8 s in one attempt (ModelNotReady only after 60 s): a 1 s deadline
    // ends it; the unknown model is refused by SageMaker; acme still warms.
    let models = vec![BIG.to_string(), "nope.tar.gz".to_string(), ACME.to_string()];
    let opts = quick(Duration::from_secs(1), Duration::from_secs(1));
    let report = f.prewarm(MME, &models, &opts, None).await.unwrap();
    assert_eq!(report.failed, 2, "{report:?}");
    let big = &report.results[0];
    assert_eq!(big.status, PrewarmStatus::Failed);
    assert_eq!(big.error.as_ref().unwrap().class(), "timeout", "{big:?}");
    // How long giving up takes is measured by `benches/prewarm_deadline.rs`, not asserted here.
    let nope = &report.results[1];
    assert_eq!(nope.error.as_ref().unwrap().class(), "validation", "{nope:?}");
    assert_eq!(nope.attempts, 1, "a validation error is not retried");
    assert!(!nope.loaded);
    assert!(report.results[2].error.is_none() && report.results[2].loaded);

    let bad = PrewarmOptions {
        body: Some(br#"{"no_inputs": 1}"#.to_vec()),
        ..quick(Duration::from_secs(10), Duration::from_secs(1))
    };
    let report = f.prewarm(MME, &[ACME.to_string()], &bad, None).await.unwrap();
    let r = &report.results[0];
    assert_eq!(r.error.as_ref().unwrap().class(), "model_error", "{r:?}");
    assert!(r.loaded, "a model error means the container answered");
    assert_eq!(r.attempts, 1);

    let binary = PrewarmOptions {
        content_type: "image/jpeg".into(),
        ..Default::default()
    };
    let err = f.prewarm(MME, &[ACME.to_string()], &binary, None).await.unwrap_err();
    assert_eq!(err.class(), "validation");
}

#[tokio::test]
async fn models_command() {
    let sb = sandbox_with(demo_config()).await;
    let r = run_cli(&sb, &["models", MME]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("MODEL"), "{}", r.stdout);
    assert!(r.stdout.contains(ACME) && r.stdout.contains("40.0 GB"));
    assert!(!r.stdout.contains("README"));
    assert_eq!(r.stdout.lines().count(), 38);

    let j = run_cli(&sb, &["models", MME, "--filter", "ACME", "--json"])
        .await
        .json();
    assert_eq!(j["endpoint"], MME);
    assert_eq!(j["model_data_url"], DEMO_MME_PREFIX);
    assert_eq!(
        (j["bucket"].as_str(), j["prefix"].as_str()),
        (Some("sagedeck-demo-models"), Some("tenants/"))
    );
    assert_eq!(j["count"], 2);
    let models = j["models"].as_array().unwrap();
    assert_eq!(models[1]["key"], ACME);
    assert!(models[1]["size"].as_u64().unwrap() > 0);
    assert!(models[1]["last_modified"].as_f64().unwrap() > 1.7e9);
    assert_eq!(
        j["total_bytes"].as_u64().unwrap(),
        models.iter().map(|m| m["size"].as_u64().unwrap()).sum::<u64>()
    );

    let not_mme = run_cli(&sb, &["models", "mcp-intent-classifier-prod"]).await;
    assert_eq!(not_mme.code, 2);
    assert!(
        not_mme.stderr.contains("not a multi-model endpoint"),
        "{}",
        not_mme.stderr
    );
    one_line(&not_mme);
    let missing = run_cli(&sb, &["models", "nope"]).await;
    assert_eq!(missing.code, 3);
    one_line(&missing);
}

#[tokio::test]
async fn prewarm_command() {
    let sb = sandbox_with(demo_config()).await;
    add_mme_models(&sb, &[("big-cli.tar.gz".into(), 4_000_000_000)]);
    let sent = || sb.sandbox.request_count("InvokeEndpoint");
    for (args, needle) in [
        (vec![], "--all"),
        (
            vec!["nope.tar.gz", ACME],
            "unknown model for mcp-multi-model-endpoint: nope.tar.gz",
        ),
        (vec![ACME, "--body", "{\"inputs\": "], "not valid JSON"),
        (vec![ACME, "--content-type", "image/jpeg"], "--body"),
    ] {
        let mut a = vec!["prewarm", MME];
        a.extend(args);
        let r = run_cli(&sb, &a).await;
        assert_eq!(r.code, 2, "{a:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{a:?}: {}", r.stderr);
        one_line(&r);
    }
    assert_eq!(run_cli(&sb, &["prewarm", MME, ACME, "--all"]).await.code, 2);
    let not_mme = run_cli(&sb, &["prewarm", "mcp-intent-classifier-prod", "--all"]).await;
    assert_eq!(not_mme.code, 2);
    assert_eq!(sent(), 0, "nothing was invoked for invalid input");

    let args = ["prewarm", MME, "big-cli.tar.gz", "--cold-threshold-ms", "200", "--json"];
    let r = run_cli(&sb, &args).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["endpoint"], MME);
    assert_eq!(
        (j["cold"].as_u64(), j["warm"].as_u64(), j["failed"].as_u64()),
        (Some(1), Some(0), Some(0))
    );
    assert_eq!(
        (j["concurrency"].as_u64(), j["deadline_secs"].as_u64()),
        (Some(4), Some(120))
    );
    assert_eq!(j["content_type"], "application/json");
    let res = &j["results"][0];
    assert_eq!(
        (res["model"].as_str(), res["status"].as_str()),
        (Some("big-cli.tar.gz"), Some("cold"))
    );
    assert!(res["latency_ms"].as_f64().unwrap() >= 450.0, "{res}");
    assert_eq!((res["attempts"].as_u64(), res["error"].is_null()), (Some(1), true));
    let warm = run_cli(&sb, &args).await.json();
    assert_eq!(warm["results"][0]["status"], "warm");

    let human = run_cli(&sb, &["prewarm", MME, ACME, "big-cli.tar.gz"]).await;
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(human.stdout.starts_with("MODEL"), "{}", human.stdout);
    let line = human.stdout.lines().find(|l| l.starts_with("big-cli.tar.gz")).unwrap();
    assert_eq!(line.split_whitespace().nth(1), Some("warm"), "{}", human.stdout);

    let model_err = run_cli(&sb, &["prewarm", MME, ACME, "--body", "{\"x\": 1}", "--json"]).await;
    assert_eq!(model_err.code, 4, "{}", model_err.stderr);
    let res = &model_err.json()["results"][0];
    assert_eq!(
        (res["status"].as_str(), res["loaded"].as_bool()),
        (Some("failed"), Some(true))
    );
    assert_eq!(res["error"]["class"], "model_error");

    let too_short = run_cli(&sb, &["prewarm", MME, BIG, "--deadline", "1"]).await;
    assert_eq!(too_short.code, 3, "{}", too_short.stderr);
    assert!(
        too_short.stdout.contains("failed") && too_short.stdout.contains("timed out"),
        "{}",
        too_short.stdout
    );
    one_line(&too_short);
}
