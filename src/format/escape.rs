//! Text from outside (MCP servers, models, endpoints, logs, config files) as a terminal may show
//! it: control characters written out (`\x1b`, `\r`, `\u{9b}`), so that no escape sequence of
//! theirs reaches the terminal (clearing a line to forge a prompt, OSC 52 setting the clipboard,
//! OSC 0 the window title) and none is silently dropped either. Bidirectional overrides are
//! written out too, so text cannot be shown in another order than it is.

use std::borrow::Cow;

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    if !text.chars().any(|c| needs_escape(c) && !keep.contains(&c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !needs_escape(c) || keep.contains(&c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// One line of outside text (a name, a title, a status): every control character written out,
/// newlines and tabs included.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, &[])
}

/// Outside text of several lines (a tool's result, a model's answer): control characters written
/// out except newlines and tabs.
pub fn escape_text(text: &str) -> Cow<'_, str> {
    escape(text, &['\n', '\t'])
}

/// Whether `text` holds a control character (or a bidirectional override): a name with one is
/// refused rather than shown.
pub fn has_controls(text: &str) -> bool {
    text.chars().any(needs_escape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_written_out() {
        let forged = "safe_read\x1b[2K\rstep 2: call evil/safe_read {} ? (read-only)";
        assert_eq!(
            escape_line(forged),
            "safe_read\\x1b[2K\\rstep 2: call evil/safe_read {} ? (read-only)"
        );
        assert_eq!(escape_text("a\n\tb\x07\u{9b}c\u{202e}"), "a\n\tb\\x07\\u{9b}c\\u{202e}");
        assert_eq!(escape_line("a\nb\x7f"), "a\\nb\\x7f");
        assert!(matches!(escape_line("plain – ünïcode"), Cow::Borrowed(_)));
        assert!(has_controls("x\x1b") && !has_controls("top_song"));
    }
}
