//! The simulated world behind the services: the control-plane state and its lifecycles, the
//! variants' runtime simulation, the model containers, the demo fleet, generated traffic, the
//! regions, the clock, the shared state every service works on, and the demo's second person
//! (`teammate.rs`).

pub mod build;
pub mod clock;
pub mod components;
pub mod config;
pub mod containers;
pub mod deployment;
pub mod fleet;
pub mod hash;
pub mod queue;
pub mod resources;
pub mod sandbox;
pub mod serverless;
pub mod sessions;
pub mod state;
pub mod teammate;
pub mod ticker;
pub mod traffic;
pub mod variant;
