//! `sagedeck autoscaling ENDPOINT --variant V` changes over the wire: bounds, target tracking on
//! invocations and on ModelLatency p99 done right (then `--check` finds nothing), cooldowns,
//! `--instances` within bounds (refused outside), `--remove-policy`, each audited; refusals of bad
//! input (exit 2) and of a variant whose autoscaling changed since it was read (compare-and-swap).

use std::time::Duration;

use aws_sdk_applicationautoscaling::types::{ScalableDimension, ServiceNamespace};
use sagedeck::aws::change::guard::{Audited, GuardError};
use sagedeck::aws::scaling::change::{ScalingChange, ScalingSnapshot};
use sagedeck::sandbox::SandboxHandle;

use crate::common::{CliRun, demo_config, fleet, poll_until, run_cli, sandbox_with, sdk_config};

const EP: &str = "xgboost-churn-csv";
const RESOURCE: &str = "endpoint/xgboost-churn-csv/variant/AllTraffic";

async fn cli(sb: &SandboxHandle, audit: &std::path::Path, args: &[&str]) -> CliRun {
    let mut all = vec!["autoscaling", EP];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--audit-file", audit.to_str().unwrap()]);
    run_cli(sb, &all).await
}

async fn policies(sb: &SandboxHandle) -> Vec<aws_sdk_applicationautoscaling::types::ScalingPolicy> {
    let aas = aws_sdk_applicationautoscaling::Client::new(&sdk_config(sb).await);
    aas.describe_scaling_policies()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(RESOURCE)
        .send()
        .await
        .unwrap()
        .scaling_policies()
        .to_vec()
}

