//! Redaction: what never leaves sagedeck's hands in a record it writes (the audit log, the
//! team's audit trail, the agent's transcripts): values under secret-looking field names,
//! AWS-credential-shaped text anywhere, bearer tokens and named secrets in free text.

use serde_json::Value;

/// Field names whose values are never written (matched case-insensitively, anywhere in the name).
const SECRET_KEYS: [&str; 7] = ["key", "auth", "token", "secret", "password", "credential", "session"];

const REDACTED: &str = "[redacted]";

/// A copy of `v` with every value under a secret-looking field name replaced by `"[redacted]"`,
/// and every secret-shaped part of a string (see [`redact_text`]) too.
pub fn redact(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let lk = k.to_ascii_lowercase();
                    let secret = SECRET_KEYS.iter().any(|s| lk.contains(s));
                    let hidden = secret && !matches!(v, Value::Null | Value::Bool(_));
                    (
                        k.clone(),
                        if hidden {
                            Value::String(REDACTED.into())
                        } else {
                            redact(v)
                        },
                    )
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(redact).collect()),
        Value::String(s) => Value::String(redact_text(s).into_owned()),
        other => other.clone(),
    }
}

/// Runs of base64-alphabet characters (`=` padding only at the end): the candidates for AWS
/// credentials in free text.
static CREDENTIAL_RUN: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"[A-Za-z0-9/+]+=*").expect("a valid pattern"));

/// Whether a base64-alphabet run is shaped like an AWS credential: an access key id (`AKIA` or
/// `ASIA` and 16 upper-case letters or digits), a secret access key (40 characters mixing upper-
/// and lower-case), or a session token (100 characters or more).
fn credential_shaped(run: &str) -> bool {
    let body = run.trim_end_matches('=');
    let access_key = body.len() == 20
        && (body.starts_with("AKIA") || body.starts_with("ASIA"))
        && body.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    let mixed_case = body.bytes().any(|b| b.is_ascii_uppercase()) && body.bytes().any(|b| b.is_ascii_lowercase());
    access_key || (body.len() == 40 && mixed_case) || body.len() >= 100
}

/// A bearer token (`Bearer sk-...`, any case) and a secret after its name in free text
/// (`password=...`, `"api_key": "..."`, `token: ...`): the name is kept, the value is not.
static NAMED_SECRET: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r#"(?i)(\bbearer\s+|\b(?:password|passwd|secret|api[_-]?key|token)\b"?\s*[:=]\s*"?)[^\s"',;}\]]+"#,
    )
    .expect("a valid pattern")
});

/// `text` with every AWS-credential-shaped part, bearer token and named secret replaced by
/// `[redacted]`: the one rule of the audit log and the agent's transcripts.
pub fn redact_text(text: &str) -> std::borrow::Cow<'_, str> {
    let named = NAMED_SECRET.replace_all(text, |c: &regex::Captures<'_>| format!("{}{REDACTED}", &c[1]));
    let shaped = CREDENTIAL_RUN.replace_all(&named, |c: &regex::Captures<'_>| {
        let run = &c[0];
        if credential_shaped(run) {
            REDACTED.to_string()
        } else {
            run.to_string()
        }
    });
    if matches!(named, std::borrow::Cow::Borrowed(_)) && matches!(shaped, std::borrow::Cow::Borrowed(_)) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(shaped.into_owned())
}

/// A copy of `v` with every string passed through [`redact_text`], and every string under a
/// secret-looking field name replaced: [`redact`] for records whose numbers under such names are
/// counts (an agent transcript's `tokens_in`), not secrets.
pub fn redact_strings(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let lk = k.to_ascii_lowercase();
                    let secret = SECRET_KEYS.iter().any(|s| lk.contains(s)) && v.is_string();
                    let value = if secret {
                        Value::String(REDACTED.into())
                    } else {
                        redact_strings(v)
                    };
                    (k.clone(), value)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(redact_strings).collect()),
        Value::String(s) => Value::String(redact_text(s).into_owned()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted() {
        let v = serde_json::json!({
            "aws_secret_access_key": "x", "Token": "t", "weights": {"Stable": 9},
            "args": ["AKIAABCDEFGHIJKLMNOP", "fine"]
        });
        let r = redact(&v);
        assert_eq!(r["aws_secret_access_key"], "[redacted]");
        assert_eq!(r["Token"], "[redacted]");
        assert_eq!(r["weights"]["Stable"], 9);
        assert_eq!(r["args"][0], "[redacted]");
        assert_eq!(r["args"][1], "fine");
    }

    #[test]
    fn credential_shaped_values_are_redacted_anywhere() {
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        let token = "IQoJb3JpZ2luX2VjEJr".repeat(8);
        let v = serde_json::json!({
            "note": format!("export AWS_ACCESS_KEY_ID=ASIAABCDEFGHIJKLMNOP and secret={secret}"),
            "blob": format!("{token}=="),
            "x_api_key": 12345, "Authorization": "Bearer abc", "use_auth": true,
            "sha": "0123456789abcdef0123456789abcdef01234567",
            "request_id": "8f9e0c2a-1b2c-4d5e-8f9a-0b1c2d3e4f5a",
            "weights": {"Stable": 0.9},
        });
        let r = redact(&v);
        assert_eq!(r["note"], "export AWS_ACCESS_KEY_ID=[redacted] and secret=[redacted]");
        assert_eq!(r["blob"], "[redacted]");
        assert_eq!(r["x_api_key"], "[redacted]");
        assert_eq!(r["Authorization"], "[redacted]");
        assert_eq!(r["use_auth"], true);
        assert_eq!(r["sha"], v["sha"], "a lower-case hex digest is not a secret key");
        assert_eq!(r["request_id"], v["request_id"]);
        assert_eq!(r["weights"]["Stable"], 0.9);
        let text = "401 for Authorization: Bearer sk-live-0123456789abcdef; password=hunter2, \"api_key\": \"k-1\"";
        assert_eq!(
            redact_text(text),
            "401 for Authorization: Bearer [redacted]; password=[redacted], \"api_key\": \"[redacted]\""
        );
        let t = serde_json::json!({"tokens_in": 12, "result": "token: abc", "x_token": "t"});
        assert_eq!(
            redact_strings(&t),
            serde_json::json!({"tokens_in": 12, "result": "token: [redacted]", "x_token": "[redacted]"})
        );
    }
}
