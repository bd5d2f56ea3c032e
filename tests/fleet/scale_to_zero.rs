//! The scale-to-zero doctor and `sagedeck autoscaling --inference-component` over the wire: a
//! bare component misses every piece (`--check` exit 8), `--scale-to-zero` creates them, audited,
//! and `--check` is then clean; each piece taken away again is found (the step policy, the alarm,
//! the tracking policy, a MinCapacity above zero, a variant whose instances cannot reach zero),
//! and an alarm on `> 1` is found wrong where `>= 1` is right; the CLI refuses read-only and bad
//! bounds with nothing sent. A variant at MinInstanceCount 1 is moved onto a new configuration
//! (the old one kept), refused when the endpoint's configuration changed since it was read.

use std::time::Duration;

use aws_sdk_applicationautoscaling::types::{ScalableDimension, ServiceNamespace};
use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, Statistic};
use aws_sdk_sagemaker::types::{
    ContainerDefinition, InferenceComponentComputeResourceRequirements, InferenceComponentRuntimeConfig,
    InferenceComponentSpecification, ManagedInstanceScalingStatus, ProductionVariant, ProductionVariantInstanceType,
    ProductionVariantManagedInstanceScaling,
};
use sagedeck::aws::scaling::zero::doctor::{Piece, PieceState, doctor};
use sagedeck::sandbox::SandboxHandle;

use crate::common::{fleet, poll_until, run_cli, run_cli_in, sandbox, sdk_config};

const ROLE: &str = "arn:aws:iam::123456789012:role/sagemaker-ic";

/// An IC endpoint `name` (ManagedInstanceScaling `min_instances..=2`) with the component
/// `name-llm` at one copy, InService.
async fn ic_endpoint(sb: &SandboxHandle, name: &str, min_instances: i32) {
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(sb).await);
    sm.create_model()
        .model_name(format!("{name}-model"))
        .primary_container(ContainerDefinition::builder().image("tgi-llm-inference:2.4").build())
        .execution_role_arn(ROLE)
        .send()
        .await
        .unwrap();
    let scaling = ProductionVariantManagedInstanceScaling::builder()
        .status(ManagedInstanceScalingStatus::Enabled)
        .min_instance_count(min_instances)
        .max_instance_count(2)
        .build();
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .instance_type(ProductionVariantInstanceType::MlG512Xlarge)
        .initial_instance_count(1)
        .managed_instance_scaling(scaling)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(format!("{name}-config"))
        .execution_role_arn(ROLE)
        .production_variants(variant)
        .send()
        .await
        .unwrap();
    sm.create_endpoint()
        .endpoint_name(name)
        .endpoint_config_name(format!("{name}-config"))
        .send()
        .await
        .unwrap();
    poll_until("the IC endpoint in service", Duration::from_secs(10), || async {
        let d = sm.describe_endpoint().endpoint_name(name).send().await.ok()?;
        (d.endpoint_status().map(|s| s.as_str()) == Some("InService")).then_some(())
    })
    .await;
    let requirements = InferenceComponentComputeResourceRequirements::builder()
        .number_of_accelerator_devices_required(2.0)
        .min_memory_required_in_mb(16_384)
        .build();
    sm.create_inference_component()
        .inference_component_name(format!("{name}-llm"))
        .endpoint_name(name)
        .variant_name("AllTraffic")
        .specification(
            InferenceComponentSpecification::builder()
                .model_name(format!("{name}-model"))
                .compute_resource_requirements(requirements)
                .build(),
        )
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(1).build())
        .send()
        .await
        .unwrap();
    poll_until("the component in service", Duration::from_secs(15), || async {
        let d = sm
            .describe_inference_component()
            .inference_component_name(format!("{name}-llm"))
            .send()
            .await
            .ok()?;
        (d.inference_component_status().map(|s| s.as_str()) == Some("InService")).then_some(())
    })
    .await;
}

/// The doctor's state of each piece, read over the wire.
async fn pieces(sb: &SandboxHandle, endpoint: &str) -> Vec<(Piece, PieceState, String)> {
    let s = fleet(sb)
        .await
        .component_scaling(endpoint, &format!("{endpoint}-llm"))
        .await
        .unwrap();
    doctor(&s).into_iter().map(|r| (r.piece, r.state, r.detail)).collect()
}

