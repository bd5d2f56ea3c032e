//! The `/` filter: a case-insensitive substring, or a regex when the text uses regex syntax and
//! compiles; a leading `!` inverts it.

use crate::tui::theme::Role;
use regex::Regex;

/// A filter over names.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    text: String,
    regex: Option<Regex>,
}

fn looks_like_regex(s: &str) -> bool {
    s.chars().any(|c| "^$.*+?()[]{}|\\".contains(c))
}

impl Filter {
    /// A filter from text.
    pub fn new(text: &str) -> Filter {
        let mut f = Filter::default();
        for c in text.chars() {
            f.push(c);
        }
        f
    }

    /// The text as typed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Whether the text is used as a regex.
    pub fn is_regex(&self) -> bool {
        self.regex.is_some()
    }

    fn pattern(&self) -> (&str, bool) {
        match self.text.strip_prefix('!') {
            Some(rest) => (rest, true),
            None => (self.text.as_str(), false),
        }
    }

    fn recompile(&mut self) {
        let (p, _) = self.pattern();
        self.regex = if looks_like_regex(p) {
            Regex::new(&format!("(?i){p}")).ok()
        } else {
            None
        };
    }

    /// Appends a character.
    pub fn push(&mut self, c: char) {
        self.text.push(c);
        self.recompile();
    }

    /// Removes the last character.
    pub fn pop(&mut self) -> Option<char> {
        let c = self.text.pop();
        self.recompile();
        c
    }

    /// Clears the filter.
    pub fn clear(&mut self) {
        self.text.clear();
        self.regex = None;
    }

    /// A key while the filter is being typed: characters and Backspace edit it, Enter keeps it,
    /// Esc clears it (both end `typing`). False when the key is none of those.
    pub fn type_key(&mut self, code: crossterm::event::KeyCode, typing: &mut bool) -> bool {
        use crossterm::event::KeyCode;
        match code {
            KeyCode::Enter => *typing = false,
            KeyCode::Esc => {
                *typing = false;
                self.clear();
            }
            KeyCode::Backspace => {
                self.pop();
            }
            KeyCode::Char(c) => self.push(c),
            _ => return false,
        }
        true
    }

    /// The `/` prompt a pane shows under its list: the text, a cursor while typing, and how it
    /// matches.
    pub fn prompt_line(&self, typing: bool, theme: &crate::tui::theme::Theme) -> ratatui::text::Line<'static> {
        use ratatui::text::{Line, Span};
        let cursor = if typing { "█" } else { "" };
        let how = if self.is_regex() {
            "  (regex)"
        } else {
            "  (substring; !inverts)"
        };
        Line::from(vec![
            Span::styled("/", theme.fg(Role::Accent)),
            Span::styled(format!("{}{cursor}", self.text()), theme.fg(Role::Fg)),
            Span::styled(how, theme.fg(Role::Muted)),
        ])
    }

    /// Whether a name passes.
    pub fn matches(&self, name: &str) -> bool {
        self.matches_or(name, |_| false)
    }

    /// Whether a name passes, or the typed text (without its `!`) is a word `names_tag` accepts
    /// (an endpoint's kind: `async`, `kind:sls`); `!` inverts both.
    pub fn matches_or(&self, name: &str, names_tag: impl Fn(&str) -> bool) -> bool {
        let (p, invert) = self.pattern();
        if p.is_empty() {
            return true;
        }
        let hit = match &self.regex {
            Some(r) => r.is_match(name),
            None => name.to_lowercase().contains(&p.to_lowercase()),
        };
        (hit || names_tag(p)) != invert
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substring_regex_and_inversion() {
        assert!(Filter::new("MCP").matches("mcp-intent-classifier-prod"));
        assert!(!Filter::new("!mcp").matches("mcp-intent-classifier-prod"));
        assert!(Filter::new("^llm|xgb").matches("xgboost-churn-csv"));
        assert!(!Filter::new("^llm").matches("mcp-llm"));
        assert!(Filter::new("!^mcp-").matches("llm-tgi-chat"));
        let is_async = |w: &str| w == "kind:async" || w == "async";
        assert!(Filter::new("kind:async").matches_or("fraud", is_async));
        assert!(!Filter::new("!async").matches_or("fraud", is_async));
        assert!(!Filter::new("kind:sls").matches_or("fraud", is_async));
        // An invalid regex falls back to substring.
        assert!(Filter::new("a[").matches("a[b"));
        assert!(Filter::new("").matches("anything"));
    }
}
