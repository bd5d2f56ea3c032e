//! The embedded sandbox over the wire: every emulated service driven over HTTP by the official
//! Rust SDK clients, hand-built requests for the encoding edge cases, and the Python clients
//! (boto3, the AWS CLI) from a venv the setup installs.

#[path = "../common/mod.rs"]
mod common;

mod autoscaling;
mod cloudwatch;
mod compat_boto3;
mod control;
mod faults;
mod llm;
mod mme;
mod runtime;
mod s3;