fn state_of(p: &[(Piece, PieceState, String)], piece: Piece) -> PieceState {
    p.iter().find(|x| x.0 == piece).map(|x| x.1).unwrap()
}

/// `--scale-to-zero --yes` on `ENDPOINT-llm`, asserting it applied.
async fn scale_to_zero(sb: &SandboxHandle, endpoint: &str) {
    let ic = format!("{endpoint}-llm");
    let run = run_cli(
        sb,
        &[
            "autoscaling",
            endpoint,
            "--inference-component",
            &ic,
            "--scale-to-zero",
            "--yes",
        ],
    )
    .await;
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}

#[tokio::test]
async fn scale_to_zero_creates_the_missing_pieces_audited_and_check_is_then_clean() {
    let sb = sandbox().await;
    ic_endpoint(&sb, "zero-cli", 0).await;
    let check = [
        "autoscaling",
        "zero-cli",
        "--inference-component",
        "zero-cli-llm",
        "--check",
    ];
    let before = run_cli(&sb, &[&check[..], &["--json"]].concat()).await;
    assert_eq!(before.code, 8, "{}", before.stderr);
    let doc = before.json();
    assert_eq!(doc["findings"], 4, "{doc:#}");
    assert_eq!(
        doc["doctor"][0]["state"], "ok",
        "the variant's instances may reach zero"
    );
    let home = tempfile::tempdir().unwrap();
    let audit = home.path().join("audit.jsonl");
    let apply = run_cli_in(
        &sb,
        home.path(),
        &[
            "autoscaling",
            "zero-cli",
            "--inference-component",
            "zero-cli-llm",
            "--scale-to-zero",
            "--yes",
            "--audit-file",
            audit.to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert_eq!(apply.code, 0, "{}\n{}", apply.stdout, apply.stderr);
    for want in [
        "scalable target: (not registered) → min 0, max 1",
        "policy sagedeck-wake: (none) → StepScaling",
        "wake alarm sagedeck-wake-zero-cli-llm",
    ] {
        assert!(apply.stdout.contains(want), "{want} not in\n{}", apply.stdout);
    }
    let log = std::fs::read_to_string(&audit).unwrap();
    for action in ["autoscaling.bounds", "autoscaling.policy", "autoscaling.wake-alarm"] {
        assert!(log.contains(action), "{action} not audited:\n{log}");
    }
    let after = run_cli(&sb, &check).await;
    assert_eq!(after.code, 0, "{}\n{}", after.stdout, after.stderr);
    assert!(after.stdout.contains("every piece in place"), "{}", after.stdout);
}

#[tokio::test]
async fn each_piece_taken_away_is_found() {
    let sb = sandbox().await;
    ic_endpoint(&sb, "zero-parts", 0).await;
    scale_to_zero(&sb, "zero-parts").await;
    let p = pieces(&sb, "zero-parts").await;
    assert!(p.iter().all(|x| x.1 == PieceState::Ok), "{p:?}");
    let config = sdk_config(&sb).await;
    let (aas, cw) = (
        aws_sdk_applicationautoscaling::Client::new(&config),
        aws_sdk_cloudwatch::Client::new(&config),
    );
    let resource = "inference-component/zero-parts-llm";
    let dim = ScalableDimension::SageMakerInferenceComponentDesiredCopyCount;
    // `> 1` on a one-minute Sum: two failed calls before it wakes.
    let arn = aas
        .describe_scaling_policies()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(resource)
        .policy_names("sagedeck-wake")
        .send()
        .await
        .unwrap()
        .scaling_policies()[0]
        .policy_arn()
        .to_string();
    let put_alarm = |op: ComparisonOperator| {
        cw.put_metric_alarm()
            .alarm_name("sagedeck-wake-zero-parts-llm")
            .namespace("AWS/SageMaker")
            .metric_name("NoCapacityInvocationFailures")
            .dimensions(
                Dimension::builder()
                    .name("InferenceComponentName")
                    .value("zero-parts-llm")
                    .build(),
            )
            .statistic(Statistic::Sum)
            .period(60)
            .evaluation_periods(1)
            .threshold(1.0)
            .comparison_operator(op)
            .alarm_actions(&arn)
            .send()
    };
    put_alarm(ComparisonOperator::GreaterThanThreshold).await.unwrap();
    let p = pieces(&sb, "zero-parts").await;
    assert_eq!(state_of(&p, Piece::WakeAlarm), PieceState::Wrong);
    assert!(p[4].2.contains("needs 2 failed calls"), "{p:?}");
    put_alarm(ComparisonOperator::GreaterThanOrEqualToThreshold)
        .await
        .unwrap();
    assert_eq!(
        state_of(&pieces(&sb, "zero-parts").await, Piece::WakeAlarm),
        PieceState::Ok
    );
    // The alarm gone.
    cw.delete_alarms()
        .alarm_names("sagedeck-wake-zero-parts-llm")
        .send()
        .await
        .unwrap();
    assert_eq!(
        state_of(&pieces(&sb, "zero-parts").await, Piece::WakeAlarm),
        PieceState::Missing
    );
    // The step policy and the tracking policy gone.
    for name in ["sagedeck-wake", "sagedeck-invocations-per-copy"] {
        aas.delete_scaling_policy()
            .policy_name(name)
            .service_namespace(ServiceNamespace::Sagemaker)
            .resource_id(resource)
            .scalable_dimension(dim.clone())
            .send()
            .await
            .unwrap();
    }
    let p = pieces(&sb, "zero-parts").await;
    assert_eq!(state_of(&p, Piece::StepPolicy), PieceState::Missing);
    assert_eq!(state_of(&p, Piece::TargetTracking), PieceState::Missing);
    // MinCapacity above zero.
    aas.register_scalable_target()
        .service_namespace(ServiceNamespace::Sagemaker)
        .resource_id(resource)
        .scalable_dimension(dim)
        .min_capacity(1)
        .max_capacity(2)
        .send()
        .await
        .unwrap();
    assert_eq!(
        state_of(&pieces(&sb, "zero-parts").await, Piece::ScalableTarget),
        PieceState::Wrong
    );
    // A variant whose instances cannot reach zero.
    ic_endpoint(&sb, "zero-floor", 1).await;
    let p = pieces(&sb, "zero-floor").await;
    assert_eq!(state_of(&p, Piece::InstanceScaling), PieceState::Wrong);
}

#[tokio::test]
async fn read_only_and_bad_bounds_are_refused_with_nothing_sent() {
    let sb = sandbox().await;
    ic_endpoint(&sb, "zero-refuse", 0).await;
    let base = ["autoscaling", "zero-refuse", "--inference-component", "zero-refuse-llm"];
    let read_only = run_cli(&sb, &[&base[..], &["--scale-to-zero", "--yes", "--read-only"]].concat()).await;
    assert_eq!(read_only.code, 5, "{}", read_only.stderr);
    for (args, why) in [
        (&["--min", "3", "--max", "1", "--yes"][..], "min <= max"),
        (&["--min", "0", "--max", "5000", "--yes"][..], "at most 1000"),
        (
            &["--min", "2", "--max", "4", "--scale-to-zero", "--yes"][..],
            "MinCapacity 0",
        ),
        (&["--target-invocations", "5", "--yes"][..], "is for a variant"),
        (
            &[
                "--target-invocations-per-copy",
                "0",
                "--min",
                "0",
                "--max",
                "1",
                "--yes",
            ][..],
            "positive",
        ),
    ] {
        let run = run_cli(&sb, &[&base[..], args].concat()).await;
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(why), "{args:?}: {why} not in {}", run.stderr);
    }
    let p = pieces(&sb, "zero-refuse").await;
    assert_eq!(
        state_of(&p, Piece::ScalableTarget),
        PieceState::Missing,
        "nothing was sent"
    );
}

#[tokio::test]
async fn scale_to_zero_writes_the_variants_instance_scaling_as_a_new_config() {
    let sb = sandbox().await;
    ic_endpoint(&sb, "zero-floor", 1).await;
    let p = pieces(&sb, "zero-floor").await;
    assert_eq!(state_of(&p, Piece::InstanceScaling), PieceState::Wrong);
    let home = tempfile::tempdir().unwrap();
    let audit = home.path().join("audit.jsonl");
    let apply = run_cli_in(
        &sb,
        home.path(),
        &[
            "autoscaling",
            "zero-floor",
            "--inference-component",
            "zero-floor-llm",
            "--scale-to-zero",
            "--yes",
            "--audit-file",
            audit.to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert_eq!(apply.code, 0, "{}\n{}", apply.stdout, apply.stderr);
    assert!(
        apply.stdout.contains(
            "variant AllTraffic ManagedInstanceScaling: ENABLED 1-2 → ENABLED 0-2 (a copy of endpoint config zero-floor-config"
        ),
        "{}",
        apply.stdout
    );
    let log = std::fs::read_to_string(&audit).unwrap();
    let intent = log.find("autoscaling.zero-instances").expect("audited");
    assert!(
        intent < log.find("autoscaling.bounds").unwrap(),
        "the variant first:\n{log}"
    );
    let p = pieces(&sb, "zero-floor").await;
    assert!(p.iter().all(|x| x.1 == PieceState::Ok), "{p:?}");
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let ep = sm.describe_endpoint().endpoint_name("zero-floor").send().await.unwrap();
    let now_on = ep.endpoint_config_name().unwrap_or_default();
    assert!(
        now_on.starts_with("zero-floor-config-") && now_on.len() == "zero-floor-config-".len() + 14,
        "named from the old one and the time: {now_on}"
    );
    assert_eq!(ep.endpoint_status().map(|s| s.as_str()), Some("InService"));
    let old = sm
        .describe_endpoint_config()
        .endpoint_config_name("zero-floor-config")
        .send()
        .await
        .expect("the old config is kept");
    assert_eq!(
        old.production_variants()[0]
            .managed_instance_scaling()
            .and_then(|m| m.min_instance_count()),
        Some(1)
    );
    let new = sm
        .describe_endpoint_config()
        .endpoint_config_name(now_on)
        .send()
        .await
        .unwrap();
    assert_eq!(new.execution_role_arn(), Some(ROLE), "copied whole");
}

#[tokio::test]
async fn the_variants_config_changed_since_it_was_read_is_refused() {
    use sagedeck::aws::change::guard::{Audited, GuardError};
    use sagedeck::aws::scaling::change::ScalingSnapshot;
    use sagedeck::aws::scaling::scope::ScalingScope;
    use sagedeck::aws::scaling::zero::plan::{ComponentRequest, plan_component};

    let sb = sandbox().await;
    ic_endpoint(&sb, "zero-cas", 1).await;
    let f = fleet(&sb).await;
    let state = f.component_scaling("zero-cas", "zero-cas-llm").await.unwrap();
    let req = ComponentRequest {
        scale_to_zero: true,
        ..Default::default()
    };
    let changes = plan_component(&req, &state).unwrap();
    // Someone else moves the endpoint onto another configuration meanwhile.
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let from = sm
        .describe_endpoint_config()
        .endpoint_config_name("zero-cas-config")
        .send()
        .await
        .unwrap();
    sm.create_endpoint_config()
        .endpoint_config_name("zero-cas-other")
        .execution_role_arn(ROLE)
        .set_production_variants(Some(from.production_variants().to_vec()))
        .send()
        .await
        .unwrap();
    sm.update_endpoint()
        .endpoint_name("zero-cas")
        .endpoint_config_name("zero-cas-other")
        .send()
        .await
        .unwrap();
    poll_until("the endpoint on the other config", Duration::from_secs(15), || async {
        let d = sm.describe_endpoint().endpoint_name("zero-cas").send().await.ok()?;
        (d.endpoint_config_name() == Some("zero-cas-other")).then_some(())
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let audited = Audited::open(dir.path().join("audit.jsonl"), &f).await.unwrap();
    let scope = ScalingScope::Component {
        endpoint: "zero-cas".into(),
        component: "zero-cas-llm".into(),
    };
    let err = f
        .apply_scaling_scoped(&scope, &changes, &ScalingSnapshot::of_component(&state), &audited, None)
        .await
        .unwrap_err();
    let GuardError::Changed { differences, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(
        differences[0].to_string(),
        "AllTraffic endpoint_config zero-cas-config → zero-cas-other",
        "{differences:?}"
    );
    let p = pieces(&sb, "zero-cas").await;
    assert_eq!(
        state_of(&p, Piece::ScalableTarget),
        PieceState::Missing,
        "nothing was sent"
    );
}
