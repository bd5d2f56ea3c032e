//! The console across regions and accounts, over the wire: the sandbox serves a fleet per
//! signing region; one merged Endpoints table with ACCOUNT and REGION columns, a failed region
//! as one row that hides nothing else, each job on its endpoint's own profile and region (read
//! back with the SDK there, audited with it), and read-only following each endpoint's profile.

use std::time::Duration;

use crossterm::event::KeyCode;
use sagedeck::aws::endpoints::multi::FleetTarget;
use sagedeck::sandbox::RegionFleet;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};
use sagedeck::tui::app::App;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{AppEvent, Job};
use sagedeck::tui::event::{FleetJob, GuardJob};
use sagedeck::tui::regions::RegionRow;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::worker::{GuardOptions, JobLimits, Jobs, spawn_regions};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::app::app_with_fleet;
use crate::common;
use crate::common::tui::{self, press, tap};

const UPDATE: &str = "UpdateEndpointWeightsAndCapacities";

fn target(profile: Option<&str>, region: &str) -> FleetTarget {
    FleetTarget {
        profile: profile.map(str::to_string),
        region: region.into(),
    }
}

/// The demo fleet in us-east-1, five generated endpoints in eu-west-1, three in ap-south-1.
async fn three_regions() -> SandboxHandle {
    common::sandbox_with(SandboxConfig {
        extra_regions: vec![
            RegionFleet::parse("eu-west-1=5").unwrap(),
            RegionFleet::parse("ap-south-1=3").unwrap(),
        ],
        ..common::demo_config()
    })
    .await
}

struct Rig {
    app: App,
    rx: UnboundedReceiver<AppEvent>,
    jobs: Jobs,
    dir: tempfile::TempDir,
}

/// The real worker over `targets` on the sandbox, and a console that has loaded them.
async fn rig(sb: &SandboxHandle, targets: Vec<FleetTarget>, read_only_profiles: &[&str]) -> Rig {
    common::name_test_profiles();
    let dir = tempfile::tempdir().unwrap();
    let (tx, rx) = unbounded_channel();
    let guard = GuardOptions {
        audit_path: Some(dir.path().join("audit.jsonl")),
        plan_dir: Some(dir.path().join("promotions")),
        ..Default::default()
    };
    let f = common::fleet(sb).await;
    let jobs = spawn_regions(
        Default::default(),
        Some(f),
        JobLimits::default(),
        tx,
        None,
        guard,
        targets,
    );
    let data = Data {
        context: tui::context(),
        refresh_interval: Duration::from_secs(10),
        read_only_profiles: read_only_profiles.iter().map(|p| p.to_string()).collect(),
        ..Default::default()
    };
    let mut rig = Rig {
        app: App::new(data, Theme::default_theme()),
        rx,
        jobs,
        dir,
    };
    rig.app.submit(Job::Fleet(FleetJob::Inventory { selected: None }));
    rig.submit_all();
    rig.wait_for(|ev| matches!(ev, AppEvent::Inventory(_)).then_some(()))
        .await;
    rig
}

impl Rig {
    /// Hands every queued job to the worker with its endpoint's pair.
    fn submit_all(&mut self) {
        for (id, job) in self.app.take_jobs() {
            let t = self.app.take_target(id);
            self.jobs.submit_to(id, job, t);
        }
    }

    /// Feeds events to the app until `pick` takes one (30 s deadline).
    async fn wait_for<T>(&mut self, pick: impl FnMut(&AppEvent) -> Option<T>) -> T {
        crate::common::tui::feed_until(&mut self.rx, &mut self.app, pick).await
    }

    /// Selects `endpoint` on the Endpoints tab, opens its variants and asks for Canary 5.
    fn change_weights_of(&mut self, endpoint: &str) {
        tap(&mut self.app, KeyCode::Esc);
        press(&mut self.app, "1/");
        press(&mut self.app, endpoint);
        tap(&mut self.app, KeyCode::Enter);
        tap(&mut self.app, KeyCode::Enter);
        press(&mut self.app, "w");
        tap(&mut self.app, KeyCode::Down);
        press(&mut self.app, "5");
        tap(&mut self.app, KeyCode::Enter);
        press(&mut self.app, "y");
    }

    fn toasts(&self) -> Vec<String> {
        self.app.toasts.log.iter().map(|t| t.text.clone()).collect()
    }
}

