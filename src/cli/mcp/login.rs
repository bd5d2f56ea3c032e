//! `sagedeck tools login SERVER` and `tools logout SERVER`: an OAuth login to an HTTP MCP server
//! (the authorization URL printed, and opened in a browser when there is one), and forgetting
//! its tokens. The tokens go to the server's 0600 cache only; nothing here prints them.

use std::time::Duration;

use serde_json::json;

use super::args::{LoginArgs, LogoutArgs, RegistryArgs, load_registry};
use crate::cli::args::GlobalArgs;
use crate::cli::exit::{CmdResult, EXIT_AWS, Exit};
use crate::cli::output::{print_json, say, say_err};
use crate::mcp::ServerEntry;
use crate::mcp::oauth::{LoginError, LoginOptions, PendingLogin, cache_of, login};

fn entry_of(r: &RegistryArgs, name: &str) -> Result<ServerEntry, Exit> {
    let reg = load_registry(r)?;
    reg.get(name).cloned().ok_or_else(|| {
        Exit::usage(format!(
            "no server `{name}` in the registry (have: {})",
            reg.names().join(", ")
        ))
    })
}

fn login_exit(name: &str, e: &LoginError) -> Exit {
    let code = match e {
        LoginError::NotHttp | LoginError::StaticHeader | LoginError::NotRequired | LoginError::NoStateDir => {
            crate::cli::exit::EXIT_USAGE
        }
        _ => EXIT_AWS,
    };
    Exit::new(code, format!("{name}: login failed: {e}"))
}

/// Runs `tools login`: prints the URL to open (stdout, so a script can follow it), waits for the
/// redirect, and says until when the token is valid.
pub async fn run_login(g: &GlobalArgs, args: LoginArgs) -> CmdResult {
    let entry = entry_of(&args.registry, &args.server)?;
    let opts = LoginOptions {
        scopes: args.scopes.clone(),
    };
    let pending = PendingLogin::begin(&entry, &opts)
        .await
        .map_err(|e| login_exit(&entry.name, &e))?;
    let opened = login::hand_over(&entry, pending.url(), !args.no_browser);
    say_err(format!(
        "sagedeck: {}: {} this URL to log in; waiting for the redirect (Ctrl-C stops):",
        entry.name,
        if opened { "opened a browser at" } else { "open" }
    ));
    say(pending.url())?;
    let wait = Duration::from_secs_f64(if args.wait.is_finite() && args.wait > 0.0 {
        args.wait
    } else {
        1.0
    });
    let done = tokio::select! {
        r = pending.finish(wait) => r,
        _ = tokio::signal::ctrl_c() => return Err(Exit::new(130, format!("{}: login stopped", entry.name))),
    };
    let result = done.map_err(|e| login_exit(&entry.name, &e))?;
    if g.json {
        print_json(&json!({"server": entry.name, "auth": result.state}))?;
    }
    say_err(format!(
        "sagedeck: {}: logged in · {}",
        entry.name,
        result.state.label()
    ));
    Ok(())
}

/// Runs `tools logout`: deletes the server's token cache.
pub async fn run_logout(_g: &GlobalArgs, args: LogoutArgs) -> CmdResult {
    let entry = entry_of(&args.registry, &args.server)?;
    let Some(cache) = cache_of(&entry) else {
        return Err(Exit::usage(format!(
            "{}: only streamable HTTP servers log in with OAuth",
            entry.name
        )));
    };
    match cache.remove() {
        Ok(true) => say_err(format!(
            "sagedeck: {}: logged out (its tokens were deleted)",
            entry.name
        )),
        Ok(false) => say_err(format!("sagedeck: {}: was not logged in", entry.name)),
        Err(e) => {
            return Err(Exit::new(
                EXIT_AWS,
                format!("{}: cannot delete {}: {e}", entry.name, cache.path().display()),
            ));
        }
    }
    Ok(())
}
