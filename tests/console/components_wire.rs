//! The Components pane against the sandbox over the wire, through the real worker: an IC endpoint
//! created with the Rust SDK as AWS's documentation does it, its component read with metrics,
//! set copies applied (read back with the SDK, audited), a change made behind the pane's back
//! refused with nothing sent, and a component taken to zero woken and followed until it serves.

use std::time::Duration;

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::types::{
    ContainerDefinition, InferenceComponentComputeResourceRequirements, InferenceComponentRuntimeConfig,
    InferenceComponentSpecification, ManagedInstanceScalingStatus, ProductionVariant, ProductionVariantInstanceType,
    ProductionVariantManagedInstanceScaling,
};
use crossterm::event::KeyCode;
use sagedeck::tui::app::App;
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::components::ZeroState;
use sagedeck::tui::widgets::Overlay;

use crate::common;
use crate::common::tui::{key, press, tap};

const EP: &str = "ic-console-ep";
const IC: &str = "ic-console-llm";
const ROLE: &str = "arn:aws:iam::123456789012:role/sagemaker";

/// An IC endpoint (one `ml.g5.12xlarge`, ManagedInstanceScaling 0–2) with one component of
/// one copy, settled.
async fn create_ic_endpoint(sm: &Client) {
    sm.create_model()
        .model_name("ic-console-model")
        .primary_container(
            ContainerDefinition::builder()
                .image("huggingface-pytorch-tgi-inference")
                .build(),
        )
        .execution_role_arn(ROLE)
        .send()
        .await
        .expect("create model");
    let scaling = ProductionVariantManagedInstanceScaling::builder()
        .status(ManagedInstanceScalingStatus::Enabled)
        .min_instance_count(0)
        .max_instance_count(2)
        .build();
    sm.create_endpoint_config()
        .endpoint_config_name(format!("{EP}-config"))
        .execution_role_arn(ROLE)
        .production_variants(
            ProductionVariant::builder()
                .variant_name("AllTraffic")
                .instance_type(ProductionVariantInstanceType::MlG512Xlarge)
                .initial_instance_count(1)
                .managed_instance_scaling(scaling)
                .build(),
        )
        .send()
        .await
        .expect("create config");
    sm.create_endpoint()
        .endpoint_name(EP)
        .endpoint_config_name(format!("{EP}-config"))
        .send()
        .await
        .expect("create endpoint");
    common::poll_until("the endpoint InService", Duration::from_secs(30), || async {
        let d = sm.describe_endpoint().endpoint_name(EP).send().await.ok()?;
        (d.endpoint_status().map(|s| s.as_str()) == Some("InService")).then_some(())
    })
    .await;
    let compute = InferenceComponentComputeResourceRequirements::builder()
        .number_of_cpu_cores_required(1.0)
        .number_of_accelerator_devices_required(1.0)
        .min_memory_required_in_mb(1024)
        .build();
    sm.create_inference_component()
        .inference_component_name(IC)
        .endpoint_name(EP)
        .variant_name("AllTraffic")
        .specification(
            InferenceComponentSpecification::builder()
                .model_name("ic-console-model")
                .compute_resource_requirements(compute)
                .build(),
        )
        .runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(1).build())
        .send()
        .await
        .expect("create component");
    copies_until(sm, "the component settled", |(desired, current)| {
        desired == 1 && current == 1
    })
    .await;
}

/// Desired and current copies as DescribeInferenceComponent gives them.
async fn copies(sm: &Client) -> Option<(i32, i32)> {
    let d = sm
        .describe_inference_component()
        .inference_component_name(IC)
        .send()
        .await
        .ok()?;
    let r = d.runtime_config()?;
    Some((r.desired_copy_count()?, r.current_copy_count()?))
}

/// Polls the component's copies until `done` holds.
async fn copies_until(sm: &Client, what: &str, done: impl Fn((i32, i32)) -> bool) {
    common::poll_until(what, Duration::from_secs(60), || async {
        copies(sm).await.filter(|c| done(*c))
    })
    .await;
}

/// Sets the copies behind the console's back.
async fn set_copies(sm: &Client, n: i32) {
    sm.update_inference_component_runtime_config()
        .inference_component_name(IC)
        .desired_runtime_config(InferenceComponentRuntimeConfig::builder().copy_count(n).build())
        .send()
        .await
        .expect("UpdateInferenceComponentRuntimeConfig");
}

struct Console {
    app: App,
    jobs: sagedeck::tui::worker::Jobs,
    rx: tokio::sync::mpsc::UnboundedReceiver<AppEvent>,
    dir: tempfile::TempDir,
}

