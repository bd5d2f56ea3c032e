//! Reading how endpoints behave: CloudWatch metrics, the console's own client-side latency,
//! container logs, alarms, and the timeline of what changed.

pub mod alarms;
pub mod latency;
pub mod logs;
pub mod metrics;
pub mod timeline;
