//! The team's view of an endpoint: a teammate's change and a refused call, made through boto3
//! with his own access key, in `sagedeck timeline` with his name (CloudTrail LookupEvents); and
//! the audit trail one sagedeck writes to CloudWatch Logs (its own HOME and host) read back by
//! another with `sagedeck audit --log-group`.

use crate::common::teammate::{plan_args, shift_weights_in_trail, teammate_changes};
use crate::common::{demo_config, run_cli, run_cli_in, sandbox_with};
use serde_json::json;

const EP: &str = "mcp-intent-classifier-prod";
const GROUP: &str = "/sagedeck/audit";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teammates_change_and_a_refused_call_show_in_the_timeline_with_his_name() {
    let sb = sandbox_with(demo_config()).await;
    let arn = teammate_changes(&sb.endpoint_url(), EP).await;
    let bob = sagedeck::aws::trail::event::shorten(&arn);
    assert_eq!(bob, "bob");

    let run = run_cli(&sb, &["timeline", EP, "--json", "--since", "1h"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let j = run.json();
    let events = j["events"].as_array().unwrap();
    let trail: Vec<&serde_json::Value> = events.iter().filter(|e| e["kind"] == "cloudtrail").collect();
    let change = trail
        .iter()
        .find(|e| e["summary"] == "UpdateEndpointWeightsAndCapacities: weights Stable=7 Canary=3")
        .unwrap_or_else(|| panic!("bob's change missing in {events:#?}"));
    assert_eq!(change["principal"], "bob");
    assert_eq!(change["failed"], false);
    assert!(change["origin"].as_str().unwrap().ends_with("via boto3"), "{change}");
    let refused = trail
        .iter()
        .find(|e| e["failed"] == true)
        .unwrap_or_else(|| panic!("the refused call missing in {events:#?}"));
    let summary = refused["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("UpdateEndpoint: config no-such-config — refused: ValidationException"),
        "{summary}"
    );
    assert_eq!(refused["principal"], "bob");
    assert!(
        trail
            .iter()
            .all(|e| !e["summary"].as_str().unwrap().starts_with("Describe")),
        "reads are not changes: {trail:#?}"
    );
    assert_eq!(j["note"], "CloudTrail events arrive up to ~5 min late");
    assert!(j["cloudtrail"]["pages"].as_u64().unwrap() >= 1, "{}", j["cloudtrail"]);

    let human = run_cli(&sb, &["timeline", EP, "--since", "1h"]).await;
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human
            .stdout
            .lines()
            .any(|l| l.contains("bob") && l.contains("Stable=7 Canary=3")),
        "{}",
        human.stdout
    );
    assert!(
        human.stderr.contains("CloudTrail events arrive up to ~5 min late"),
        "{}",
        human.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alices_own_change_shows_once_with_her_reason() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let set = [
        "weights",
        EP,
        "--set",
        "Stable=8",
        "--set",
        "Canary=2",
        "--yes",
        "--reason",
        "canary too slow",
    ];
    let run = run_cli_in(&sb, home.path(), &set, &[]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let j = run_cli_in(&sb, home.path(), &["timeline", EP, "--json", "--since", "1h"], &[])
        .await
        .json();
    let events = j["events"].as_array().unwrap();
    let weights: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["summary"].as_str().unwrap().contains("Stable=8 Canary=2"))
        .collect();
    assert_eq!(weights.len(), 1, "one line for one change: {weights:#?}");
    assert_eq!(weights[0]["kind"], "audit");
    assert!(weights[0]["summary"].as_str().unwrap().ends_with("— canary too slow"));
    assert!(
        weights[0]["origin"].as_str().unwrap().ends_with("via sagedeck"),
        "CloudTrail's record names where it came from: {}",
        weights[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trail_written_by_one_sagedeck_is_read_by_another() {
    let sb = sandbox_with(demo_config()).await;
    let alice = tempfile::tempdir().unwrap();
    let bob = tempfile::tempdir().unwrap();
    let what = (EP, GROUP, "shift for the load test");
    shift_weights_in_trail(&sb, alice.path(), &[("SAGEDECK_HOST", "host-a")], what).await;

    let read = ["audit", "--log-group", GROUP, "--since", "1h", "--json"];
    let env = [("SAGEDECK_HOST", "host-b"), ("AWS_ACCESS_KEY_ID", "AKIDSANDBOXBOB")];
    let seen = run_cli_in(&sb, bob.path(), &read, &env).await;
    assert_eq!(seen.code, 0, "{}", seen.stderr);
    let j = seen.json();
    let records = j["records"].as_array().unwrap();
    let phases: Vec<(&str, &str)> = records
        .iter()
        .filter(|r| r["action"] == "weights.set")
        .map(|r| (r["phase"].as_str().unwrap(), r["stream"].as_str().unwrap()))
        .collect();
    assert_eq!(
        phases,
        [("intent", "alice@host-a"), ("result", "alice@host-a")],
        "{records:#?}"
    );
    assert!(records.iter().all(|r| r["reason"] == "shift for the load test"));
    assert!(records.iter().all(|r| r["host"] == "host-a"));

    let human = run_cli_in(&sb, bob.path(), &read[..5], &env).await;
    assert!(
        human
            .stdout
            .lines()
            .any(|l| l.contains("alice@host-a") && l.contains("shift for the load test")),
        "{}",
        human.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_that_cannot_be_written_is_said_once_and_the_file_still_guards() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let audit = home.path().join("audit.jsonl");
    let set = [
        "weights",
        EP,
        "--set",
        "Stable=5",
        "--set",
        "Canary=5",
        "--yes",
        "--audit-file",
        audit.to_str().unwrap(),
        "--audit-log-group",
        "no spaces allowed",
    ];
    let run = run_cli_in(&sb, home.path(), &set, &[]).await;
    assert_eq!(
        run.code, 0,
        "the file holds the intent: the change is sent\n{}",
        run.stderr
    );
    assert_eq!(
        run.stderr
            .matches("the team's audit trail no spaces allowed was not written")
            .count(),
        1,
        "{}",
        run.stderr
    );
    let lines = std::fs::read_to_string(&audit).unwrap();
    assert_eq!(lines.lines().count(), 2, "intent and result in the file: {lines}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_announced_by_one_sagedeck_is_reported_and_refused_by_another() {
    let sb = sandbox_with(demo_config()).await;
    let alice = tempfile::tempdir().unwrap();
    let bob = tempfile::tempdir().unwrap();
    let plan = plan_args(EP, GROUP);
    let mut running = crate::common::cli_command(&sb, alice.path(), &plan, &[("SAGEDECK_HOST", "host-a")]);
    running
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let _alice = running.spawn().expect("alice's plan starts");

    let bob_env = [("SAGEDECK_HOST", "host-b"), ("AWS_ACCESS_KEY_ID", "AKIDSANDBOXBOB")];
    let status = ["promote", EP, "--status", "--audit-log-group", GROUP];
    let line = crate::common::poll_until("bob hears of alice's plan", std::time::Duration::from_secs(60), || {
        let (sb, bob) = (&sb, bob.path());
        async move {
            let run = run_cli_in(sb, bob, &status, &bob_env).await;
            run.stdout
                .lines()
                .find(|l| l.starts_with("a plan by alice on host-a is at step 1/3, baking"))
                .map(str::to_string)
        }
    })
    .await;
    assert!(line.ends_with("(announced in the team's audit trail)"), "{line}");

    let json = run_cli_in(&sb, bob.path(), &[&status[..], &["--json"]].concat(), &bob_env).await;
    assert_eq!(json.code, 0, "{}", json.stderr);
    let a = &json.json()["announced"];
    assert_eq!(
        (
            &a["who"],
            &a["host"],
            &a["step"],
            &a["steps"],
            &a["state"],
            &a["liveness"],
            &a["blocks"]
        ),
        (
            &json!("alice"),
            &json!("host-a"),
            &json!(1),
            &json!(3),
            &json!("baking"),
            &json!("running"),
            &json!(true)
        ),
        "{a:#}"
    );
    assert!(a["since"].as_str().is_some_and(|t| t.ends_with('Z')), "{a:#}");
    assert!(
        a["line"]
            .as_str()
            .unwrap()
            .starts_with("a plan by alice on host-a is at step 1/3"),
        "{a:#}"
    );

    let second = run_cli_in(&sb, bob.path(), &plan, &bob_env).await;
    assert_eq!(second.code, 6, "{}", second.stderr);
    assert!(
        second.stderr.contains("a plan by alice on host-a is at step 1/3")
            && second.stderr.contains("the lock is advisory: --force starts anyway"),
        "{}",
        second.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_reads_one_page_and_a_throttled_one_backs_off_saying_so() {
    use sagedeck::aws::trail::TrailCache;
    let mut config = demo_config();
    config.timing.update = std::time::Duration::ZERO;
    // One LookupEvents call, then throttled for the rest of the test.
    config.trail.lookups_per_second = 0.001;
    let sb = sandbox_with(config).await;
    let f = crate::common::fleet(&sb).await;
    for i in 0..60 {
        let w = aws_sdk_sagemaker::types::DesiredWeightAndCapacity::builder()
            .variant_name("Canary")
            .desired_weight(1.0 + (i % 2) as f32)
            .build();
        f.sagemaker
            .update_endpoint_weights_and_capacities()
            .endpoint_name(EP)
            .desired_weights_and_capacities(w)
            .send()
            .await
            .unwrap();
    }
    let cache = TrailCache::default();
    let now = sagedeck::format::now_epoch();
    let since = now - 3600.0;
    let first = f.trail_refresh(&cache, EP, since, now).await;
    assert_eq!((cache.calls(), first.events.len(), first.status.pending), (1, 50, 1));
    assert!(
        first.status.line().contains("older pages come with each refresh"),
        "{:?}",
        first.status
    );
    let second = f.trail_refresh(&cache, EP, since, now).await;
    assert_eq!(cache.calls(), 2);
    let throttled = second.status.throttled.clone().expect("throttled is said");
    assert!(
        throttled.starts_with("throttled (LookupEvents allows 2 calls/s"),
        "{throttled}"
    );
    assert_eq!((second.events.len(), second.status.pending), (50, 1), "nothing lost");
    let third = f.trail_refresh(&cache, EP, since, now).await;
    assert_eq!(cache.calls(), 2, "no call while backing off");
    assert!(third.status.line().contains("backing off"), "{}", third.status.line());
}
