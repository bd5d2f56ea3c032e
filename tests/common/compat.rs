//! The boto3 scripts of `tests/compat/` run from any test binary, in the sandbox tests' venv
//! (`<target>/compat-venv`, same pins; built when missing — the test fails when it cannot be).

use std::path::Path;
use std::sync::OnceLock;

use super::peer_setup::{pinned_venv, show};

/// The sandbox tests' boto3 venv pins.
const PINS: [(&str, &str); 3] = [("boto3", "1.44.8"), ("botocore", "1.44.8"), ("awscli", "1.46.3")];

fn venv() -> &'static Path {
    static VENV: OnceLock<std::path::PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let probe =
            "import boto3, botocore, awscli; print(boto3.__version__, botocore.__version__, awscli.__version__)";
        pinned_venv("compat-venv", &PINS, probe)
    })
}

/// Runs `tests/compat/SCRIPT ARGS…` with nothing of the machine's AWS configuration, fails the
/// test (with both outputs) when it does not succeed, and returns its standard output.
pub async fn run(script: &str, args: &[&str]) -> String {
    let venv = tokio::task::spawn_blocking(venv).await.expect("the venv is built");
    let compat = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat");
    let home = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(venv.join("bin/python"))
        .arg(compat.join(script))
        .args(args)
        .env_clear()
        .env("HOME", home.path())
        .env("PYTHONPATH", &compat)
        .output()
        .await
        .expect("python runs");
    assert!(out.status.success(), "boto3 {script} failed\n{}", show(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
