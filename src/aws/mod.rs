//! The fleet layer: the only code that knows aws-config and the aws-sdk-* crates. The console,
//! the CLI and the MCP server call it; nothing here knows the sandbox exists.

pub mod alarms;
pub mod audit;
pub mod bake_load;
pub mod catalog;
pub mod config;
pub mod consolidate;
pub mod describe_cache;
pub mod dirs;
pub mod error;
pub mod guard;
pub mod inventory;
pub mod invocation_log;
pub mod invoke;
pub mod judge;
pub mod latency;
pub mod logs;
pub mod metrics;
pub mod multi;
pub mod prewarm;
pub mod progressive;
pub mod promote;
pub mod promote_consolidate;
pub mod promote_events;
pub mod promote_gate;
pub mod promote_run;
pub mod promote_send;
pub mod retry;
pub mod scaling;
pub mod scaling_change;
pub mod scaling_check;
pub mod scaling_lint;
#[cfg(test)]
mod scaling_lint_tests;
pub mod scaling_plan;
pub mod scaling_spec;
pub mod scaling_view;
pub mod stats;
pub mod timeline;
pub mod variants_report;
pub mod warmset;
pub mod weights;

pub use config::{AwsOptions, Fleet};
pub use error::AwsError;
pub use retry::RetryPolicy;
