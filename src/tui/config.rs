//! `~/.config/sagedeck/config.toml` (XDG): refresh intervals, theme, read-only, mouse, remappable
//! keys (conflicts reported at start), and per-profile overrides (`[profiles.prod] read_only =
//! true`, `theme = "prod-red"`). Command-line flags win over the file.
//!
//! ```toml
//! theme = "dark"
//! refresh_seconds = 10
//! metrics_refresh_seconds = 15
//! [keys]
//! quit = "x"
//! refresh = "R"
//! [profiles.prod]
//! read_only = true
//! theme = "prod-red"
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

/// Settings that a profile may override.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Theme name.
    pub theme: Option<String>,
    /// Refuse mutations.
    pub read_only: Option<bool>,
    /// Inventory refresh interval.
    pub refresh_seconds: Option<u64>,
    /// Metrics refresh interval.
    pub metrics_refresh_seconds: Option<u64>,
    /// Capture the mouse.
    pub mouse: Option<bool>,
    /// Defaults of `sagedeck agent` (`[agent]`, `[profiles.NAME.agent]`).
    pub agent: Option<AgentDefaults>,
}

/// Defaults of `sagedeck agent`; flags win.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentDefaults {
    /// LLM endpoint.
    pub llm: Option<String>,
    /// Request shape: `messages` or `generate`.
    pub shape: Option<String>,
    /// Chat template: `chatml`, `llama3`, `mistral` or a tokenizer_config.json path.
    pub template: Option<String>,
    /// MCP servers (registry names).
    #[serde(default)]
    pub servers: Vec<String>,
    /// Approval mode: `auto`, `ask` or `never`.
    pub approve: Option<String>,
}

/// The whole file.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Global settings.
    #[serde(flatten)]
    pub settings: Settings,
    /// Key remapping: action → key.
    #[serde(default)]
    pub keys: BTreeMap<String, String>,
    /// Per-profile overrides.
    #[serde(default)]
    pub profiles: BTreeMap<String, Settings>,
}

/// The remappable actions and their default keys.
pub const ACTIONS: &[(&str, char)] = &[
    ("quit", 'q'),
    ("refresh", 'r'),
    ("help", '?'),
    ("command", ':'),
    ("errors", 'e'),
    ("copy", 'y'),
    ("describe", 'd'),
    ("filter", '/'),
    ("sort", 's'),
    ("weights", 'w'),
    ("prewarm", 'p'),
];

impl ConfigFile {
    /// Reads the file; a missing file is the default configuration.
    pub fn load(path: &Path) -> Result<ConfigFile, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| format!("config {}: {}", path.display(), e.message())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
            Err(e) => Err(format!("config {}: {e}", path.display())),
        }
    }

    /// The settings in force for a profile: the profile's overrides over the global ones.
    pub fn for_profile(&self, profile: &str) -> Settings {
        let mut s = self.settings.clone();
        if let Some(p) = self.profiles.get(profile) {
            s.theme = p.theme.clone().or(s.theme);
            s.read_only = p.read_only.or(s.read_only);
            s.refresh_seconds = p.refresh_seconds.or(s.refresh_seconds);
            s.metrics_refresh_seconds = p.metrics_refresh_seconds.or(s.metrics_refresh_seconds);
            s.mouse = p.mouse.or(s.mouse);
            s.agent = p.agent.clone().or(s.agent);
        }
        s
    }
}

/// Translates remapped keys to the keys the console's handlers know.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Keymap {
    to_default: HashMap<char, char>,
}

fn parse_key(s: &str) -> Option<char> {
    let mut chars = s.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

impl Keymap {
    /// Builds the map; returns it with one message per problem (unknown action, bad key,
    /// conflict). Problem entries are ignored; the defaults stay.
    pub fn from_config(keys: &BTreeMap<String, String>) -> (Keymap, Vec<String>) {
        let mut problems = Vec::new();
        let mut assigned: BTreeMap<char, String> = BTreeMap::new();
        let mut to_default = HashMap::new();
        // Every action starts on its default key.
        let mut effective: BTreeMap<&str, char> = ACTIONS.iter().map(|(a, k)| (*a, *k)).collect();
        for (action, key) in keys {
            let Some(default) = ACTIONS.iter().find(|(a, _)| a == action).map(|a| a.1) else {
                problems.push(format!(
                    "keys.{action}: unknown action (known: {})",
                    ACTIONS.iter().map(|a| a.0).collect::<Vec<_>>().join(", ")
                ));
                continue;
            };
            let Some(k) = parse_key(key) else {
                problems.push(format!("keys.{action} = \"{key}\": a key is one character"));
                continue;
            };
            effective.insert(ACTIONS.iter().find(|(a, _)| a == action).map(|a| a.0).unwrap_or("?"), k);
            if k != default {
                to_default.insert(k, default);
            }
        }
        for (action, key) in &effective {
            if let Some(other) = assigned.insert(*key, action.to_string()) {
                problems.push(format!(
                    "keys: `{key}` is bound to both {other} and {action}; {action} keeps it"
                ));
            }
        }
        (Keymap { to_default }, problems)
    }

    /// The key the handlers should see.
    pub fn translate(&self, key: KeyEvent) -> KeyEvent {
        match key.code {
            KeyCode::Char(c) if key.modifiers.difference(KeyModifiers::SHIFT).is_empty() => {
                match self.to_default.get(&c) {
                    Some(d) => KeyEvent::new(KeyCode::Char(*d), key.modifiers),
                    None => key,
                }
            }
            _ => key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_overrides_and_key_conflicts() {
        let text = "theme = \"dark\"\nrefresh_seconds = 20\n[keys]\nquit = \"x\"\nrefresh = \"d\"\n[profiles.prod]\nread_only = true\ntheme = \"prod-red\"\n";
        let c: ConfigFile = toml::from_str(text).unwrap();
        let prod = c.for_profile("prod");
        assert_eq!(
            (prod.theme.as_deref(), prod.read_only, prod.refresh_seconds),
            (Some("prod-red"), Some(true), Some(20))
        );
        assert_eq!(c.for_profile("dev").read_only, None);
        let (map, problems) = Keymap::from_config(&c.keys);
        assert_eq!(
            map.translate(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE))
                .code,
            KeyCode::Char('q')
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("`d` is bound to both"));
        let bad: BTreeMap<String, String> = [
            ("jump".to_string(), "j".to_string()),
            ("quit".to_string(), "xx".to_string()),
        ]
        .into();
        assert_eq!(Keymap::from_config(&bad).1.len(), 2);
        assert!(toml::from_str::<ConfigFile>("nonsense = 1").is_err());
    }
}
