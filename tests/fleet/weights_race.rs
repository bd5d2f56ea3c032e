//! Weight changes against what the API carries and against each other: a weight outside the
//! wire's 32-bit float is invalid input (nothing sent), so is a NaN expectation; "not InService"
//! is one refusal (exit 6) for weights, promote and prewarm; and of two concurrent writers that
//! saw the same weights, one applies and the other is refused, never both reporting success.

use std::process::Stdio;
use std::time::Duration;

use sagedeck::sandbox::world::state::{EndpointStatus, Transition};
use sagedeck::sandbox::{SandboxConfig, Timing};

use crate::common::{CliRun, cli_command, demo_config, fleet, poll_until, run_cli, sandbox_with};

const EP: &str = "mcp-intent-classifier-prod";
const UPDATES: &str = "UpdateEndpointWeightsAndCapacities";

fn one_line(r: &CliRun) -> String {
    let line = r.stderr.trim_end().to_string();
    assert!(!line.contains('\n') && !line.contains("panicked"), "one line: {line}");
    line
}

#[tokio::test]
async fn weights_are_checked_against_the_wire_type() {
    let sb = sandbox_with(demo_config()).await;
    for (args, needle) in [
        (vec!["--set", "Stable=1e308"], "32-bit float"),
        (vec!["--set", "Canary=1e-50"], "32-bit float"),
        (
            vec!["--set", "Canary=2", "--expect", "Stable=NaN"],
            "--expect weight of Stable",
        ),
        (
            vec!["--set", "Canary=2", "--expect", "Stable=inf,Canary=1"],
            "--expect weight of Stable",
        ),
    ] {
        let mut a = vec!["weights", EP, "--yes"];
        a.extend(&args);
        let r = run_cli(&sb, &a).await;
        assert_eq!(r.code, 2, "{a:?}: {}", r.stderr);
        assert!(one_line(&r).contains(needle), "{a:?}: {}", r.stderr);
    }
    assert_eq!(sb.sandbox.request_count(UPDATES), 0, "invalid input sends nothing");
}

#[tokio::test]
async fn not_in_service_is_one_refusal_everywhere() {
    let sb = sandbox_with(demo_config()).await;
    let mme = "mcp-multi-model-endpoint";
    {
        let mut world = sb.sandbox.world.write();
        let ep = world.endpoints.get_mut(mme).expect("the demo MME");
        ep.status = EndpointStatus::Updating;
        ep.transition = Some(Transition::Update {
            until: sagedeck::sandbox::world::clock::now_epoch() + 3600.0,
        });
    }
    let busy = "mcp-summarizer-staging";
    for args in [
        vec!["weights", busy, "--set", "Blue=1", "--yes"],
        vec!["promote", busy, "--canary", "Green", "--steps", "50,100", "--yes"],
        vec!["prewarm", mme, "--all"],
    ] {
        let r = run_cli(&sb, &args).await;
        assert_eq!(r.code, 6, "{args:?}: {}", r.stderr);
        let line = one_line(&r);
        assert!(
            line.contains("is Updating") && line.contains("InService"),
            "{args:?}: {line}"
        );
    }
    assert_eq!(sb.sandbox.request_count(UPDATES), 0);
    assert_eq!(sb.sandbox.request_count("InvokeEndpoint"), 0);
}

/// Sets the endpoint back to Stable=9, Canary=1 and waits until it is InService.
async fn reset(f: &sagedeck::aws::Fleet) {
    let plan = sagedeck::aws::change::weights::plan_weights(
        &f.endpoint(EP).await.unwrap(),
        &sagedeck::aws::change::weights::parse_weight_args(&["Stable=9".into(), "Canary=1".into()]).unwrap(),
    )
    .unwrap();
    f.apply_weights(&plan).await.unwrap();
    poll_until(
        "the endpoint back at 9/1, InService",
        Duration::from_secs(30),
        || async {
            let i = f.endpoint(EP).await.ok()?;
            let canary = i.variant("Canary")?;
            (i.status == "InService" && canary.desired_weight == 1.0 && canary.current_weight == 1.0).then_some(())
        },
    )
    .await;
}

#[tokio::test]
async fn of_two_concurrent_writers_exactly_one_applies() {
    let config = SandboxConfig {
        timing: Timing {
            update: Duration::ZERO,
            ..Timing::fast()
        },
        ..demo_config()
    };
    let sb = sandbox_with(config).await;
    let f = fleet(&sb).await;
    let home = tempfile::tempdir().unwrap();
    for pair in 0..10 {
        reset(&f).await;
        let run = |weight: &'static str| {
            let args = ["weights", EP, "--set", weight, "--expect", "Stable=9,Canary=1", "--yes"];
            let mut cmd = cli_command(&sb, home.path(), &args, &[]);
            cmd.stdout(Stdio::null()).stderr(Stdio::piped());
            async move { cmd.output().await.unwrap() }
        };
        let (a, b) = tokio::join!(run("Canary=2"), run("Canary=3"));
        let codes = (a.status.code(), b.status.code());
        let winner = match codes {
            (Some(0), Some(6)) => 2.0,
            (Some(6), Some(0)) => 3.0,
            _ => panic!(
                "pair {pair}: exactly one must apply, the other be refused (exit 6); got {codes:?}:\n{}\n{}",
                String::from_utf8_lossy(&a.stderr),
                String::from_utf8_lossy(&b.stderr)
            ),
        };
        let loser = if winner == 2.0 { &b } else { &a };
        let why = String::from_utf8_lossy(&loser.stderr);
        assert!(
            why.contains("changed since it was read") || why.contains("lost race"),
            "{why}"
        );
        let i = f.endpoint(EP).await.unwrap();
        assert_eq!(
            i.variant("Canary").unwrap().desired_weight,
            winner,
            "pair {pair}: the winner's weight holds"
        );
    }
}
