//! A shadow variant through the CLI: `endpoints --json` lists it with the share of production
//! requests copied to it, and `sagedeck shadow` judges a shadow slower than production as worse
//! (the promotion judge on 10-second series of real calls), so `--promote` refuses it.

use std::time::{Duration, Instant};

use aws_sdk_sagemaker::types::{ProductionVariant, ProductionVariantInstanceType};
use aws_sdk_sagemakerruntime::primitives::Blob;

use super::{create_model, wait_in_service};
use crate::common::{run_cli, sandbox, sdk_config};

fn variant(name: &str, model: &str) -> ProductionVariant {
    ProductionVariant::builder()
        .variant_name(name)
        .model_name(model)
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(1)
        .initial_variant_weight(1.0)
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slower_shadow_is_judged_worse_and_not_promoted() {
    let sb = sandbox().await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    create_model(&sm, "fast", 10).await;
    create_model(&sm, "slow", 80).await;
    sm.create_endpoint_config()
        .endpoint_config_name("shadowed")
        .production_variants(variant("Production", "fast"))
        .shadow_production_variants(variant("Shadow", "slow"))
        .send()
        .await
        .expect("shadow config");
    sm.create_endpoint()
        .endpoint_name("shadowed")
        .endpoint_config_name("shadowed")
        .send()
        .await
        .expect("endpoint");
    wait_in_service(&sm, "shadowed").await;
    let listed = run_cli(&sb, &["--json", "endpoints"]).await;
    let ep = &listed.json()["endpoints"][0];
    let shadow = &ep["shape"]["shadow_variants"][0];
    assert_eq!(
        (shadow["name"].as_str(), shadow["traffic_share"].as_f64()),
        (Some("Shadow"), Some(1.0)),
        "{ep:#}"
    );
    let table = run_cli(&sb, &["endpoints"]).await;
    assert!(table.stdout.contains("SHADOW"), "{}", table.stdout);

    // Production traffic, each call copied to the shadow; judged every 10 s until it decides.
    let smr = aws_sdk_sagemakerruntime::Client::new(&conf);
    let judge = [
        "--json",
        "shadow",
        "shadowed",
        "--since",
        "3m",
        "--period",
        "10",
        "--min-points",
        "4",
    ];
    let start = Instant::now();
    let mut last_judged = Instant::now();
    let report = loop {
        let call = smr.invoke_endpoint().endpoint_name("shadowed").content_type("text/csv");
        call.body(Blob::new("1,2,3")).send().await.expect("production answers");
        if last_judged.elapsed() >= Duration::from_secs(10) {
            last_judged = Instant::now();
            let r = run_cli(&sb, &judge).await;
            assert_eq!(r.code, 0, "{}", r.stderr);
            let report = r.json();
            if report["outcome"] != "inconclusive" {
                break report;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no verdict within two minutes"
        );
    };
    assert_eq!(report["outcome"], "fail", "{report:#}");
    let p99 = report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["metric"] == "model_latency_p99")
        .unwrap();
    assert_eq!(p99["outcome"], "fail", "{report:#}");
    let refused = run_cli(
        &sb,
        &[
            "shadow",
            "shadowed",
            "--period",
            "10",
            "--min-points",
            "4",
            "--promote",
            "--yes",
        ],
    )
    .await;
    assert_eq!(refused.code, 7, "{}\n{}", refused.stdout, refused.stderr);
    assert!(
        refused.stderr.contains("not promoted: the judge says fail"),
        "{}",
        refused.stderr
    );
}
