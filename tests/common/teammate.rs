//! A teammate, bob (his own access key, `AKIDSANDBOXBOB`), changing an endpoint's weights
//! through boto3 and making a call SageMaker refuses (`tests/compat/trail_teammate.py`, in the
//! sandbox tests' `<target>/compat-venv`, `compat.rs`; the test fails when it cannot be built).

/// Runs `tests/compat/trail_teammate.py` (bob's change and refused call) and returns bob's ARN.
pub async fn teammate_changes(url: &str, endpoint: &str) -> String {
    let stdout = super::compat::run("trail_teammate.py", &[url, endpoint]).await;
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("principal "))
        .unwrap_or_else(|| panic!("no principal line in {stdout}"))
        .to_string()
}
