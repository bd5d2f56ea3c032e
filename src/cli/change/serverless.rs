//! `sagedeck serverless ENDPOINT [--variant V] [--max-concurrency N] [--provisioned N] [--yes]
//! [--wait]`: a serverless variant's memory and concurrency, or a change of its max and
//! provisioned concurrency in place (compare-and-swap against what was read at the start,
//! audited first, before → after shown).

use std::time::Duration;

use clap::Args;
use serde_json::json;

use crate::aws::change::guard::GuardError;
use crate::aws::change::serverless::{ServerlessPlan, plan_serverless};
use crate::aws::endpoints::inventory::EndpointInfo;
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, Exit};
use crate::cli::output::{approve, outln, print_json, print_table};

/// `sagedeck serverless`.
#[derive(Debug, Args)]
pub struct ServerlessArgs {
    /// Endpoint name.
    pub endpoint: String,
    /// The serverless variant (needed when the endpoint has several).
    #[arg(long)]
    pub variant: Option<String>,
    /// New MaxConcurrency (1–200).
    #[arg(long, value_name = "N")]
    pub max_concurrency: Option<i32>,
    /// New ProvisionedConcurrency (1–200, at most the max concurrency).
    #[arg(long, value_name = "N")]
    pub provisioned: Option<i32>,
    /// Apply without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Follow the endpoint through Updating until InService.
    #[arg(long)]
    pub wait: bool,
    /// Give up waiting after this many seconds.
    #[arg(long, default_value_t = 900)]
    pub wait_timeout: u64,
}

impl ServerlessArgs {
    /// Whether the command changes something.
    pub fn is_change(&self) -> bool {
        self.max_concurrency.is_some() || self.provisioned.is_some()
    }
}

/// Prints the serverless variants of an endpoint.
fn print_serverless(info: &EndpointInfo) -> CmdResult {
    let rows = info
        .variants
        .iter()
        .filter_map(|v| {
            let s = v.serverless.as_ref()?;
            let opt = |n: Option<i32>| n.map_or("-".to_string(), |n| n.to_string());
            Some(vec![
                v.name.clone(),
                format!("{} MB", s.memory_mb),
                format!("{} → {}", s.max_concurrency, s.desired_max_concurrency),
                format!("{} → {}", opt(s.provisioned), opt(s.desired_provisioned)),
            ])
        })
        .collect();
    print_table(&["VARIANT", "MEMORY", "MAX CONCURRENCY", "PROVISIONED"], rows)
}

/// Runs `serverless`.
pub async fn run(g: &GlobalArgs, args: ServerlessArgs) -> CmdResult {
    let (fleet, info) = g.connect_to(&args.endpoint).await?;
    if !args.is_change() {
        if info.variants.iter().all(|v| v.serverless.is_none()) {
            return Err(Exit::usage(format!("endpoint {} has no serverless variant", info.name)));
        }
        if g.json {
            return print_json(&json!({ "endpoint": info.name, "status": info.status, "variants": info.variants }));
        }
        outln!("{}  {}", info.name, info.status)?;
        return print_serverless(&info);
    }
    let plan =
        plan_serverless(&info, args.variant.as_deref(), args.max_concurrency, args.provisioned).map_err(Exit::usage)?;
    if info.status != "InService" {
        let (endpoint, status) = (info.name.clone(), info.status.clone());
        return Err(GuardError::NotInService { endpoint, status }.into());
    }
    let audited = g.audited(&fleet).await?;
    if !g.json {
        outln!("{}", plan.text())?;
    }
    approve(args.yes, &format!("Apply this change to {}?", plan.endpoint), "apply")?;
    let applied = fleet
        .apply_serverless_guarded(&plan, &audited, "serverless.set", g.reason.clone())
        .await
        .map_err(|e| refused(g, &plan, e))?;
    if let Some(w) = &applied.audit_warning {
        eprintln!("sagedeck: warning: the change was sent but its result could not be logged: {w}");
    }
    let finished = if args.wait {
        let timeout = Duration::from_secs(args.wait_timeout);
        Some(
            fleet
                .wait_in_service(&plan.endpoint, timeout, Duration::from_secs(2), |_| {})
                .await?,
        )
    } else {
        if !g.json {
            eprintln!("sagedeck: {} is Updating", plan.endpoint);
        }
        None
    };
    if g.json {
        return print_json(&json!({
            "plan": plan,
            "applied": true,
            "request_id": applied.request_id,
            "final": finished,
        }));
    }
    match finished {
        Some(i) => {
            outln!("{} is InService", i.name)?;
            print_serverless(&i)
        }
        None => Ok(()),
    }
}

/// The exit of a refused change (with `--json`, the differences on stdout first).
fn refused(g: &GlobalArgs, plan: &ServerlessPlan, e: GuardError) -> Exit {
    if g.json
        && let GuardError::Changed { differences, .. } | GuardError::LostRace { differences, .. } = &e
        && let Err(closed) = print_json(&json!({ "plan": plan, "applied": false, "differences": differences }))
    {
        return closed;
    }
    e.into()
}
