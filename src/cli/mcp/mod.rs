//! The MCP commands: `tools list|call` (`tools.rs`, audited by `audit.rs`) and `mcp serve`.

pub mod audit;
pub mod serve;
pub mod tools;
