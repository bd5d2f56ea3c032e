//! `sagedeck timeline ENDPOINT [--since 6h]`: what changed, merged by time — endpoint status
//! and deployments, the audit log's weight changes and promotion steps (with principal),
//! scaling activities. Failures are marked `!`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Args;
use serde_json::json;

use crate::aws::change::audit::Audit;
use crate::cli::args::{GlobalArgs, parse_since};
use crate::cli::exit::CmdResult;
use crate::cli::output::{print_json, print_table};
use crate::format::time_text;

/// `sagedeck timeline ENDPOINT`.
#[derive(Debug, Args)]
pub struct TimelineArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// How far back: `30m`, `6h`, `2d` (1 minute to 15 days).
    #[arg(long, default_value = "6h", value_parser = parse_since)]
    pub since: Duration,
}

/// Runs `timeline`.
pub async fn run(g: &GlobalArgs, args: TimelineArgs) -> CmdResult {
    let fleet = g.connect().await?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let since = now - args.since.as_secs_f64();
    // An unreadable or absent audit log only loses that source; say so.
    let audit = match g.audit_path().map(|p| Audit::read(&p, Some(since))) {
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            eprintln!("sagedeck: warning: audit log {} not read: {}", e.path, e.message);
            Vec::new()
        }
        None => Vec::new(),
    };
    let events = fleet.timeline(&args.endpoint, since, &audit).await?;
    if g.json {
        return print_json(&json!({ "endpoint": args.endpoint, "since": since, "events": events }));
    }
    let rows = events
        .iter()
        .map(|e| {
            vec![
                time_text(e.epoch),
                if e.failed { "!".into() } else { String::new() },
                e.kind.clone(),
                e.principal.clone().unwrap_or_else(|| "-".into()),
                e.summary.clone(),
            ]
        })
        .collect();
    print_table(&["TIME", "", "KIND", "WHO", "WHAT"], rows)
}
