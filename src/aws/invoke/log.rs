//! The variant log: one JSON line per invocation (`mcp serve --invocation-log FILE`, the console's
//! invoke and tool calls), naming the variant that answered, so that "which model version produced
//! each result" becomes data (`sagedeck variants-report`).
//!
//! A line holds the time, where it came from, the tool, endpoint, invoked variant (the response's
//! InvokedProductionVariant; the pinned TargetVariant when the failure did not name one), target
//! model, latency, status and error class, request and response sizes, and the SHA-256 of the
//! input. The input itself is written only when asked (`--log-inputs`).
//!
//! Writing is cheap and never fails an invocation: the file is opened once (append mode, 0600,
//! its directory 0700, like the audit log), each line goes out as one buffered write, and a write
//! that fails is reported once (the caller shows the warning) and the invocation goes on.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::aws::invoke::call::{InvokeFailure, InvokeResult, InvokeSpec};
use crate::local::private::{is_symlink_refusal, open_private_append};

/// The default file of the console and the demo: `<state dir>/invocations.jsonl`.
pub fn default_invocation_log_path() -> Option<PathBuf> {
    crate::local::dirs::state_dir().map(|d| d.join("invocations.jsonl"))
}

/// Whether the call answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The endpoint (or tool) answered.
    Ok,
    /// It failed; `error_class` says how.
    Error,
}

/// One line of the variant log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvocationRecord {
    /// RFC 3339 UTC time of the answer.
    pub time: String,
    /// The same time in epoch seconds.
    pub epoch: f64,
    /// Who invoked: `mcp-serve`, `console-invoke`, `console-tool`.
    pub source: String,
    /// The tool (`server/tool` for the console's calls), None for a plain invocation.
    pub tool: Option<String>,
    /// Endpoint name (None: a tool that did not say).
    pub endpoint: Option<String>,
    /// The variant that answered (or the pinned TargetVariant of a failure).
    pub variant: Option<String>,
    /// TargetVariant, when the call was pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_variant: Option<String>,
    /// TargetModel of a multi-model endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_model: Option<String>,
    /// The inference component called, on an endpoint that hosts components.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference_component: Option<String>,
    /// Client-side latency in ms: the answering attempt, or the whole call when it failed.
    pub latency_ms: f64,
    /// Ok or error.
    pub status: Status,
    /// The error class (`model_error`, `throttling`, ...), for errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_class: Option<String>,
    /// Attempts made (retries included).
    pub attempts: u32,
    /// Request body bytes.
    pub request_bytes: usize,
    /// Response body bytes (0 for errors).
    pub response_bytes: usize,
    /// SHA-256 (hex) of the input.
    pub input_sha256: String,
    /// The input itself, only with `--log-inputs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Now as (RFC 3339, epoch seconds).
pub fn now() -> (String, f64) {
    let dt = aws_smithy_types::DateTime::from(std::time::SystemTime::now());
    let text = dt
        .fmt(aws_smithy_types::date_time::Format::DateTime)
        .unwrap_or_default();
    (text, dt.as_secs_f64())
}

