//! The profiles named in the shared AWS files: `~/.aws/config` (`AWS_CONFIG_FILE`; sections
//! `[default]` and `[profile NAME]`) and `~/.aws/credentials` (`AWS_SHARED_CREDENTIALS_FILE`;
//! sections `[NAME]`). A named profile that is in neither does not exist: the SDK's default
//! chain would still find the environment's credentials and list another account under its name.

use std::path::PathBuf;

/// A shared file: the variable's path (`~/` expanded), else `~/.aws/NAME`.
fn shared_file(var: &str, name: &str) -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match std::env::var(var).ok().filter(|v| !v.is_empty()) {
        Some(v) => match v.strip_prefix("~/") {
            Some(rest) => home.map(|h| h.join(rest)),
            None => Some(PathBuf::from(v)),
        },
        None => home.map(|h| h.join(".aws").join(name)),
    }
}

/// The profile names of one file's text (`config`: `[profile NAME]` and `[default]`;
/// credentials: `[NAME]`).
fn sections(text: &str, config: bool) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix('[')?.strip_suffix(']').map(str::trim))
        .filter_map(|s| {
            if !config || s == "default" {
                return Some(s.to_string());
            }
            let rest = s.strip_prefix("profile")?;
            rest.starts_with(char::is_whitespace).then(|| rest.trim().to_string())
        })
        .collect()
}

/// Every profile named in the shared config and credentials files.
pub fn profile_names() -> Vec<String> {
    let mut out = Vec::new();
    for (var, name, config) in [
        ("AWS_CONFIG_FILE", "config", true),
        ("AWS_SHARED_CREDENTIALS_FILE", "credentials", false),
    ] {
        if let Some(text) = shared_file(var, name).and_then(|p| std::fs::read_to_string(p).ok()) {
            out.extend(sections(&text, config));
        }
    }
    out
}

/// Why a named profile cannot be used, or None when the shared files name it.
pub fn missing_profile(name: &str) -> Option<String> {
    (!profile_names().iter().any(|p| p == name)).then(|| {
        format!(
            "no profile {name} in the AWS config or credentials files: no credentials for it (the environment's are not borrowed)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_name_profiles_as_each_file_does() {
        let config = "[default]\nregion = us-east-1\n[profile prod]\n[sso-session corp]\n[profile  dev ]\n[ghost]\n";
        assert_eq!(sections(config, true), ["default", "prod", "dev"]);
        assert_eq!(sections("[ci]\naws_access_key_id = x\n", false), ["ci"]);
    }
}
