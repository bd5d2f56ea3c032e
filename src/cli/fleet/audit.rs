//! `sagedeck audit [--since 1h] [--json]`: the audit log of mutations, oldest first;
//! `--log-group G`: the team's audit trail in CloudWatch Logs instead (FilterLogEvents), every
//! principal's and host's records (a running plan's heartbeats left out).

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
    /// Read the team's audit trail in this CloudWatch Logs group (every principal and host;
    /// the AWS options say where), not the file.
    #[arg(long, value_name = "GROUP")]
    pub log_group: Option<String>,
}

/// The most FilterLogEvents pages `audit --log-group` reads.
const MAX_PAGES: usize = 100;

/// Runs `audit --log-group`: the team's trail, oldest first (the last 24 h without `--since`).
async fn run_team(g: &GlobalArgs, group: &str, since: Option<Duration>) -> CmdResult {
    let fleet = g.connect().await?;
    let since = crate::format::now_epoch() - since.map_or(86_400.0, |d| d.as_secs_f64());
    let mut records = fleet.read_team_trail(group, since, MAX_PAGES).await?;
    records.retain(|t| !crate::aws::promote::announce::is_heartbeat(&t.record));
    if g.json {
        return print_json(&json!({ "log_group": group, "records": records }));
    }
    if records.is_empty() {
        eprintln!("sagedeck: no audit records in the log group {group}");
        return Ok(());
    }
    let rows = records
        .iter()
        .map(|t| {
            let r = &t.record;
            vec![
                r.time.clone(),
                t.stream.clone(),
                phase_text(r.phase),
                r.action.clone(),
                r.target.clone(),
                r.result.clone().unwrap_or_else(|| "-".into()),
                r.reason.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    print_table(
        &["TIME", "WHO@HOST", "PHASE", "ACTION", "TARGET", "RESULT", "REASON"],
        rows,
    )
}

fn phase_text(p: AuditPhase) -> String {
    match p {
        AuditPhase::Intent => "intent".to_string(),
        AuditPhase::Result => "result".to_string(),
    }
}

/// Runs `audit`.
pub async fn run(g: &GlobalArgs, args: AuditArgs) -> CmdResult {
    if let Some(group) = &args.log_group {
        return run_team(g, group, args.since).await;
    }
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
                phase_text(r.phase),
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
