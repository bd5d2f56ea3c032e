//! `sagedeck alarms ENDPOINT`: the CloudWatch alarms that watch an endpoint (metric alarms with
//! its `EndpointName` dimension, and composite alarms over them), with their states.

use clap::Args;

use super::output::{print_json, print_table};
use super::{EXIT_OK, GlobalArgs, report};

/// `sagedeck alarms`.
#[derive(Debug, Args)]
pub struct AlarmsArgs {
    /// Endpoint name.
    pub endpoint: String,
}

/// Runs `alarms`.
pub async fn run(g: &GlobalArgs, args: AlarmsArgs) -> i32 {
    let fleet = match g.connect().await {
        Ok(f) => f,
        Err(code) => return code,
    };
    let alarms = match fleet.alarms_for_endpoint(&args.endpoint).await {
        Ok(a) => a,
        Err(e) => return report(&e),
    };
    if g.json {
        print_json(&serde_json::json!({ "endpoint": args.endpoint, "alarms": alarms }));
        return EXIT_OK;
    }
    if alarms.is_empty() {
        println!("No CloudWatch alarm watches {}.", args.endpoint);
        return EXIT_OK;
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
    print_table(&["ALARM", "TYPE", "STATE", "WATCHES", "REASON"], rows);
    EXIT_OK
}
