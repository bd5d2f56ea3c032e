//! A teammate, bob (his own access key, `AKIDSANDBOXBOB`), changing an endpoint's weights
//! through boto3 and making a call SageMaker refuses (`tests/compat/trail_teammate.py`, in the
//! sandbox tests' `<target>/compat-venv`, `compat.rs`; the test fails when it cannot be built).

use std::path::Path;

/// Runs `tests/compat/trail_teammate.py` (bob's change and refused call) and returns bob's ARN.
pub async fn teammate_changes(url: &str, endpoint: &str) -> String {
    let stdout = super::compat::run("trail_teammate.py", &[url, endpoint]).await;
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("principal "))
        .unwrap_or_else(|| panic!("no principal line in {stdout}"))
        .to_string()
}

/// `sagedeck weights ENDPOINT --set Stable=6 --set Canary=4 --yes --reason REASON
/// --audit-log-group GROUP`, as whoever `env` names, with `home` as HOME; the run must succeed
/// without a warning (the group written).
pub async fn shift_weights_in_trail(
    sb: &sagedeck::sandbox::SandboxHandle,
    home: &Path,
    env: &[(&str, &str)],
    (endpoint, group, reason): (&str, &str, &str),
) {
    let set = [
        "weights",
        endpoint,
        "--set",
        "Stable=6",
        "--set",
        "Canary=4",
        "--yes",
        "--reason",
        reason,
        "--audit-log-group",
        group,
    ];
    let run = super::run_cli_in(sb, home, &set, env).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

/// Bob's own sagedeck (his HOME, his access key `AKIDSANDBOXBOB`, host `host-x`) sets
/// `endpoint`'s weights to Stable=6 Canary=4 for `reason`, writing the team's audit trail in
/// `group`.
pub async fn bob_shifts_weights(sb: &sagedeck::sandbox::SandboxHandle, endpoint: &str, group: &str, reason: &str) {
    let home = tempfile::tempdir().unwrap();
    let env = [("SAGEDECK_HOST", "host-x"), ("AWS_ACCESS_KEY_ID", "AKIDSANDBOXBOB")];
    shift_weights_in_trail(sb, home.path(), &env, (endpoint, group, reason)).await;
}

/// `sagedeck promote` of an automatic three-step plan (10, 50, 100 %, 10-minute bakes) on
/// `endpoint`, announced in the team's trail `group`.
pub fn plan_args<'a>(endpoint: &'a str, group: &'a str) -> [&'a str; 14] {
    [
        "promote",
        endpoint,
        "--canary",
        "Canary",
        "--steps",
        "10,50,100",
        "--bake",
        "10m",
        "--auto",
        "--yes",
        "--audit-log-group",
        group,
        "--reason",
        "canary rollout",
    ]
}
