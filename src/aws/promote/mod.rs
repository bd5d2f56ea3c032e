//! Promotion plans: a canary's share raised step by step, each step baked (with load, when
//! asked) and gated, then consolidated onto the canary alone. The plan and its persisted state
//! (`plan.rs`), what a gate checks and found (`report.rs`), the gate (`gate.rs`), the runner
//! (`run.rs`, its vocabulary in `events.rs`, its sends in `send.rs`, its last step in
//! `last_step.rs`), consolidation (`consolidate.rs`), the bake load (`bake_load.rs`), and a shadow variant judged
//! against production and promoted (`shadow.rs`), the plan announced in the team's audit trail
//! (`announce.rs`).

pub mod announce;
pub mod bake_load;
pub mod consolidate;
pub mod events;
pub mod gate;
pub mod last_step;
pub mod lock;
pub mod plan;
pub mod report;
pub mod run;
pub mod send;
pub mod shadow;
