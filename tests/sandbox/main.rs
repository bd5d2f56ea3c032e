//! Integration tests of the embedded sandbox, driven over HTTP by the official Rust SDK clients.

#[path = "../common/mod.rs"]
mod common;

mod autoscaling;
mod control;
mod faults;
mod mme;
mod runtime;
mod s3;
