//! The team's audit trail: every audit record also written to a CloudWatch Logs group
//! (`audit_log_group` in config.toml, `--audit-log-group`), one stream per principal and host
//! (`bob@host-x`), both created on first use. An intent is put (and answered) before the
//! mutation is sent, as the file is written first; result lines follow in the background and
//! [`flush_all`] waits for them before a command ends. The audit log hands over each line
//! redacted, as it writes the file; `observe::team` reads the group back.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::aws::trail::event::shorten;
use crate::aws::{AwsError, Fleet};
use aws_sdk_cloudwatchlogs::types::InputLogEvent;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;

/// How the operator is told, once, that the team's trail could not be written.
pub type Notify = Arc<dyn Fn(String) + Send + Sync>;

/// A CloudWatch Logs group the audit records also go to.
pub struct TeamTrail {
    logs: aws_sdk_cloudwatchlogs::Client,
    group: String,
    stream: String,
    created: tokio::sync::Mutex<bool>,
    told: AtomicBool,
    in_flight: AtomicUsize,
    drained: tokio::sync::Notify,
    notify: Notify,
}

impl std::fmt::Debug for TeamTrail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamTrail")
            .field("group", &self.group)
            .field("stream", &self.stream)
            .finish()
    }
}

/// The trails of this process, for [`flush_all`].
static TRAILS: parking_lot::Mutex<Vec<Weak<TeamTrail>>> = parking_lot::Mutex::new(Vec::new());

/// The stream a principal writes from a host: `bob@host-x` (`:` and `*`, which CloudWatch Logs
/// refuses in a stream name, become `-`).
pub fn stream_name(principal: Option<&str>, host: &str) -> String {
    let who = principal.map_or_else(|| "unknown".to_string(), shorten);
    format!("{who}@{host}").replace([':', '*'], "-")
}

/// Whether an SDK error's code says the resource exists already.
fn exists(code: Option<&str>) -> bool {
    code == Some("ResourceAlreadyExistsException")
}

impl TeamTrail {
    /// The trail in `group` of `fleet`'s account and region, written by `principal` from this
    /// host; `notify` is told (once) when a write fails.
    pub fn new(fleet: &Fleet, group: &str, principal: Option<&str>, notify: Notify) -> Arc<TeamTrail> {
        let trail = Arc::new(TeamTrail {
            logs: fleet.logs.clone(),
            group: group.to_string(),
            stream: stream_name(principal, &crate::local::host::host_name()),
            created: tokio::sync::Mutex::new(false),
            told: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            drained: tokio::sync::Notify::new(),
            notify,
        });
        let mut all = TRAILS.lock();
        all.retain(|w| w.strong_count() > 0);
        all.push(Arc::downgrade(&trail));
        trail
    }

    /// The log group.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The stream this process writes.
    pub fn stream(&self) -> &str {
        &self.stream
    }

    /// Creates the group and the stream (once; existing ones are fine).
    async fn create(&self) -> Result<(), String> {
        let mut created = self.created.lock().await;
        if *created {
            return Ok(());
        }
        let group = self.logs.create_log_group().log_group_name(&self.group).send().await;
        if let Err(e) = group
            && !exists(e.code())
        {
            return Err(AwsError::from_sdk(e).to_string());
        }
        let stream = self
            .logs
            .create_log_stream()
            .log_group_name(&self.group)
            .log_stream_name(&self.stream)
            .send()
            .await;
        if let Err(e) = stream
            && !exists(e.code())
        {
            return Err(AwsError::from_sdk(e).to_string());
        }
        *created = true;
        Ok(())
    }

    /// Puts one line (an audit record, already redacted) stamped `epoch` into the stream; the
    /// error says why it was not written.
    pub async fn put(&self, epoch: f64, message: String) -> Result<(), String> {
        self.create().await?;
        let event = InputLogEvent::builder()
            .timestamp((epoch * 1000.0) as i64)
            .message(message)
            .build()
            .map_err(|e| e.to_string())?;
        let sent = self
            .logs
            .put_log_events()
            .log_group_name(&self.group)
            .log_stream_name(&self.stream)
            .log_events(event)
            .send()
            .await;
        match sent {
            Ok(out) => match out.rejected_log_events_info() {
                Some(r) => Err(format!("CloudWatch Logs rejected the record ({r:?})")),
                None => Ok(()),
            },
            Err(e) => {
                // A stream deleted since it was created: create it again next time.
                if e.code() == Some("ResourceNotFoundException") {
                    *self.created.lock().await = false;
                }
                Err(AwsError::from_sdk(e).to_string())
            }
        }
    }

    /// Tells the operator, the first time only, that the trail could not be written.
    pub fn tell_once(&self, why: &str) {
        if !self.told.swap(true, Ordering::SeqCst) {
            (self.notify)(format!(
                "the team's audit trail {} was not written ({why}); the audit file still guards every change",
                self.group
            ));
        }
    }

    /// Tells the operator that the audit file was not written while the group holds the line
    /// (every time: the file is the local guard).
    pub fn tell_file(&self, why: &str) {
        (self.notify)(format!("{why}; the team's audit trail {} holds the record", self.group));
    }

    /// Puts a line in the background (a result line: the mutation was already sent); a
    /// failure is told once. Without a runtime it is written nowhere but the file.
    pub fn put_later(self: &Arc<Self>, epoch: f64, message: String) {
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return;
        };
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let me = self.clone();
        handle.spawn(async move {
            if let Err(e) = me.put(epoch, message).await {
                me.tell_once(&e);
            }
            if me.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
                me.drained.notify_waiters();
            }
        });
    }

    /// Waits until the background puts are done, at most `limit`.
    pub async fn flush(&self, limit: Duration) {
        let wait = async {
            loop {
                let drained = self.drained.notified();
                if self.in_flight.load(Ordering::SeqCst) == 0 {
                    return;
                }
                drained.await;
            }
        };
        let _ = tokio::time::timeout(limit, wait).await;
    }
}

/// Waits (at most `limit` each) for every trail of this process to write its pending records:
/// a command calls it before it ends.
pub async fn flush_all(limit: Duration) {
    let trails: Vec<Arc<TeamTrail>> = TRAILS.lock().iter().filter_map(Weak::upgrade).collect();
    for t in trails {
        t.flush(limit).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_named_by_principal_and_host() {
        assert_eq!(
            stream_name(Some("arn:aws:sts::1:assumed-role/Admin/alice"), "host-x"),
            "Admin/alice@host-x"
        );
        assert_eq!(stream_name(Some("arn:aws:iam::1:user/bob"), "a:b*c"), "bob@a-b-c");
        assert_eq!(stream_name(None, "h"), "unknown@h");
    }
}
