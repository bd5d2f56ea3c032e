//! The trace of a run: a header (question, LLM endpoint, shape, template, servers, system prompt),
//! one record per step (the conversation sent, the body, the raw reply, the parsed call, the tool
//! result, LLM and tool latency, tokens, invoked variant, sagedeck's own time) and the end (why it
//! stopped, the answer). Saved as JSON Lines (`--transcript FILE.jsonl`), one record a line, each
//! written as it happens; read back for `--replay`.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::parse::ParsedCall;
use super::shape::Message;
use crate::aws::change::audit::redact_strings;

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The model answered without a tool call.
    FinalAnswer,
    /// `--max-steps` LLM calls were made.
    MaxSteps,
    /// The token budget was spent.
    TokenBudget,
    /// The wall-clock deadline passed.
    Deadline,
    /// Too many consecutive bad steps (unknown tool, malformed JSON, bad arguments, tool errors).
    Retries,
    /// A call was denied (or `--approve never`).
    Denied,
    /// The LLM endpoint failed (after the fleet layer's retries).
    LlmError,
    /// Cancelled by the operator.
    Cancelled,
    /// The audit log (or the transcript) cannot be written: nothing more was sent.
    Refused,
    /// The next request would be over SageMaker's 6 MB cap: it was not sent.
    TooLarge,
}

impl Stop {
    /// One line for the operator.
    pub fn describe(self) -> &'static str {
        match self {
            Stop::FinalAnswer => "final answer",
            Stop::MaxSteps => "stopped: --max-steps reached without a final answer",
            Stop::TokenBudget => "stopped: the token budget is spent",
            Stop::Deadline => "stopped: the deadline passed",
            Stop::Retries => "stopped: too many consecutive bad steps (see the errors above)",
            Stop::Denied => "stopped: a tool call was denied",
            Stop::LlmError => "stopped: the LLM endpoint failed",
            Stop::Cancelled => "stopped: cancelled",
            Stop::Refused => "stopped: the audit log or the transcript cannot be written; nothing more was sent",
            Stop::TooLarge => "stopped: the next request would be over SageMaker's 6 MB limit; it was not sent",
        }
    }
}

/// The tool call of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolTrace {
    /// Server it was sent to.
    pub server: String,
    /// Tool.
    pub tool: String,
    /// Arguments sent (after an edit, if any).
    pub arguments: Value,
    /// The result as text.
    pub result: String,
    /// Whether the tool answered isError (or the call failed).
    pub is_error: bool,
    /// Tool latency in milliseconds.
    pub ms: f64,
}

/// One step: an LLM call and what followed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based.
    pub step: u32,
    /// The conversation the LLM was sent.
    pub messages: Vec<Message>,
    /// The body sent.
    pub request: Value,
    /// The reply's text (for native calls, the message as JSON).
    pub raw_reply: String,
    /// The call found in it.
    pub parsed: Option<ParsedCall>,
    /// What was wrong with the step (sent back to the model), if anything.
    pub problem: Option<String>,
    /// The approval asked for and its answer.
    pub approval: Option<String>,
    /// The tool call.
    pub tool: Option<ToolTrace>,
    /// LLM latency (ms, retries included).
    pub llm_ms: f64,
    /// Attempts the LLM call took.
    pub llm_attempts: u32,
    /// Tokens in, where the container reports them.
    pub tokens_in: Option<u64>,
    /// Tokens out, where the container reports them.
    pub tokens_out: Option<u64>,
    /// The variant that answered.
    pub invoked_variant: Option<String>,
    /// The stateful session the LLM call was kept in (`--session`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The instance that answered the LLM call, where the runtime names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// sagedeck's own time in the step (ms): everything but the LLM, the tool and approval
    /// (audit log writes included).
    pub own_ms: f64,
    /// The part of `own_ms` spent writing and fsyncing audit lines.
    #[serde(default)]
    pub audit_ms: f64,
}

