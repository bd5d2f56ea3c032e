//! The components inventory: ListInferenceComponents over more than one page, AWS's filters, an
//! adapter shown with its base, settled components answered from the describe cache, the CLI's
//! table and JSON (a component from `Specifications` with the one for its placed type and its GPU
//! partition profile), and the endpoint kind in `endpoints --json`.

use aws_sdk_sagemaker::Client;
use sagedeck::aws::components::ComponentFilter;
use sagedeck::aws::endpoints::kind::EndpointKind;
use sagedeck::sandbox::SandboxHandle;

use super::setup::{adapter, component, ic_endpoint, model, wait_settled};
use crate::common::{fleet, run_cli, sandbox, sdk_config};

/// `llm` (an IC endpoint) with five components `ic-0`..`ic-4` (one copy each) and an adapter
/// `ic-adapter` on `ic-0`; `small` (another IC endpoint) with `other-0`.
async fn two_ic_endpoints(sb: &SandboxHandle) -> Client {
    let sm = Client::new(&sdk_config(sb).await);
    model(&sm, "base-model").await;
    ic_endpoint(&sm, "llm", 1).await;
    ic_endpoint(&sm, "small", 1).await;
    for i in 0..5 {
        component(&sm, "llm", &format!("ic-{i}"), "base-model", 1).await;
    }
    component(&sm, "small", "other-0", "base-model", 1).await;
    wait_settled(&sm, &["ic-0"]).await;
    adapter(&sm, "llm", "ic-adapter", "ic-0").await;
    wait_settled(&sm, &["ic-1", "ic-2", "ic-3", "ic-4", "other-0", "ic-adapter"]).await;
    sm
}

#[tokio::test]
async fn the_inventory_pages_filters_and_shows_adapters() {
    let sb = sandbox().await;
    two_ic_endpoints(&sb).await;
    let f = fleet(&sb).await;

    let paged = ComponentFilter {
        endpoint: Some("llm".into()),
        page_size: Some(2),
        ..Default::default()
    };
    let inv = f.component_inventory(&paged).await.unwrap();
    let names: Vec<&str> = inv.components.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["ic-0", "ic-1", "ic-2", "ic-3", "ic-4", "ic-adapter"]);
    // Three pages of two, then one describe per component.
    assert_eq!((inv.api_calls, inv.cached), (3 + 6, 0), "{inv:?}");
    let ic0 = &inv.components[0];
    assert_eq!((ic0.endpoint.as_str(), ic0.variant.as_str()), ("llm", "AllTraffic"));
    assert_eq!(ic0.model.as_deref(), Some("base-model"));
    assert_eq!((ic0.copies.desired, ic0.copies.current), (1, 1));
    assert_eq!(ic0.placement.len(), 1, "{ic0:?}");
    assert_eq!(ic0.placement[0].instance_type, "ml.g5.12xlarge");
    let r = ic0.reservation.as_ref().expect("a reservation");
    assert_eq!(
        (r.cpu_cores, r.accelerators, r.memory_min_mb),
        (Some(1.0), Some(1.0), Some(1024))
    );
    let a = &inv.components[5];
    assert!(a.is_adapter());
    assert_eq!(a.base_component.as_deref(), Some("ic-0"));
    assert_eq!(a.model_text(), "adapter of ic-0");
    assert_eq!(a.reservation, None, "an adapter has no compute of its own");

    // Settled and unmodified: the second listing describes nothing.
    let again = f.component_inventory(&paged).await.unwrap();
    assert_eq!((again.api_calls, again.cached), (3, 6), "{again:?}");
    assert_eq!(again.components, inv.components);

    let every = f.list_components(None).await.unwrap();
    assert_eq!(every.len(), 7);
    assert_eq!(every.last().map(|c| c.endpoint.as_str()), Some("small"));
    let named = ComponentFilter {
        name_contains: Some("adapter".into()),
        ..Default::default()
    };
    let only: Vec<String> = f
        .component_inventory(&named)
        .await
        .unwrap()
        .components
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(only, ["ic-adapter"]);
    let failed = ComponentFilter {
        status: Some("Failed".into()),
        ..Default::default()
    };
    assert!(f.component_inventory(&failed).await.unwrap().components.is_empty());
    let one = f.describe_component("ic-3").await.unwrap();
    assert_eq!(one.name, "ic-3");
}

