//! "Latest" figures come from the last complete period: calls made in the still-filling minute
//! do not move them, and the period they describe and its sample count are given with them.

use sagedeck::aws::RetryPolicy;
use sagedeck::aws::invoke::call::InvokeSpec;
use sagedeck::sandbox::SandboxConfig;

use crate::common::{fleet, run_cli, sandbox_with};

const EP: &str = "mcp-intent-classifier-prod";

#[tokio::test]
async fn latest_figures_describe_the_last_complete_period_with_its_samples() {
    let sb = sandbox_with(SandboxConfig {
        demo_fleet: true,
        backfill_hours: 1,
        ..SandboxConfig::for_tests()
    })
    .await;
    // A few calls now: the current, partial minute holds only these.
    let f = fleet(&sb).await;
    let spec = InvokeSpec {
        endpoint: EP.into(),
        target_variant: Some("Canary".into()),
        content_type: "application/json".into(),
        accept: Some("application/json".into()),
        body: br#"{"inputs": "book a flight"}"#.to_vec(),
        ..Default::default()
    };
    // The minute the calls start in: the still-filling one.
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let calls_minute = (before / 60.0).floor() * 60.0;
    for _ in 0..3 {
        f.invoke(&spec, &RetryPolicy::none()).await.unwrap();
    }
    let r = run_cli(&sb, &["metrics", EP, "--since", "15m", "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = r.json();
    let (end, period) = (doc["end"].as_f64().unwrap(), doc["period"].as_f64().unwrap());
    for v in doc["variants"].as_array().unwrap() {
        let s = &v["summary"];
        let name = &v["variant"];
        let start = s["latest_period_start"]
            .as_f64()
            .unwrap_or_else(|| panic!("{name}: {s}"));
        assert!(start + period <= end, "{name}: the period {start} is complete by {end}");
        let at = |series: &str| {
            let ts = v["series"][series]["timestamps"].as_array().unwrap();
            let i = ts
                .iter()
                .position(|t| t.as_f64() == Some(start))
                .expect("the period is in the series");
            v["series"][series]["values"][i].as_f64().unwrap()
        };
        assert_eq!(
            s["model_latency_p99_ms"].as_f64(),
            Some(at("model_latency_p99")),
            "{name}"
        );
        assert_eq!(
            s["model_latency_p50_ms"].as_f64(),
            Some(at("model_latency_p50")),
            "{name}"
        );
        assert_eq!(s["latest_samples"].as_f64(), Some(at("invocations_sum")), "{name}");
        assert!(
            start < calls_minute,
            "{name}: a backfilled minute ({start}), not the still-filling one of the 3 calls ({calls_minute})"
        );
    }
    let human = run_cli(&sb, &["metrics", EP, "--since", "15m"]).await;
    assert!(human.stdout.contains("SAMPLES"), "{}", human.stdout);
}
