//! Guardrails over the wire against the sandbox: compare-and-swap weights, the audit log,
//! read-only refusals at every CLI entry point, metric-gated promotion plans (rollback on a
//! regressing canary, "no verdict" on too little traffic, kill -9 then --resume), and warm-set
//! prewarming under ModelNotReady and eviction.

mod alarm_gates;
mod audit_cas;
mod bake_load;
mod consolidate_refusals;
mod consolidation;
mod judge;
mod one_driver;
mod plan_end;
mod prewarm;
mod promote;
mod read_only;
mod support;