#[tokio::test]
async fn the_cli_lists_components_and_endpoints_say_their_kind() {
    let sb = sandbox().await;
    let sm = two_ic_endpoints(&sb).await;
    super::setup::real_time_endpoint(&sm, "plain").await;

    let r = run_cli(&sb, &["components", "llm"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let header = r.stdout.lines().next().unwrap_or_default();
    for column in [
        "ENDPOINT",
        "COMPONENT",
        "STATUS",
        "MODEL/BASE",
        "COPIES D/C",
        "PLACEMENT",
        "RESERVATION",
    ] {
        assert!(header.contains(column), "{header}");
    }
    let row = r.stdout.lines().find(|l| l.contains("ic-2")).expect("a row for ic-2");
    for cell in [
        "llm",
        "InService",
        "base-model",
        "1/1",
        "ml.g5.12xlarge×1",
        "1 CPU, 1 accel, 1 GiB",
    ] {
        assert!(row.contains(cell), "{cell} missing in {row}");
    }
    assert!(r.stdout.contains("adapter of ic-0"), "{}", r.stdout);
    assert!(!r.stdout.contains("other-0"), "{}", r.stdout);

    let every = run_cli(&sb, &["components", "--json"]).await;
    assert_eq!(every.code, 0, "{}", every.stderr);
    let listed = every.json()["components"].as_array().unwrap().len();
    assert_eq!(listed, 7);

    let none = run_cli(&sb, &["components", "plain"]).await;
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert!(none.stderr.contains("plain is a real-time endpoint"), "{}", none.stderr);
    let missing = run_cli(&sb, &["components", "nope"]).await;
    assert_eq!(missing.code, 3, "{}", missing.stderr);

    let table = run_cli(&sb, &["endpoints"]).await;
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table.stdout.lines().next().unwrap_or_default().contains("KIND"),
        "{}",
        table.stdout
    );
    let llm = table
        .stdout
        .lines()
        .find(|l| l.starts_with("llm "))
        .expect("a row for llm");
    assert!(llm.split_whitespace().any(|cell| cell == "IC"), "{llm}");
    let eps = run_cli(&sb, &["endpoints", "--json"]).await;
    assert_eq!(eps.code, 0, "{}", eps.stderr);
    let kinds: std::collections::BTreeMap<String, String> = eps.json()["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(kinds["llm"], "inference_components");
    assert_eq!(kinds["small"], "inference_components");
    assert_eq!(kinds["plain"], "real_time");
    let info = fleet(&sb).await.endpoint("llm").await.unwrap();
    assert_eq!(info.kind, EndpointKind::InferenceComponents);
}

#[tokio::test]
async fn a_component_from_specifications_shows_its_types_placement_and_partition() {
    use aws_sdk_sagemaker::types::{
        InferenceComponentComputeResourceRequirements, InferenceComponentRuntimeConfig,
        InferenceComponentSpecification, ProductionVariantInstanceType,
    };
    let sb = sandbox().await;
    let sm = Client::new(&sdk_config(&sb).await);
    model(&sm, "mig-model").await;
    ic_endpoint(&sm, "mig", 1).await;
    let spec = |itype: ProductionVariantInstanceType, profile: &str| {
        InferenceComponentSpecification::builder()
            .instance_type(itype)
            .model_name("mig-model")
            .compute_resource_requirements(
                InferenceComponentComputeResourceRequirements::builder()
                    .number_of_accelerator_devices_required(1.0)
                    .accelerator_partition_type(profile)
                    .min_memory_required_in_mb(2048)
                    .build(),
            )
            .build()
    };
    sm.create_inference_component()
        .inference_component_name("mig-llm")
        .endpoint_name("mig")
        .variant_name("AllTraffic")
        .specifications(spec(ProductionVariantInstanceType::MlG612Xlarge, "mig-1g.10gb"))
        .specifications(spec(ProductionVariantInstanceType::MlG512Xlarge, "mig-3g.40gb"))
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(2).build())
        .send()
        .await
        .unwrap();
    wait_settled(&sm, &["mig-llm"]).await;
    let r = run_cli(&sb, &["components", "mig", "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let c = &r.json()["components"][0];
    assert_eq!(c["placement"][0]["instance_type"], "ml.g5.12xlarge", "{c:#}");
    assert_eq!(c["placement"][0]["copies"], 2, "{c:#}");
    assert_eq!(
        c["reservation"]["partition_profile"], "mig-3g.40gb",
        "the specification of the type it is placed on: {c:#}"
    );
    let table = run_cli(&sb, &["components", "mig"]).await;
    let row = table.stdout.lines().find(|l| l.contains("mig-llm")).unwrap_or_default();
    assert!(row.contains("mig-3g.40gb"), "{}", table.stdout);
}
