//! `sagedeck components --regions`: the components of every region the fleet is configured with
//! as one listing, each with its region; a region that fails is named and hides nothing else.

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::config::Region;
use sagedeck::sandbox::faults::FaultSpec;
use sagedeck::sandbox::{RegionFleet, SandboxConfig};

use super::setup::{component, ic_endpoint, model, wait_settled};
use crate::common::{run_cli_in, sandbox_with, sdk_config};

/// A SageMaker client of the sandbox signing for `region`.
async fn client_in(sb: &sagedeck::sandbox::SandboxHandle, region: &'static str) -> Client {
    let conf = aws_sdk_sagemaker::config::Builder::from(&sdk_config(sb).await)
        .region(Region::from_static(region))
        .build();
    Client::from_conf(conf)
}

#[tokio::test]
async fn components_are_listed_from_every_region_with_their_region() {
    let sb = sandbox_with(SandboxConfig {
        extra_regions: vec![
            RegionFleet::parse("eu-west-1=0").unwrap(),
            RegionFleet::parse("ap-south-1=0").unwrap(),
        ],
        ..SandboxConfig::for_tests()
    })
    .await;
    for (region, ic) in [("us-east-1", "us-llm"), ("eu-west-1", "eu-llm")] {
        let sm = client_in(&sb, region).await;
        model(&sm, "m").await;
        ic_endpoint(&sm, "llm", 1).await;
        component(&sm, "llm", ic, "m", 1).await;
        wait_settled(&sm, &[ic]).await;
    }
    let home = tempfile::tempdir().unwrap();
    let args = ["components", "--regions", "us-east-1,eu-west-1", "--json"];
    let r = run_cli_in(&sb, home.path(), &args, &[]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    let listed: Vec<(&str, &str)> = j["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["region"].as_str().unwrap(), c["name"].as_str().unwrap()))
        .collect();
    assert_eq!(listed, [("us-east-1", "us-llm"), ("eu-west-1", "eu-llm")], "{j:#}");
    let table = run_cli_in(
        &sb,
        home.path(),
        &["components", "--regions", "us-east-1,eu-west-1"],
        &[],
    )
    .await;
    let header = table.stdout.lines().next().unwrap_or_default();
    assert!(
        header.starts_with("PROFILE") && header.contains("REGION"),
        "{}",
        table.stdout
    );
    let eu = table
        .stdout
        .lines()
        .find(|l| l.contains("eu-llm"))
        .expect("a row for eu-llm");
    assert!(eu.contains("eu-west-1"), "{eu}");

    // One region throttled: named, exit 3, the others still listed.
    sb.sandbox.regions["ap-south-1"]
        .faults
        .add(FaultSpec::parse_short("kind=throttle,operation=ListInferenceComponents,count=100").unwrap());
    let args = ["components", "--regions", "eu-west-1,ap-south-1", "--json"];
    let r = run_cli_in(&sb, home.path(), &args, &[]).await;
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("ap-south-1"), "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["components"].as_array().unwrap().len(), 1, "{j:#}");
    assert_eq!(j["regions"][1]["state"], "failed", "{j:#}");
}
