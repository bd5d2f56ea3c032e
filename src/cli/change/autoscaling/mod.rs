//! `sagedeck autoscaling ENDPOINT`: scalable targets, policies and activities (`show.rs`);
//! `--check` lints them and `--check-request FILE.json` lints a PutScalingPolicy request before
//! anyone sends it (exit 8 when something is wrong); `--variant V` with `--min/--max`,
//! `--target-invocations`, `--target-p99-ms`, cooldowns, `--remove-policy` or `--instances`
//! changes them (`apply.rs`); `--inference-component IC` does the same for a component, its
//! `--check` the scale-to-zero doctor (`component.rs`).

pub mod apply;
pub mod args;
pub mod component;
pub mod show;

use crate::cli::args::GlobalArgs;
use crate::cli::exit::CmdResult;
use args::AutoscalingArgs;

/// Runs `autoscaling`: a change, a check, or what is there.
pub async fn run(g: &GlobalArgs, args: AutoscalingArgs) -> CmdResult {
    if args.inference_component.is_some() {
        return component::run(g, args).await;
    }
    if args.is_change() {
        return apply::run(g, args).await;
    }
    if args.check || args.check_request.is_some() {
        return show::run_check(g, &args).await;
    }
    show::run(g, args).await
}
