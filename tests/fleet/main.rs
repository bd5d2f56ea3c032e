//! The fleet layer and the headless CLI over the wire against the sandbox, and their guardrails:
//! compare-and-swap weights, the audit log, read-only refusals, promotion plans, warm sets.

#[path = "../common/mod.rs"]
mod common;

mod audit_files;
mod autoscaling_change;
mod autoscaling_check;
mod catalog;
mod cli;
mod cli_output;
mod complete_period;
mod components;
mod deployments;
mod guardrails;
mod input_checks;
mod inventory;
mod judge_scipy;
mod layers;
mod logs;
mod math_alarms;
mod metrics;
mod openai_client;
mod openai_env;
mod plan_heartbeat;
mod refresh;
mod regions;
mod scale_to_zero;
mod sessions;
mod shapes;
mod timeline;
mod trail;
mod variants_report;
mod variants_report_range;
mod weights_race;
mod what_changed;
