//! Autoscaling of a serverless variant's provisioned concurrency through `sagedeck autoscaling
//! --variant V`: the scalable target and the target-tracking policy written on
//! `sagemaker:variant:DesiredProvisionedConcurrency`, audited and refused in read-only mode;
//! the console's Scaling view of that variant; the instance-count flags refused on a serverless
//! variant.

use aws_sdk_applicationautoscaling::types::{ScalableDimension, ServiceNamespace};

use super::serverless_endpoint;
use crate::common::{fleet, run_cli, run_cli_in, sandbox, sdk_config};

const PROVISIONED: &str = "sagemaker:variant:DesiredProvisionedConcurrency";

#[tokio::test]
async fn provisioned_concurrency_is_autoscaled_on_its_own_dimension() {
    let sb = sandbox().await;
    let config = sdk_config(&sb).await;
    let sm = aws_sdk_sagemaker::Client::new(&config);
    serverless_endpoint(&sm, "pc", 5, (8, Some(1))).await;
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let change = [
        "autoscaling",
        "pc",
        "--variant",
        "AllTraffic",
        "--min",
        "1",
        "--max",
        "4",
        "--target-provisioned-utilization",
        "0.5",
        "--yes",
    ];
    let refused = run_cli_in(&sb, home, &[&["--read-only"], &change[..]].concat(), &[]).await;
    assert_eq!(refused.code, 5, "{}", refused.stderr);
    let done = run_cli_in(&sb, home, &[&["--json"], &change[..]].concat(), &[]).await;
    assert_eq!(done.code, 0, "{}\n{}", done.stdout, done.stderr);
    assert_eq!(done.json()["applied"], true, "{}", done.stdout);

    let aas = aws_sdk_applicationautoscaling::Client::new(&config);
    let targets = aas
        .describe_scalable_targets()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_ids("endpoint/pc/variant/AllTraffic")
        .scalable_dimension(ScalableDimension::from(PROVISIONED))
        .send()
        .await
        .expect("targets");
    let t = targets
        .scalable_targets()
        .first()
        .expect("a provisioned-concurrency target");
    assert_eq!((t.min_capacity(), t.max_capacity()), (1, 4));
    let policies = aas
        .describe_scaling_policies()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id("endpoint/pc/variant/AllTraffic")
        .send()
        .await
        .expect("policies");
    let p = policies.scaling_policies().first().expect("the policy written");
    assert_eq!(p.scalable_dimension().as_str(), PROVISIONED);
    let tt = p
        .target_tracking_scaling_policy_configuration()
        .expect("target tracking");
    assert_eq!(tt.target_value(), 0.5);
    assert_eq!(
        tt.predefined_metric_specification()
            .map(|m| m.predefined_metric_type().as_str()),
        Some("SageMakerVariantProvisionedConcurrencyUtilization")
    );

    // The console's Scaling view: the serverless page counts provisioned concurrency and charts
    // the utilization its policy tracks.
    let view = fleet(&sb)
        .await
        .scaling_view("pc", std::time::SystemTime::now())
        .await
        .expect("scaling view");
    let page = &view.variants[0];
    assert!(page.serverless, "{page:?}");
    assert_eq!(
        (page.bounds, page.desired, page.current),
        (Some((1, 4)), 1, 1),
        "{page:?}"
    );
    let tracked = page.tracked.first().expect("the tracked metric");
    assert!(tracked.error.is_none(), "{tracked:?}");
    assert!(
        tracked.label.starts_with("ServerlessProvisionedConcurrencyUtilization"),
        "{tracked:?}"
    );

    let shown = run_cli(&sb, &["autoscaling", "pc"]).await;
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(
        shown
            .stdout
            .contains("SageMakerVariantProvisionedConcurrencyUtilization"),
        "{}",
        shown.stdout
    );
    let audit = run_cli_in(&sb, home, &["--json", "audit"], &[]).await;
    assert!(audit.stdout.contains("autoscaling.bounds"), "{}", audit.stdout);
    assert!(audit.stdout.contains("autoscaling.policy"), "{}", audit.stdout);

    // What counts instances has no meaning here: refused before anything is sent.
    let per_instance = run_cli(&sb, &["autoscaling", "pc", "--target-invocations", "10", "--yes"]).await;
    assert_eq!(per_instance.code, 2, "{}", per_instance.stderr);
    assert!(per_instance.stderr.contains("serverless"), "{}", per_instance.stderr);
    let instances = run_cli(&sb, &["autoscaling", "pc", "--instances", "2", "--yes"]).await;
    assert_eq!(instances.code, 2, "{}", instances.stderr);
    assert!(instances.stderr.contains("--provisioned"), "{}", instances.stderr);
}
