//! CloudWatch: the metric store (`metrics/`), alarms (`alarms/`), and the wire operations in
//! Smithy RPC v2 CBOR and awsJson1_0 (`api.rs` dispatches; GetMetricData in `query.rs`,
//! PutMetricData in `put.rs`, ListMetrics in `list.rs`).

pub mod alarms;
pub mod api;
pub mod list;
pub mod metrics;
pub mod params;
pub mod put;
pub mod query;
