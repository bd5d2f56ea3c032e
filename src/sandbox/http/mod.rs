//! The front door: one HTTP/1.1 accept loop, the dispatch of every request to its service, the
//! wire codecs the services answer in, and a raw client for requests an SDK would never send.

pub mod accept;
pub mod admin;
pub mod connections;
pub mod raw_client;
pub mod region;
pub mod server;
pub mod wire;
