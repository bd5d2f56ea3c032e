//! Shared setup: sandboxes, an isolated state directory per test, and audit reading.

use std::path::PathBuf;

use sagedeck::aws::change::audit::{Audit, AuditRecord};
use sagedeck::sandbox::{SandboxConfig, SandboxHandle};

use crate::common::{CliRun, run_cli_env};

/// The demo fleet's A/B endpoint (Stable 9, Canary 1).
pub const DEMO_EP: &str = "mcp-intent-classifier-prod";
/// The generated endpoint of [`canary_config`]: Stable 9, Canary 1, the same model behind both.
pub const EP: &str = "fleet-ep-0000";

/// One generated A/B endpoint, with generated traffic when `rate` is given.
pub fn canary_config(rate: Option<f64>) -> SandboxConfig {
    SandboxConfig {
        extra_endpoints: 1,
        traffic_rate: rate,
        ..SandboxConfig::for_tests()
    }
}

/// `promote EP --canary Canary --steps 50,100 --bake BAKE --auto --poll-ms 100` and `extra`:
/// the two-step automatic plan most tests run.
pub fn two_step_plan<'a>(bake: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "promote",
        EP,
        "--canary",
        "Canary",
        "--steps",
        "50,100",
        "--bake",
        bake,
        "--auto",
        "--poll-ms",
        "100",
    ];
    args.extend_from_slice(extra);
    args
}

/// A state directory of its own (XDG_STATE_HOME): audit log and plan states.
pub struct State {
    /// The directory.
    pub dir: tempfile::TempDir,
}

impl State {
    pub fn new() -> State {
        State {
            dir: tempfile::tempdir().expect("temp state dir"),
        }
    }

    /// The default audit file under it.
    pub fn audit_path(&self) -> PathBuf {
        self.dir.path().join("sagedeck/audit.jsonl")
    }

    /// The plan state file of an endpoint.
    pub fn plan_path(&self, endpoint: &str) -> PathBuf {
        self.dir.path().join(format!("sagedeck/promotions/{endpoint}.json"))
    }

    /// The audit records so far.
    pub fn audit(&self) -> Vec<AuditRecord> {
        Audit::read(self.audit_path(), None).expect("audit readable")
    }

    /// The plan state as JSON.
    pub fn plan(&self, endpoint: &str) -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(self.plan_path(endpoint)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// `sagedeck ARGS` with XDG_STATE_HOME pointing here.
    pub async fn cli(&self, sb: &SandboxHandle, args: &[&str]) -> CliRun {
        let dir = self.dir.path().to_string_lossy().into_owned();
        run_cli_env(sb, args, &[("XDG_STATE_HOME", &dir)]).await
    }
}

/// Current weights of an endpoint's variants, read from the sandbox's state.
pub fn weights(sb: &SandboxHandle, endpoint: &str) -> Vec<(String, f64)> {
    let world = sb.sandbox.world.read();
    world.endpoints[endpoint]
        .variants
        .iter()
        .map(|v| (v.name.clone(), v.current_weight))
        .collect()
}

/// `(action, phase, result)` of each record.
pub fn actions(records: &[AuditRecord]) -> Vec<(String, String, Option<String>)> {
    records
        .iter()
        .map(|r| {
            (
                r.action.clone(),
                format!("{:?}", r.phase).to_lowercase(),
                r.result.clone(),
            )
        })
        .collect()
}
