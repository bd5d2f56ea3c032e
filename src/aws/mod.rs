//! The fleet layer: the only code that knows aws-config and the aws-sdk-* crates. The console,
//! the CLI and the MCP server call it; nothing here knows the sandbox exists.
//!
//! The core sits at this folder's root ([`Fleet`] in `config.rs`, [`AwsError`], [`RetryPolicy`],
//! the describe cache every clone of a fleet shares); each feature is a folder above it. Imports
//! run one way, from the top of this list down (`tests/fleet/layers.rs` checks it, and that no
//! two files import each other, even through others):
//!
//! 1. the core: `mod.rs`, `config.rs`, `error.rs`, `retry.rs`, `cache.rs`, `budget.rs` (the
//!    control-plane budget of one account and region);
//! 2. [`endpoints`] (inventory, describe, catalog, warm sets, multi-region reads), [`invoke`]
//!    (invocations, prewarming, the variant log) and [`trail`] (CloudTrail: who changed what);
//! 3. [`change`] (weights, the compare-and-swap guard, the audit record);
//! 4. [`components`] (inference components: inventory, copies, rolling updates, the wake);
//! 5. [`observe`] (metrics, latency, logs, alarms, the timeline);
//! 6. [`judge`] (statistics, the per-metric judge, the variants report);
//! 7. [`scaling`] and [`promote`].

pub mod budget;
pub mod cache;
pub mod change;
pub mod components;
pub mod config;
pub mod deploy;
pub mod endpoints;
pub mod error;
pub mod invoke;
pub mod judge;
pub mod observe;
pub mod promote;
pub mod retry;
pub mod scaling;
pub mod trail;

pub use config::{AwsOptions, Fleet};
pub use error::AwsError;
pub use retry::RetryPolicy;
