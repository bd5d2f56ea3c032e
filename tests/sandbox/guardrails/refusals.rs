//! Refusals (placeholder).
