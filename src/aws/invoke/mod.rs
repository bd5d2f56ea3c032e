//! Invoking endpoints: one invocation (and the response stream), asynchronous requests and
//! following them to their output or failure object (`asynchronous.rs`), prewarming a multi-model
//! endpoint's models, and the variant log every invocation can be written to.

pub mod asynchronous;
pub mod call;
pub mod log;
pub mod prewarm;
