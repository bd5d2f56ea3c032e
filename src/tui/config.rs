//! `~/.config/sagedeck/config.toml` (XDG): refresh intervals, theme, read-only, mouse, remappable
//! keys (conflicts reported at start), and per-profile overrides (`[profiles.prod] read_only =
//! true`, `theme = "prod-red"`). Command-line flags win over the file.
//!
//! ```toml
//! theme = "dark"
//! refresh_seconds = 10
//! metrics_refresh_seconds = 15
//! metrics_delay_seconds = 120
//! invocation_log = "/home/me/.local/state/sagedeck/invocations.jsonl"
//! [keys]
//! quit = "x"
//! refresh = "R"
//! [refresh]
//! control_plane_calls_per_second = 10
//! sweep_seconds = 3600
//! full_listing_seconds = 300
//! metrics_calls_per_minute = 60
//! [thresholds]
//! p99_warn_ms = 300
//! p99_breach_ms = 1000
//! rate_5xx_warn_pct = 0.1
//! rate_5xx_breach_pct = 1
//! [profiles.prod]
//! read_only = true
//! theme = "prod-red"
//! audit_log_group = "/sagedeck/audit"
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
    /// Seconds a promotion step waits after its bake before reading its gate
    /// (`--metrics-delay`).
    pub metrics_delay_seconds: Option<u64>,
    /// Defaults of `sagedeck agent` (`[agent]`, `[profiles.NAME.agent]`).
    pub agent: Option<AgentDefaults>,
    /// The console's variant log (`--invocation-log`): a line per invocation and tool call.
    pub invocation_log: Option<String>,
    /// Keep inputs in the variant log (`--log-inputs`).
    pub log_inputs: Option<bool>,
    /// When figures are coloured as a warning or a breach (`[thresholds]`).
    pub thresholds: Option<Thresholds>,
    /// The MCP client's defaults (`[mcp]`, `[profiles.NAME.mcp]`).
    pub mcp: Option<McpDefaults>,
    /// The team's audit trail: a CloudWatch Logs group every audit record also goes to
    /// (`--audit-log-group`).
    pub audit_log_group: Option<String>,
    /// How the console paces its reads of a large fleet (`[refresh]`).
    pub refresh: Option<RefreshConfig>,
}

/// `[refresh]`: the control-plane budget per account and region (calls per second; default 10
/// against AWS, 100 on the embedded sandbox), the sweep that describes every endpoint again at
/// least every `sweep_seconds` (default 3600), the full listing every `full_listing_seconds`
/// (default 300; between them a refresh lists only what moved), and the GetMetricData calls per
/// minute the fleet's metrics may take (default 60).
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RefreshConfig {
    /// Control-plane calls per second per account and region.
    pub control_plane_calls_per_second: Option<f64>,
    /// Every endpoint described again at least this often (seconds).
    pub sweep_seconds: Option<u64>,
    /// Every page listed again at least this often (seconds).
    pub full_listing_seconds: Option<u64>,
    /// GetMetricData calls per minute.
    pub metrics_calls_per_minute: Option<u32>,
}

/// `[mcp]`: how the MCP client answers servers; flags win.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct McpDefaults {
    /// The LLM that answers servers' sampling requests: `ENDPOINT` or `ENDPOINT/COMPONENT`.
    pub sampling_llm: Option<String>,
    /// Its request shape: `messages`, `generate` or `openai`.
    pub sampling_shape: Option<String>,
    /// Its chat template (generate): `chatml`, `llama3`, `mistral` or a tokenizer_config.json.
    pub sampling_template: Option<String>,
    /// Who approves a sampling request: `auto`, `ask` or `never`.
    pub approve_sampling: Option<String>,
}

/// `[thresholds]`: from which value the console colours a p99 latency or a 5XX rate as a warning
/// (`status_warn`) or a breach (`status_error`), so the worst endpoint shows at a glance.
/// Missing keys keep their defaults.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Thresholds {
    /// p99 model latency (ms) from which it is a warning.
    pub p99_warn_ms: f64,
    /// p99 model latency (ms) from which it is a breach.
    pub p99_breach_ms: f64,
    /// 5XX rate (percent of invocations) from which it is a warning.
    pub rate_5xx_warn_pct: f64,
    /// 5XX rate (percent of invocations) from which it is a breach.
    pub rate_5xx_breach_pct: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            p99_warn_ms: 300.0,
            p99_breach_ms: 1000.0,
            rate_5xx_warn_pct: 0.1,
            rate_5xx_breach_pct: 1.0,
        }
    }
}

/// How a figure stands against its thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    /// Below the warning threshold.
    Ok,
    /// At or above the warning threshold.
    Warn,
    /// At or above the breach threshold.
    Breach,
}

impl Thresholds {
    fn level(v: f64, warn: f64, breach: f64) -> Standing {
        if v >= breach {
            Standing::Breach
        } else if v >= warn {
            Standing::Warn
        } else {
            Standing::Ok
        }
    }

    /// Where a p99 latency (ms) stands.
    pub fn p99(&self, ms: f64) -> Standing {
        Self::level(ms, self.p99_warn_ms, self.p99_breach_ms)
    }

