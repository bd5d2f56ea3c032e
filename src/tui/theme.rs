//! Themes: `themes/*.toml` files with a `[palette]` of named colours and `[roles]` of semantic
//! slots, `extends` for partial themes. The shipped themes are embedded; user themes live in the
//! config directory's `themes/`. Colours parse with ratatui's `Color::from_str`.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// The shipped themes: (name, TOML text).
pub const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("ansi", include_str!("../../themes/ansi.toml")),
    ("mono", include_str!("../../themes/mono.toml")),
    ("colorblind", include_str!("../../themes/colorblind.toml")),
    ("prod-red", include_str!("../../themes/prod-red.toml")),
];

/// The semantic roles every theme defines (after `extends`).
pub const ROLES: &[&str] = &[
    "bg",
    "fg",
    "muted",
    "accent",
    "border",
    "border_focus",
    "title",
    "selection_fg",
    "selection_bg",
    "header",
    "status_ok",
    "status_warn",
    "status_error",
    "status_unknown",
    "canary",
    "baseline",
    "chart_1",
    "chart_2",
    "chart_3",
    "chart_4",
    "toast_info",
    "toast_warn",
    "toast_error",
    "stale",
    "readonly",
    "danger",
];

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    extends: Option<String>,
    #[serde(default)]
    palette: BTreeMap<String, String>,
    #[serde(default)]
    roles: BTreeMap<String, String>,
}

/// A resolved theme: every role has a colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// Theme name.
    pub name: String,
    roles: BTreeMap<String, Color>,
}

/// A theme that could not be loaded: which file, key and value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("theme {file}: {problem}")]
pub struct ThemeError {
    /// The file (or built-in name).
    pub file: String,
    /// What is wrong, naming the key and value.
    pub problem: String,
}

fn parse_file(file: &str, text: &str) -> Result<ThemeFile, ThemeError> {
    toml::from_str(text).map_err(|e| ThemeError {
        file: file.into(),
        problem: e.message().to_string(),
    })
}

/// Finds a theme's TOML: a user file in `user_dir`, else a built-in.
fn source(name: &str, user_dir: Option<&Path>) -> Option<(String, String)> {
    if let Some(dir) = user_dir {
        let path = dir.join(format!("{name}.toml"));
        if let Ok(text) = std::fs::read_to_string(&path) {
            return Some((path.display().to_string(), text));
        }
    }
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, t)| (format!("(built-in) {n}.toml"), t.to_string()))
}

impl Theme {
    /// The default (dark) theme.
    pub fn default_theme() -> Theme {
        // The built-in dark theme is tested to load.
        Theme::load("dark", None).unwrap_or_else(|_| Theme {
            name: "dark".into(),
            roles: BTreeMap::new(),
        })
    }

    /// Loads a theme by name, following `extends` (user files shadow built-ins).
    pub fn load(name: &str, user_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        let mut chain = Vec::new();
        let mut next = Some(name.to_string());
        while let Some(n) = next {
            if chain
                .iter()
                .any(|(_, f): &(String, ThemeFile)| f.name.as_deref() == Some(n.as_str()))
                || chain.len() > 8
            {
                return Err(ThemeError {
                    file: n,
                    problem: "`extends` forms a cycle".into(),
                });
            }
            let (file, text) = source(&n, user_dir).ok_or_else(|| ThemeError {
                file: format!("{n}.toml"),
                problem: format!(
                    "no theme named `{n}` (built-in: {})",
                    BUILTIN.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
                ),
            })?;
            let mut parsed = parse_file(&file, &text)?;
            parsed.name.get_or_insert_with(|| n.clone());
            next = parsed.extends.clone();
            chain.push((file, parsed));
        }
        // Apply from the root of the chain down: later files override palette and roles.
        let mut palette: BTreeMap<String, String> = BTreeMap::new();
        let mut roles: BTreeMap<String, (String, String)> = BTreeMap::new();
        for (file, f) in chain.iter().rev() {
            palette.extend(f.palette.clone());
            for (k, v) in &f.roles {
                if !ROLES.contains(&k.as_str()) {
                    return Err(ThemeError {
                        file: file.clone(),
                        problem: format!("unknown role `{k}` (= \"{v}\")"),
                    });
                }
                roles.insert(k.clone(), (file.clone(), v.clone()));
            }
        }
        let mut resolved = BTreeMap::new();
        for role in ROLES {
            let (file, value) = roles.get(*role).cloned().ok_or_else(|| ThemeError {
                file: chain[0].0.clone(),
                problem: format!("role `{role}` is not set (set it, or `extends` a theme that does)"),
            })?;
            let colour_text = palette.get(&value).cloned().unwrap_or(value.clone());
            let colour = Color::from_str(&colour_text).map_err(|_| ThemeError {
                file,
                problem: format!("role `{role}` = \"{value}\" is neither a palette name nor a colour"),
            })?;
            resolved.insert(role.to_string(), colour);
        }
        for (k, v) in &palette {
            if Color::from_str(v).is_err() {
                return Err(ThemeError {
                    file: chain[0].0.clone(),
                    problem: format!("palette `{k}` = \"{v}\" is not a colour"),
                });
            }
        }
        Ok(Theme {
            name: name.to_string(),
            roles: resolved,
        })
    }

