//! The CLI's input checks, over the wire against the sandbox: a named profile that does not
//! exist is a FAILED row even when the environment holds credentials; `--regions` takes region
//! names only, each once; `logs --interval` has one lower bound; `autoscaling` refuses values
//! outside Application Auto Scaling's (and SageMaker's) ranges before anything is sent, and a
//! `--check-request` file has a size cap.

use crate::common::{demo_config, run_cli, run_cli_in, sandbox_with};

#[tokio::test]
async fn a_missing_profile_fails_whatever_the_environment_holds() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".aws")).unwrap();
    std::fs::write(
        home.path().join(".aws/credentials"),
        "[a]\naws_access_key_id = AKIDA\naws_secret_access_key = s\n",
    )
    .unwrap();
    // The environment holds credentials (AWS_ACCESS_KEY_ID is set for every CLI run).
    let args = [
        "endpoints",
        "--profiles",
        "a,missing,a",
        "--regions",
        "us-east-1",
        "--json",
    ];
    let r = run_cli_in(&sb, home.path(), &args, &[]).await;
    assert_eq!(r.code, 3, "{}", r.stderr);
    let j = r.json();
    let rows: Vec<(&str, &str)> = j["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["profile"].as_str().unwrap(), r["state"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [("a", "ok"), ("missing", "failed")], "each profile once: {j}");
    let failed = &j["regions"][1]["error"];
    assert!(failed.as_str().unwrap().contains("no profile missing"), "{failed}");
    assert!(
        j["endpoints"].as_array().unwrap().iter().all(|e| e["profile"] == "a"),
        "no endpoint is listed under the missing profile"
    );

    let human = run_cli_in(&sb, home.path(), &args[..5], &[]).await;
    assert_eq!(human.code, 3, "{}", human.stderr);
    assert!(
        human
            .stdout
            .lines()
            .any(|l| l.contains("missing") && l.contains("FAILED")),
        "{}",
        human.stdout
    );
}

#[tokio::test]
async fn regions_are_region_names_each_listed_once() {
    let sb = sandbox_with(demo_config()).await;
    for bad in ["us-east-1,nowhere", "US-EAST-1", "us-east-1,us-east", "us east 1"] {
        let r = run_cli(&sb, &["endpoints", "--regions", bad]).await;
        assert_eq!(r.code, 2, "{bad}: {}", r.stderr);
        assert!(r.stderr.contains("is not a region name"), "{bad}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
    let r = run_cli(&sb, &["endpoints", "--regions", "us-east-1,us-east-1", "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["regions"].as_array().unwrap().len(), 1, "{j}");
    assert_eq!(j["endpoints"].as_array().unwrap().len(), 8);
}

#[tokio::test]
async fn the_follow_interval_has_one_lower_bound() {
    let sb = sandbox_with(demo_config()).await;
    for interval in ["0s", "1ms", "2h"] {
        let r = run_cli(
            &sb,
            &["logs", "mcp-intent-classifier-prod", "--follow", "--interval", interval],
        )
        .await;
        assert_eq!(r.code, 2, "{interval}: {}", r.stderr);
        assert!(r.stderr.contains("--interval"), "{interval}: {}", r.stderr);
    }
}

const SCALING_CALLS: [&str; 3] = ["RegisterScalableTarget", "PutScalingPolicy", "DeleteScalingPolicy"];

#[tokio::test]
async fn autoscaling_refuses_values_outside_aws_ranges_before_sending() {
    let sb = sandbox_with(demo_config()).await;
    let sent = || SCALING_CALLS.map(|op| sb.sandbox.request_count(op));
    let before = sent();
    let long_name = "p".repeat(5000);
    for (extra, needle) in [
        (vec!["--target-p99-ms", "1e30"], "at most 60000 ms"),
        (vec!["--max", "100000"], "--max 100000: at most 1000 instances"),
        (vec!["--instances", "5000"], "--instances 5000: at most 1000"),
        (
            vec!["--target-invocations", "70", "--policy-name", &long_name],
            "1 to 256 printable characters",
        ),
        (vec!["--remove-policy", ""], "1 to 256 printable characters"),
        (vec!["--target-invocations", "1e200"], "TargetValue from"),
        (
            vec!["--target-invocations", "70", "--scale-in-cooldown=-5"],
            "0 to 86400 seconds",
        ),
    ] {
        let mut args = vec!["autoscaling", "xgboost-churn-csv", "--variant", "AllTraffic", "--yes"];
        args.extend(extra.iter().copied());
        let r = run_cli(&sb, &args).await;
        assert_eq!(r.code, 2, "{needle}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{needle}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(r.stdout.is_empty(), "nothing is planned: {}", r.stdout);
    }
    assert_eq!(sent(), before, "nothing was sent");
    // Within the ranges, the same change goes through.
    let ok = run_cli(
        &sb,
        &[
            "autoscaling",
            "xgboost-churn-csv",
            "--variant",
            "AllTraffic",
            "--min",
            "1",
            "--max",
            "1000",
            "--yes",
        ],
    )
    .await;
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}

#[tokio::test]
async fn a_huge_check_request_is_refused_by_its_size() {
    let sb = sandbox_with(demo_config()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("request.json");
    std::fs::File::create(&path).unwrap().set_len(69 * 1024 * 1024).unwrap();
    let file = path.to_string_lossy().into_owned();
    let r = run_cli(&sb, &["autoscaling", "xgboost-churn-csv", "--check-request", &file]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("larger than 64 KiB"), "{}", r.stderr);
    assert!(!r.stderr.contains("Unknown"), "{}", r.stderr);
}
