//! The MCP commands: `tools list|call` (`tools.rs`, audited by `audit.rs`, sampling answered as
//! `sampling.rs` says) and `mcp serve`.

pub mod audit;
pub mod sampling;
pub mod serve;
pub mod tools;
