//! The MCP peers: a Python virtualenv with the pinned `mcp` (`target/mcp-venv`, from
//! `tests/mcp_peers/requirements.txt`) and the pinned npm server-everything (`target/mcp-node`,
//! from `tests/mcp_peers/node/package-lock.json` with `npm ci`). Each is built once in a private
//! directory and renamed into place, so concurrent test processes never see a half-built one,
//! and is reused while it has the pinned versions. If one cannot be installed the tests fail.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

use crate::common::peer_setup::{build_atomically, run_step, target_dir};

/// The pinned Python `mcp`.
pub const PY_MCP_VERSION: &str = "1.30.0";
/// The pinned npm server-everything.
pub const EVERYTHING_VERSION: &str = "2026.8.31";

/// `tests/mcp_peers/`.
pub fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers")
}

fn venv_ready(dir: &Path) -> bool {
    let probe = "import importlib.metadata as m, uvicorn, mcp.server.fastmcp; print(m.version('mcp'))";
    std::process::Command::new(dir.join("bin/python"))
        .args(["-c", probe])
        .env("PYTHONNOUSERSITE", "1")
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == PY_MCP_VERSION)
}

/// The Python virtualenv's interpreter (built on first use).
pub fn python() -> PathBuf {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let dir = target_dir().join("mcp-venv");
        if !venv_ready(&dir) {
            std::fs::create_dir_all(target_dir()).expect("target dir");
            build_atomically(
                "MCP peer",
                &dir,
                |tmp| {
                    run_step(
                        "MCP peer",
                        "python3 -m venv",
                        std::process::Command::new("python3").args(["-m", "venv"]).arg(tmp),
                    );
                    run_step(
                        "MCP peer",
                        "pip install -r tests/mcp_peers/requirements.txt",
                        std::process::Command::new(tmp.join("bin/python"))
                            .args([
                                "-m",
                                "pip",
                                "install",
                                "--disable-pip-version-check",
                                "--no-input",
                                "-r",
                            ])
                            .arg(peers_dir().join("requirements.txt"))
                            .env("PYTHONNOUSERSITE", "1"),
                    );
                },
                venv_ready,
            );
        }
        dir.join("bin/python")
    })
    .clone()
}

fn everything_entry(dir: &Path) -> PathBuf {
    dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn node_ready(dir: &Path) -> bool {
    let pkg = dir.join("node_modules/@modelcontextprotocol/server-everything/package.json");
    everything_entry(dir).exists()
        && std::fs::read_to_string(pkg).is_ok_and(|t| t.contains(&format!("\"version\": \"{EVERYTHING_VERSION}\"")))
}

/// `node_modules/.../server-everything/dist/index.js` (installed on first use).
pub fn everything() -> PathBuf {
    static NODE: OnceLock<PathBuf> = OnceLock::new();
    NODE.get_or_init(|| {
        let dir = target_dir().join("mcp-node");
        if !node_ready(&dir) {
            std::fs::create_dir_all(target_dir()).expect("target dir");
            build_atomically(
                "MCP peer",
                &dir,
                |tmp| {
                    std::fs::create_dir_all(tmp).expect("npm dir");
                    for f in ["package.json", "package-lock.json"] {
                        std::fs::copy(peers_dir().join("node").join(f), tmp.join(f)).expect("copy npm manifest");
                    }
                    run_step(
                        "MCP peer",
                        "npm ci",
                        std::process::Command::new("npm")
                            .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
                            .current_dir(tmp),
                    );
                },
                node_ready,
            );
        }
        everything_entry(&dir)
    })
    .clone()
}

/// Runs a blocking setup step off the async runtime.
pub async fn setup<T: Send + 'static>(f: fn() -> T) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// Runs the Python SDK client `script` (in `tests/mcp_peers/`) with `args` and reads the one
/// JSON line it prints; fails when it does not end within 60 s, exits non-zero or prints no JSON.
pub async fn python_client(script: &str, args: &[&str]) -> serde_json::Value {
    let py = setup(python).await;
    let run = Command::new(py)
        .arg(peers_dir().join(script))
        .args(args)
        .env("PYTHONNOUSERSITE", "1")
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the Python client ends within 60 s")
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script}: {stdout}\n{stderr}");
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{script}: {e}: {stdout}"))
}

/// `radio_station.py`.
pub fn radio_script() -> String {
    peers_dir().join("radio_station.py").to_string_lossy().into_owned()
}

/// A peer process serving HTTP on loopback, killed when dropped.
pub struct HttpPeer {
    /// The process (killed when this is dropped).
    _child: Child,
    /// Its port.
    pub port: u16,
}

/// `library_server.py` (resources, prompts, elicitation).
pub fn library_script() -> String {
    peers_dir().join("library_server.py").to_string_lossy().into_owned()
}

/// `sampling_server.py` (a tool that asks its client for a completion).
pub fn sampling_script() -> String {
    peers_dir().join("sampling_server.py").to_string_lossy().into_owned()
}

/// `task_server.py` (a 2025-11-25 task tool, the SDK's experimental tasks API).
pub fn task_script() -> String {
    peers_dir().join("task_server.py").to_string_lossy().into_owned()
}

/// Starts the Python peer `script` (in `tests/mcp_peers/`, or a path) with `args` and returns it
/// (killed when dropped) with the first line it prints (its port or ports), within 60 s.
pub async fn python_peer(script: &str, args: &[&str]) -> (Child, String) {
    let mut child = Command::new(setup(python).await)
        .arg(peers_dir().join(script))
        .args(args)
        .env("PYTHONNOUSERSITE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("python starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .unwrap_or_else(|_| panic!("{script} prints its port within 60 s"))
        .expect("stdout readable")
        .unwrap_or_else(|| panic!("{script} printed no port line"));
    (child, line)
}

/// Starts the Radio Station over `transport` (`sse` or `streamable-http`) and reads its port.
pub async fn radio_http(transport: &str) -> HttpPeer {
    python_http("radio_station.py", transport).await
}

/// Starts the Python peer `script` over `transport` (`sse` or `streamable-http`) and reads its
/// port.
pub async fn python_http(script: &str, transport: &str) -> HttpPeer {
    let (child, line) = python_peer(script, &[transport]).await;
    let port = line
        .strip_prefix("PORT ")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    HttpPeer { _child: child, port }
}

/// Starts server-everything over `transport` (`sse` or `streamableHttp`) on a free loopback
/// port, and waits until it accepts connections.
pub async fn everything_http(transport: &str) -> HttpPeer {
    let entry = setup(everything).await;
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        l.local_addr().expect("addr").port()
    };
    let child = Command::new("node")
        .arg("--require")
        .arg(peers_dir().join("node/loopback.cjs"))
        .arg(entry)
        .arg(transport)
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    crate::common::poll_until("server-everything to listen", Duration::from_secs(30), || async move {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .ok()
            .map(|_| ())
    })
    .await;
    HttpPeer { _child: child, port }
}
