//! One inventory across regions and accounts: the sandbox serves a fleet per region (chosen by
//! the request's signing region); a throttled region and a profile without credentials are
//! failed rows that hide nothing else; read-only follows each row's profile.

use sagedeck::sandbox::RegionFleet;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};

use crate::common::{demo_config, run_cli_in, sandbox_with};

async fn three_regions() -> SandboxHandle {
    sandbox_with(SandboxConfig {
        extra_regions: vec![
            RegionFleet::parse("eu-west-1=5").unwrap(),
            RegionFleet {
                account: Some("210987654321".into()),
                ..RegionFleet::parse("ap-south-1=3").unwrap()
            },
        ],
        ..demo_config()
    })
    .await
}

#[tokio::test]
async fn mixed_regions_with_one_throttled_region() {
    let sb = three_regions().await;
    let ap = &sb.sandbox.regions["ap-south-1"];
    ap.faults
        .add(FaultSpec::parse_short("kind=throttle,operation=ListEndpoints,count=100").unwrap());
    let home = tempfile::tempdir().unwrap();
    let args = ["endpoints", "--regions", "us-east-1,eu-west-1,ap-south-1", "--json"];
    let r = run_cli_in(&sb, home.path(), &args, &[]).await;
    assert_eq!(r.code, 3, "a failed region is an AWS error exit: {}", r.stderr);
    let j = r.json();
    let regions = j["regions"].as_array().unwrap();
    let states: Vec<(&str, &str)> = regions
        .iter()
        .map(|r| (r["region"].as_str().unwrap(), r["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        [("us-east-1", "ok"), ("eu-west-1", "ok"), ("ap-south-1", "failed")]
    );
    assert!(
        regions[2]["error"].as_str().unwrap().contains("throttled"),
        "{}",
        regions[2]
    );
    let endpoints = j["endpoints"].as_array().unwrap();
    let count = |region: &str| endpoints.iter().filter(|e| e["region"] == region).count();
    assert_eq!((count("us-east-1"), count("eu-west-1"), count("ap-south-1")), (8, 5, 0));
    let eu = endpoints.iter().find(|e| e["region"] == "eu-west-1").unwrap();
    assert!(
        eu["arn"]
            .as_str()
            .unwrap()
            .starts_with("arn:aws:sagemaker:eu-west-1:123456789012:"),
        "{eu}"
    );
    assert_eq!(eu["account"], "123456789012");
    assert!(
        r.stderr.contains("ap-south-1") && r.stderr.lines().count() == 1,
        "{}",
        r.stderr
    );

    // Once the region answers, its own account shows.
    ap.faults.clear();
    let human = run_cli_in(
        &sb,
        home.path(),
        &["endpoints", "--regions", "eu-west-1,ap-south-1"],
        &[],
    )
    .await;
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(human.stdout.starts_with("ACCOUNT"));
    assert_eq!(
        human
            .stdout
            .lines()
            .filter(|l| l.split_whitespace().take(2).eq(["210987654321", "ap-south-1"]))
            .count(),
        3
    );
}

const CREDENTIALS: &str = "[prod]\naws_access_key_id = AKIDPROD\naws_secret_access_key = s\n\n[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = s\n";
const CONFIG: &str = "[profiles.prod]\nread_only = true\n\n[fleets.everything]\nprofiles = [\"prod\", \"dev\", \"ghost\"]\nregions = [\"us-east-1\", \"eu-west-1\"]\n";

#[tokio::test]
async fn read_only_follows_each_profile_in_a_mixed_view() {
    let sb = three_regions().await;
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".aws")).unwrap();
    std::fs::write(home.path().join(".aws/credentials"), CREDENTIALS).unwrap();
    std::fs::create_dir_all(home.path().join(".config/sagedeck")).unwrap();
    std::fs::write(home.path().join(".config/sagedeck/config.toml"), CONFIG).unwrap();
    let env = [
        ("AWS_ACCESS_KEY_ID", ""),
        ("AWS_SECRET_ACCESS_KEY", ""),
        ("XDG_CONFIG_HOME", ""),
    ];
    let r = run_cli_in(
        &sb,
        home.path(),
        &["endpoints", "--fleet", "everything", "--json"],
        &env,
    )
    .await;
    assert_eq!(r.code, 3, "{}", r.stderr);
    let j = r.json();
    let regions = j["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 6);
    let row = |p: &str, region: &str| {
        regions
            .iter()
            .find(|r| r["profile"] == p && r["region"] == region)
            .unwrap_or_else(|| panic!("{p}/{region} missing"))
    };
    assert_eq!(row("prod", "eu-west-1")["state"], "ok");
    assert_eq!(row("prod", "eu-west-1")["read_only"], true);
    assert_eq!(row("dev", "us-east-1")["read_only"], false);
    for region in ["us-east-1", "eu-west-1"] {
        let ghost = row("ghost", region);
        assert_eq!(ghost["state"], "failed");
        assert!(ghost["error"].as_str().unwrap().contains("credentials"), "{ghost}");
    }
    let endpoints = j["endpoints"].as_array().unwrap();
    assert_eq!(endpoints.len(), 2 * (8 + 5));
    assert!(endpoints.iter().all(|e| e["read_only"] == (e["profile"] == "prod")));
    // Acting on an endpoint of the prod profile is refused; nothing is sent.
    let before = sb.sandbox.regions["eu-west-1"].request_count("UpdateEndpointWeightsAndCapacities");
    let name = endpoints.iter().find(|e| e["region"] == "eu-west-1").unwrap()["name"]
        .as_str()
        .unwrap();
    let set = [
        "weights",
        name,
        "--set",
        "AllTraffic=2",
        "--yes",
        "--profile",
        "prod",
        "--region",
        "eu-west-1",
    ];
    let refused = run_cli_in(&sb, home.path(), &set, &env).await;
    assert_eq!(refused.code, 5, "{}", refused.stderr);
    assert_eq!(
        sb.sandbox.regions["eu-west-1"].request_count("UpdateEndpointWeightsAndCapacities"),
        before
    );
}
