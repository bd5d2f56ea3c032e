//! Invoking endpoints: one invocation (and the response stream), stateful sessions, the
//! OpenAI-compatible Chat Completions path with its bearer token, prewarming a multi-model
//! endpoint's models, and the variant log every invocation can be written to.

pub mod call;
pub mod instance;
pub mod log;
pub mod openai;
pub mod prewarm;
pub mod session;
