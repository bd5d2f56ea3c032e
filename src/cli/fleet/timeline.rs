//! `sagedeck timeline ENDPOINT [--since 6h]`: what changed, merged by time — endpoint status
//! and deployments, the audit log's weight changes and promotion steps (with principal),
//! scaling activities, alarm state changes, and CloudTrail's record of everyone's calls (read
//! to the window's start, at most [`MAX_PAGES`] pages, paced at 2 calls/s). Failures are
//! marked `!`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Args;
use serde_json::json;

use crate::aws::change::audit::Audit;
use crate::aws::observe::timeline::merge_trail;
use crate::aws::trail::{DELIVERY_NOTE, TrailCache};
use crate::cli::args::{GlobalArgs, parse_since};
use crate::cli::exit::CmdResult;
use crate::cli::output::{print_json, print_table};
use crate::format::time_text;

/// The most LookupEvents pages one `timeline` reads (50 events each).
pub const MAX_PAGES: usize = 40;

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
    let mut events = fleet.timeline(&args.endpoint, since, &audit).await?;
    let cache = TrailCache::default();
    let trail = fleet
        .trail_all(&cache, &args.endpoint, since, now, MAX_PAGES, |wait| {
            eprintln!(
                "sagedeck: CloudTrail throttled LookupEvents; backing off {}s",
                wait.as_secs().max(1)
            );
        })
        .await;
    merge_trail(&mut events, &trail.events, &audit);
    if g.json {
        return print_json(&json!({
            "endpoint": args.endpoint,
            "since": since,
            "events": events,
            "cloudtrail": trail.status,
            "note": DELIVERY_NOTE,
        }));
    }
    if let Some(e) = &trail.status.error {
        eprintln!("sagedeck: warning: CloudTrail not read: {e}");
    } else if trail.status.pending > 0 {
        eprintln!(
            "sagedeck: CloudTrail read {MAX_PAGES} pages; older events of the window were left unread (narrow --since)"
        );
    }
    eprintln!("sagedeck: {DELIVERY_NOTE}");
    let rows = events
        .iter()
        .map(|e| {
            vec![
                time_text(e.epoch),
                if e.failed { "!".into() } else { String::new() },
                e.kind.clone(),
                e.principal.clone().unwrap_or_else(|| "-".into()),
                match &e.origin {
                    Some(o) => format!("{} ({o})", e.summary),
                    None => e.summary.clone(),
                },
            ]
        })
        .collect();
    print_table(&["TIME", "", "KIND", "WHO", "WHAT"], rows)
}
