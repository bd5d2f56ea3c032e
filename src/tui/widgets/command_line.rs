//! The `:` command line: completion of commands and their arguments (Tab), history (↑/↓).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::theme::{Role, Theme};

/// The console's own commands, with whether they take an argument (each pane adds its tab's
/// name and its own commands: [`CommandLine::pane_commands`]).
pub const COMMANDS: &[(&str, bool)] = &[
    ("region", true),
    ("profile", true),
    ("theme", true),
    ("refresh", true),
    ("readonly", false),
    ("reason", true),
    ("errors", false),
    ("help", false),
    ("quit", false),
];

/// Completion candidates shown at most (`:goto` completes among every endpoint's name).
pub const SHOWN_CANDIDATES: usize = 12;

/// Common AWS regions, for completion.
pub const REGIONS: &[&str] = &[
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "eu-west-1",
    "eu-west-2",
    "eu-central-1",
    "eu-north-1",
    "ap-northeast-1",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-south-1",
    "ca-central-1",
    "sa-east-1",
];

/// A parsed command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// A command of a pane (opening its tab, or one the pane declares): the name and the rest
    /// of the line.
    Pane {
        /// The command.
        name: String,
        /// The rest of the line (trimmed), if any.
        arg: Option<String>,
    },
    /// `:region R`.
    Region(String),
    /// `:profile P`.
    Profile(String),
    /// `:theme T`.
    Theme(String),
    /// `:refresh SECONDS`.
    Refresh(u64),
    /// `:readonly`.
    ReadOnly,
    /// `:reason TEXT` (the rest of the line) sets the session's audit reason; `:reason` alone
    /// clears it.
    Reason(Option<String>),
    /// `:errors`.
    Errors,
    /// `:help`.
    Help,
    /// `:quit`.
    Quit,
}

/// Parses a command line (without the `:`); `panes` are the panes' commands.
pub fn parse(input: &str, panes: &[(String, bool)]) -> Result<Command, String> {
    let mut parts = input.split_whitespace();
    let Some(cmd) = parts.next() else {
        return Err("empty command".into());
    };
    let arg = parts.next();
    let need = |what: &str| arg.map(str::to_string).ok_or_else(|| format!(":{cmd} needs {what}"));
    if panes.iter().any(|(name, _)| name == cmd) {
        let rest = input.trim_start()[cmd.len()..].trim();
        return Ok(Command::Pane {
            name: cmd.into(),
            arg: Some(rest.to_string()).filter(|r| !r.is_empty()),
        });
    }
    match cmd {
        "region" => need("a region, e.g. :region us-west-2").map(Command::Region),
        "profile" => need("a profile name").map(Command::Profile),
        "theme" => need("a theme name").map(Command::Theme),
        "refresh" => {
            let s = need("seconds, e.g. :refresh 10")?;
            let n: u64 = s
                .parse()
                .map_err(|_| format!(":refresh takes whole seconds, not `{s}`"))?;
            if n < 2 {
                return Err(":refresh is at least 2 seconds (to stay under API throttling)".into());
            }
            Ok(Command::Refresh(n))
        }
        "readonly" | "ro" => Ok(Command::ReadOnly),
        "reason" => {
            let rest = input.trim_start()[cmd.len()..].trim();
            Ok(Command::Reason(Some(rest.to_string()).filter(|r| !r.is_empty())))
        }
        "errors" | "log" => Ok(Command::Errors),
        "help" | "?" => Ok(Command::Help),
        "quit" | "q" | "q!" => Ok(Command::Quit),
        other => Err(format!("unknown command :{other} (Tab completes; :help lists them)")),
    }
}

/// The `:` line's state.
#[derive(Debug, Default, Clone)]
pub struct CommandLine {
    /// Text typed so far.
    pub input: String,
    /// Earlier commands, oldest first.
    pub history: Vec<String>,
    /// Position while browsing history.
    pub history_pos: Option<usize>,
    /// Candidates shown after Tab.
    pub candidates: Vec<String>,
    /// Whether the line is open.
    pub open: bool,
    /// The panes' commands (tab names first), with whether they take an argument.
    pub pane_commands: Vec<(String, bool)>,
    /// The arguments of the panes' commands, for completion (`sort` → its columns).
    pub pane_args: Vec<(String, Vec<String>)>,
}