/// The first record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Run id (also in the audit log).
    pub run_id: String,
    /// The question.
    pub question: String,
    /// LLM endpoint.
    pub llm: String,
    /// Request shape.
    pub shape: String,
    /// Template (generate).
    pub template: Option<String>,
    /// Servers.
    pub servers: Vec<String>,
    /// The system prompt.
    pub system_prompt: String,
    /// Start time (epoch seconds).
    pub started: f64,
    /// The run this one re-runs, and from which step.
    pub rerun_of: Option<(String, u32)>,
}

/// The last record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct End {
    /// Why it ended.
    pub stop: Stop,
    /// The final answer (when there is one).
    pub answer: Option<String>,
    /// Detail (the LLM error, the problem that exhausted retries).
    pub detail: Option<String>,
    /// Steps taken.
    pub steps: u32,
    /// Tokens used (reported ones).
    pub tokens: u64,
    /// Wall time (ms).
    pub total_ms: f64,
}

/// A record of the transcript file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The header.
    Run(Header),
    /// A step.
    Step(Box<Step>),
    /// The end.
    End(End),
}

/// A whole run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    /// The header.
    pub header: Header,
    /// Steps.
    pub steps: Vec<Step>,
    /// The end (None while running, or if the run died).
    pub end: Option<End>,
}

/// Appends records to a `.jsonl` file as they happen: private (0600, whatever the umask), every
/// record redacted as the audit log is ([`redact_strings`]: bearer tokens, AWS-shaped keys, named
/// passwords and secrets), and the first failed write kept for the caller to report.
#[derive(Debug)]
pub struct TranscriptFile {
    path: std::path::PathBuf,
    file: std::fs::File,
    failed: Option<String>,
}

impl TranscriptFile {
    /// Creates (truncates) the file, readable by its owner only.
    pub fn create(path: &Path) -> Result<TranscriptFile, String> {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let fail = |e: std::io::Error| format!("cannot write the transcript {}: {e}", path.display());
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)
            .map_err(fail)?;
        // A file that was there before keeps its mode through `open`: a regular one is made
        // private (a device such as /dev/null is left alone).
        let meta = file.metadata().map_err(fail)?;
        if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(fail)?;
        }
        Ok(TranscriptFile {
            path: path.to_path_buf(),
            file,
            failed: None,
        })
    }

    /// Writes one record (redacted); a failure is also kept (see [`TranscriptFile::failure`]).
    pub fn write(&mut self, record: &Record) -> Result<(), String> {
        let written = serde_json::to_value(record)
            .map_err(|e| e.to_string())
            .and_then(|v| serde_json::to_string(&redact_strings(&v)).map_err(|e| e.to_string()))
            .and_then(|line| writeln!(self.file, "{line}").map_err(|e| e.to_string()))
            .map_err(|e| format!("cannot write the transcript {}: {e}", self.path.display()));
        if let Err(e) = &written
            && self.failed.is_none()
        {
            self.failed = Some(e.clone());
        }
        written
    }

    /// The first write that failed, if one did.
    pub fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }
}

impl Transcript {
    /// The records, in file order.
    pub fn records(&self) -> Vec<Record> {
        let mut out = vec![Record::Run(self.header.clone())];
        out.extend(self.steps.iter().cloned().map(|s| Record::Step(Box::new(s))));
        out.extend(self.end.clone().map(Record::End));
        out
    }

    /// Reads a `.jsonl` transcript.
    pub fn read(path: &Path) -> Result<Transcript, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read the transcript {}: {e}", path.display()))?;
        let mut t = Transcript::default();
        let mut has_header = false;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let rec: Record = serde_json::from_str(line)
                .map_err(|e| format!("{} line {}: not a transcript record: {e}", path.display(), i + 1))?;
            match rec {
                Record::Run(h) => {
                    t.header = h;
                    has_header = true;
                }
                Record::Step(s) => t.steps.push(*s),
                Record::End(e) => t.end = Some(e),
            }
        }
        if !has_header {
            return Err(format!(
                "{}: no run header; is it a sagedeck transcript?",
                path.display()
            ));
        }
        Ok(t)
    }
}
