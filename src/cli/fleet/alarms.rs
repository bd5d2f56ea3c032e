//! `sagedeck alarms ENDPOINT`: the CloudWatch alarms that watch an endpoint (metric alarms with
//! its `EndpointName` dimension, metric-math ones by their metrics' dimensions, and composite
//! alarms over them), with their states.

use clap::Args;

use crate::cli::args::GlobalArgs;
use crate::cli::exit::CmdResult;
use crate::cli::output::{outln, print_json, print_table};

/// `sagedeck alarms`.
#[derive(Debug, Args)]
pub struct AlarmsArgs {
    /// Endpoint name.
    pub endpoint: String,
}

/// Runs `alarms`.
pub async fn run(g: &GlobalArgs, args: AlarmsArgs) -> CmdResult {
    let fleet = g.connect().await?;
    let alarms = fleet.alarms_for_endpoint(&args.endpoint).await?;
    if g.json {
        return print_json(&serde_json::json!({ "endpoint": args.endpoint, "alarms": alarms }));
    }
    if alarms.is_empty() {
        return outln!("No CloudWatch alarm watches {}.", args.endpoint);
    }
    let rows = alarms
        .iter()
        .map(|a| {
            vec![
                a.name.clone(),
                a.kind.to_string(),
                a.state.clone(),
                a.watches.clone(),
                a.reason.clone(),
            ]
        })
        .collect();
    print_table(&["ALARM", "TYPE", "STATE", "WATCHES", "REASON"], rows)
}
