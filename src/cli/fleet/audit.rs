//! `sagedeck audit [--since 1h] [--json]`: the audit log of mutations, oldest first.

use std::time::Duration;

use clap::Args;
use serde_json::json;

use crate::aws::change::audit::{Audit, AuditPhase};
use crate::cli::args::{GlobalArgs, parse_since};
use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::cli::output::{print_json, print_table};

/// `sagedeck audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Only records of the last DURATION (`90s`, `15m`, `1h`, `2d`).
    #[arg(long, value_parser = parse_since)]
    pub since: Option<Duration>,
}

/// Runs `audit`.
pub async fn run(g: &GlobalArgs, args: AuditArgs) -> CmdResult {
    let Some(path) = g.audit_path() else {
        return Err(Exit::usage(
            "no audit log location (HOME is not set); pass --audit-file PATH",
        ));
    };
    let since = args.since.map(|d| crate::format::now_epoch() - d.as_secs_f64());
    let records = Audit::read(&path, since)
        .map_err(|e| Exit::new(EXIT_AWS, format!("cannot read the audit log {}: {}", e.path, e.message)))?;
    if g.json {
        return print_json(&json!({ "path": path, "records": records }));
    }
    if records.is_empty() {
        eprintln!("sagedeck: no audit records in {}", path.display());
        return Ok(());
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
    )
}
