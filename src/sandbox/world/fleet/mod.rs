//! The demo fleet (deterministic for a seed), generated endpoints for scale tests, and the metric
//! history backfilled at start so charts are not empty.

mod backfill;
mod catalog;
pub mod components;
mod demo;
pub mod deploy;
mod generated;
mod shapes;

use crate::sandbox::world::sandbox::Sandbox;

pub use components::{IC_ADAPTER, IC_BASE, IC_ENDPOINT};
pub use deploy::{DEMO_BUCKET, DEMO_MME_PREFIX, DEMO_NEXT_CONFIG, DEMO_NEXT_MODEL};
pub use shapes::{ASYNC_BUCKET, ASYNC_ENDPOINT, SERVERLESS_ENDPOINT, SHADOW_ENDPOINT};

/// Seeds the demo fleet and `extra_endpoints` generated ones, then backfills history.
pub fn seed(sb: &Sandbox) {
    if sb.config.demo_fleet {
        demo::seed_demo(sb);
    }
    if sb.config.extra_endpoints > 0 {
        generated::seed_generated(sb, sb.config.extra_endpoints);
    }
    if sb.config.backfill_hours > 0 {
        backfill::backfill(sb, sb.config.backfill_hours);
    }
}
