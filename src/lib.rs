//! sagedeck: a terminal operations console for Amazon SageMaker real-time endpoints that back
//! MCP tools, with an embedded SageMaker-compatible sandbox for demos and tests.

pub mod aws;
pub mod cli;
pub mod format;
pub mod local;
pub mod mcp;
pub mod sandbox;
pub mod tui;
