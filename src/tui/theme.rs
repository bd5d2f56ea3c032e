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

/// The semantic colour slots every theme defines (after `extends`): code names a role, a
/// theme file maps it to a colour, and a misspelt role is a compile error (in code) or a load
/// error naming the file, the key and the known roles (in a theme file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// `bg` in a theme file.
    Bg,
    /// `fg` in a theme file.
    Fg,
    /// `muted` in a theme file.
    Muted,
    /// `accent` in a theme file.
    Accent,
    /// `border` in a theme file.
    Border,
    /// `border_focus` in a theme file.
    BorderFocus,
    /// `title` in a theme file.
    Title,
    /// `selection_fg` in a theme file.
    SelectionFg,
    /// `selection_bg` in a theme file.
    SelectionBg,
    /// `header` in a theme file.
    Header,
    /// `status_ok` in a theme file.
    StatusOk,
    /// `status_warn` in a theme file.
    StatusWarn,
    /// `status_error` in a theme file.
    StatusError,
    /// `status_unknown` in a theme file.
    StatusUnknown,
    /// `canary` in a theme file.
    Canary,
    /// `baseline` in a theme file.
    Baseline,
    /// `chart_1` in a theme file.
    Chart1,
    /// `chart_2` in a theme file.
    Chart2,
    /// `chart_3` in a theme file.
    Chart3,
    /// `chart_4` in a theme file.
    Chart4,
    /// `toast_info` in a theme file.
    ToastInfo,
    /// `toast_warn` in a theme file.
    ToastWarn,
    /// `toast_error` in a theme file.
    ToastError,
    /// `stale` in a theme file.
    Stale,
    /// `readonly` in a theme file.
    Readonly,
    /// `danger` in a theme file.
    Danger,
}

impl Role {
    /// Every role, in the order of the theme files.
    pub const ALL: [Role; 26] = [
        Role::Bg,
        Role::Fg,
        Role::Muted,
        Role::Accent,
        Role::Border,
        Role::BorderFocus,
        Role::Title,
        Role::SelectionFg,
        Role::SelectionBg,
        Role::Header,
        Role::StatusOk,
        Role::StatusWarn,
        Role::StatusError,
        Role::StatusUnknown,
        Role::Canary,
        Role::Baseline,
        Role::Chart1,
        Role::Chart2,
        Role::Chart3,
        Role::Chart4,
        Role::ToastInfo,
        Role::ToastWarn,
        Role::ToastError,
        Role::Stale,
        Role::Readonly,
        Role::Danger,
    ];

    /// The role's key in a theme file's `[roles]`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Bg => "bg",
            Role::Fg => "fg",
            Role::Muted => "muted",
            Role::Accent => "accent",
            Role::Border => "border",
            Role::BorderFocus => "border_focus",
            Role::Title => "title",
            Role::SelectionFg => "selection_fg",
            Role::SelectionBg => "selection_bg",
            Role::Header => "header",
            Role::StatusOk => "status_ok",
            Role::StatusWarn => "status_warn",
            Role::StatusError => "status_error",
            Role::StatusUnknown => "status_unknown",
            Role::Canary => "canary",
            Role::Baseline => "baseline",
            Role::Chart1 => "chart_1",
            Role::Chart2 => "chart_2",
            Role::Chart3 => "chart_3",
            Role::Chart4 => "chart_4",
            Role::ToastInfo => "toast_info",
            Role::ToastWarn => "toast_warn",
            Role::ToastError => "toast_error",
            Role::Stale => "stale",
            Role::Readonly => "readonly",
            Role::Danger => "danger",
        }
    }

    /// The role a theme file's key names.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Every role's key, for messages.
    pub fn known() -> String {
        Role::ALL.map(Role::name).join(", ")
    }
}

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
    roles: BTreeMap<Role, Color>,
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

