//! The control plane refuses what AWS's API model refuses: the Rust SDK sends values outside the
//! model's enums, ranges and patterns and gets AWS's ValidationException; boto3 (with its own
//! validation off) probes every constrained member the sandbox reads, each value derived from
//! botocore's `service-2.json` at test time (`tests/compat/model_checks.py`); the sandbox's
//! instance-type list is the same as both models'.

use std::collections::BTreeSet;
use std::path::Path;

use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{
    ModelSortKey, ProductionVariant, ProductionVariantInstanceType, ProductionVariantServerlessConfig,
};
use sagedeck::sandbox::sagemaker::instance_types::PRODUCTION_VARIANT_INSTANCE_TYPES;

use crate::common::{demo_config, sandbox_with, sdk_config};
use crate::compat_boto3::{ClientEnv, venv_async};

const MODEL: &str = "mcp-intent-classifier-v4";

fn variant(instance_type: &str) -> ProductionVariant {
    ProductionVariant::builder()
        .variant_name("A")
        .model_name(MODEL)
        .instance_type(ProductionVariantInstanceType::from(instance_type))
        .initial_instance_count(1)
        .build()
}

fn serverless(memory_mb: i32, max_concurrency: i32) -> ProductionVariant {
    ProductionVariant::builder()
        .variant_name("S")
        .model_name(MODEL)
        .serverless_config(
            ProductionVariantServerlessConfig::builder()
                .memory_size_in_mb(memory_mb)
                .max_concurrency(max_concurrency)
                .build(),
        )
        .build()
}

/// The message of a ValidationException (panics on success or another error).
fn refusal<T: std::fmt::Debug, E: ProvideErrorMetadata + std::fmt::Debug>(r: Result<T, E>) -> String {
    let e = r.expect_err("AWS refuses this request");
    assert_eq!(e.code(), Some("ValidationException"), "{e:?}");
    e.message().unwrap_or_default().to_string()
}

#[test]
fn the_instance_type_list_is_the_rust_sdk_model_s() {
    let sandbox: BTreeSet<&str> = PRODUCTION_VARIANT_INSTANCE_TYPES.into_iter().collect();
    let sdk: BTreeSet<&str> = ProductionVariantInstanceType::values().iter().copied().collect();
    assert_eq!(sandbox.len(), PRODUCTION_VARIANT_INSTANCE_TYPES.len(), "no duplicates");
    assert_eq!(
        sandbox.symmetric_difference(&sdk).collect::<Vec<_>>(),
        Vec::<&&str>::new()
    );
}

#[tokio::test]
async fn the_rust_sdk_gets_aws_s_validation_exceptions() {
    let sb = sandbox_with(demo_config()).await;
    let sm = aws_sdk_sagemaker::Client::new(&sdk_config(&sb).await);
    let create = |name: &str, variants: Vec<ProductionVariant>| {
        sm.create_endpoint_config()
            .endpoint_config_name(name)
            .set_production_variants(Some(variants))
            .send()
    };

    // ml.t3.medium is a notebook type: AWS refuses it for endpoints.
    let m = refusal(create("c1", vec![variant("ml.t3.medium")]).await);
    assert!(
        m.starts_with("1 validation error detected: Value 'ml.t3.medium' at 'productionVariants.1.member.instanceType' failed to satisfy constraint: Member must satisfy enum value set: [ml.t2.medium, "),
        "{m}"
    );
    for (memory, constraint) in [
        (1111, "satisfy enum value set: [1024, 2048, 3072, 4096, 5120, 6144]"),
        (512, "have value greater than or equal to 1024"),
        (7168, "have value less than or equal to 6144"),
    ] {
        let m = refusal(create("c1", vec![variant("ml.m5.large"), serverless(memory, 5)]).await);
        assert!(
            m.contains(&format!("Value '{memory}' at 'productionVariants.2.member.serverlessConfig.memorySizeInMB' failed to satisfy constraint: Member must {constraint}")),
            "{m}"
        );
    }
    // Every violation at once, counted.
    let m = refusal(create("bad_name", vec![variant("ml.nope"), serverless(2048, 0)]).await);
    assert!(m.starts_with("3 validation errors detected: "), "{m}");
    assert!(m.contains("Value 'bad_name' at 'endpointConfigName'"), "{m}");
    assert!(
        m.contains("Value '0' at 'productionVariants.2.member.serverlessConfig.maxConcurrency' failed to satisfy constraint: Member must have value greater than or equal to 1"),
        "{m}"
    );
    // What AWS accepts still passes.
    create("c1", vec![variant("ml.g5.xlarge"), serverless(6144, 200)])
        .await
        .expect("a valid configuration");

    let m = refusal(sm.describe_endpoint().endpoint_name("has_underscore").send().await);
    assert!(
        m.contains("Value 'has_underscore' at 'endpointName' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"),
        "{m}"
    );
    let m = refusal(sm.list_models().sort_by(ModelSortKey::from("Status")).send().await);
    assert!(
        m.contains("Value 'Status' at 'sortBy' failed to satisfy constraint: Member must satisfy enum value set: [Name, CreationTime]"),
        "{m}"
    );
    let m = refusal(sm.list_endpoints().max_results(101).send().await);
    assert!(
        m.contains(
            "Value '101' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100"
        ),
        "{m}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_probes_every_constrained_member_from_botocore_s_model() {
    let venv = venv_async().await;
    let sb = sandbox_with(demo_config()).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/model_checks.py");
    let out = env
        .run(
            venv,
            "model_checks.py",
            &[script.to_str().expect("utf-8 path"), &sb.endpoint_url()],
        )
        .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("all model checks passed"), "{stdout}");
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("instance-types "))
        .expect("the model's instance types");
    let botocore: BTreeSet<String> = serde_json::from_str(line).expect("a JSON list");
    let sandbox: BTreeSet<String> = PRODUCTION_VARIANT_INSTANCE_TYPES
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        sandbox.symmetric_difference(&botocore).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "the sandbox's instance types against botocore's model"
    );
}