impl Console {
    async fn start(sb: &sagedeck::sandbox::SandboxHandle) -> Console {
        let dir = tempfile::tempdir().unwrap();
        let (jobs, mut rx) = common::tui::guarded_worker_on(sb, dir.path(), None).await;
        let app = common::tui::loaded_app(&jobs, &mut rx).await;
        let mut c = Console { app, jobs, rx, dir };
        c.app.data.selected = Some(EP.into());
        c.app.switch(Tab::Components);
        c.pump("the components", |a| a.panes.components.selected(&a.data).is_some())
            .await;
        c
    }

    /// Jobs to the worker, events back (with the pane's ticks), until `done` holds.
    async fn pump(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let tick = |app: &mut App| {
            let mut out = sagedeck::tui::panes::Outbox::default();
            sagedeck::tui::panes::Pane::on_tick(&mut app.panes.components, true, &app.data, &mut out);
            for j in out.jobs {
                app.submit(j);
            }
        };
        let deadline = Duration::from_secs(120);
        common::tui::pump_until(&mut self.app, &self.jobs, &mut self.rx, (what, deadline), done, tick).await
    }

    fn toasts(&self) -> String {
        let log = self.app.toasts.log.iter().map(|t| t.text.clone());
        log.collect::<Vec<_>>().join("\n")
    }

    /// The pane's zero state of the component as last read.
    fn state(app: &App) -> Option<ZeroState> {
        app.panes
            .components
            .selected(&app.data)
            .map(|c| app.panes.components.zero_state(c))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_copies_applies_a_change_since_is_refused_and_a_wake_serves() {
    let sb = common::sandbox_with(sagedeck::sandbox::SandboxConfig::for_tests()).await;
    let sm = Client::new(&common::sdk_config(&sb).await);
    create_ic_endpoint(&sm).await;
    let mut c = Console::start(&sb).await;
    let shown = c.app.data.endpoint(EP).map(|e| e.kind);
    assert_eq!(
        shown,
        Some(sagedeck::aws::endpoints::kind::EndpointKind::InferenceComponents)
    );
    assert_eq!(Console::state(&c.app), Some(ZeroState::Serving));

    // 1 → 2, confirmed: applied, read back with the SDK, audited.
    press(&mut c.app, "c");
    tap(&mut c.app, KeyCode::Backspace);
    press(&mut c.app, "2");
    tap(&mut c.app, KeyCode::Enter);
    assert!(matches!(c.app.overlay, Some(Overlay::Confirm(_))));
    c.app.on_key(key(KeyCode::Char('y')));
    c.pump("the change to apply", |a| {
        a.toasts.log.iter().any(|t| t.text.contains("2 copies asked"))
    })
    .await;
    copies_until(&sm, "two copies", |(desired, current)| desired == 2 && current == 2).await;
    let audit = std::fs::read_to_string(c.dir.path().join("audit.jsonl")).unwrap();
    assert!(
        audit.contains("components.set-copies") && audit.contains(IC),
        "not audited: {audit}"
    );
    c.pump("the pane to read two copies", |a| {
        a.panes
            .components
            .selected(&a.data)
            .is_some_and(|x| x.copies.current == 2)
    })
    .await;

    // The form opened on 2; someone sets 3 before it is confirmed: refused, nothing sent.
    press(&mut c.app, "c");
    tap(&mut c.app, KeyCode::Backspace);
    press(&mut c.app, "1");
    tap(&mut c.app, KeyCode::Enter);
    set_copies(&sm, 3).await;
    c.app.on_key(key(KeyCode::Char('y')));
    c.pump("the refusal", |a| {
        a.toasts.log.iter().any(|t| t.text.contains("not sent"))
    })
    .await;
    assert!(
        c.toasts().contains("desired_copies"),
        "the difference is named: {}",
        c.toasts()
    );
    assert_eq!(copies(&sm).await.map(|x| x.0), Some(3), "nothing was sent");

    // At zero (scaled in behind its back): AT ZERO; `w` wakes it, WAKING until a copy serves.
    set_copies(&sm, 0).await;
    copies_until(&sm, "zero copies", |(desired, current)| desired == 0 && current == 0).await;
    c.pump("AT ZERO", |a| Console::state(a) == Some(ZeroState::AtZero))
        .await;
    press(&mut c.app, "w");
    c.app.on_key(key(KeyCode::Char('y')));
    c.pump("the wake to be sent", |a| {
        a.toasts.log.iter().any(|t| t.text.contains("1 copies asked"))
    })
    .await;
    c.pump("SERVING after the wake", |a| {
        Console::state(a) == Some(ZeroState::Serving)
    })
    .await;
    assert!(
        c.toasts().contains(&format!("{IC} serves: 1 copy up after")),
        "{}",
        c.toasts()
    );
    let audit = std::fs::read_to_string(c.dir.path().join("audit.jsonl")).unwrap();
    assert!(audit.contains("component.wake"), "the wake is audited: {audit}");
}
