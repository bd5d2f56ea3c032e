//! `sagedeck endpoints --regions R1,R2 --profiles P1,P2` (or `--fleet NAME` from the config's
//! `[fleets]`): one inventory across accounts and regions, with profile, account and region
//! columns; a pair that fails is one FAILED row with its reason, the others still show; each
//! row says whether its profile is read-only (`[profiles.P] read_only = true`). The arguments
//! of `endpoints` live here, where both forms read them.

use std::time::Duration;

use clap::Args;
use serde::Serialize;

use super::view::instances_text;
use crate::aws::endpoints::inventory::{EndpointInfo, InventoryOptions};
use crate::aws::endpoints::multi::{MultiInventory, ReadInventory, RegionOutcome, multi_inventory_with, targets};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::cli::output::{print_json, print_table, weight};
use crate::format::time_text;
use crate::tui::config::ConfigFile;

/// `sagedeck endpoints`.
#[derive(Debug, Args)]
pub struct EndpointsArgs {
    /// Describe calls in flight at once.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Only endpoints whose name contains this (case-insensitive).
    #[arg(long)]
    pub name_contains: Option<String>,
    /// Only endpoints of this kind: real-time, multi-model, components, serverless (provisioned
    /// or not), serverless-provisioned, async, or shadow (those with shadow variants).
    #[arg(long)]
    pub kind: Option<String>,
    /// List these regions as one inventory (with region and account columns).
    #[arg(long, value_delimiter = ',')]
    pub regions: Vec<String>,
    /// List these profiles (accounts) as one inventory, each in `--regions` (or its own region).
    #[arg(long, value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// A `[fleets.NAME]` set of profiles × regions from config.toml.
    #[arg(long)]
    pub fleet: Option<String>,
    /// Control-plane calls per second per account and region the listing may make (default:
    /// config `[refresh] control_plane_calls_per_second`, else 10).
    #[arg(long, value_name = "CALLS_PER_SEC", value_parser = crate::cli::args::positive_rate)]
    pub control_plane_budget: Option<f64>,
}

impl EndpointsArgs {
    /// Whether `--name-contains` and `--kind` keep this endpoint.
    pub fn keeps(&self, e: &EndpointInfo) -> bool {
        let named = self
            .name_contains
            .as_ref()
            .is_none_or(|f| e.name.to_ascii_lowercase().contains(&f.to_ascii_lowercase()));
        let of_kind = self
            .kind
            .as_deref()
            .is_none_or(|k| e.kind.answers_to(k) || (k.eq_ignore_ascii_case("shadow") && e.shape.has_shadow()));
        named && of_kind
    }

    /// The control-plane budget per account and region: the flag, else `[refresh]`, else the
    /// default.
    pub fn budget(&self, conf: &ConfigFile) -> f64 {
        let file = conf.settings.refresh.and_then(|r| r.control_plane_calls_per_second);
        self.control_plane_budget
            .or(file)
            .unwrap_or(crate::aws::budget::DEFAULT_CALLS_PER_SECOND)
    }
}

/// Says on stderr that SageMaker throttled the listing of `pair`, and what became of it.
pub fn say_throttled(pair: &str, inv: &crate::aws::endpoints::inventory::Inventory, budget: f64) {
    if inv.throttled == 0 {
        return;
    }
    let left = match inv.pending.len() {
        0 => "every endpoint described".to_string(),
        n => format!("{n} endpoints still not described (listed only): run again later"),
    };
    eprintln!(
        "sagedeck: throttled: SageMaker throttled {} calls in {pair}; the listing slowed down (budget {budget} calls/s) and took {:.1}s; {left}",
        inv.throttled,
        inv.elapsed_ms as f64 / 1000.0
    );
}

#[derive(Serialize)]
struct Row<'a> {
    profile: &'a str,
    region: &'a str,
    account: Option<&'a str>,
    read_only: bool,
    #[serde(flatten)]
    endpoint: &'a EndpointInfo,
}

#[derive(Serialize)]
struct RegionRow<'a> {
    profile: &'a str,
    region: &'a str,
    account: Option<&'a str>,
    read_only: bool,
    state: &'static str,
    endpoints: usize,
    api_calls: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The config file, or the defaults when it cannot be read.
pub fn config() -> ConfigFile {
    crate::local::dirs::config_dir()
        .map(|d| d.join("config.toml"))
        .and_then(|p| ConfigFile::load(&p).ok())
        .unwrap_or_default()
}

/// Profiles and regions from the flags, the named fleet, `--profile`/`--region` and the default.
pub fn resolve(g: &GlobalArgs, args: &EndpointsArgs, conf: &ConfigFile) -> Result<(Vec<String>, Vec<String>), String> {
    let (mut profiles, mut regions) = (args.profiles.clone(), args.regions.clone());
    if let Some(name) = &args.fleet {
        let set = conf.fleets.get(name).ok_or_else(|| {
            let known: Vec<&str> = conf.fleets.keys().map(String::as_str).collect();
            format!(
                "no fleet {name:?} in config.toml [fleets] (known: {})",
                known.join(", ")
            )
        })?;
        profiles.extend(set.profiles.iter().cloned());
        regions.extend(set.regions.iter().cloned());
    }
    if profiles.is_empty()
        && let Some(p) = &g.profile
    {
        profiles.push(p.clone());
    }
    if regions.is_empty() {
        let r = g.region.clone().or_else(|| std::env::var("AWS_REGION").ok());
        regions.push(r.ok_or("--profiles needs --regions (or --region / AWS_REGION)")?);
    }
    if let Some(bad) = regions.iter().find(|r| !is_region_name(r)) {
        return Err(format!(
            "--regions {bad:?} is not a region name (like us-east-1 or eu-west-2)"
        ));
    }
    Ok((first_of_each(profiles), first_of_each(regions)))
}

