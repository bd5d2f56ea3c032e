//! A larger body for an asynchronous endpoint: where it is uploaded before InvokeEndpointAsync
//! names it as `InputLocation` — the S3 prefix of `:input-prefix s3://BUCKET/PREFIX/`, kept per
//! endpoint for the session, else `[invoke] async_input_prefix` of `config.toml`; with neither,
//! nothing is derived: the pane says in one line what to set — and the requests on their way
//! (uploading, or queueing inline) until InvokeEndpointAsync answers. `:body-file PATH` loads a
//! body too large to type.

use std::collections::HashMap;

use crate::aws::invoke::asynchronous::{MAX_INLINE_BODY, split_s3};

/// A request sent to the worker and not yet accepted or refused.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingAsync {
    /// The worker's job id, once submitted.
    pub job: Option<u64>,
    /// Endpoint.
    pub endpoint: String,
    /// The body's size in bytes.
    pub bytes: usize,
    /// The prefix it is being uploaded under (None: sent inline).
    pub upload_to: Option<String>,
}

/// Where the Invoke pane uploads the bodies too large to send inline.
#[derive(Debug, Default)]
pub struct InputPrefixes {
    /// Set with `:input-prefix`, per endpoint, for the session.
    by_endpoint: HashMap<String, String>,
    /// `[invoke] async_input_prefix` of `config.toml`.
    default: Option<String>,
}

impl InputPrefixes {
    /// Sets the configured prefix (`[invoke] async_input_prefix`).
    pub fn set_default(&mut self, prefix: Option<String>) {
        self.default = prefix;
    }

    /// The prefix in force for `endpoint`: its own, else the configured one.
    pub fn for_endpoint(&self, endpoint: &str) -> Option<&str> {
        self.by_endpoint
            .get(endpoint)
            .or(self.default.as_ref())
            .map(String::as_str)
    }

    /// `:input-prefix [s3://BUCKET/PREFIX/ | off]` on `endpoint`: the line to tell the operator,
    /// and whether it was taken (a prefix that is not an S3 location is refused).
    pub fn command(&mut self, endpoint: &str, arg: Option<&str>) -> (String, bool) {
        match arg.map(str::trim).filter(|a| !a.is_empty()) {
            None => (self.describe(endpoint), true),
            Some("off") => {
                self.by_endpoint.remove(endpoint);
                (
                    format!("{endpoint}: no input prefix of its own; {}", self.describe(endpoint)),
                    true,
                )
            }
            Some(prefix) => {
                let prefix = if prefix.trim_start_matches("s3://").contains('/') {
                    prefix.to_string()
                } else {
                    format!("{prefix}/")
                };
                match split_s3(&prefix).filter(|_| prefix.starts_with("s3://")) {
                    Some(_) => {
                        let text =
                            format!("{endpoint}: bodies over {MAX_INLINE_BODY} bytes are uploaded under {prefix}");
                        self.by_endpoint.insert(endpoint.to_string(), prefix);
                        (text, true)
                    }
                    None => (
                        format!("input prefix not set: {prefix} is not an s3://BUCKET/PREFIX/ location"),
                        false,
                    ),
                }
            }
        }
    }

    fn describe(&self, endpoint: &str) -> String {
        match (self.by_endpoint.get(endpoint), &self.default) {
            (Some(p), _) => format!("input prefix of {endpoint}: {p} (:input-prefix off clears it)"),
            (None, Some(p)) => format!("input prefix: {p} ([invoke] async_input_prefix of config.toml)"),
            (None, None) => format!("no input prefix: {}", how_to_set()),
        }
    }
}

/// What to set so that a larger body can be sent.
fn how_to_set() -> &'static str {
    "set one with :input-prefix s3://BUCKET/PREFIX/ or [invoke] async_input_prefix in config.toml"
}

/// Why a body of `len` bytes cannot be sent to `endpoint` (one line), or None when it goes
/// inline or has a prefix to be uploaded under.
pub fn refusal(len: usize, prefix: Option<&str>) -> Option<String> {
    (len > MAX_INLINE_BODY && prefix.is_none()).then(|| {
        format!(
            "{len} bytes is over the {MAX_INLINE_BODY}-byte inline limit and has nowhere to be uploaded: {}",
            how_to_set()
        )
    })
}

/// The body in the file at `path` (`:body-file PATH`), or why it cannot be loaded (one line).
pub fn read_body_file(path: &str) -> Result<String, String> {
    let path = path.trim();
    if path.is_empty() {
        return Err(":body-file needs a path".into());
    }
    let expanded = match path.strip_prefix("~/") {
        Some(rest) => std::env::var("HOME")
            .map(|h| format!("{h}/{rest}"))
            .unwrap_or(path.into()),
        None => path.to_string(),
    };
    let bytes = std::fs::read(&expanded).map_err(|e| format!("body not loaded: {path}: {e}"))?;
    String::from_utf8(bytes).map_err(|_| format!("body not loaded: {path} is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_the_endpoints_own_else_the_configured_one() {
        let mut p = InputPrefixes::default();
        assert_eq!(p.for_endpoint("queue"), None);
        let (text, _) = p.command("queue", None);
        assert!(
            text.contains(":input-prefix") && text.contains("async_input_prefix"),
            "{text}"
        );
        p.set_default(Some("s3://team/in/".into()));
        assert_eq!(p.for_endpoint("queue"), Some("s3://team/in/"));
        assert!(p.command("queue", Some("s3://mine/big/")).1);
        assert_eq!(p.for_endpoint("queue"), Some("s3://mine/big/"));
        assert_eq!(p.for_endpoint("other"), Some("s3://team/in/"));
        // A bucket alone gets its slash; what is not S3 is refused and changes nothing.
        assert!(p.command("b", Some("s3://bucket")).1);
        assert_eq!(p.for_endpoint("b"), Some("s3://bucket/"));
        let (text, taken) = p.command("queue", Some("/tmp/x"));
        assert!(!taken && text.contains("not an s3://"), "{text}");
        assert_eq!(p.for_endpoint("queue"), Some("s3://mine/big/"));
        p.command("queue", Some("off"));
        assert_eq!(p.for_endpoint("queue"), Some("s3://team/in/"));
    }

    #[test]
    fn a_large_body_without_a_prefix_is_refused_with_what_to_set() {
        assert_eq!(refusal(MAX_INLINE_BODY, None), None);
        assert_eq!(refusal(MAX_INLINE_BODY + 1, Some("s3://b/in/")), None);
        let text = refusal(MAX_INLINE_BODY + 1, None).unwrap();
        assert!(text.contains(":input-prefix s3://") && !text.contains('\n'), "{text}");
        assert!(
            read_body_file("/nonexistent/body.json")
                .unwrap_err()
                .contains("/nonexistent")
        );
    }
}