/// Finds a theme's TOML: a user file in `user_dir`, else a built-in. A user file that exists
/// but cannot be read (permissions, not UTF-8) is an error naming it, not "no such theme".
fn source(name: &str, user_dir: Option<&Path>) -> Result<Option<(String, String)>, ThemeError> {
    if let Some(dir) = user_dir {
        let path = dir.join(format!("{name}.toml"));
        let file = path.display().to_string();
        match std::fs::read(&path) {
            Ok(bytes) => {
                return String::from_utf8(bytes)
                    .map(|t| Some((file.clone(), t)))
                    .map_err(|_| ThemeError {
                        file,
                        problem: "not UTF-8 text".into(),
                    });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(ThemeError {
                    file,
                    problem: format!("cannot be read: {e}"),
                });
            }
        }
    }
    Ok(BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, t)| (format!("(built-in) {n}.toml"), t.to_string())))
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
            let (file, text) = source(&n, user_dir)?.ok_or_else(|| ThemeError {
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
        let mut roles: BTreeMap<Role, (String, String)> = BTreeMap::new();
        for (file, f) in chain.iter().rev() {
            palette.extend(f.palette.clone());
            for (k, v) in &f.roles {
                let Some(role) = Role::from_name(k) else {
                    return Err(ThemeError {
                        file: file.clone(),
                        problem: format!("unknown role `{k}` (= \"{v}\"); the roles are {}", Role::known()),
                    });
                };
                roles.insert(role, (file.clone(), v.clone()));
            }
        }
        let mut resolved = BTreeMap::new();
        for role in Role::ALL {
            let (file, value) = roles.get(&role).cloned().ok_or_else(|| ThemeError {
                file: chain[0].0.clone(),
                problem: format!(
                    "role `{}` is not set (set it, or `extends` a theme that does)",
                    role.name()
                ),
            })?;
            let colour_text = palette.get(&value).cloned().unwrap_or(value.clone());
            let colour = Color::from_str(&colour_text).map_err(|_| ThemeError {
                file,
                problem: format!(
                    "role `{}` = \"{value}\" is neither a palette name nor a colour (a name like `red`, `#RRGGBB`, 0-255 or `reset`)",
                    role.name()
                ),
            })?;
            resolved.insert(role, colour);
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

    /// The colour of a role (reset when the theme has none, which only a broken built-in could).
    pub fn color(&self, role: Role) -> Color {
        self.roles.get(&role).copied().unwrap_or(Color::Reset)
    }

    /// Foreground style of a role.
    pub fn fg(&self, role: Role) -> Style {
        Style::default().fg(self.color(role))
    }

    /// The base style (fg on bg).
    pub fn base(&self) -> Style {
        Style::default().fg(self.color(Role::Fg)).bg(self.color(Role::Bg))
    }

    /// The selected-row style; reversed video when the theme has no selection colours.
    pub fn selection(&self) -> Style {
        let bg = self.color(Role::SelectionBg);
        if bg == Color::Reset {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
                .fg(self.color(Role::SelectionFg))
                .bg(bg)
                .add_modifier(Modifier::BOLD)
        }
    }

    /// Border style, focused or not.
    pub fn border(&self, focused: bool) -> Style {
        self.fg(if focused { Role::BorderFocus } else { Role::Border })
    }

    /// The style of an endpoint or variant status.
    pub fn status(&self, status: &str) -> Style {
        let role = match status {
            "InService" | "Successful" | "connected" => Role::StatusOk,
            "Creating" | "Updating" | "SystemUpdating" | "RollingBack" | "Deleting" | "ActivatingTraffic"
            | "Baking" | "InProgress" | "Pending" | "connecting" => Role::StatusWarn,
            "Failed" | "UpdateRollbackFailed" | "OutOfService" | "failed" => Role::StatusError,
            _ => Role::StatusUnknown,
        };
        let s = self.fg(role);
        if role == Role::StatusError {
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
            for role in Role::ALL {
                assert!(t.roles.contains_key(&role), "{name} lacks {role:?}");
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
                .contains("unknown role `accnet` (= \"red\"); the roles are bg, fg, muted")
        );
        std::fs::write(dir.path().join("latin1.toml"), b"name = \"caf\xe9\"\n").unwrap();
        let e = Theme::load("latin1", Some(dir.path())).unwrap_err();
        assert!(e.file.ends_with("latin1.toml") && e.problem == "not UTF-8 text", "{e}");
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
        assert_eq!(t.color(Role::Accent), Color::Rgb(0x12, 0x34, 0x56));
        assert_eq!(t.color(Role::Fg), Theme::default_theme().color(Role::Fg));
    }
}
