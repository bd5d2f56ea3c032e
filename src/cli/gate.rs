//! The CLI's read-only gate: which commands change something, and whether they may run.

use super::args::GlobalArgs;
use super::command::Command;
use super::exit::{EXIT_READ_ONLY, Exit};
use super::mcp::tools::ToolsCommand;

/// Why read-only refuses `what` (exit 5).
pub fn refuse_read_only(what: &str) -> Exit {
    Exit::new(
        EXIT_READ_ONLY,
        format!(
            "refused: {what} changes things and read-only is on (--read-only, or read_only = true for this profile in config.toml); nothing was sent"
        ),
    )
}

/// The mutation a command would make, when it makes one (read-only refuses those).
pub fn mutation_of(cmd: &Command) -> Option<&'static str> {
    match cmd {
        Command::Weights(a) if !a.set.is_empty() || !a.instances.is_empty() => Some("weights --set/--instances"),
        Command::Serverless(a) if a.is_change() => Some("serverless --max-concurrency/--provisioned"),
        Command::Promote(a) if !a.status => Some("promote"),
        Command::Shadow(a) if a.promote => Some("shadow --promote"),
        Command::Deploy(a) if !a.watch && !a.dry_run => Some("deploy"),
        Command::Prewarm(_) => Some("prewarm"),
        Command::Components(a) if a.wake.is_some() => Some("components --wake"),
        Command::Components(a) if a.is_change() => Some("components --set-copies/--update"),
        Command::Autoscaling(a) if a.is_change() => Some("autoscaling changes"),
        Command::Invoke(_) => Some("invoke"),
        Command::InvokeAsync(_) => Some("invoke-async"),
        // A token invokes the endpoint for whoever holds it.
        Command::OpenaiEnv(_) => Some("openai-env"),
        Command::Tools(t) if matches!(t.command, ToolsCommand::Call(_)) => Some("tools call"),
        // Its tools invoke endpoints for whoever connects.
        Command::Mcp(_) => Some("mcp serve"),
        // Its LLM calls invoke an endpoint and its tool calls may change things.
        Command::Agent(a) if a.runs() => Some("agent"),
        _ => None,
    }
}

/// The CLI's one read-only gate, at command dispatch: whether `cmd` may run. A mutation is
/// refused (exit 5) under `--read-only` or the profile's `read_only = true`, and (exit 2) when
/// the config file cannot be read, since it may be what sets read-only: it fails closed. A read
/// goes on; an unreadable config file is then a warning.
pub fn gate(cmd: Option<&Command>, read_only_flag: bool, g: &GlobalArgs) -> Result<(), Exit> {
    let config = match crate::local::dirs::config_dir() {
        Some(d) => crate::tui::config::ConfigFile::load(&d.join("config.toml")),
        None => Ok(Default::default()),
    };
    let Some(what) = cmd.and_then(mutation_of) else {
        if let Err(e) = &config {
            eprintln!("sagedeck: warning: {e}; going on with the defaults (changes are refused until it is fixed)");
        }
        return Ok(());
    };
    match config {
        Err(e) => Err(Exit::usage(format!(
            "{e}; {what} refused: the file may set read-only for this profile, fix it first; nothing was sent"
        ))),
        Ok(_) if read_only_flag => Err(refuse_read_only(what)),
        Ok(f) if f.for_profile(&g.profile_name()).read_only == Some(true) => Err(refuse_read_only(what)),
        Ok(_) => Ok(()),
    }
}
