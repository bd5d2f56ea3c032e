//! `sagedeck audit [--since 1h] [--json]`: the audit log of mutations, oldest first.

use std::time::Duration;

use clap::Args;
use serde_json::json;

use super::metrics_cmd::parse_since;
use super::output::{print_json, print_table};
use super::{EXIT_AWS, EXIT_OK, GlobalArgs, usage};
use crate::aws::change::audit::{Audit, AuditPhase};

/// `sagedeck audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Only records of the last DURATION (`90s`, `15m`, `1h`, `2d`).
    #[arg(long, value_parser = parse_since)]
    pub since: Option<Duration>,
}

/// Runs `audit`.
pub async fn run(g: &GlobalArgs, args: AuditArgs) -> i32 {
    let Some(path) = g.audit_path() else {
        return usage("no audit log location (HOME is not set); pass --audit-file PATH");
    };
    let since = args.since.map(|d| crate::format::now_epoch() - d.as_secs_f64());
    let records = match Audit::read(&path, since) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("sagedeck: cannot read the audit log {}: {}", e.path, e.message);
            return EXIT_AWS;
        }
    };
    if g.json {
        print_json(&json!({ "path": path, "records": records }));
        return EXIT_OK;
    }
    if records.is_empty() {
        eprintln!("sagedeck: no audit records in {}", path.display());
        return EXIT_OK;
    }
    let rows = records
        .iter()
        .map(|r| {
            vec![
                r.time.clone(),
                match r.phase {
                    AuditPhase::Intent => "intent".to_string(),
                    AuditPhase::Result => "result".to_string(),
                },
                r.action.clone(),
                r.target.clone(),
                r.result.clone().unwrap_or_else(|| "-".into()),
                r.principal.clone().unwrap_or_else(|| "-".into()),
                r.request_id.clone().unwrap_or_else(|| "-".into()),
                r.reason.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    print_table(
        &[
            "TIME",
            "PHASE",
            "ACTION",
            "TARGET",
            "RESULT",
            "PRINCIPAL",
            "REQUEST ID",
            "REASON",
        ],
        rows,
    );
    EXIT_OK
}
