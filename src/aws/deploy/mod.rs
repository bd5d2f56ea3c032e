//! Deployments run by SageMaker itself (UpdateEndpoint with a DeploymentConfig: blue/green all
//! at once, canary or linear, or rolling, with alarms that roll it back): the policy and its
//! checks before sending (`policy.rs`), the schedule from the live instance counts
//! (`schedule.rs`), the configuration written for `--model` and the facts both read
//! (`new_config.rs`), the gate alarms (`gate_alarms.rs`), the guarded, audited start
//! (`send.rs`), the plan the CLI and the console share (`plan.rs`), and following it from any
//! process: the stepper and the outcome (`stepper.rs`), the watch loop (`watch.rs`).

pub mod gate_alarms;
pub mod new_config;
pub mod plan;
pub mod policy;
pub mod schedule;
pub mod send;
pub mod stepper;
pub mod watch;