#[tokio::test]
async fn a_mixed_region_view_with_one_broken_region_shows_the_others_and_one_failed_row() {
    let sb = three_regions().await;
    sb.sandbox.regions["ap-south-1"]
        .faults
        .add(FaultSpec::parse_short("kind=throttle,operation=ListEndpoints,count=1000").unwrap());
    let targets = ["us-east-1", "eu-west-1", "ap-south-1"]
        .map(|r| target(None, r))
        .to_vec();
    let mut rig = rig(&sb, targets, &[]).await;
    let d = &rig.app.data;
    let count = |region: &str| {
        (d.origins.iter())
            .filter(|o| d.regions[**o].target.region == region)
            .count()
    };
    assert_eq!((count("us-east-1"), count("eu-west-1"), count("ap-south-1")), (8, 5, 0));
    assert_eq!(d.inventory.len(), 13);
    let failed: Vec<&RegionRow> = d.regions.iter().filter(|r| r.error.is_some()).collect();
    assert_eq!(failed.len(), 1, "{:?}", d.regions);
    assert_eq!(failed[0].target.region, "ap-south-1");
    assert!(
        failed[0].error.as_deref().unwrap().contains("throttl"),
        "{:?}",
        failed[0]
    );
    assert_eq!(d.regions[1].account.as_deref(), Some("123456789012"));
    for (w, h) in [(140, 40), (80, 24)] {
        let screen = tui::render(&mut rig.app, w, h);
        for want in [
            "mcp-intent-classifier-prod",
            "fleet-ep-0000",
            "eu-west-1",
            "✗ ap-south-1",
            "FAILED: ",
        ] {
            assert!(screen.contains(want), "{w}x{h}: no {want:?}:\n{screen}");
        }
        assert!(screen.contains("(2/3 regions in)"), "{w}x{h}: header:\n{screen}");
    }
    // The fleet table's metrics come from each endpoint's own region.
    rig.app.submit(Job::Fleet(FleetJob::Metrics {
        endpoints: rig.app.data.inventory.iter().map(|e| (**e).clone()).collect(),
        window: Duration::from_secs(900),
        detail: false,
    }));
    rig.submit_all();
    let m = rig
        .wait_for(|ev| match ev {
            AppEvent::Metrics { detail: false, result } => Some(result.clone()),
            _ => None,
        })
        .await
        .unwrap();
    for name in ["mcp-intent-classifier-prod", "fleet-ep-0000"] {
        assert!(m.variants.iter().any(|v| v.endpoint == name), "{name}: {m:?}");
    }
    // Once the region answers, the next refresh lists it.
    sb.sandbox.regions["ap-south-1"].faults.clear();
    rig.app.submit(Job::Fleet(FleetJob::Inventory { selected: None }));
    rig.submit_all();
    rig.wait_for(|ev| matches!(ev, AppEvent::Inventory(_)).then_some(()))
        .await;
    assert_eq!(rig.app.data.inventory.len(), 16);
    assert!(rig.app.data.regions.iter().all(|r| r.error.is_none()));
}

#[tokio::test]
async fn a_weight_change_on_an_eu_west_1_endpoint_goes_to_eu_west_1_and_is_audited_there() {
    let sb = three_regions().await;
    let targets = vec![target(Some("prod"), "us-east-1"), target(Some("dev"), "eu-west-1")];
    let mut rig = rig(&sb, targets, &[]).await;
    rig.change_weights_of("fleet-ep-0000");
    rig.submit_all();
    let r = rig
        .wait_for(|ev| match ev {
            AppEvent::WeightsDone { result, .. } => Some(result.clone()),
            _ => None,
        })
        .await;
    let after = r.unwrap_or_else(|e| panic!("{e}; toasts {:?}", rig.toasts()));
    assert_eq!(after.name, "fleet-ep-0000");
    // Read back with the SDK, signing for eu-west-1.
    let conf = sagedeck::aws::config::local_sdk_config_in(&sb.endpoint_url(), "eu-west-1").await;
    let out = aws_sdk_sagemaker::Client::new(&conf)
        .describe_endpoint()
        .endpoint_name("fleet-ep-0000")
        .send()
        .await
        .unwrap();
    let canary = (out.production_variants())
        .iter()
        .find(|v| v.variant_name() == Some("Canary"))
        .unwrap();
    assert_eq!(canary.current_weight(), Some(5.0));
    assert_eq!(sb.sandbox.regions["eu-west-1"].request_count(UPDATE), 1);
    assert_eq!(sb.sandbox.request_count(UPDATE), 0, "nothing went to us-east-1");
    let recs = sagedeck::aws::change::audit::Audit::read(rig.dir.path().join("audit.jsonl"), None).unwrap();
    assert!(!recs.is_empty());
    for r in &recs {
        assert_eq!((r.region.as_str(), r.profile.as_str()), ("eu-west-1", "dev"), "{r:?}");
        assert_eq!(r.target, "fleet-ep-0000");
    }
}

