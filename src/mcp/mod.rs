//! MCP: the client that test-invokes any MCP server's tools (stdio, streamable HTTP, legacy
//! HTTP+SSE), the registry of servers (`mcpServers` JSON), and `sagedeck mcp serve`, which
//! serves SageMaker endpoints as MCP tools through the fleet layer.

pub mod agent;
pub mod call;
pub mod client;
pub mod connect;
pub mod elicit;
pub mod events;
pub mod handler;
pub mod hub;
pub mod input;
pub mod lint;
pub mod listen;
pub mod oauth;
pub mod offer;
pub mod origin;
pub mod payload;
pub mod registry;
pub mod resources;
pub mod result;
pub mod sampling;
pub mod schema;
pub mod server;
pub mod stdio_lines;
pub mod tasks;
pub mod tools_config;
pub mod transport_sse;

pub use client::{CallError, CallOptions, CallOutcome, ConnectOptions, McpConnection};
pub use connect::ConnectError;
pub use hub::{EndpointLink, McpHub, ServerStatus, ServerView, endpoint_link};
pub use registry::{Registry, ServerEntry, TransportKind};