/// Whether `name` reads as an AWS region: `us-east-1`, `ap-southeast-2`, `us-gov-west-1`.
fn is_region_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split('-').collect();
    let lower = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase());
    match parts.as_slice() {
        [area, middle @ .., number] if parts.len() >= 3 => {
            (2..=4).contains(&area.len())
                && lower(area)
                && middle.iter().all(lower)
                && (1..=2).contains(&number.len())
                && number.bytes().all(|b| b.is_ascii_digit())
        }
        _ => false,
    }
}

/// The names in order, each once.
fn first_of_each(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

fn print_human(inv: &MultiInventory, read_only: &dyn Fn(&str) -> bool) -> CmdResult {
    let mut rows = Vec::new();
    for r in &inv.regions {
        let account = r.account.clone().unwrap_or_else(|| "-".into());
        let ro = if read_only(&r.profile) { "RO" } else { "" };
        match &r.outcome {
            RegionOutcome::Ok { inventory } => rows.extend(inventory.endpoints.iter().map(|e| {
                let variants: Vec<String> = e
                    .variants
                    .iter()
                    .map(|v| format!("{}:{}", v.name, weight(v.current_weight)))
                    .collect();
                vec![
                    account.clone(),
                    r.region.clone(),
                    format!("{}{}", r.profile, if ro.is_empty() { "" } else { " (RO)" }),
                    e.name.clone(),
                    e.status.clone(),
                    variants.join(" "),
                    instances_text(e),
                    time_text(e.modified),
                ]
            })),
            RegionOutcome::Failed { error } => rows.push(vec![
                account,
                r.region.clone(),
                r.profile.clone(),
                "-".into(),
                "FAILED".into(),
                error.to_string(),
                String::new(),
                String::new(),
            ]),
        }
    }
    print_table(
        &[
            "ACCOUNT",
            "REGION",
            "PROFILE",
            "NAME",
            "STATUS",
            "VARIANTS",
            "INSTANCES",
            "MODIFIED",
        ],
        rows,
    )
}

/// Runs the multi-region, multi-account `endpoints`.
pub async fn run(g: &GlobalArgs, args: &EndpointsArgs) -> CmdResult {
    let conf = config();
    let (profiles, regions) = resolve(g, args, &conf).map_err(Exit::usage)?;
    let read_only = |p: &str| conf.for_profile(p).read_only.unwrap_or(false);
    let opts = InventoryOptions {
        concurrency: args.concurrency.max(1),
        call_deadline: Duration::from_secs(15),
        autoscaling: true,
    };
    let budget = args.budget(&conf);
    let read = |_: usize| -> ReadInventory {
        use futures_util::FutureExt;
        Box::new(move |f: crate::aws::Fleet| async move { f.with_budget(budget).inventory(opts).await }.boxed())
    };
    let mut inv = multi_inventory_with(&targets(&profiles, &regions), &g.aws_options(), &[], read).await;
    for r in &mut inv.regions {
        if let RegionOutcome::Ok { inventory } = &mut r.outcome {
            say_throttled(&format!("{}/{}", r.profile, r.region), inventory, budget);
            inventory.endpoints.retain(|e| args.keeps(e));
        }
    }
    if g.json {
        let endpoints: Vec<Row> = inv
            .endpoints()
            .map(|(r, e)| Row {
                profile: &r.profile,
                region: &r.region,
                account: r.account.as_deref(),
                read_only: read_only(&r.profile),
                endpoint: e,
            })
            .collect();
        let regions: Vec<RegionRow> = inv
            .regions
            .iter()
            .map(|r| region_row(r, read_only(&r.profile)))
            .collect();
        print_json(&serde_json::json!({
            "endpoints": endpoints, "regions": regions, "api_calls": inv.api_calls, "elapsed_ms": inv.elapsed_ms,
        }))?;
    } else {
        print_human(&inv, &read_only)?;
    }
    let failed: Vec<String> = inv
        .regions
        .iter()
        .filter_map(|r| match &r.outcome {
            RegionOutcome::Failed { error } => Some(format!("{}/{}: {error}", r.profile, r.region)),
            RegionOutcome::Ok { .. } => None,
        })
        .collect();
    for f in &failed {
        eprintln!("sagedeck: could not list {f}");
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Exit::code(EXIT_AWS))
    }
}

fn region_row(r: &crate::aws::endpoints::multi::RegionInventory, read_only: bool) -> RegionRow<'_> {
    let (state, endpoints, api_calls, error) = match &r.outcome {
        RegionOutcome::Ok { inventory } => ("ok", inventory.endpoints.len(), inventory.api_calls, None),
        RegionOutcome::Failed { error } => ("failed", 0, 0, Some(error.to_string())),
    };
    RegionRow {
        profile: &r.profile,
        region: &r.region,
        account: r.account.as_deref(),
        read_only,
        state,
        endpoints,
        api_calls,
        error,
    }
}