#[tokio::test]
async fn per_profile_read_only_in_a_mixed_view_refuses_its_endpoint_and_allows_the_other() {
    let sb = three_regions().await;
    let targets = vec![target(Some("prod"), "us-east-1"), target(Some("dev"), "eu-west-1")];
    let mut rig = rig(&sb, targets, &["prod"]).await;
    assert!(!rig.app.data.read_only, "the session itself is not read-only");
    rig.change_weights_of("mcp-intent-classifier-prod");
    let queued = rig.app.take_jobs();
    assert!(
        !queued
            .iter()
            .any(|(_, j)| matches!(j, Job::Guard(GuardJob::ApplyWeights { .. }))),
        "{queued:?}"
    );
    assert!(
        rig.toasts()
            .iter()
            .any(|t| t.starts_with("read-only: changing weights is disabled for profile prod (us-east-1)")),
        "{:?}",
        rig.toasts()
    );
    rig.change_weights_of("fleet-ep-0000");
    let queued = rig.app.take_jobs();
    let (id, job) = (queued.into_iter())
        .find(|(_, j)| matches!(j, Job::Guard(GuardJob::ApplyWeights { .. })))
        .expect("dev's endpoint is not read-only");
    let t = rig.app.take_target(id);
    assert_eq!(t, Some(target(Some("dev"), "eu-west-1")));
    rig.jobs.submit_to(id, job, t);
    let r = rig
        .wait_for(|ev| match ev {
            AppEvent::WeightsDone { result, .. } => Some(result.is_ok()),
            _ => None,
        })
        .await;
    assert!(r, "{:?}", rig.toasts());
    assert_eq!(sb.sandbox.request_count(UPDATE), 0, "prod's endpoint was never changed");
    assert_eq!(sb.sandbox.regions["eu-west-1"].request_count(UPDATE), 1);
}

/// A mixed view drawn from fixed data: two regions in, one failed.
fn mixed_app() -> App {
    let mut app = app_with_fleet(4);
    let row = |profile: &str, region: &str, account: Option<&str>, error: Option<&str>| RegionRow {
        target: target(Some(profile), region),
        profile: profile.into(),
        account: account.map(str::to_string),
        error: error.map(str::to_string),
        endpoints: 4,
    };
    app.on_event(AppEvent::Regions {
        regions: vec![
            row("prod", "us-east-1", Some("111122223333"), None),
            row("dev", "eu-west-1", Some("444455556666"), None),
            row(
                "dev",
                "ap-south-1",
                None,
                Some("throttled: ListEndpoints: Rate exceeded"),
            ),
        ],
        origins: vec![0, 0, 0, 0, 1, 1, 1, 1],
    });
    app.toasts = Default::default();
    app
}

#[test]
fn snapshot_merged_endpoints_140x40() {
    insta::assert_snapshot!("merged_endpoints_140x40", tui::render(&mut mixed_app(), 140, 40));
}

#[test]
fn snapshot_merged_endpoints_80x24() {
    insta::assert_snapshot!("merged_endpoints_80x24", tui::render(&mut mixed_app(), 80, 24));
}

/// A newcomer meets the merged view in `sagedeck demo`: a second region by default, its
/// endpoints with their region, on an 80-column terminal.
#[test]
fn the_demo_shows_a_second_region_by_default() {
    let t =
        crate::common::tmux::Tmux::start_sized("regions", "demo --fast --no-traffic --backfill-hours 1", "", 80, 24);
    t.wait_for("both regions", Duration::from_secs(60), |s| {
        s.contains("(2/2 regions in)") && s.contains("eu-west-1") && s.contains("us-east-1")
    });
    t.keys(&["/", "fleet-ep-0000", "Enter"]);
    t.wait_for("the eu-west-1 endpoint", Duration::from_secs(10), |s| {
        s.lines()
            .any(|l| l.contains("fleet-ep-0000") && l.contains("eu-west-1"))
    });
    t.keys(&["q"]);
}