impl CommandLine {
    /// Opens an empty line.
    pub fn open(&mut self) {
        self.open = true;
        self.input.clear();
        self.history_pos = None;
        self.candidates.clear();
    }

    /// Completes the command or its argument from `themes`, `profiles`, the endpoint names
    /// (`:goto`, from `endpoints`, asked only then) and the known lists. At most
    /// [`SHOWN_CANDIDATES`] candidates are shown, then how many more there are.
    pub fn complete(&mut self, themes: &[String], profiles: &[String], endpoints: impl FnOnce() -> Vec<String>) {
        let (head, tail) = match self.input.split_once(' ') {
            Some((h, t)) => (h.to_string(), Some(t.to_string())),
            None => (self.input.clone(), None),
        };
        let options: Vec<String> = match tail {
            None => self
                .pane_commands
                .iter()
                .map(|c| c.0.clone())
                .chain(COMMANDS.iter().map(|c| c.0.to_string()))
                .filter(|c| c.starts_with(&head))
                .collect(),
            Some(t) => {
                let list: Vec<String> = match head.as_str() {
                    "region" => REGIONS.iter().map(|s| s.to_string()).collect(),
                    "theme" => themes.to_vec(),
                    "profile" => profiles.to_vec(),
                    "goto" => {
                        let mut names = endpoints();
                        names.sort_unstable();
                        names.dedup();
                        names
                    }
                    other => self
                        .pane_args
                        .iter()
                        .find(|(name, _)| name == other)
                        .map(|(_, args)| args.clone())
                        .unwrap_or_default(),
                };
                list.into_iter()
                    .filter(|o| o.starts_with(t.trim()))
                    .map(|o| format!("{head} {o}"))
                    .collect()
            }
        };
        match options.len() {
            0 => self.candidates.clear(),
            1 => {
                self.input = options[0].clone();
                let takes_arg = COMMANDS.iter().any(|c| c.0 == self.input && c.1)
                    || self.pane_commands.iter().any(|c| c.0 == self.input && c.1);
                if takes_arg {
                    self.input.push(' ');
                }
                self.candidates.clear();
            }
            _ => {
                // Extend to the longest common prefix.
                let first = &options[0];
                let mut n = first.len();
                for o in &options[1..] {
                    n = n.min(first.chars().zip(o.chars()).take_while(|(a, b)| a == b).count());
                }
                let n = first.char_indices().nth(n).map_or(first.len(), |(i, _)| i);
                self.input = first[..n].to_string();
                // An argument's candidates are shown without their command.
                let prefix = format!("{head} ");
                let shown = |o: String| o.strip_prefix(&prefix).map(str::to_string).unwrap_or(o);
                let more = options.len().saturating_sub(SHOWN_CANDIDATES);
                self.candidates = options.into_iter().take(SHOWN_CANDIDATES).map(shown).collect();
                if more > 0 {
                    self.candidates.push(format!("… {more} more"));
                }
            }
        }
    }

    /// Steps through history (`up` = older).
    pub fn browse(&mut self, up: bool) {
        if self.history.is_empty() {
            return;
        }
        let pos = match (self.history_pos, up) {
            (None, true) => self.history.len() - 1,
            (None, false) => return,
            (Some(p), true) => p.saturating_sub(1),
            (Some(p), false) if p + 1 >= self.history.len() => {
                self.history_pos = None;
                self.input.clear();
                return;
            }
            (Some(p), false) => p + 1,
        };
        self.history_pos = Some(pos);
        self.input = self.history[pos].clone();
    }

