//! The audit log: one JSON line per mutation, appended to a file and fsync'd. A mutation writes an
//! `intent` line BEFORE anything is sent (when that write fails, the caller must not send) and a
//! `result` line after, with the same `id`. Lines name the principal (STS GetCallerIdentity, when
//! it answers), profile, region, endpoint URL, action, target, before/after, result, AWS request
//! id and the operator's reason. Credentials are never written: values under secret-looking keys
//! and anything shaped like an AWS access key are redacted.
//!
//! With the team's trail attached ([`Audit::attach_team`]), every line also goes to its
//! CloudWatch Logs group, redacted the same way: the intent is put and answered before the
//! caller may send (it may send when the file or the group holds the intent; when neither
//! does, it must not), result lines follow in the background. A group that cannot be written
//! is told to the operator once; the file still guards.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::aws::change::redact::{redact, redact_strings, redact_text};
use crate::aws::change::team::TeamTrail;
use crate::aws::config::Fleet;
use crate::local::private::open_private_append;

/// The default audit file: `<state dir>/audit.jsonl`.
pub fn default_audit_path() -> Option<PathBuf> {
    crate::local::dirs::state_dir().map(|d| d.join("audit.jsonl"))
}

/// Whether a line records the intent (written before sending) or the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditPhase {
    /// Written and fsync'd before the mutation is sent.
    Intent,
    /// Written once the mutation answered (or failed).
    Result,
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// RFC 3339 UTC time.
    pub time: String,
    /// The same time in epoch seconds (for `--since`).
    pub epoch: f64,
    /// Pairs an intent with its result.
    pub id: String,
    /// Intent or result.
    pub phase: AuditPhase,
    /// Caller ARN from STS GetCallerIdentity (None when STS did not answer).
    pub principal: Option<String>,
    /// AWS profile.
    pub profile: String,
    /// Region.
    pub region: String,
    /// Endpoint URL override.
    pub endpoint_url: Option<String>,
    /// What was done: `weights.set`, `promote.step`, `promote.rollback`, `prewarm`, `tool.call`.
    pub action: String,
    /// What it was done to (endpoint name, tool name).
    pub target: String,
    /// State before (redacted).
    pub before: Value,
    /// Requested state (redacted).
    pub after: Value,
    /// Result lines: `ok`, `error: ...`; intent lines: None.
    pub result: Option<String>,
    /// AWS request id of the mutating call, when one answered.
    pub request_id: Option<String>,
    /// Why, as the operator typed it.
    pub reason: Option<String>,
}

/// The audit file could not be written: the mutation must not be sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("cannot write the audit log {path}: {message}; nothing was sent (fix it, or pass --audit-file PATH)")]
pub struct AuditError {
    /// The file.
    pub path: String,
    /// Why.
    pub message: String,
}

/// Who is acting, and where: written on every line.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AuditContext {
    /// Caller ARN (None when STS did not answer).
    pub principal: Option<String>,
    /// Profile.
    pub profile: String,
    /// Region.
    pub region: String,
    /// Endpoint URL override.
    pub endpoint_url: Option<String>,
}

impl AuditContext {
    /// The fleet's profile, region and endpoint URL, and the principal from STS
    /// GetCallerIdentity (5 s at most; None when it does not answer).
    pub async fn from_fleet(fleet: &Fleet) -> AuditContext {
        let call = fleet.sts.get_caller_identity().send();
        let principal = match tokio::time::timeout(Duration::from_secs(5), call).await {
            Ok(Ok(out)) => out.arn().map(str::to_string),
            _ => None,
        };
        AuditContext {
            principal,
            profile: fleet.profile.clone(),
            region: fleet.region.clone(),
            endpoint_url: fleet.endpoint_url.clone(),
        }
    }
}

/// What a mutation is about to do (the intent line's contents).
#[derive(Debug, Clone, Default)]
pub struct Mutation {
    /// Action name (`weights.set`, ...).
    pub action: String,
    /// Target (endpoint name, tool name).
    pub target: String,
    /// State before.
    pub before: Value,
    /// Requested state.
    pub after: Value,
    /// The operator's reason.
    pub reason: Option<String>,
}

/// An intent written to the log, waiting for its result.
#[derive(Debug, Clone)]
pub struct Pending {
    record: AuditRecord,
}

