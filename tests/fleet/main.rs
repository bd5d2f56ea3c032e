//! The fleet layer and the headless CLI over the wire against the sandbox, and their guardrails:
//! compare-and-swap weights, the audit log, read-only refusals, promotion plans, warm sets.

#[path = "../common/mod.rs"]
mod common;

mod catalog;
mod cli;
mod guardrails;
mod inventory;
mod judge_scipy;
mod metrics;
