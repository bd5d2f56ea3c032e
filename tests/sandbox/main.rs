//! The embedded sandbox over the wire: every emulated service driven over HTTP by the official
//! Rust SDK clients, hand-built requests for the encoding edge cases, and the Python clients
//! (boto3, the AWS CLI) from a venv the setup installs.

#[path = "../common/mod.rs"]
mod common;

mod alarms;
mod alarms_boto3;
mod alarms_math;
mod autoscaling;
mod autoscaling_acts;
mod autoscaling_boto3;
mod cloudwatch;
mod compat_boto3;
mod component_scaling;
mod components;
mod control;
mod decoder_props;
mod deployments;
mod faults;
mod form_decoding;
mod front_door;
mod guardrails;
mod llm;
mod logs;
mod mme;
mod openai;
mod routing;
mod runtime;
mod s3;
mod scale;
mod sessions;
mod shapes;
mod slow_clients;
mod step_math;
mod tags;
mod validation;