/// A line of the log for `m`, by `ctx`, stamped now (secrets in before/after redacted). Refusals
/// get an id of their own; intents one their result line repeats.
fn line_of(ctx: &AuditContext, m: Mutation, phase: AuditPhase, result: Option<String>) -> AuditRecord {
    let (time, epoch) = now();
    let id = match phase {
        AuditPhase::Intent => new_id(epoch),
        AuditPhase::Result => format!("refused-{}", (epoch * 1000.0) as u64),
    };
    AuditRecord {
        time,
        epoch,
        id,
        phase,
        principal: ctx.principal.clone(),
        profile: ctx.profile.clone(),
        region: ctx.region.clone(),
        endpoint_url: ctx.endpoint_url.clone(),
        action: m.action,
        target: m.target,
        before: redact(&m.before),
        after: redact(&m.after),
        result,
        request_id: None,
        reason: m.reason,
    }
}

/// An exclusive lock on an audit log, held until dropped.
#[derive(Debug)]
pub struct AuditLock {
    _file: std::fs::File,
}

/// An open audit log (append-only; shareable between tasks).
#[derive(Debug)]
pub struct Audit {
    path: PathBuf,
    file: Mutex<std::fs::File>,
    team: std::sync::OnceLock<std::sync::Arc<TeamTrail>>,
}

static SEQ: AtomicU64 = AtomicU64::new(0);

fn now() -> (String, f64) {
    let t = std::time::SystemTime::now();
    let dt = aws_smithy_types::DateTime::from(t);
    let text = dt
        .fmt(aws_smithy_types::date_time::Format::DateTime)
        .unwrap_or_default();
    (text, dt.as_secs_f64())
}

fn new_id(epoch: f64) -> String {
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    format!("{:x}-{:x}-{n}", (epoch * 1000.0) as u64, std::process::id())
}

