//! What sagedeck keeps on this machine, below every other part (it imports nothing of ours):
//! where configuration and state live (`dirs.rs`) and the private append-only files the audit
//! log and the variant log are written to (`private.rs`), and this machine's name (`host.rs`).

pub mod dirs;
pub mod host;
pub mod private;