    /// The colour of a role (reset when unknown).
    pub fn color(&self, role: &str) -> Color {
        self.roles.get(role).copied().unwrap_or(Color::Reset)
    }

    /// Foreground style of a role.
    pub fn fg(&self, role: &str) -> Style {
        Style::default().fg(self.color(role))
    }

    /// The base style (fg on bg).
    pub fn base(&self) -> Style {
        Style::default().fg(self.color("fg")).bg(self.color("bg"))
    }

    /// The selected-row style; reversed video when the theme has no selection colours.
    pub fn selection(&self) -> Style {
        let bg = self.color("selection_bg");
        if bg == Color::Reset {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
                .fg(self.color("selection_fg"))
                .bg(bg)
                .add_modifier(Modifier::BOLD)
        }
    }

    /// Border style, focused or not.
    pub fn border(&self, focused: bool) -> Style {
        self.fg(if focused { "border_focus" } else { "border" })
    }

    /// The style of an endpoint or variant status.
    pub fn status(&self, status: &str) -> Style {
        let role = match status {
            "InService" | "Successful" | "connected" => "status_ok",
            "Creating" | "Updating" | "SystemUpdating" | "RollingBack" | "Deleting" | "ActivatingTraffic"
            | "Baking" | "InProgress" | "Pending" | "connecting" => "status_warn",
            "Failed" | "UpdateRollbackFailed" | "OutOfService" | "failed" => "status_error",
            _ => "status_unknown",
        };
        let s = self.fg(role);
        if role == "status_error" {
            s.add_modifier(Modifier::BOLD)
        } else {
            s
        }
    }

    /// Names of the available themes (built-in and user).
    pub fn available(user_dir: Option<&Path>) -> Vec<String> {
        let mut names: Vec<String> = BUILTIN.iter().map(|b| b.0.to_string()).collect();
        if let Some(dir) = user_dir
            && let Ok(rd) = std::fs::read_dir(dir)
        {
            for e in rd.flatten() {
                if let Some(n) = e.path().file_stem().and_then(|s| s.to_str())
                    && e.path().extension().is_some_and(|x| x == "toml")
                    && !names.iter().any(|x| x == n)
                {
                    names.push(n.to_string());
                }
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_theme_loads_with_every_role() {
        for (name, _) in BUILTIN {
            let t = Theme::load(name, None).unwrap_or_else(|e| panic!("{e}"));
            for role in ROLES {
                assert!(t.roles.contains_key(*role), "{name} lacks {role}");
            }
        }
        // Every file in themes/ is a shipped theme.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let stem = e.path().file_stem().unwrap().to_string_lossy().to_string();
            assert!(
                BUILTIN.iter().any(|b| b.0 == stem),
                "themes/{stem}.toml is not embedded"
            );
        }
    }

    #[test]
    fn bad_theme_files_name_file_key_and_value() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("bad.toml"),
            "extends = \"dark\"\n[roles]\naccent = \"notacolour\"\n",
        )
        .unwrap();
        let e = Theme::load("bad", Some(dir.path())).unwrap_err();
        assert!(e.file.ends_with("bad.toml"));
        assert!(e.problem.contains("accent") && e.problem.contains("notacolour"), "{e}");
        std::fs::write(
            dir.path().join("typo.toml"),
            "extends = \"dark\"\n[roles]\naccnet = \"red\"\n",
        )
        .unwrap();
        assert!(
            Theme::load("typo", Some(dir.path()))
                .unwrap_err()
                .problem
                .contains("unknown role `accnet`")
        );
        std::fs::write(dir.path().join("loop.toml"), "extends = \"loop\"\n").unwrap();
        assert!(Theme::load("loop", Some(dir.path())).is_err());
        std::fs::write(dir.path().join("syntax.toml"), "[roles\n").unwrap();
        assert!(
            Theme::load("syntax", Some(dir.path()))
                .unwrap_err()
                .file
                .ends_with("syntax.toml")
        );
        assert!(
            Theme::load("nope", None)
                .unwrap_err()
                .problem
                .contains("no theme named")
        );
        // A partial user theme extends a built-in.
        std::fs::write(
            dir.path().join("mine.toml"),
            "extends = \"dark\"\n[roles]\naccent = \"#123456\"\n",
        )
        .unwrap();
        let t = Theme::load("mine", Some(dir.path())).unwrap();
        assert_eq!(t.color("accent"), Color::Rgb(0x12, 0x34, 0x56));
        assert_eq!(t.color("fg"), Theme::default_theme().color("fg"));
    }
}
