//! Shared setup for integration tests: a sandbox on a free loopback port and SDK configuration
//! pointing at it, exactly as a user's `--endpoint-url` would.
#![allow(dead_code)]

pub mod builders;
pub mod compat;
pub mod deploy;
pub mod peer_setup;
pub mod teammate;
pub mod tmux;
pub mod tui;

use std::path::Path;
use std::time::Duration;

/// The tools of the demo's MCP server (`src/mcp/demo_tools.toml`), in the order it lists them.
pub const DEMO_TOOL_NAMES: [&str; 7] = [
    "classify_intent",
    "generate_text",
    "score_churn",
    "tenant_classify",
    "explain_intent",
    "summarize_async",
    "classify_on_variant",
];

use sagedeck::sandbox::world::fleet::DEMO_BUCKET;
use sagedeck::sandbox::world::resources::S3Object;
use sagedeck::sandbox::{SandboxConfig, SandboxHandle, start};

/// Starts an empty, quiet sandbox with fast timings.
pub async fn sandbox() -> SandboxHandle {
    sandbox_with(SandboxConfig::for_tests()).await
}

/// The demo fleet, quiet, with fast timings.
pub fn demo_config() -> SandboxConfig {
    SandboxConfig {
        demo_fleet: true,
        ..SandboxConfig::for_tests()
    }
}

/// Adds objects under the demo MME's prefix (`tenants/`): key relative to it, size.
pub fn add_mme_models(sb: &SandboxHandle, models: &[(String, u64)]) {
    let mut world = sb.sandbox.world.write();
    let bucket = world.buckets.entry(DEMO_BUCKET.into()).or_default();
    for (key, size) in models {
        bucket.insert(
            format!("tenants/{key}"),
            S3Object {
                size: *size,
                last_modified: 1.7e9,
                etag: "\"0123\"".into(),
            },
        );
    }
}

/// Starts a sandbox with the given configuration.
pub async fn sandbox_with(config: SandboxConfig) -> SandboxHandle {
    private_state();
    start(config).await.expect("sandbox starts")
}

/// Points this test process's state and configuration directories (`XDG_STATE_HOME`,
/// `XDG_CONFIG_HOME`) at directories of its own, once: token caches, audit logs, plans and
/// settings the code under test keeps or reads there are never the real home's. Every test on
/// a sandbox gets it through [`sandbox_with`].
pub fn private_state() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("home-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (state, config) = (dir.join("state"), dir.join("config"));
        std::fs::create_dir_all(&state).unwrap();
        std::fs::create_dir_all(&config).unwrap();
        // SAFETY: std's own environment access is locked; the values are set once and never
        // changed, and no test of this process wants the real home's directories.
        unsafe {
            std::env::set_var("XDG_STATE_HOME", &state);
            std::env::set_var("XDG_CONFIG_HOME", &config);
        }
    });
}

/// This test process's private state directory (see [`private_state`]): where sagedeck run
/// in-process keeps its files.
pub fn private_state_dir() -> std::path::PathBuf {
    private_state();
    std::path::PathBuf::from(std::env::var_os("XDG_STATE_HOME").unwrap()).join("sagedeck")
}

/// SDK configuration for the sandbox: static test credentials, us-east-1, its endpoint URL.
pub async fn sdk_config(handle: &SandboxHandle) -> aws_config::SdkConfig {
    sagedeck::aws::config::local_sdk_config(&handle.endpoint_url()).await
}

/// Polls `check` until it returns `Some`, or panics with `what` after `deadline`.
pub async fn poll_until<T, F, Fut>(what: &str, deadline: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = std::time::Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if start.elapsed() > deadline {
            panic!("timed out after {deadline:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What a run of the real binary printed.
#[derive(Debug)]
pub struct CliRun {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl CliRun {
    /// Standard output parsed as JSON (panics with the output when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr))
    }
}

/// Runs `sagedeck ARGS` against the sandbox with test credentials in an isolated HOME (so no
/// profile of the machine leaks in), the endpoint URL passed as `--endpoint-url`.
pub async fn run_cli(handle: &SandboxHandle, args: &[&str]) -> CliRun {
    run_cli_env(handle, args, &[]).await
}

/// The `sagedeck ARGS` command against the sandbox: a cleared environment with test credentials,
/// `home` as HOME (so no profile of the machine leaks in), stdin null, `--endpoint-url` given
/// before the subcommand unless `args` has one, then `env` (an empty value removes the variable).
pub fn cli_command(
    handle: &SandboxHandle,
    home: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_sagedeck"));
    if !args.contains(&"--endpoint-url") {
        cmd.arg("--endpoint-url").arg(handle.endpoint_url());
    }
    cmd.args(args);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("AWS_ACCESS_KEY_ID", "AKIDSANDBOX")
        .env("AWS_SECRET_ACCESS_KEY", "sandbox-secret")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .stdin(std::process::Stdio::null());
    for (k, v) in env {
        if v.is_empty() {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v);
        }
    }
    cmd
}

/// `run_cli` with extra environment variables (an empty value removes the variable).
pub async fn run_cli_env(handle: &SandboxHandle, args: &[&str], env: &[(&str, &str)]) -> CliRun {
    let home = tempfile::tempdir().expect("temp home");
    run_cli_in(handle, home.path(), args, env).await
}

/// `run_cli_env` with `home` as HOME (tests that put profiles or a config file there).
pub async fn run_cli_in(handle: &SandboxHandle, home: &Path, args: &[&str], env: &[(&str, &str)]) -> CliRun {
    let mut cmd = cli_command(handle, home, args, env);
    let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .expect("sagedeck finished within 120 s")
        .expect("sagedeck runs");
    CliRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The fleet layer pointed at the sandbox (static test credentials).
pub async fn fleet(handle: &SandboxHandle) -> sagedeck::aws::Fleet {
    sagedeck::aws::Fleet::for_url(&handle.endpoint_url()).await
}

/// Starts `cmd` (a `sagedeck mcp serve --http` command; killed on drop) and returns it with the
/// URL it announces on its stderr.
pub async fn spawn_announced(mut cmd: tokio::process::Command) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("sagedeck starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(i) = line.find("http://") {
                return line[i..].split_whitespace().next().map(str::to_string);
            }
        }
        None
    })
    .await
    .expect("the server announces its URL")
    .expect("a URL line");
    (child, url)
}

/// Invokes `endpoint` `n` times with a small JSON body through the Rust SDK; returns how many
/// invocations failed.
pub async fn invoke_times(handle: &SandboxHandle, endpoint: &str, n: usize) -> usize {
    let rt = aws_sdk_sagemakerruntime::Client::new(&sdk_config(handle).await);
    let mut failed = 0;
    for _ in 0..n {
        let sent = rt
            .invoke_endpoint()
            .endpoint_name(endpoint)
            .content_type("application/json")
            .body(aws_sdk_sagemakerruntime::primitives::Blob::new(r#"{"inputs": "hi"}"#))
            .send()
            .await;
        failed += usize::from(sent.is_err());
    }
    failed
}

/// Names the profiles `prod` and `dev` in a shared AWS config file for this test process (once):
/// the multi-region inventory refuses a named profile that the shared files lack, rather than
/// borrow other credentials, so the tests' profiles must exist as a user's would.
pub fn name_test_profiles() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("aws-profiles");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("config");
        std::fs::write(&file, "[profile prod]\n[profile dev]\n").unwrap();
        // SAFETY: std's own environment access is locked; the value is set once and never
        // changed, and no test of this process reads another config file.
        unsafe { std::env::set_var("AWS_CONFIG_FILE", &file) };
    });
}
