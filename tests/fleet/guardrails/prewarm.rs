//! Warm sets: `prewarm --from FILE` under ModelNotReady, and `--watch` re-prewarming models that
//! were evicted, each round audited.

use std::time::Duration;

use super::support::State;
use crate::common::{add_mme_models, demo_config, sandbox_with};

const MME: &str = "mcp-multi-model-endpoint";
const ACME: &str = "tenant-acme-finetuned-v2.tar.gz";

#[tokio::test]
async fn prewarm_from_a_warm_set_retries_model_not_ready() {
    let mut config = demo_config();
    config.timing.mme_not_ready_after = Duration::from_millis(200);
    let sb = sandbox_with(config).await;
    // 10 GB: about 1.2 s to load at the test timings, ModelNotReady after 200 ms.
    add_mme_models(&sb, &[("big-10g.tar.gz".into(), 10_000_000_000)]);
    let st = State::new();
    let set = st.dir.path().join("warm.toml");
    std::fs::write(
        &set,
        format!("[endpoints]\n\"{MME}\" = [\"{ACME}\", \"big-10g.tar.gz\"]\n\"other\" = [\"x\"]\n"),
    )
    .unwrap();
    let r = st
        .cli(
            &sb,
            &[
                "prewarm",
                MME,
                "--from",
                set.to_str().unwrap(),
                "--json",
                "--reason",
                "morning",
            ],
        )
        .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    let results = j["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["model"], ACME);
    let big = &results[1];
    assert_eq!(big["status"], "cold", "{big:#}");
    assert!(big["not_ready"].as_u64().unwrap() >= 1, "{big:#}");
    assert!(big["latency_ms"].as_f64().is_some());
    let recs = st.audit();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].action, "prewarm");
    assert_eq!(recs[0].after["models"][1], "big-10g.tar.gz");
    assert_eq!(recs[1].result.as_deref(), Some("ok"));
    assert_eq!(recs[1].reason.as_deref(), Some("morning"));

    let json_set = st.dir.path().join("warm.json");
    std::fs::write(&json_set, r#"{"other": ["x"]}"#).unwrap();
    let none = st
        .cli(&sb, &["prewarm", MME, "--from", json_set.to_str().unwrap()])
        .await;
    assert_eq!(none.code, 2);
    assert!(none.stderr.contains("no models for"), "{}", none.stderr);
}

#[tokio::test]
async fn watch_re_prewarms_evicted_models() {
    let mut config = demo_config();
    // Two instances holding one model each: three models cannot all stay loaded.
    config.mme_models_per_instance = 1;
    let sb = sandbox_with(config).await;
    add_mme_models(
        &sb,
        &[
            ("w-a.tar.gz".into(), 1_000_000_000),
            ("w-b.tar.gz".into(), 1_000_000_000),
            ("w-c.tar.gz".into(), 1_000_000_000),
        ],
    );
    let st = State::new();
    let set = st.dir.path().join("warm.json");
    std::fs::write(
        &set,
        format!(r#"{{"endpoints": {{"{MME}": ["w-a.tar.gz", "w-b.tar.gz", "w-c.tar.gz"]}}}}"#),
    )
    .unwrap();
    let r = st
        .cli(
            &sb,
            &[
                "prewarm",
                MME,
                "--from",
                set.to_str().unwrap(),
                "--watch",
                "--rounds",
                "2",
                "--interval",
                "1",
                "--concurrency",
                "1",
                "--cold-threshold-ms",
                "100",
                "--json",
            ],
        )
        .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rounds: Vec<serde_json::Value> = r.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rounds.len(), 2, "{}", r.stdout);
    assert_eq!(rounds[0]["cold"], 3, "{:#}", rounds[0]);
    assert!(
        rounds[1]["cold"].as_u64().unwrap() >= 1,
        "an evicted model is found cold and loaded again: {:#}",
        rounds[1]
    );
    for round in &rounds {
        for m in round["results"].as_array().unwrap() {
            assert!(m["latency_ms"].as_f64().is_some(), "{m:#}");
        }
    }
    let recs = st.audit();
    assert_eq!(
        recs.iter().filter(|r| r.action == "prewarm").count(),
        4,
        "two rounds, intent and result each"
    );
}
