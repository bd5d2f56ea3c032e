//! Reading how endpoints behave: CloudWatch metrics, the console's own client-side latency,
//! container logs, alarms, the timeline of what changed, and the team's audit trail.

pub mod alarms;
pub mod latency;
pub mod logs;
pub mod metrics;
pub mod team;
pub mod timeline;
