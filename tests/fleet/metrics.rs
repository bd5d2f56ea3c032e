//! Metrics plan.
