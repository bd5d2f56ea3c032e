//! What a connected server says besides answers: its log (stderr lines of a stdio child and
//! `notifications/message`), progress, list changes, resource updates and elicitations, kept per server in a bounded
//! buffer and broadcast to whoever listens (the console's Tools tab, the CLI).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::SystemTime;

use parking_lot::Mutex;
use serde::Serialize;

/// Lines a server log keeps.
pub const LOG_CAPACITY: usize = 1000;

/// Where a log line came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LogSource {
    /// The child's standard error.
    Stderr,
    /// A `notifications/message` at this level.
    Notification(String),
    /// sagedeck itself (connects, re-lists, disconnects).
    Client,
}

/// One log line.
#[derive(Debug, Clone, Serialize)]
pub struct LogLine {
    /// When it arrived (seconds since the epoch).
    pub at: f64,
    /// Its source.
    pub source: LogSource,
    /// The text (one line).
    pub text: String,
}

/// A bounded per-server log, shared between the connection and its readers.
#[derive(Debug, Clone, Default)]
pub struct ServerLog {
    lines: Arc<Mutex<VecDeque<LogLine>>>,
}

impl ServerLog {
    /// Appends a line, dropping the oldest beyond [`LOG_CAPACITY`].
    pub fn push(&self, source: LogSource, text: impl Into<String>) {
        let at = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let mut lines = self.lines.lock();
        if lines.len() >= LOG_CAPACITY {
            lines.pop_front();
        }
        lines.push_back(LogLine {
            at,
            source,
            text: text.into(),
        });
    }

    /// The last `n` lines, oldest first.
    pub fn tail(&self, n: usize) -> Vec<LogLine> {
        let lines = self.lines.lock();
        lines.iter().skip(lines.len().saturating_sub(n)).cloned().collect()
    }

    /// The last `n` standard-error lines, oldest first.
    pub fn stderr_tail(&self, n: usize) -> Vec<String> {
        let lines = self.lines.lock();
        let mut out: Vec<String> = lines
            .iter()
            .rev()
            .filter(|l| l.source == LogSource::Stderr && !l.text.trim().is_empty())
            .take(n)
            .map(|l| l.text.clone())
            .collect();
        out.reverse();
        out
    }

    /// Number of lines held.
    pub fn len(&self) -> usize {
        self.lines.lock().len()
    }

    /// Whether it holds no line.
    pub fn is_empty(&self) -> bool {
        self.lines.lock().is_empty()
    }
}

/// One progress notification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// Progress so far.
    pub progress: f64,
    /// Total, when the server knows it.
    pub total: Option<f64>,
    /// Its message.
    pub message: Option<String>,
    /// When the call was answered with a task: its id and status (`ID working`); the message
    /// then says what the task is doing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

impl Progress {
    /// The fraction done in 0..=1, when a total is known.
    pub fn fraction(&self) -> Option<f64> {
        self.total
            .filter(|t| *t > 0.0)
            .map(|t| (self.progress / t).clamp(0.0, 1.0))
    }
}

/// Something a server did, broadcast to listeners.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ServerEvent {
    /// Progress of a call; `late` when it arrived after its call ended (or for no call of ours).
    Progress {
        /// The progress token (as text).
        token: String,
        /// The progress.
        #[serde(flatten)]
        progress: Progress,
        /// Whether no call was waiting for it.
        late: bool,
    },
    /// A `notifications/message`.
    Log {
        /// Level (`info`, `warning`, ...).
        level: String,
        /// Logger name.
        logger: Option<String>,
        /// The data, as one line of text.
        text: String,
    },
    /// The tool list changed and was listed again.
    ToolsChanged {
        /// Tools after the re-list.
        count: usize,
    },
    /// The resource list changed (`notifications/resources/list_changed`).
    ResourcesChanged,
    /// The prompt list changed (`notifications/prompts/list_changed`).
    PromptsChanged,
    /// A subscribed resource changed (`notifications/resources/updated`).
    ResourceUpdated {
        /// Its URI.
        uri: String,
    },
    /// The server asked for input and was answered.
    Elicited {
        /// Its message.
        message: String,
        /// `accepted`, `declined` or `cancelled`.
        answer: String,
    },
    /// The connection ended.
    Disconnected {
        /// Why, as one line.
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_is_bounded_and_tails() {
        let log = ServerLog::default();
        for i in 0..(LOG_CAPACITY + 5) {
            log.push(LogSource::Stderr, format!("line {i}"));
        }
        log.push(LogSource::Client, "connected");
        assert_eq!(log.len(), LOG_CAPACITY);
        assert_eq!(
            log.stderr_tail(2),
            vec![
                format!("line {}", LOG_CAPACITY + 3),
                format!("line {}", LOG_CAPACITY + 4)
            ]
        );
        assert_eq!(log.tail(1)[0].text, "connected");
        let p = Progress {
            progress: 3.0,
            total: Some(4.0),
            message: None,
            task: None,
        };
        assert_eq!(p.fraction(), Some(0.75));
    }
}