fn ms(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

impl InvocationRecord {
    /// A record stamped now with the input's hash and size; everything else empty (ok, 0 ms).
    pub fn new(source: &str, input: &[u8]) -> InvocationRecord {
        let (time, epoch) = now();
        InvocationRecord {
            time,
            epoch,
            source: source.to_string(),
            tool: None,
            endpoint: None,
            variant: None,
            target_variant: None,
            target_model: None,
            inference_component: None,
            latency_ms: 0.0,
            status: Status::Ok,
            error_class: None,
            attempts: 1,
            request_bytes: input.len(),
            response_bytes: 0,
            input_sha256: sha256_hex(input),
            input: None,
        }
    }

    /// The record of one fleet-layer invocation of `spec`.
    pub fn of_invoke(
        source: &str,
        tool: Option<&str>,
        spec: &InvokeSpec,
        outcome: &Result<InvokeResult, InvokeFailure>,
    ) -> InvocationRecord {
        let mut r = InvocationRecord::new(source, &spec.body);
        r.tool = tool.map(str::to_string);
        r.endpoint = Some(spec.endpoint.clone());
        r.target_variant = spec.target_variant.clone();
        r.target_model = spec.target_model.clone();
        r.inference_component = spec.inference_component.clone();
        match outcome {
            Ok(ok) => {
                r.variant = ok.invoked_variant.clone().or_else(|| spec.target_variant.clone());
                r.latency_ms = ms(ok.latency);
                r.attempts = ok.attempts;
                r.response_bytes = ok.body.len();
            }
            Err(f) => {
                r.variant = spec.target_variant.clone();
                r.latency_ms = ms(f.total);
                r.attempts = f.attempts;
                r.status = Status::Error;
                r.error_class = Some(f.error.class().to_string());
            }
        }
        r
    }
}

/// An open variant log (shareable between tasks).
#[derive(Debug)]
pub struct InvocationLog {
    path: PathBuf,
    log_inputs: bool,
    file: Mutex<std::io::BufWriter<std::fs::File>>,
    warned: AtomicBool,
}

impl InvocationLog {
    /// Opens (creating it, 0600, and its directory, 0700) `path` for appending; `log_inputs`
    /// keeps the input text in each line.
    pub fn open(path: impl AsRef<Path>, log_inputs: bool) -> Result<InvocationLog, String> {
        let path = path.as_ref().to_path_buf();
        let fail = |e: std::io::Error| format!("cannot open the invocation log {}: {e}", path.display());
        // Inputs may be written: the file is private, and a symbolic link is refused.
        let file = open_private_append(&path).map_err(|e| {
            if is_symlink_refusal(&e) {
                format!(
                    "refusing the invocation log {}: it is a symbolic link (give the file itself)",
                    path.display()
                )
            } else {
                fail(e)
            }
        })?;
        Ok(InvocationLog {
            path,
            log_inputs,
            file: Mutex::new(std::io::BufWriter::new(file)),
            warned: AtomicBool::new(false),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line for `record` (with `input` as text when the log keeps inputs). Never
    /// fails: the first failed write returns a warning for the caller to show, later ones none.
    pub fn append(&self, mut record: InvocationRecord, input: &[u8]) -> Option<String> {
        if self.log_inputs {
            record.input = Some(String::from_utf8_lossy(input).into_owned());
        }
        let mut line = serde_json::to_vec(&record).unwrap_or_default();
        line.push(b'\n');
        let written = {
            let mut f = self.file.lock();
            f.write_all(&line).and_then(|()| f.flush())
        };
        match written {
            Ok(()) => None,
            Err(e) if !self.warned.swap(true, Ordering::Relaxed) => Some(format!(
                "warning: cannot write the invocation log {}: {e}; invocations go on unlogged",
                self.path.display()
            )),
            Err(_) => None,
        }
    }
}

/// Earliest epoch second a record may carry (2000-01-01).
const EARLIEST_EPOCH: f64 = 946_684_800.0;
/// Latest epoch second a record may carry (2100-01-01).
const LATEST_EPOCH: f64 = 4_102_444_800.0;

impl InvocationRecord {
    /// Whether its time lies between 2000 and 2100 and its latency is a duration: a record
    /// outside would stretch every period of a report (or give it a negative latency).
    pub fn in_range(&self) -> bool {
        (EARLIEST_EPOCH..LATEST_EPOCH).contains(&self.epoch) && self.latency_ms.is_finite() && self.latency_ms >= 0.0
    }
}

/// A variant log as read back: its records, and the lines that were not records.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LogRead {
    /// The records, in file order.
    pub records: Vec<InvocationRecord>,
    /// Lines that are not records, or records out of range (skipped).
    pub bad_lines: usize,
    /// The number (1-based) of the first of them.
    pub first_bad_line: Option<usize>,
}

/// Reads a variant log; lines that are not records, and records whose time or latency is out
/// of range ([`InvocationRecord::in_range`]), are counted and skipped (blank lines ignored). Fails only when the file cannot be read.
pub fn read(path: &Path) -> Result<LogRead, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out = LogRead::default();
    for (i, line) in std::io::BufReader::new(file).split(b'\n').enumerate() {
        let line = line.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<InvocationRecord>(&line) {
            Ok(r) if r.in_range() => out.records.push(r),
            _ => {
                out.bad_lines += 1;
                out.first_bad_line.get_or_insert(i + 1);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn lines_round_trip_and_bad_lines_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/inv.jsonl");
        let log = InvocationLog::open(&path, false).unwrap();
        let mut r = InvocationRecord::new("test", b"hello");
        r.endpoint = Some("e".into());
        assert!(log.append(r.clone(), b"hello").is_none());
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"not json\n\n")
            .unwrap();
        assert!(log.append(r.clone(), b"hello").is_none());
        let back = read(&path).unwrap();
        assert_eq!(back.records, vec![r.clone(), r.clone()]);
        assert_eq!((back.bad_lines, back.first_bad_line), (1, Some(2)));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            sha256_hex(b"hello"),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert!(!std::fs::read_to_string(&path).unwrap().contains("\"input\""));
        let kept = dir.path().join("kept.jsonl");
        let log = InvocationLog::open(&kept, true).unwrap();
        assert!(log.append(r, b"hello").is_none());
        assert_eq!(read(&kept).unwrap().records[0].input.as_deref(), Some("hello"));
    }
}