    /// Closes the line and returns the parsed command (recorded in history when valid).
    pub fn submit(&mut self) -> Result<Command, String> {
        self.open = false;
        let text = self.input.trim().to_string();
        let parsed = parse(&text, &self.pane_commands);
        if parsed.is_ok() && self.history.last() != Some(&text) {
            self.history.push(text);
        }
        parsed
    }

    /// Draws the line (and candidates, when any).
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let mut spans = vec![
            Span::styled(":", theme.fg(Role::Accent)),
            Span::styled(self.input.clone(), theme.fg(Role::Fg)),
            Span::styled("█", theme.fg(Role::Accent)),
        ];
        if !self.candidates.is_empty() {
            spans.push(Span::styled(
                format!("   {}", self.candidates.join("  ")),
                theme.fg(Role::Muted),
            ));
        }
        f.render_widget(Paragraph::new(Line::from(spans)).style(theme.base()), area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_commands() {
        let parse = |s: &str| super::parse(s, &[("tools".to_string(), false)]);
        assert_eq!(
            parse("tools"),
            Ok(Command::Pane {
                name: "tools".into(),
                arg: None
            })
        );
        assert_eq!(parse("region us-west-2"), Ok(Command::Region("us-west-2".into())));
        assert_eq!(parse("refresh 15"), Ok(Command::Refresh(15)));
        assert!(parse("refresh 1").is_err());
        assert!(parse("refresh x").is_err());
        assert_eq!(
            parse("  reason INC-42  canary  5xx "),
            Ok(Command::Reason(Some("INC-42  canary  5xx".into()))),
            "the rest of the line, inner spaces kept"
        );
        assert_eq!(parse("reason"), Ok(Command::Reason(None)));
        assert_eq!(parse("reason   "), Ok(Command::Reason(None)));
        assert!(parse("region").unwrap_err().contains("needs"));
        assert!(parse("bogus").unwrap_err().contains("unknown command"));
        assert_eq!(parse("q"), Ok(Command::Quit));
    }

    #[test]
    fn completion_and_history() {
        let mut c = CommandLine {
            pane_commands: vec![("latency".into(), false)],
            ..CommandLine::default()
        };
        c.open();
        c.input = "reg".into();
        c.complete(&[], &[], Vec::new);
        assert_eq!(c.input, "region ");
        c.input = "region us-w".into();
        c.complete(&[], &[], Vec::new);
        assert_eq!(c.input, "region us-west-");
        assert_eq!(c.candidates.len(), 2);
        c.input = "theme li".into();
        c.complete(&["dark".into(), "light".into()], &[], Vec::new);
        assert_eq!(c.input, "theme light");
        c.input = "re".into();
        c.complete(&[], &[], Vec::new);
        assert_eq!(
            c.candidates,
            ["region", "refresh", "readonly", "reason"]
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .into_iter()
                .filter(|s| s.starts_with("re"))
                .collect::<Vec<_>>()
        );
        let names = || (0..10_000).map(|i| format!("fleet-ep-{i:05}")).collect::<Vec<_>>();
        c.pane_commands.push(("goto".into(), true));
        c.input = "goto fleet-ep-09".into();
        c.complete(&[], &[], names);
        assert_eq!(c.input, "goto fleet-ep-09");
        assert_eq!(c.candidates.len(), SHOWN_CANDIDATES + 1, "{:?}", c.candidates);
        assert_eq!(c.candidates.last().map(String::as_str), Some("… 988 more"));
        c.input = "goto fleet-ep-09999".into();
        c.complete(&[], &[], names);
        assert_eq!(c.input, "goto fleet-ep-09999");
        assert!(c.candidates.is_empty());
        c.input = "latency".into();
        assert_eq!(
            c.submit(),
            Ok(Command::Pane {
                name: "latency".into(),
                arg: None
            })
        );
        c.open();
        c.input = "quit".into();
        let _ = c.submit();
        c.open();
        c.browse(true);
        assert_eq!(c.input, "quit");
        c.browse(true);
        assert_eq!(c.input, "latency");
        c.browse(false);
        assert_eq!(c.input, "quit");
    }
}
