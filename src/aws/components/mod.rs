//! Inference components: waking one from zero copies.

pub mod wake;
