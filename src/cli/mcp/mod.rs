//! The MCP commands: `tools list|call` (`tools.rs`, audited by `audit.rs`; elicitations answered
//! by `elicit.rs`, sampling as `sampling.rs` says), `tools login|logout` (`login.rs`),
//! `tools resources|read|prompts|prompt` (`resources.rs`), `tools tasks` (`tasks.rs`), their shared options (`args.rs`) and
//! `mcp serve`.

pub mod args;
pub mod audit;
pub mod elicit;
pub mod login;
pub mod resources;
pub mod sampling;
pub mod serve;
pub mod tasks;
pub mod tools;
