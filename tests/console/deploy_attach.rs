//! `A` on Variants attaches the stepper to a deployment in flight that the console did not start
//! (here: UpdateEndpoint from the Rust SDK, as the CLI or CloudFormation would send it): the
//! endpoint's `⇄` mark offers it, the watch is `deploy --watch`'s, the stepper is drawn mid-bake
//! from what SageMaker reports (a TestBackend snapshot, the clock readings masked), and the
//! outcome is SageMaker's.

use std::time::Duration;

use aws_sdk_sagemaker::types::{
    BlueGreenUpdatePolicy, CapacitySize, CapacitySizeType, ContainerDefinition, DeploymentConfig, ProductionVariant,
    ProductionVariantInstanceType, TrafficRoutingConfig, TrafficRoutingConfigType,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sagedeck::aws::deploy::stepper::Outcome;
use sagedeck::tui::app::App;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::variants::deploy::DeployWatch;
use sagedeck::tui::theme::Theme;

use crate::common;
use crate::common::tui::press;

const EP: &str = "attach-ep";

async fn config(sm: &aws_sdk_sagemaker::Client, name: &str, model: &str) {
    let container = ContainerDefinition::builder()
        .image("huggingface-pytorch-inference")
        .build();
    sm.create_model()
        .model_name(model)
        .primary_container(container)
        .execution_role_arn("arn:aws:iam::123456789012:role/x")
        .send()
        .await
        .unwrap();
    let variant = ProductionVariant::builder()
        .variant_name("AllTraffic")
        .model_name(model)
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(2)
        .initial_variant_weight(1.0)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(name)
        .production_variants(variant)
        .send()
        .await
        .unwrap();
}

/// A canary of one instance, 30 minutes of bake (18 s in the tests' scaled time), no final bake.
fn canary() -> DeploymentConfig {
    let routing = TrafficRoutingConfig::builder()
        .r#type(TrafficRoutingConfigType::Canary)
        .wait_interval_in_seconds(1800)
        .canary_size(
            CapacitySize::builder()
                .r#type(CapacitySizeType::InstanceCount)
                .value(1)
                .build(),
        )
        .build();
    let policy = BlueGreenUpdatePolicy::builder()
        .traffic_routing_configuration(routing)
        .termination_wait_in_seconds(0)
        .maximum_execution_timeout_in_seconds(3600)
        .build();
    DeploymentConfig::builder().blue_green_update_policy(policy).build()
}

/// The stepper of `w` drawn alone at 80x24, the clock readings (elapsed, expected end, bake
/// left) masked as `‹clock›` (the lines they are on are short enough not to wrap).
fn stepper_screen(w: &DeployWatch) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| sagedeck::tui::panes::variants::deploy::view::render_stepper(f, f.area(), w, &Theme::default_theme()))
        .unwrap();
    let text = t.backend().to_string();
    let clock = regex::Regex::new(r"(t\+[0-9hms]+ of ≈ [0-9hms]+|\([0-9hms]+ left\)) *│").unwrap();
    // The reading and the blanks after it, up to the border, give way to `‹clock›` padded to
    // the same width.
    let masked = clock.replace_all(&text, |c: &regex::Captures| {
        let width = c[0].chars().count();
        format!("{:<w$}│", "‹clock›", w = width - 1)
    });
    masked.into_owned()
}

#[tokio::test]
async fn a_deployment_started_elsewhere_is_attached_to_and_followed_to_its_outcome() {
    let mut cfg = sagedeck::sandbox::SandboxConfig::for_tests();
    cfg.timing.update = Duration::from_millis(300);
    let sb = common::sandbox_with(cfg).await;
    let sm = aws_sdk_sagemaker::Client::new(&common::sdk_config(&sb).await);
    config(&sm, "attach-c1", "attach-v1").await;
    config(&sm, "attach-c2", "attach-v2").await;
    sm.create_endpoint()
        .endpoint_name(EP)
        .endpoint_config_name("attach-c1")
        .send()
        .await
        .unwrap();
    common::deploy::wait_in_service(&sb, EP, false).await;
    let dir = tempfile::tempdir().unwrap();
    let (jobs, mut rx) = common::tui::guarded_worker_on(&sb, dir.path(), None).await;
    sm.update_endpoint()
        .endpoint_name(EP)
        .endpoint_config_name("attach-c2")
        .deployment_config(canary())
        .send()
        .await
        .expect("a deployment the console did not start");
    let mut app = common::tui::loaded_app(&jobs, &mut rx).await;
    let deadline = Duration::from_secs(120);
    let marked = |a: &App| a.data.endpoint(EP).is_some_and(|e| e.deploying);
    common::tui::pump_until(&mut app, &jobs, &mut rx, ("the ⇄ mark", deadline), marked, |a| {
        a.schedule_refreshes()
    })
    .await;
    app.data.selected = Some(EP.into());
    app.switch(Tab::Variants);
    let footer = common::tui::render(&mut app, 140, 40);
    assert!(footer.contains("A attach stepper"), "{footer}");
    press(&mut app, "A");
    assert_eq!(app.panes.variants.deploy.open.as_deref(), Some(EP));

    let baking = |a: &App| {
        a.panes.variants.deploy.watch(EP).is_some_and(|w| {
            w.stepper
                .as_ref()
                .is_some_and(|s| s.green.iter().flat_map(|g| &g.steps).any(|st| st.status == "Baking"))
        })
    };
    common::tui::pump_until(&mut app, &jobs, &mut rx, ("the canary bake", deadline), baking, |_| {}).await;
    let w = app.panes.variants.deploy.watch(EP).unwrap().clone();
    assert_eq!(
        w.target, "attach-c2",
        "the target is read from PendingDeploymentSummary"
    );
    insta::assert_snapshot!("deploy_attach_mid_bake_80x24", stepper_screen(&w));

    let ended = |a: &App| a.panes.variants.deploy.watch(EP).is_some_and(|w| w.outcome.is_some());
    common::tui::pump_until(&mut app, &jobs, &mut rx, ("the outcome", deadline), ended, |_| {}).await;
    let w = app.panes.variants.deploy.watch(EP).unwrap();
    assert_eq!(
        w.outcome,
        Some(Ok(Outcome::Succeeded {
            config: "attach-c2".into()
        }))
    );
}
