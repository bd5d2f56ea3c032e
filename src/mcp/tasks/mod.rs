//! MCP tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663, as rmcp 3.11 implements
//! it): `serve.rs` is the server side — asynchronous endpoints as task tools in `sagedeck mcp
//! serve` —, `client.rs` the client side — a call a server answers with a task, followed with
//! `tasks/get` to its end, cancelled with `tasks/cancel` — in either of two dialects, the
//! extension's or 2025-11-25's experimental tasks (`experimental.rs`).

pub mod client;
pub mod experimental;
pub mod serve;

pub use client::TaskRun;
pub use serve::{TASK_TTL, TaskTools, asynchronous_endpoints, follow};
