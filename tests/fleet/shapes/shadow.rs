//! A shadow variant through the CLI: `endpoints --json` lists it with the share of production
//! requests copied to it, and `sagedeck shadow` judges a shadow slower than production as worse
//! (the promotion judge on 10-second series of real calls), so `--promote` refuses it; a forced
//! promotion makes the shadow production through a new configuration and keeps the old one.

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

/// Endpoint `name` on configuration `name`: `Production` on the first model and `Shadow` on the
/// second, each (name, latency in ms); InService.
async fn shadowed_endpoint(sm: &aws_sdk_sagemaker::Client, name: &str, models: ((&str, u32), (&str, u32))) {
    let ((production, p_ms), (shadow, s_ms)) = models;
    create_model(sm, production, p_ms).await;
    create_model(sm, shadow, s_ms).await;
    sm.create_endpoint_config()
        .endpoint_config_name(name)
        .production_variants(variant("Production", production))
        .shadow_production_variants(variant("Shadow", shadow))
        .send()
        .await
        .expect("shadow config");
    let create = sm.create_endpoint().endpoint_name(name);
    create.endpoint_config_name(name).send().await.expect("endpoint");
    wait_in_service(sm, name).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slower_shadow_is_judged_worse_and_not_promoted() {
    let sb = sandbox().await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    shadowed_endpoint(&sm, "shadowed", (("fast", 10), ("slow", 80))).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_promotion_moves_the_shadow_to_a_new_config_and_keeps_the_old() {
    let sb = sandbox().await;
    let conf = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&conf);
    shadowed_endpoint(&sm, "tried", (("current", 10), ("candidate", 12))).await;

    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let audit_arg = audit.to_string_lossy().to_string();
    let args = [
        "--audit-file",
        &audit_arg,
        "shadow",
        "tried",
        "--promote",
        "--force",
        "--yes",
    ];
    let r = crate::common::run_cli_in(&sb, dir.path(), &args, &[]).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let d = sm.describe_endpoint().endpoint_name("tried").send().await.unwrap();
    let new_config = d.endpoint_config_name().unwrap().to_string();
    assert!(new_config.starts_with("tried-s"), "{new_config}");
    assert!(
        r.stdout
            .contains(&format!("now serves Shadow (config {new_config}); tried is kept")),
        "{}",
        r.stdout
    );
    let serving: Vec<_> = d
        .production_variants()
        .iter()
        .filter_map(|v| v.variant_name())
        .collect();
    assert_eq!(serving, ["Shadow"], "the shadow is the production variant");
    assert!(d.shadow_production_variants().is_empty(), "{d:?}");
    let c = sm
        .describe_endpoint_config()
        .endpoint_config_name(&new_config)
        .send()
        .await
        .unwrap();
    let models: Vec<_> = c.production_variants().iter().filter_map(|v| v.model_name()).collect();
    assert_eq!(models, ["candidate"]);
    assert!(c.shadow_production_variants().is_empty());
    let old = sm.describe_endpoint_config().endpoint_config_name("tried").send().await;
    let old = old.expect("the old configuration is kept");
    assert_eq!(old.shadow_production_variants().len(), 1);
    let log = std::fs::read_to_string(&audit).unwrap();
    assert!(log.contains("\"shadow.promote\""), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promotion_whose_deployment_fails_is_exit_7_with_sagemakers_reason() {
    use aws_sdk_sagemaker::types::ContainerDefinition;
    let sb = sandbox().await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    create_model(&sm, "steady", 10).await;
    // The shadow runs as a shadow, but the sandbox fails its launch as a production fleet.
    let broken = ContainerDefinition::builder()
        .image("683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1")
        .environment(
            "SAGEDECK_DEPLOY_FAILS",
            "the candidate's container never passed its health check",
        )
        .build();
    let model = sm.create_model().model_name("candidate").primary_container(broken);
    let role = "arn:aws:iam::123456789012:role/SageMakerExecutionRole";
    model.execution_role_arn(role).send().await.expect("model");
    sm.create_endpoint_config()
        .endpoint_config_name("risky")
        .production_variants(variant("Production", "steady"))
        .shadow_production_variants(variant("Shadow", "candidate"))
        .send()
        .await
        .expect("shadow config");
    let create = sm.create_endpoint().endpoint_name("risky");
    create.endpoint_config_name("risky").send().await.expect("endpoint");
    wait_in_service(&sm, "risky").await;

    let dir = tempfile::tempdir().unwrap();
    let args = ["shadow", "risky", "--promote", "--force", "--yes"];
    let r = crate::common::run_cli_in(&sb, dir.path(), &args, &[]).await;
    assert_eq!(r.code, 7, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("shadow promotion failed"), "{}", r.stderr);
    assert!(r.stderr.contains("never passed its health check"), "{}", r.stderr);
    let d = sm.describe_endpoint().endpoint_name("risky").send().await.unwrap();
    assert_eq!(d.endpoint_config_name(), Some("risky"), "back on the old configuration");
}
