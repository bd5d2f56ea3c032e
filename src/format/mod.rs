//! Text that the console and the headless commands both show: times, durations, bars, response
//! bodies, and outside text with its control characters written out ([`escape_text`]). It
//! imports nothing else of sagedeck, so both sides can use it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

mod escape;

pub use escape::{escape_line, escape_text, has_controls};

/// Seconds since the epoch, now.
pub fn now_epoch() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// A count with its noun, singular for one: `1 variant`, `2 variants`, `0 variants`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Splits a line of text or JSON into rows of at most `width` characters without breaking a
/// token: a row ends after a space, or after a `,` or `:` outside a JSON string; only a token
/// wider than a row is cut. Rows after the first of an indented line are indented two more.
pub fn wrap_tokens(line: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= width || width < 8 {
        return vec![line.to_string()];
    }
    // Break opportunities: positions after which a row may end.
    let mut ok = vec![false; chars.len()];
    let (mut in_str, mut escaped) = (false, false);
    for (i, c) in chars.iter().enumerate() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            ok[i] = *c == ' ';
        } else {
            in_str = *c == '"';
            ok[i] = matches!(c, ' ' | ',' | ':');
        }
    }
    let lead = chars.iter().take_while(|c| **c == ' ').count();
    let indent = if lead == 0 { 0 } else { (lead + 2).min(width / 2) };
    let mut rows = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let room = if rows.is_empty() { width } else { width - indent };
        let end = if chars.len() - start <= room {
            chars.len()
        } else {
            (start..start + room)
                .rev()
                .find(|i| ok[*i])
                .map(|i| i + 1)
                .filter(|e| *e > start)
                .unwrap_or(start + room)
        };
        let text: String = chars[start..end].iter().collect();
        let pad = if rows.is_empty() {
            String::new()
        } else {
            " ".repeat(indent)
        };
        rows.push(format!("{pad}{}", text.trim_end()));
        start = end;
        while start < chars.len() && chars[start] == ' ' {
            start += 1;
        }
    }
    rows
}

/// Seconds since the epoch as `2026-12-02 18:00` (UTC).
pub fn time_text(epoch: f64) -> String {
    if !epoch.is_finite() || epoch < 0.0 {
        return "-".into();
    }
    let at = UNIX_EPOCH + Duration::from_secs_f64(epoch);
    humantime::format_rfc3339_seconds(at)
        .to_string()
        .replace('T', " ")
        .chars()
        .take(16)
        .collect()
}

/// Parses `90s`, `15m`, `1h`, `24h`, `2d` and sums like `1h30m`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("invalid duration {text:?}: use a number and a unit, like 90s, 15m, 1h, 24h or 2d");
    let trimmed = text.trim();
    // humantime also takes fractions, `ms` and spelled-out units; sagedeck's flags take whole
    // seconds, minutes, hours and days only, so anything else is refused before parsing.
    if trimmed.is_empty() || !trimmed.chars().all(|c| c.is_ascii_digit() || "smhd".contains(c)) {
        return Err(bad());
    }
    let units_alone = !trimmed
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_alphabetic());
    if !units_alone
        || !trimmed.starts_with(|c: char| c.is_ascii_digit())
        || trimmed.ends_with(|c: char| c.is_ascii_digit())
    {
        return Err(bad());
    }
    humantime::parse_duration(trimmed).map_err(|_| bad())
}

/// Parses a bake time: `10s`, `5m`, `1h30m` (1 s to 24 h).
pub fn parse_bake(text: &str) -> Result<Duration, String> {
    let bad = || format!("invalid bake time {text:?}: use a number and a unit, like 10s, 5m or 1h (at most 24h)");
    match parse_duration(text) {
        Ok(d) if !d.is_zero() && d <= Duration::from_secs(86_400) => Ok(d),
        _ => Err(bad()),
    }
}

/// A text bar `width` cells wide, filled to `share` (0–1).
pub fn bar(share: f64, width: usize) -> String {
    let n = ((share * width as f64).round().max(0.0) as usize).min(width);
    format!("{}{}", "█".repeat(n), "░".repeat(width - n))
}

/// A response body for people: JSON pretty-printed, text as is, binary as a hex preview.
pub fn body_text(content_type: Option<&str>, body: &[u8]) -> String {
    let says_json = content_type.is_none_or(|c| c.to_ascii_lowercase().contains("json"));
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body)
        && (says_json || body.first().is_some_and(|b| *b == b'[' || *b == b'{'))
    {
        return serde_json::to_string_pretty(&v).unwrap_or_default();
    }
    match std::str::from_utf8(body) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let hex: Vec<String> = body.iter().take(32).map(|b| format!("{b:02x}")).collect();
            format!(
                "{} bytes of binary: {}{}",
                body.len(),
                hex.join(" "),
                if body.len() > 32 { " …" } else { "" }
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_whole_units_and_sums() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
        for bad in ["", "15", "m", "1.5h", "10ms", "1 h", "-5m", "5x"] {
            assert!(parse_duration(bad).is_err(), "{bad:?} accepted");
        }
        assert!(parse_bake("0s").is_err());
        assert!(parse_bake("25h").is_err());
        assert_eq!(parse_bake("5m"), Ok(Duration::from_secs(300)));
    }

    #[test]
    fn times_are_utc_minutes() {
        assert_eq!(time_text(1_764_698_400.0), "2025-12-02 18:00");
        assert_eq!(time_text(f64::NAN), "-");
    }

    #[test]
    fn bars_and_bodies() {
        assert_eq!(bar(0.5, 4), "██░░");
        assert_eq!(bar(2.0, 2), "██");
        assert_eq!(body_text(Some("application/json"), b"{\"a\":1}"), "{\n  \"a\": 1\n}");
        assert_eq!(body_text(Some("text/csv"), b"0.5"), "0.5");
        assert!(body_text(None, &[0xff, 0x00]).starts_with("2 bytes of binary: ff 00"));
    }
}
