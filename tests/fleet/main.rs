//! Integration tests of the fleet layer and the headless CLI, over the wire against the sandbox.

#[path = "../common/mod.rs"]
mod common;

mod catalog;
mod cli;
mod inventory;
mod metrics;
