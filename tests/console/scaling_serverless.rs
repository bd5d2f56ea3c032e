//! The Scaling pane on a serverless variant: its page counts provisioned concurrency (the
//! `sagemaker:variant:DesiredProvisionedConcurrency` dimension), `t` asks for a provisioned
//! concurrency utilization target and confirms the policy before → after, and the footer greys
//! out the instance count. Built on the hand-made view of `scaling.rs`.

use sagedeck::aws::endpoints::shape::ServerlessInfo;
use sagedeck::aws::scaling::lint::TargetBounds;
use sagedeck::tui::widgets::Overlay;

use super::app::app_with_fleet;
use super::scaling::{hand_made_view, shown};
use crate::common::tui::{press, render as screen, tap};

#[test]
fn a_serverless_page_scales_provisioned_concurrency() {
    let app = app_with_fleet(0);
    let mut view = hand_made_view(&app);
    // Canary becomes serverless with 2 provisioned of at most 8.
    let canary = view
        .state
        .info
        .variants
        .iter_mut()
        .find(|v| v.name == "Canary")
        .unwrap();
    canary.serverless = Some(ServerlessInfo {
        memory_mb: 2048,
        max_concurrency: 8,
        desired_max_concurrency: 8,
        provisioned: Some(2),
        desired_provisioned: Some(2),
    });
    view.state.targets.push(TargetBounds {
        variant: "Canary".into(),
        min: 1,
        max: 4,
    });
    let page = view.variants.iter_mut().find(|v| v.variant == "Canary").unwrap();
    (page.serverless, page.desired, page.current, page.bounds) = (true, 2, 2, Some((1, 4)));
    let mut app = shown(view);
    press(&mut app, "v");
    let wide = screen(&mut app, 140, 40);
    for want in [
        "target min 1 · max 4 · provisioned concurrency · desired 2 · current 2",
        " provisioned concurrency ",
        "target util",
    ] {
        assert!(wide.contains(want), "{want} not in\n{wide}");
    }
    press(&mut app, "t");
    let editor = screen(&mut app, 140, 40);
    assert!(
        editor.contains("provisioned concurrency utilization (0 to 1)"),
        "{editor}"
    );
    press(&mut app, "0.5");
    tap(&mut app, crossterm::event::KeyCode::Enter);
    let Some(Overlay::Confirm(c)) = &app.overlay else {
        panic!("no confirmation: {:?}", app.panes.scaling.editor())
    };
    assert!(
        c.lines
            .iter()
            .any(|l| l.contains("SageMakerVariantProvisionedConcurrencyUtilization target 0.5")),
        "{:?}",
        c.lines
    );
}
