//! Warm sets: the multi-model endpoint models that should stay loaded, per endpoint, in a TOML or
//! JSON file. `sagedeck prewarm ENDPOINT --from FILE [--watch]` prewarms them (and keeps them
//! warm); the Models pane marks them.
//!
//! ```toml
//! [endpoints]
//! "mcp-multi-model-endpoint" = ["tenants/acme.tar.gz", "tenants/globex.tar.gz"]
//! ```
//!
//! JSON: `{"endpoints": {"ENDPOINT": ["MODEL", ...]}}`, or the map alone. A `.json` file is read
//! as JSON, anything else as TOML.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Model keys per endpoint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WarmSet {
    /// Endpoint name → model keys (relative to the endpoint's ModelDataUrl).
    pub endpoints: BTreeMap<String, Vec<String>>,
}

/// The console's warm set: `$XDG_CONFIG_HOME/sagedeck/warmset.toml`, else
/// `~/.config/sagedeck/warmset.toml`.
pub fn default_warmset_path() -> Option<std::path::PathBuf> {
    crate::local::dirs::config_dir().map(|d| d.join("warmset.toml"))
}

impl WarmSet {
    /// Reads a warm-set file (JSON when it ends in `.json`, else TOML).
    pub fn load(path: &Path) -> Result<WarmSet, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read the warm set {}: {e}", path.display()))?;
        WarmSet::parse(&text, path.extension().is_some_and(|e| e == "json"))
            .map_err(|e| format!("the warm set {} is invalid: {e}", path.display()))
    }

    /// Parses a warm set from text.
    pub fn parse(text: &str, json: bool) -> Result<WarmSet, String> {
        if json {
            if let Ok(w) = serde_json::from_str::<WarmSet>(text) {
                return Ok(w);
            }
            let endpoints: BTreeMap<String, Vec<String>> = serde_json::from_str(text).map_err(|e| e.to_string())?;
            return Ok(WarmSet { endpoints });
        }
        if let Ok(w) = toml::from_str::<WarmSet>(text) {
            return Ok(w);
        }
        let endpoints: BTreeMap<String, Vec<String>> = toml::from_str(text).map_err(|e| e.message().to_string())?;
        Ok(WarmSet { endpoints })
    }

    /// The models of an endpoint's set (empty when it has none).
    pub fn models(&self, endpoint: &str) -> &[String] {
        self.endpoints.get(endpoint).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether `model` is in `endpoint`'s set.
    pub fn contains(&self, endpoint: &str, model: &str) -> bool {
        self.models(endpoint).iter().any(|m| m == model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_and_json_forms() {
        let t = WarmSet::parse("[endpoints]\n\"ep\" = [\"a.tar.gz\", \"b.tar.gz\"]\n", false).unwrap();
        assert_eq!(t.models("ep").len(), 2);
        assert!(t.contains("ep", "b.tar.gz") && !t.contains("ep", "c") && t.models("x").is_empty());
        let bare = WarmSet::parse("ep = [\"a\"]\n", false).unwrap();
        assert!(bare.contains("ep", "a"));
        let j = WarmSet::parse(r#"{"endpoints": {"ep": ["a"]}}"#, true).unwrap();
        assert!(j.contains("ep", "a"));
        let jb = WarmSet::parse(r#"{"ep": ["a"]}"#, true).unwrap();
        assert_eq!(jb, j);
        assert!(WarmSet::parse("ep = 3", false).is_err());
    }
}
