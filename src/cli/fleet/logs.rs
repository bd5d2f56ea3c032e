//! `sagedeck logs ENDPOINT [--variant V] [--since 10m] [--follow] [--filter PATTERN]`: the
//! endpoint's container logs from CloudWatch Logs, every variant's instances merged by time,
//! errors and stack traces marked (`!`, red on a terminal); `--follow` polls for new lines.

use std::io::IsTerminal;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Args;
use serde::Serialize;

use crate::aws::observe::logs::{ErrorMarker, LogFollower, LogLine, LogQuery, StreamInfo, log_group};
use crate::aws::{AwsError, Fleet};
use crate::cli::args::{GlobalArgs, interrupts, parse_since};
use crate::cli::exit::CmdResult;
use crate::cli::output::{outln, print_json};
use crate::format::parse_duration;

/// `sagedeck logs ENDPOINT`.
#[derive(Debug, Args)]
pub struct LogsArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// Only this variant's instances.
    #[arg(long)]
    pub variant: Option<String>,
    /// How far back: `90s`, `10m`, `1h`, `2d` (1 minute to 15 days).
    #[arg(long, default_value = "10m", value_parser = parse_since)]
    pub since: Duration,
    /// Keep printing new lines as they arrive (Ctrl-C stops).
    #[arg(long)]
    pub follow: bool,
    /// CloudWatch Logs filter pattern: `ERROR`, `"exact phrase"`, `?ERROR ?WARN`, `POST -ping`,
    /// `{ $.level = "ERROR" }`.
    #[arg(long)]
    pub filter: Option<String>,
    /// Time between polls in follow mode: whole seconds, 1s to 1h.
    #[arg(long, default_value = "2s", value_parser = parse_interval)]
    pub interval: Duration,
}

/// Parses `--interval`: a duration of whole seconds from 1s to 1h (0s would poll in a tight
/// loop; fractions are refused by [`parse_duration`] already).
fn parse_interval(text: &str) -> Result<Duration, String> {
    match parse_duration(text)? {
        d if (Duration::from_secs(1)..=Duration::from_secs(3600)).contains(&d) => Ok(d),
        _ => Err(format!("--interval {text}: between 1s and 1h")),
    }
}

#[derive(Serialize)]
struct LineDoc<'a> {
    #[serde(flatten)]
    line: &'a LogLine,
    variant: &'a str,
    instance: &'a str,
    error: bool,
}

#[derive(Serialize)]
struct LogsDoc<'a> {
    endpoint: &'a str,
    log_group: String,
    streams: &'a [StreamInfo],
    lines: Vec<LineDoc<'a>>,
    pages: usize,
    truncated: bool,
}

fn time_text(ms: i64) -> String {
    let dt = aws_smithy_types::DateTime::from_millis(ms);
    let text = dt
        .fmt(aws_smithy_types::date_time::Format::DateTime)
        .unwrap_or_default();
    format!(
        "{}.{:03}Z",
        text.trim_end_matches('Z').split('.').next().unwrap_or(""),
        ms.rem_euclid(1000)
    )
}

fn line_doc<'a>(line: &'a LogLine, error: bool) -> LineDoc<'a> {
    let (variant, instance) = line.stream.split_once('/').unwrap_or((&line.stream, ""));
    LineDoc {
        line,
        variant,
        instance,
        error,
    }
}

fn print_lines(lines: &[LogLine], marker: &mut ErrorMarker, json_lines: bool) -> CmdResult {
    let color = std::io::stdout().is_terminal();
    for l in lines {
        let error = marker.mark(l);
        if json_lines {
            if let Ok(s) = serde_json::to_string(&line_doc(l, error)) {
                outln!("{s}")?;
            }
            continue;
        }
        let mark = if error { "!" } else { " " };
        let (on, off) = if error && color {
            ("\x1b[31m", "\x1b[0m")
        } else {
            ("", "")
        };
        outln!(
            "{}  {}  {mark} {on}{}{off}",
            time_text(l.timestamp_ms),
            crate::format::escape_line(&l.stream),
            crate::format::escape_text(&l.message)
        )?;
    }
    Ok(())
}

fn explain(endpoint: &str, e: AwsError) -> AwsError {
    match e {
        AwsError::NotFound(m) => AwsError::NotFound(format!(
            "{m} ({} has no logs yet: the endpoint does not exist, is still being created, or its role may not write CloudWatch Logs)",
            log_group(endpoint)
        )),
        other => other,
    }
}

/// Runs `logs`.
pub async fn run(g: &GlobalArgs, args: LogsArgs) -> CmdResult {
    let fleet = g.connect().await?;
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let query = LogQuery {
        endpoint: args.endpoint.clone(),
        variant: args.variant.clone(),
        start_ms: Some(now_ms - args.since.as_millis() as i64),
        filter: args.filter.clone(),
    };
    if args.follow {
        return follow(&fleet, &args, query, g.json).await;
    }
    let streams =
        (fleet.log_streams(&args.endpoint, args.variant.as_deref()).await).map_err(|e| explain(&args.endpoint, e))?;
    let read = (fleet.log_lines(&query, &AtomicUsize::new(0)).await).map_err(|e| explain(&args.endpoint, e))?;
    let mut marker = ErrorMarker::default();
    if g.json {
        let lines = read.lines.iter().map(|l| line_doc(l, marker.mark(l))).collect();
        return print_json(&LogsDoc {
            endpoint: &args.endpoint,
            log_group: log_group(&args.endpoint),
            streams: &streams,
            lines,
            pages: read.pages,
            truncated: read.truncated,
        });
    }
    let names: Vec<&str> = streams.iter().map(|s| s.name.as_str()).collect();
    eprintln!(
        "{} · {} stream(s): {}",
        log_group(&args.endpoint),
        names.len(),
        names.join(", ")
    );
    if read.truncated {
        eprintln!(
            "sagedeck: more than {} lines: showing the newest; narrow --since or --filter",
            read.lines.len()
        );
    }
    print_lines(&read.lines, &mut marker, false)
}

/// `--follow`: polls until Ctrl-C, or until the reader of the output goes away.
async fn follow(fleet: &Fleet, args: &LogsArgs, query: LogQuery, json: bool) -> CmdResult {
    let mut follower = LogFollower::new(query);
    let mut marker = ErrorMarker::default();
    let mut stop = interrupts();
    loop {
        match follower.poll(fleet).await {
            Ok(lines) => print_lines(&lines, &mut marker, json)?,
            // A missing group may appear (endpoint being created); anything else ends.
            Err(AwsError::NotFound(_)) => {}
            Err(e) => return Err(explain(&args.endpoint, e).into()),
        }
        tokio::select! {
            _ = tokio::time::sleep(args.interval) => {}
            _ = stop.recv() => return Ok(()),
        }
    }
}
