//! The MCP commands: `tools list|call` (`tools.rs`, audited by `audit.rs`, sampling answered as
//! `sampling.rs` says), `tools login|logout` (`login.rs`) and `mcp serve`.

pub mod audit;
pub mod login;
pub mod sampling;
pub mod serve;
pub mod tools;
