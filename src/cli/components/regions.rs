//! `sagedeck components --regions R1,R2 [--profiles P1,P2 | --fleet NAME]`: the inference
//! components of every profile × region as one listing, with PROFILE and REGION columns, as
//! `endpoints --regions` lists endpoints; a pair that fails is named on stderr (exit 3) and hides
//! nothing else.

use serde::Serialize;
use serde_json::json;

use crate::aws::components::ComponentFilter;
use crate::aws::components::inventory::Component;
use crate::aws::components::regions::{RegionComponentsOutcome, multi_components};
use crate::aws::endpoints::multi::targets;
use crate::cli::args::GlobalArgs;
use crate::cli::components::args::ComponentsArgs;
use crate::cli::components::view;
use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::cli::fleet::inventory::{EndpointsArgs, config, resolve};
use crate::cli::output::{print_json, print_table};

/// Whether the listing spans profiles or regions.
pub fn wanted(args: &ComponentsArgs) -> bool {
    !args.regions.is_empty() || !args.profiles.is_empty() || args.fleet.is_some()
}

#[derive(Serialize)]
struct Row<'a> {
    profile: &'a str,
    region: &'a str,
    #[serde(flatten)]
    component: &'a Component,
}

/// Lists the components of every profile × region.
pub async fn list(g: &GlobalArgs, args: &ComponentsArgs, filter: ComponentFilter) -> CmdResult {
    let conf = config();
    let set = EndpointsArgs {
        concurrency: 8,
        name_contains: None,
        regions: args.regions.clone(),
        profiles: args.profiles.clone(),
        fleet: args.fleet.clone(),
        kind: None,
        control_plane_budget: None,
    };
    let (profiles, regions) = resolve(g, &set, &conf).map_err(Exit::usage)?;
    let all = multi_components(&targets(&profiles, &regions), &g.aws_options(), &filter).await;
    if g.json {
        let components: Vec<Row> = all
            .components()
            .map(|(r, c)| Row {
                profile: &r.profile,
                region: &r.region,
                component: c,
            })
            .collect();
        let regions: Vec<serde_json::Value> = all
            .regions
            .iter()
            .map(|r| match &r.outcome {
                RegionComponentsOutcome::Ok { components, api_calls } => json!({
                    "profile": r.profile, "region": r.region, "state": "ok",
                    "components": components.len(), "api_calls": api_calls,
                }),
                RegionComponentsOutcome::Failed { error } => json!({
                    "profile": r.profile, "region": r.region, "state": "failed", "error": error.to_string(),
                }),
            })
            .collect();
        print_json(&json!({"components": components, "regions": regions, "elapsed_ms": all.elapsed_ms}))?;
    } else {
        let rows = all
            .components()
            .map(|(r, c)| [vec![r.profile.clone(), r.region.clone()], view::row(c)].concat())
            .collect();
        let mut headers = vec!["PROFILE", "REGION"];
        headers.extend(view::HEADERS);
        print_table(&headers, rows)?;
    }
    let mut failed = false;
    for r in &all.regions {
        if let RegionComponentsOutcome::Failed { error } = &r.outcome {
            eprintln!("sagedeck: could not list {}/{}: {error}", r.profile, r.region);
            failed = true;
        }
    }
    if failed { Err(Exit::code(EXIT_AWS)) } else { Ok(()) }
}
