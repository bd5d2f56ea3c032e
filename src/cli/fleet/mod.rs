//! The commands that read the fleet (and `invoke`, `invoke-async` in `asynchronous.rs`,
//! `prewarm`): endpoints and the inventory across regions, describe, models and prewarm, metrics,
//! logs, alarms, timeline, audit; `openai-env` mints a bearer token for OpenAI clients. `view.rs` holds
//! the endpoint tables that `change/` shows too; `capacity.rs` waits for (and wakes) an inference
//! component at zero copies.

pub mod alarms;
pub mod asynchronous;
pub mod audit;
pub mod capacity;
pub mod endpoints;
pub mod inventory;
pub mod invoke;
pub mod logs;
pub mod metrics;
pub mod models;
pub mod openai_env;
pub mod timeline;
pub mod view;
