//! The team's audit trail read back: every principal's and host's audit records in a
//! CloudWatch Logs group (FilterLogEvents), merged by time, each with the stream that wrote it
//! (`bob@host-x`). `sagedeck audit --log-group`, the Activity pane and `promote --status` read
//! it.

use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use serde::Serialize;

use crate::aws::change::audit::AuditRecord;
use crate::aws::{AwsError, Fleet};

/// One record of the team's trail, with the stream (principal and host) that wrote it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamRecord {
    /// The record as written.
    #[serde(flatten)]
    pub record: AuditRecord,
    /// The stream it was written to (`bob@host-x`).
    pub stream: String,
    /// The host that wrote it (from the stream name).
    pub host: String,
}

impl Fleet {
    /// The team's trail in `group` since `since` (epoch seconds), oldest first, at most
    /// `max_pages` FilterLogEvents pages. A group that does not exist yet holds nothing.
    pub async fn read_team_trail(
        &self,
        group: &str,
        since: f64,
        max_pages: usize,
    ) -> Result<Vec<TeamRecord>, AwsError> {
        let mut out = Vec::new();
        let mut token = None;
        for _ in 0..max_pages {
            let page = self
                .logs
                .filter_log_events()
                .log_group_name(group)
                .start_time((since * 1000.0) as i64)
                .set_next_token(token)
                .send()
                .await;
            let page = match page {
                Ok(p) => p,
                Err(e) if e.code() == Some("ResourceNotFoundException") => return Ok(Vec::new()),
                Err(e) => return Err(AwsError::from_sdk(e)),
            };
            for e in page.events() {
                let Some(record) = e.message().and_then(|m| serde_json::from_str::<AuditRecord>(m).ok()) else {
                    continue;
                };
                let stream = e.log_stream_name().unwrap_or("-").to_string();
                let host = stream.rsplit_once('@').map_or("-", |(_, h)| h).to_string();
                out.push(TeamRecord { record, stream, host });
            }
            token = page.next_token().filter(|t| !t.is_empty()).map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        out.sort_by(|a, b| a.record.epoch.total_cmp(&b.record.epoch));
        Ok(out)
    }
}
