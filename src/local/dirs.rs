//! Where sagedeck keeps its files, on every platform the same way (the XDG base directories,
//! as the AWS CLI's users expect of a terminal tool): configuration in `$XDG_CONFIG_HOME/sagedeck`
//! (else `~/.config/sagedeck`): config.toml, mcp.json, themes/, warmset.toml; state in
//! `$XDG_STATE_HOME/sagedeck` (else `~/.local/state/sagedeck`): the audit log, promotion plans,
//! remembered tool arguments, the log file. Relative XDG values are ignored, as the spec says.

use std::path::PathBuf;

fn base(var: &str, fallback: &str) -> Option<PathBuf> {
    if let Some(x) = std::env::var_os(var).map(PathBuf::from)
        && x.is_absolute()
    {
        return Some(x.join("sagedeck"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(fallback).join("sagedeck"))
}

/// The configuration directory.
pub fn config_dir() -> Option<PathBuf> {
    base("XDG_CONFIG_HOME", ".config")
}

/// The state directory.
pub fn state_dir() -> Option<PathBuf> {
    base("XDG_STATE_HOME", ".local/state")
}
