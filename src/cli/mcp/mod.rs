//! The MCP commands: `tools list|call` (`tools.rs`, audited by `audit.rs`), `tools login|logout`
//! (`login.rs`) and `mcp serve`.

pub mod audit;
pub mod login;
pub mod serve;
pub mod tools;