    /// Where a 5XX rate (a fraction: 0.01 is 1 %) stands.
    pub fn rate_5xx(&self, rate: f64) -> Standing {
        Self::level(rate * 100.0, self.rate_5xx_warn_pct, self.rate_5xx_breach_pct)
    }
}

/// Defaults of `sagedeck agent`; flags win.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentDefaults {
    /// LLM endpoint.
    pub llm: Option<String>,
    /// The inference component serving the LLM, on an endpoint that hosts components.
    pub inference_component: Option<String>,
    /// Request shape: `messages`, `generate` or `openai`.
    pub shape: Option<String>,
    /// Chat template: `chatml`, `llama3`, `mistral` or a tokenizer_config.json path.
    pub template: Option<String>,
    /// MCP servers (registry names).
    #[serde(default)]
    pub servers: Vec<String>,
    /// Approval mode: `auto`, `ask` or `never`.
    pub approve: Option<String>,
    /// Stream the replies (InvokeEndpointWithResponseStream; `--stream` of the CLI).
    pub stream: Option<bool>,
    /// One stateful session per run: `new` or an open session's id (`--session` of the CLI).
    pub session: Option<String>,
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
    /// Named fleets: sets of profile × region listed as one inventory (`--fleet NAME`).
    #[serde(default)]
    pub fleets: BTreeMap<String, FleetSet>,
}

/// `[fleets.NAME]`: every profile × every region.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FleetSet {
    /// Profiles (empty: the default chain).
    #[serde(default)]
    pub profiles: Vec<String>,
    /// Regions.
    pub regions: Vec<String>,
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
    /// Reads the file; a missing file is the default configuration. An unreadable file is an
    /// error naming the file, the line and the key, so that nobody mistakes it for "no settings"
    /// (it may hold `read_only = true`).
    pub fn load(path: &Path) -> Result<ConfigFile, String> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ConfigFile::default()),
            Err(e) => return Err(format!("config {}: {e}", path.display())),
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            format!("config {} line {line}: not UTF-8 text", path.display())
        })?;
        toml::from_str(&text).map_err(|e| {
            let at = e.span().map(|s| s.start).unwrap_or(0).min(text.len());
            let line = 1 + text[..at].matches('\n').count();
            let key = text
                .lines()
                .nth(line - 1)
                .and_then(|l| l.split_once('='))
                .map(|(k, _)| format!(" (key `{}`)", k.trim()))
                .unwrap_or_default();
            format!("config {} line {line}{key}: {}", path.display(), e.message().trim())
        })
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
            s.metrics_delay_seconds = p.metrics_delay_seconds.or(s.metrics_delay_seconds);
            s.agent = p.agent.clone().or(s.agent);
            s.invocation_log = p.invocation_log.clone().or(s.invocation_log);
            s.log_inputs = p.log_inputs.or(s.log_inputs);
            s.thresholds = p.thresholds.or(s.thresholds);
            s.audit_log_group = p.audit_log_group.clone().or(s.audit_log_group);
            s.mcp = p.mcp.clone().or(s.mcp);
            s.refresh = p.refresh.or(s.refresh);
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
        let mut conflict = false;
        for (action, key) in &effective {
            if let Some(other) = assigned.insert(*key, action.to_string()) {
                conflict = true;
                problems.push(format!(
                    "keys: `{key}` is bound to both {other} and {action}: give one of them another key; every key stays at its default until then"
                ));
            }
        }
        if conflict {
            return (Keymap::default(), problems);
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
        let text = "theme = \"dark\"\nrefresh_seconds = 20\nmetrics_delay_seconds = 90\n[keys]\nquit = \"x\"\nrefresh = \"d\"\n[profiles.prod]\nread_only = true\ntheme = \"prod-red\"\n[profiles.fast]\nmetrics_delay_seconds = 15\n";
        let c: ConfigFile = toml::from_str(text).unwrap();
        let prod = c.for_profile("prod");
        assert_eq!(
            (prod.theme.as_deref(), prod.read_only, prod.refresh_seconds),
            (Some("prod-red"), Some(true), Some(20))
        );
        assert_eq!(
            (prod.metrics_delay_seconds, c.for_profile("fast").metrics_delay_seconds),
            (Some(90), Some(15))
        );
        assert_eq!(c.for_profile("dev").read_only, None);
        let mut ok = c.keys.clone();
        ok.remove("refresh");
        let (map, problems) = Keymap::from_config(&ok);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            map.translate(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE))
                .code,
            KeyCode::Char('q')
        );
        let (map, problems) = Keymap::from_config(&c.keys);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("`d` is bound to both describe and refresh"),
            "{problems:?}"
        );
        // A conflict is an error: no key is remapped, so no key is bound twice.
        assert_eq!(map, Keymap::default());
        let quit_on_r: BTreeMap<String, String> = [("quit".to_string(), "r".to_string())].into();
        let (map, problems) = Keymap::from_config(&quit_on_r);
        assert_eq!(map, Keymap::default());
        assert!(
            problems[0].contains("`r` is bound to both quit and refresh"),
            "{problems:?}"
        );
        let bad: BTreeMap<String, String> = [
            ("jump".to_string(), "j".to_string()),
            ("quit".to_string(), "xx".to_string()),
        ]
        .into();
        assert_eq!(Keymap::from_config(&bad).1.len(), 2);
        assert!(toml::from_str::<ConfigFile>("nonsense = 1").is_err());
    }
}