#[tokio::test]
async fn each_change_is_shown_applied_and_audited() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");

    let r = cli(&sb, &audit, &["--target-invocations", "70", "--yes"]).await;
    assert_eq!(r.code, 2, "no scalable target yet: {}", r.stderr);
    assert!(r.stderr.contains("register one with --min N --max M"), "{}", r.stderr);
    let r = cli(&sb, &audit, &["--min", "3", "--max", "2", "--yes"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = cli(&sb, &audit, &["--min", "1", "--max", "4"]).await;
    assert_eq!(r.code, 2, "no terminal and no --yes: {}", r.stderr);

    let r = cli(&sb, &audit, &["--min", "1", "--max", "4", "--yes"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("AllTraffic scalable target: (not registered) → min 1, max 4"),
        "{}",
        r.stdout
    );

    let r = cli(&sb, &audit, &["--target-p99-ms", "500", "--yes"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("policy sagedeck-p99-latency: (none) → ModelLatency p99 (AWS/SageMaker) target 500000"),
        "{}",
        r.stdout
    );
    let ps = policies(&sb).await;
    let tt = ps[0].target_tracking_scaling_policy_configuration().unwrap();
    assert_eq!(tt.target_value(), 500_000.0, "500 ms in microseconds");
    let q = &tt.customized_metric_specification().unwrap().metrics()[0];
    let stat = q.metric_stat().unwrap();
    assert_eq!(
        (stat.stat(), stat.metric().unwrap().namespace()),
        ("p99", Some("AWS/SageMaker"))
    );
    let dims: Vec<_> = stat
        .metric()
        .unwrap()
        .dimensions()
        .iter()
        .map(|d| (d.name(), d.value()))
        .collect();
    assert_eq!(dims, [("EndpointName", EP), ("VariantName", "AllTraffic")]);
    assert_eq!(
        run_cli(&sb, &["autoscaling", EP, "--check"]).await.code,
        0,
        "the policy it writes passes the lint"
    );

    let r = cli(
        &sb,
        &audit,
        &["--target-invocations", "70", "--scale-in-cooldown", "600", "--yes"],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = cli(
        &sb,
        &audit,
        &[
            "--policy-name",
            "sagedeck-invocations",
            "--scale-out-cooldown",
            "120",
            "--yes",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("(cooldowns in 600s / out 60s) → SageMakerVariantInvocationsPerInstance target 70 (cooldowns in 600s / out 120s)"), "{}", r.stdout);
    let ps = policies(&sb).await;
    let inv = ps.iter().find(|p| p.policy_name() == "sagedeck-invocations").unwrap();
    let tt = inv.target_tracking_scaling_policy_configuration().unwrap();
    assert_eq!(
        (tt.target_value(), tt.scale_in_cooldown(), tt.scale_out_cooldown()),
        (70.0, Some(600), Some(120))
    );

    let r = cli(&sb, &audit, &["--instances", "9", "--yes"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("outside AllTraffic's MinCapacity 1 - MaxCapacity 4"),
        "{}",
        r.stderr
    );
    let r = cli(&sb, &audit, &["--instances", "2", "--yes", "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["changes"][0]["before"], 1);
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    poll_until("AllTraffic at 2 instances", Duration::from_secs(10), || async {
        let d = sm.describe_endpoint().endpoint_name(EP).send().await.ok()?;
        (d.production_variants()[0].current_instance_count() == Some(2)).then_some(())
    })
    .await;

    let r = cli(&sb, &audit, &["--remove-policy", "nope", "--yes"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = cli(&sb, &audit, &["--remove-policy", "sagedeck-p99-latency", "--yes"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names: Vec<String> = policies(&sb)
        .await
        .iter()
        .map(|p| p.policy_name().to_string())
        .collect();
    assert_eq!(names, ["sagedeck-invocations"]);

    let log = std::fs::read_to_string(&audit).unwrap();
    for action in [
        "autoscaling.bounds",
        "autoscaling.policy",
        "autoscaling.instances",
        "autoscaling.remove-policy",
    ] {
        let lines: Vec<_> = log.lines().filter(|l| l.contains(action)).collect();
        assert!(lines.len() >= 2, "intent and result of {action}:\n{log}");
        assert!(lines.iter().all(|l| l.contains(RESOURCE)), "{log}");
    }
}

#[tokio::test]
async fn a_variant_changed_since_it_was_read_is_refused_with_each_difference() {
    let sb = sandbox_with(demo_config()).await;
    let f = fleet(&sb).await;
    let aas = aws_sdk_applicationautoscaling::Client::new(&sdk_config(&sb).await);
    let register = |max: i32| {
        aas.register_scalable_target()
            .service_namespace(ServiceNamespace::Sagemaker)
            .resource_id(RESOURCE)
            .scalable_dimension(ScalableDimension::SageMakerVariantDesiredInstanceCount)
            .min_capacity(1)
            .max_capacity(max)
            .send()
    };
    register(4).await.unwrap();
    let seen = ScalingSnapshot::of(&f.endpoint_scaling(EP).await.unwrap(), "AllTraffic");
    register(6).await.unwrap(); // someone else, meanwhile
    let dir = tempfile::tempdir().unwrap();
    let audited = Audited::open(dir.path().join("audit.jsonl"), &f).await.unwrap();
    let err = f
        .apply_scaling_guarded(
            EP,
            "AllTraffic",
            &[ScalingChange::Instances { count: 3 }],
            &seen,
            &audited,
            None,
        )
        .await
        .unwrap_err();
    let GuardError::Changed { differences, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(differences.len(), 1, "{differences:?}");
    assert_eq!(differences[0].to_string(), "AllTraffic min-max 1-4 → 1-6");
    assert!(err.to_string().contains("nothing was sent"), "{err}");
    let d = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await)
        .describe_endpoint()
        .endpoint_name(EP)
        .send()
        .await
        .unwrap();
    assert_eq!(
        d.production_variants()[0].desired_instance_count(),
        Some(1),
        "nothing was sent"
    );
    let log = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    assert!(log.contains("refused") && log.contains("min-max 1-4"), "{log}");
}
