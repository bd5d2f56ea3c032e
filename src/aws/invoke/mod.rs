//! Invoking endpoints: one invocation (and the response stream), stateful sessions, asynchronous
//! requests and following them to their output or failure object (`asynchronous.rs`), the
//! OpenAI-compatible Chat Completions path with its bearer token, prewarming a multi-model
//! endpoint's models, and the variant log every invocation can be written to.

pub mod asynchronous;
pub mod call;
pub mod instance;
pub mod log;
pub mod openai;
pub mod prewarm;
pub mod session;
