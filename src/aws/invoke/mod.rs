//! Invoking endpoints: one invocation (and the response stream), prewarming a multi-model
//! endpoint's models, and the variant log every invocation can be written to.

pub mod call;
pub mod log;
pub mod prewarm;