impl Audit {
    /// Opens (creating it and its directory) the audit file for appending.
    pub fn open(path: impl AsRef<Path>) -> Result<Audit, AuditError> {
        let path = path.as_ref().to_path_buf();
        let fail = |e: std::io::Error| AuditError {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        // Private: the log names who changed what.
        let file = open_private_append(&path).map_err(fail)?;
        Ok(Audit {
            path,
            file: Mutex::new(file),
            team: std::sync::OnceLock::new(),
        })
    }

    /// Takes an exclusive advisory lock on the log (released when the returned lock drops):
    /// guarded changes sharing a log, in this process or another, run one at a time.
    pub async fn lock_exclusive(&self) -> Result<AuditLock, AuditError> {
        let path = self.path.clone();
        let fail = |message: String| AuditError {
            path: self.path.display().to_string(),
            message,
        };
        let locked = tokio::task::spawn_blocking(move || {
            use std::os::fd::AsRawFd;
            let file = std::fs::OpenOptions::new().append(true).open(&path)?;
            // SAFETY: flock only uses the descriptor, which `file` keeps open during the call.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(file)
        })
        .await
        .map_err(|e| fail(e.to_string()))?;
        locked
            .map(|_file| AuditLock { _file })
            .map_err(|e| fail(format!("cannot lock it: {e}")))
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Also writes every line to the team's trail from now on (once; a second call is ignored).
    pub fn attach_team(&self, team: std::sync::Arc<TeamTrail>) {
        let _ = self.team.set(team);
    }

    /// The team's trail the lines also go to, when one is attached.
    pub fn team(&self) -> Option<&std::sync::Arc<TeamTrail>> {
        self.team.get()
    }

    fn fail(&self, message: String) -> AuditError {
        AuditError {
            path: self.path.display().to_string(),
            message,
        }
    }

    /// A record as its line: JSON, redacted.
    fn line(&self, rec: &AuditRecord) -> Result<String, AuditError> {
        let value = serde_json::to_value(rec).map_err(|e| self.fail(e.to_string()))?;
        serde_json::to_string(&redact(&value)).map_err(|e| self.fail(e.to_string()))
    }

    /// Appends a line to the file and fsyncs it.
    fn append(&self, line: &str) -> Result<(), AuditError> {
        let mut f = self.file.lock();
        f.write_all(format!("{line}\n").as_bytes())
            .map_err(|e| self.fail(e.to_string()))?;
        f.sync_data().map_err(|e| self.fail(e.to_string()))
    }

    /// Appends one record as a JSON line and fsyncs it (and hands it to the team's trail, in
    /// the background, when one is attached).
    pub fn record(&self, rec: &AuditRecord) -> Result<(), AuditError> {
        let line = self.line(rec)?;
        let written = self.append(&line);
        if let Some(team) = self.team.get() {
            team.put_later(rec.epoch, line);
        }
        written
    }

    /// Writes (and fsyncs) the intent of a mutation, and puts it in the team's trail when one is
    /// attached. Only send the mutation when this is Ok: the file or the group holds it.
    pub async fn intent(&self, ctx: &AuditContext, m: Mutation) -> Result<Pending, AuditError> {
        let record = line_of(ctx, m, AuditPhase::Intent, None);
        let line = self.line(&record)?;
        let file = self.append(&line);
        let Some(team) = self.team.get() else {
            return file.map(|()| Pending { record });
        };
        match (file, team.put(record.epoch, line).await) {
            (Err(f), Err(g)) => Err(self.fail(format!(
                "{}; the team's audit trail {} was not written either: {g}",
                f.message,
                team.group()
            ))),
            (Err(f), Ok(())) => {
                team.tell_file(&f.to_string());
                Ok(Pending { record })
            }
            (Ok(()), Err(g)) => {
                team.tell_once(&g);
                Ok(Pending { record })
            }
            (Ok(()), Ok(())) => Ok(Pending { record }),
        }
    }

    /// Writes (and fsyncs) an intent from code that cannot wait (a token mint's gate): the file
    /// must hold it; the team's trail gets it in the background.
    pub fn intent_now(&self, ctx: &AuditContext, m: Mutation) -> Result<Pending, AuditError> {
        let record = line_of(ctx, m, AuditPhase::Intent, None);
        self.record(&record).map(|()| Pending { record })
    }

    /// Puts a line in the team's trail only (in the background; nothing when none is attached):
    /// what the team should know that is not a change of its own (a promotion plan's phase).
    pub fn announce(&self, ctx: &AuditContext, m: Mutation, note: &str) {
        let Some(team) = self.team.get() else { return };
        let record = line_of(ctx, m, AuditPhase::Result, Some(note.to_string()));
        if let Ok(line) = self.line(&record) {
            team.put_later(record.epoch, line);
        }
    }

    /// Writes a single result line for a mutation refused before anything was sent.
    pub fn refused(&self, ctx: &AuditContext, m: Mutation, why: &str) -> Result<(), AuditError> {
        self.record(&line_of(ctx, m, AuditPhase::Result, Some(format!("refused: {why}"))))
    }

    /// Writes the result of a mutation whose intent was written: `Ok(request id)` or the error.
    pub fn finish(&self, pending: &Pending, outcome: Result<Option<String>, String>) -> Result<(), AuditError> {
        self.finish_with(pending, outcome, Value::Null)
    }

    /// [`Audit::finish`] whose result line also carries `figures` (an object merged into
    /// `after`: what the intent could not know, such as the tokens a model spent).
    pub fn finish_with(
        &self,
        pending: &Pending,
        outcome: Result<Option<String>, String>,
        figures: Value,
    ) -> Result<(), AuditError> {
        let (time, epoch) = now();
        let mut rec = pending.record.clone();
        if let (Value::Object(after), Value::Object(more)) = (&mut rec.after, figures) {
            after.extend(more);
        }
        rec.time = time;
        rec.epoch = epoch;
        rec.phase = AuditPhase::Result;
        match outcome {
            Ok(id) => {
                rec.result = Some("ok".into());
                rec.request_id = id;
            }
            Err(e) => rec.result = Some(format!("error: {e}")),
        }
        self.record(&rec)
    }

    /// Reads a log, keeping records at or after `since` (epoch seconds). Lines that do not parse
    /// are skipped (a torn last line after a crash).
    pub fn read(path: impl AsRef<Path>, since: Option<f64>) -> Result<Vec<AuditRecord>, AuditError> {
        let path = path.as_ref();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(AuditError {
                    path: path.display().to_string(),
                    message: e.to_string(),
                });
            }
        };
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str::<AuditRecord>(l).ok())
            .filter(|r| since.is_none_or(|s| r.epoch >= s))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn intent_and_result_pair_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/audit.jsonl");
        let audit = Audit::open(&path).unwrap();
        let ctx = AuditContext::default();
        let p = audit
            .intent(
                &ctx,
                Mutation {
                    action: "weights.set".into(),
                    target: "ep".into(),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        audit.finish(&p, Ok(Some("rid".into()))).unwrap();
        let recs = Audit::read(&path, None).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!((recs[0].phase, recs[1].phase), (AuditPhase::Intent, AuditPhase::Result));
        assert_eq!(recs[0].id, recs[1].id);
        assert_eq!(recs[1].request_id.as_deref(), Some("rid"));
        assert!(Audit::read(&path, Some(recs[1].epoch + 1.0)).unwrap().is_empty());
    }
}
