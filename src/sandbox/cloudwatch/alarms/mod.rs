//! CloudWatch alarms in the sandbox: metric alarms evaluated over the sandbox's own metric store,
//! composite alarms over other alarms' states, manual state changes, and a bounded history.
//!
//! The wire operations (PutMetricAlarm, PutCompositeAlarm, DescribeAlarms, DeleteAlarms,
//! SetAlarmState, DescribeAlarmHistory) live in `api/` and are served in both CloudWatch
//! protocols by `cloudwatch/api.rs`. Other parts of the sandbox use [`AlarmStore`] in-process:
//!
//! ```ignore
//! sb.alarms.put_metric_alarm(MetricAlarmSpec::new("latency-high", "AWS/SageMaker", "ModelLatency")
//!     .with_dimensions(vec![("EndpointName".into(), "ep".into())]) /* ... */, now)?;
//! let state = sb.alarms.state("latency-high"); // Some(AlarmState { value, reason, .. })
//! ```
//!
//! Evaluation (on the sandbox's background tick, see [`AlarmStore::evaluate`]): a metric alarm
//! looks at its last `EvaluationPeriods` periods, aligned to multiples of `Period` since the
//! epoch, the newest being the period that contains now. A period without data is missing and is
//! treated as `TreatMissingData` says. The alarm is ALARM when at least `DatapointsToAlarm`
//! (default: `EvaluationPeriods`) periods breach, OK when some data is there and fewer breach,
//! and when every period is missing: INSUFFICIENT_DATA (`missing`), unchanged (`ignore`), ALARM
//! (`breaching`) or OK (`notBreaching`). A metric-math alarm (`Metrics`, see [`math`]) is
//! evaluated the same way on the value of its returned query in each period. Composite alarms are then evaluated on their children's
//! states: ALARM when the rule is true, else OK. A new alarm starts INSUFFICIENT_DATA ("Unchecked:
//! Initial alarm creation"); updating an alarm replaces its configuration and keeps its state. A
//! state set by SetAlarmState holds for [`SET_STATE_HOLD_SECONDS`] before evaluation resumes
//! (AWS re-evaluates within about a minute).

mod alarm;
pub mod api;
mod evaluate;
pub mod math;
mod output;
pub mod rule;
pub mod state_value;
pub mod store;
pub mod types;

pub use alarm::HistoryItem;
pub use math::{MetricQuery, MetricStatQuery, QuerySource};
pub use rule::Rule;
pub use state_value::StateValue;
pub use store::{AlarmStore, SET_STATE_HOLD_SECONDS};
pub use types::{AlarmError, AlarmState, Comparison, CompositeAlarmSpec, MetricAlarmSpec, TreatMissing};
